"""Real photos: frames grouped into captures, and no capture on both sides of the split."""

from __future__ import annotations

import json
from collections import Counter, defaultdict

import numpy as np
import pytest

from cribcam.cli.main import main
from cribcam.datagen.real_photos import (
    LABEL_ADDITIONS,
    LABEL_FIXES,
    PARTLY_SHOWN,
    THINNEST_BOX,
    fixed_label,
    group_captures,
    split_captures,
)
from cribcam.datagen.yolo import read_labels
from cribcam.vision.detections import box_iou
from cribcam.vision.evaluate import load_labels


def test_frames_group_by_camera_and_time():
    names = ["X__IMG_20220921_193915_jpg.jpg", "X__IMG_20220921_193925_jpg.jpg",  # 10 s: one burst
             "X__IMG_20220921_194019_jpg.jpg",  # 54 s later: a new capture
             "X__WIN_20240627_11_36_02_Pro_jpg.jpg", "X__WIN_20240627_11_37_20_Pro_jpg.jpg",  # same sitting
             "X__WIN_20240627_12_04_16_Pro_jpg.jpg",  # next sitting
             "X__IMG_7702_JPG.jpg", "X__IMG_7704_JPG.jpg", "X__IMG_7722_JPG.jpg", "odd.jpg"]
    cap = group_captures(names)
    assert cap[names[0]] == cap[names[1]] != cap[names[2]]
    assert cap[names[3]] == cap[names[4]] != cap[names[5]]
    assert cap[names[6]] == cap[names[7]] != cap[names[8]]
    assert len(set(cap.values())) == 7


@pytest.fixture(scope="module")
def real(shared_dir):
    labels = json.loads((shared_dir / "real-photos" / "labels.json").read_text())
    captures = group_captures(sorted(labels))
    parts = split_captures({n: e["subset"] for n, e in labels.items()}, captures)
    return labels, captures, parts


def test_no_capture_straddles_the_split(real):
    _, captures, parts = real
    sides = defaultdict(set)
    for name, cap in captures.items():
        sides[cap].add(parts[name])
    assert all(len(s) == 1 for s in sides.values())
    assert len(sides) > 20, "frames were not grouped finely enough to split"


def test_every_subset_is_in_validation_at_about_a_quarter(real):
    labels, _, parts = real
    per = Counter((labels[n]["subset"], part) for n, part in parts.items())
    for subset in {e["subset"] for e in labels.values()}:
        val, train = per[subset, "val"], per[subset, "train"]
        assert train > 0 and 0.15 <= val / (val + train) <= 0.4, subset
    assert 0.2 <= sum(p == "val" for p in parts.values()) / len(parts) <= 0.33


def test_conversion_keeps_every_box_and_the_attribution(shared_dir, tmp_path, real):
    labels, _, parts = real
    out = tmp_path / "real"
    assert main(["data", "real", "--src", str(shared_dir / "real-photos"), "--out", str(out)]) == 0
    assert "CC BY 4.0" in (out / "ATTRIBUTION.txt").read_text()
    name = "CardCounterML__IMG_20220921_193915_jpg.jpg"
    part, stem = parts[name], name[:-4]
    assert (out / "images" / part / name).read_bytes() == (shared_dir / "real-photos" / "images" / name).read_bytes()
    boxes = read_labels(out / "labels" / part / f"{stem}.txt", 640, 640)
    expected = [(c["card"], c["box"]) for c in labels[name]["cards"]]
    assert [code for code, _ in boxes] == [code for code, _ in expected]
    for (_, got), (_, want) in zip(boxes, expected, strict=True):
        assert got == pytest.approx(want, abs=0.01)
    assert sum(1 for _ in (out / "labels").rglob("*.txt")) == len(labels)
    slivers = [(n, c) for n, e in labels.items() for c in e["cards"]
               if min(c["box"][2] - c["box"][0], c["box"][3] - c["box"][1]) < THINNEST_BOX]
    assert [(n, c["card"]) for n, c in slivers] == [("CardCounterML__IMG_20220921_200957_jpg.jpg", "9D")]
    assert sum(len(read_labels(p, 640, 640)) for p in (out / "labels").rglob("*.txt")) == \
        sum(len(e["cards"]) for e in labels.values()) + sum(map(len, LABEL_ADDITIONS.values())) - len(slivers)
    val = load_labels(out / "labels-val.json")
    assert sorted(val) == sorted(n for n, p in parts.items() if p == "val")
    name = next(iter(val))
    assert {c["card"] for c in val[name]["cards"]} == {c["card"] for c in labels[name]["cards"]}
    for name, fixes in LABEL_FIXES.items():  # labels the shared set has wrong are corrected, box by box
        read = load_labels(out / f"labels-{parts[name]}.json")[name]["cards"]
        shared = labels[name]["cards"]
        assert sorted(c["card"] for c in read) == sorted(fixed_label(name, c["card"], c["box"]) for c in shared)
        mended = [c for c in shared if fixed_label(name, c["card"], c["box"]) != c["card"]]
        assert len(mended) >= max(1, sum(isinstance(key, tuple) for key in fixes))  # every fix meets its box
    for name, added in LABEL_ADDITIONS.items():  # boxes the shared labels leave out are added
        read = load_labels(out / f"labels-{parts[name]}.json")[name]["cards"]
        assert len(read) == len(labels[name]["cards"]) + len(added)
        assert {card for card, _ in added} <= {c["card"] for c in read}
        for card, box in added:  # a card left out, or the other corner of a card labelled once
            labelled = [c["box"] for c in labels[name]["cards"] if c["card"] == card]
            assert len(labelled) <= 1, (name, card)
            assert not box_iou(np.array([box]), np.array(labelled).reshape(-1, 4)).any(), (name, card)  # never over one
    named = {name for part in ("train", "val") for name, entry in load_labels(out / f"labels-{part}.json").items()
             if "partly_shown" in entry}
    assert named == PARTLY_SHOWN.keys()  # only the edge pass names cards partly shown in a real photo
    for name, cards in PARTLY_SHOWN.items():
        entry = load_labels(out / f"labels-{parts[name]}.json")[name]
        maybe = {code for card in cards for code in card}
        assert entry["partly_shown"] == sorted(maybe)
        assert not maybe & {c["card"] for c in entry["cards"]}  # a card labelled is not also optional
        # each card shown in part is one more in view, whatever it may be: a player counts it
        assert entry["cards_in_view"] == len({c["card"] for c in entry["cards"]}) + len(cards)


def _convert(tmp_path, labels: str) -> int:
    """`cribcam data real --force` from a folder of these labels and no photo, into a folder that
    holds an earlier conversion's photo; its exit status (no data set may be left)."""
    src, out = tmp_path / "src", tmp_path / "out"
    (src / "images").mkdir(parents=True)
    (src / "labels.json").write_text(labels)
    (out / "images" / "train").mkdir(parents=True)
    (out / "images" / "train" / "kept.jpg").write_bytes(b"an earlier conversion's photo")
    status = main(["data", "real", "--src", str(src), "--out", str(out), "--force"])
    assert not (out / "data.yaml").exists()
    return status


@pytest.mark.parametrize("labels, words", [
    ("{not json", "labels.json is not JSON (Expecting property name enclosed in double quotes"),
    ("{}", "no labelled photo found in"),
    ("[]", "no labelled photo found in"),
    ('{"IMG_0001_.jpg": {"cards": []}}', 'labels IMG_0001_.jpg without its "subset" and "cards": each photo needs both'),
    ('{"IMG_0001_.jpg": []}', 'labels IMG_0001_.jpg without its "subset" and "cards"'),
])
def test_labels_that_give_no_photo_are_refused_before_anything_is_replaced(tmp_path, capsys, labels, words):
    assert _convert(tmp_path, labels) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1
    assert (tmp_path / "out" / "images" / "train" / "kept.jpg").is_file()


def test_a_labelled_photo_that_is_missing_is_named(tmp_path, capsys):
    assert _convert(tmp_path, '{"IMG_0001_.jpg": {"subset": "phone", "cards": []}}') == 2
    err = capsys.readouterr().err
    photo = tmp_path / "src" / "images" / "IMG_0001_.jpg"
    assert f"labels IMG_0001_.jpg, but {photo} is missing or not an image" in err
    assert len(err.strip().splitlines()) == 1


def test_a_fix_by_box_mends_only_that_box():
    name = "CardCounterML__WIN_20240627_11_38_29_Pro_jpg.jpg"
    assert fixed_label(name, "4S", [252.9, 238.2, 269.1, 301.8]) == "3S"
    assert fixed_label(name, "4S", [220.4, 148.0, 240.0, 196.0]) == "4S"  # the 4S itself
    assert fixed_label(name, "JS", [248.0, 120.0, 276.0, 162.0]) == "JS"
    name = "CardCounterML__WIN_20240627_17_01_00_Pro_jpg.jpg"  # a spade "A" beside the 2S, both labelled 2S
    assert fixed_label(name, "2S", [398.8, 358.5, 413.2, 413.5]) == "AS"
    assert fixed_label(name, "2S", [412.8, 364.5, 429.3, 426.5]) == "2S"
    assert fixed_label("CardCounterML__IMG_7785_JPG.jpg", "4S", [574.9, 140.1, 623.1, 227.9]) == "AS"
