"""The data set format: the evaluation labels written from a scene's record."""

from __future__ import annotations

import json

from cribcam.datagen.yolo import label_lines, make_dirs, write_eval_labels
from cribcam.vision.evaluate import load_labels


def _card(code: str, seen: list[float], labelled: list[bool]) -> dict:
    return {"code": code, "face_up": True, "readable": any(labelled),
            "corners": [{"seen": s, "labelled": la} for s, la in zip(seen, labelled)]}


def test_a_card_whose_index_shows_in_part_is_named_as_partly_shown(tmp_path):
    """A card read from a labelled corner is labelled; one with some index ink in view but no
    corner labelled (under another card, or its box cut to nothing by the frame) is partly shown;
    one wholly hidden and a card face down are neither."""
    make_dirs(tmp_path, ["train"])
    cards = [_card("5H", [0.95, 0.4], [True, False]), _card("JD", [0.6, 0.0], [False, False]),
             _card("2C", [0.9, 0.0], [False, False]), _card("KS", [0.0, 0.0], [False, False]),
             {"code": "QH", "face_up": False, "readable": False}]
    record = {"image": "0000000.jpg", "width": 100, "height": 100, "deck": "fake", "starter": None,
              "cards": cards}
    (tmp_path / "meta" / "train" / "0000000.json").write_text(json.dumps(record))
    (tmp_path / "labels" / "train" / "0000000.txt").write_text(label_lines([("5H", (10, 10, 20, 30))], 100, 100))
    entry = load_labels(write_eval_labels(tmp_path, "train"))["0000000.jpg"]
    assert entry["cards"] == [{"card": "5H", "box": [10.0, 10.0, 20.0, 30.0]}]
    assert entry["partly_shown"] == ["2C", "JD"]
    assert entry["cards_in_view"] == 3  # a player counts the cards shown in part with the 5H


def test_a_scene_of_cards_shown_whole_gives_no_count_of_its_own(tmp_path):
    make_dirs(tmp_path, ["train"])
    record = {"image": "0000000.jpg", "width": 100, "height": 100, "deck": "fake", "starter": None,
              "cards": [_card("5H", [0.95, 0.4], [True, False]), _card("KS", [0.0, 0.0], [False, False])]}
    (tmp_path / "meta" / "train" / "0000000.json").write_text(json.dumps(record))
    (tmp_path / "labels" / "train" / "0000000.txt").write_text(label_lines([("5H", (10, 10, 20, 30))], 100, 100))
    entry = load_labels(write_eval_labels(tmp_path, "train"))["0000000.jpg"]
    assert "cards_in_view" not in entry and "partly_shown" not in entry


def test_a_record_may_name_its_partly_shown_cards_itself(tmp_path):
    """The real photos carry no ink fractions: the cards an edge pass found in part are named in
    the record, and join those its corners show in part, once each."""
    make_dirs(tmp_path, ["val"])
    record = {"image": "IMG_1.jpg", "width": 640, "height": 640, "subset": "phone", "starter": None,
              "cards": [_card("5C", [1.0], [True]), _card("TD", [0.5], [False])],
              "partly_shown": ["TD", "TH"], "cards_in_view": 2}
    (tmp_path / "meta" / "val" / "IMG_1.json").write_text(json.dumps(record))
    (tmp_path / "labels" / "val" / "IMG_1.txt").write_text(label_lines([("5C", (24, 107, 158, 215))], 640, 640))
    entry = load_labels(write_eval_labels(tmp_path, "val"))["IMG_1.jpg"]
    assert [c["card"] for c in entry["cards"]] == ["5C"]
    assert entry["partly_shown"] == ["TD", "TH"] and entry["subset"] == "phone"
    assert entry["cards_in_view"] == 2  # the record's own count: a red "10" may be either
