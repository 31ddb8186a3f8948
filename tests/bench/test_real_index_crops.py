"""bench/real_index_crops.py without the pp_2021 crops: the folder names it reads as cards, where
it finds the crops, how it counts what the reader made of them, and a run end to end on crops cut
here from a shared test photo (tests/data/photos), filed right and filed wrong."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from cribcam.scoring.cards import CardError

ROOT = Path(__file__).resolve().parents[2]
PHOTO = ROOT / "tests" / "data" / "photos" / "closeup-3-cards.jpg"
_spec = importlib.util.spec_from_file_location("real_index_crops", ROOT / "bench" / "real_index_crops.py")
bench = sys.modules[_spec.name] = importlib.util.module_from_spec(_spec)  # its dataclass looks itself up
_spec.loader.exec_module(bench)


def test_a_folder_is_named_for_its_card_and_ten_is_spelt_10():
    assert [bench.card_of(name) for name in ("10C", "2D", "QH", "AS", "NONE")] == ["TC", "2D", "QH", "AS", None]
    for name in ("joker", "11C", "1S"):
        with pytest.raises(CardError):
            bench.card_of(name)


def test_the_crops_are_found_in_cards_a_or_below_a_parent_and_checkpoint_copies_left_out(tmp_path):
    cards_a = tmp_path / "pytorch" / "card_detection_data" / "cards_A"
    for folder, names in {"10C": ["a.jpg", "b.jpg"], "NONE": ["c.jpg"], ".ipynb_checkpoints": ["a-checkpoint.jpg"],
                          "8D/.ipynb_checkpoints": ["d-checkpoint.jpg"], "8D": ["notes.txt"]}.items():
        (cards_a / folder).mkdir(parents=True, exist_ok=True)
        for name in names:
            (cards_a / folder / name).write_bytes(b"")
    found = [(label, path.name) for label, path in bench.crops(tmp_path)]
    assert found == [("TC", "a.jpg"), ("TC", "b.jpg"), (None, "c.jpg")]
    assert bench.crops(cards_a) == bench.crops(tmp_path / "pytorch") == bench.crops(tmp_path)
    with pytest.raises(SystemExit, match="no crops"):
        bench.crops(cards_a / "10C")  # one card's folder: no card-named folders in it


def _outcome(label, read=(), guesses=(), unsure=False, warns=False, boxed=True):
    said = "right" if list(read) == [label] else "not read" if not read else "wrong"
    if label is None:
        said = "wrong" if read else "right"
    return bench.Outcome("x/y.jpg", label, tuple(read), said, unsure, warns, tuple(guesses), (), boxed)


def test_each_crop_is_counted_once_by_what_was_read():
    figures = bench.tally([
        _outcome("6D", ["6D"]),
        _outcome("6D", ["6D"], unsure=True, warns=True),
        _outcome("6D", guesses=["QD"], warns=True),
        _outcome("6S", guesses=["6S"], warns=True),
        _outcome("3S", boxed=False),
        _outcome("3S", ["3D"], unsure=True, warns=True),
        _outcome("9C", ["QH"]),
        _outcome(None, boxed=False),
        _outcome(None, ["AS"], unsure=True, warns=True),
    ])
    assert (figures["card_crops"], figures["right"], figures["not_read"], figures["wrong"]) == (7, 2, 3, 2)
    assert (figures["right_warned"], figures["not_read_guessed"], figures["not_read_guess_right"]) == (1, 2, 1)
    assert (figures["wrong_unsure"], figures["wrong_warned"], figures["wrong_rank"], figures["wrong_suit"]) == \
        (1, 1, 1, 2)
    assert (figures["no_card_crops"], figures["no_card_read_as_card"], figures["no_card_read_as_card_warned"]) == \
        (2, 1, 1)
    assert figures["finder_boxed"] == {"card_crops": round(6 / 7, 3), "no_card_crops": 0.5}
    assert figures["by_rank"] == {"3": {"not read": 1, "wrong": 1}, "6": {"right": 2, "not read": 2},
                                  "9": {"wrong": 1}}
    assert figures["by_suit"]["S"] == {"not read": 2, "wrong": 1}
    assert figures["rank_confusions"] == [["9", "Q", 1]]
    assert figures["suit_confusions"] == [["S", "D", 1], ["C", "H", 1]]
    assert figures["card_confusions"] == [["3S", "3D", 1], ["9C", "QH", 1]]


def test_crops_cut_from_a_photo_are_right_under_their_card_and_wrong_under_another(tmp_path, shipped_models):
    """Each card's index corner of the photo, cut to 224 x 224 as the pp_2021 crops are, filed
    under the card read from the whole photo and under the card one rank up; and a bare crop
    in NONE. Whatever the reader makes of a crop, it is right under one name only if it is wrong
    under the other, and the sheet shows the crops not read right."""
    from cribcam.vision import CardReader

    photo = cv2.imread(str(PHOTO))
    cards = CardReader(shipped_models, threads=1).read(photo, expected=3).cards
    assert len(cards) == 3
    crops, filed = tmp_path / "cards_A", []
    for seen in cards:
        x1, y1, x2, y2 = seen.boxes[0]
        half = 1.1 * max(x2 - x1, y2 - y1)
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
        crop = cv2.resize(photo[int(max(0, cy - half)):int(cy + half), int(max(0, cx - half)):int(cx + half)],
                          (224, 224), interpolation=cv2.INTER_AREA)
        other = "A23456789TJQK"[("A23456789TJQK".index(seen.card[0]) + 1) % 13] + seen.card[1]
        filed.append((f"{seen.card}/{seen.card}.jpg", f"{other.replace('T', '10')}/{seen.card}.jpg"))
        for name in filed[-1]:
            (crops / name).parent.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(crops / name), crop)
    (crops / "NONE").mkdir()
    cv2.imwrite(str(crops / "NONE" / "bare.jpg"), np.full((224, 224, 3), 120, np.uint8))

    figures = bench.main(["--crops", str(tmp_path), "--model", str(shipped_models), "--out",
                          str(tmp_path / "out.json"), "--sheet", str(tmp_path / "sheet.png")])

    written = json.loads((tmp_path / "out.json").read_text())
    said = {o["name"]: o["said"] for o in written["crops"]}
    for own, other in filed:
        assert (said[own] == "right") == (said[other] == "wrong"), said
    assert figures["right"] >= 2, said  # the photo's indices are plain: most crops read right
    assert figures["card_crops"] == 6 and figures["no_card_crops"] == 1
    assert figures["no_card_read_as_card"] == 0 and figures["finder_boxed"]["no_card_crops"] == 0.0
    not_right = 6 - figures["right"] + figures["no_card_read_as_card"]
    sheet = cv2.imread(str(tmp_path / "sheet.png"))
    tiles = (bench.SHEET_TILE + bench.SHEET_CAPTION, bench.SHEET_TILE * bench.SHEET_COLUMNS)
    assert sheet.shape[:2] == (tiles[0] * -(-not_right // bench.SHEET_COLUMNS), tiles[1])
