"""Data set builds: same seed same bytes, whatever the workers; held-out designs kept apart."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from cribcam.cli.main import main
from cribcam.datagen.build import BuildSpec, build
from cribcam.datagen.yolo import DataSetError, read_labels
from cribcam.scoring.cards import CARD_CODES
from cribcam.vision.evaluate import load_labels

IMAGES = 10


def _spec(out: Path, seed: int = 7, split: str = "train", images: int = IMAGES) -> BuildSpec:
    return BuildSpec(out, images, seed, split=split, val_fraction=0.2, imgsz=256, surfaces=3)


def _files(folder: Path) -> dict[str, bytes]:
    """Every file's bytes, but for data.yaml's line naming the folder itself."""
    files = {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
    files["data.yaml"] = files["data.yaml"].replace(str(folder.resolve()).encode(), b"DIR")
    return files


def _train(decks):
    return [d for d in decks if d.split == "train"]


@pytest.fixture(scope="module")
def built(tmp_path_factory, fake_decks) -> Path:
    out = tmp_path_factory.mktemp("built") / "set"
    build(_spec(out), _train(fake_decks), workers=2, progress=False)
    return out


def test_same_seed_same_bytes_whatever_the_workers(built, fake_decks, tmp_path):
    build(_spec(tmp_path / "one"), _train(fake_decks), workers=1, progress=False)
    assert _files(tmp_path / "one") == _files(built)


def test_another_seed_gives_other_images(built, fake_decks, tmp_path):
    build(_spec(tmp_path / "other", seed=8), _train(fake_decks), workers=1, progress=False)
    ours, theirs = _files(built), _files(tmp_path / "other")
    assert ours.keys() == theirs.keys()
    assert ours["images/train/0000005.jpg"] != theirs["images/train/0000005.jpg"]


def test_layout_of_the_data_set(built):
    assert sorted(p.name for p in (built / "images" / "val").iterdir()) == ["0000000.jpg", "0000001.jpg"]
    assert len(list((built / "images" / "train").iterdir())) == IMAGES - 2
    for image in (built / "images").rglob("*.jpg"):
        part, stem = image.parent.name, image.stem
        meta = json.loads((built / "meta" / part / f"{stem}.json").read_text())
        labels = read_labels(built / "labels" / part / f"{stem}.txt", 256, 256)
        for _, (x1, y1, x2, y2) in labels:
            assert -1e-3 <= x1 < x2 <= 256.001 and -1e-3 <= y1 < y2 <= 256.001  # 6 decimals
        assert sorted(code for code, _ in labels) == sorted(
            c["code"] for c in meta["cards"] if c["face_up"] for corner in c["corners"] if corner["labelled"])
    yaml = (built / "data.yaml").read_text()
    assert "train: images/train" in yaml and "val: images/val" in yaml
    assert "fake-simplex: test drawing" in (built / "ATTRIBUTION.txt").read_text()
    assert [line.split(": ")[1] for line in yaml.splitlines() if line.startswith("  ")] == CARD_CODES


def test_each_part_has_labels_that_cribcam_eval_reads(built):
    for part in ("train", "val"):
        labels = load_labels(built / f"labels-{part}.json")
        assert sorted(labels) == sorted(p.name for p in (built / "images" / part).iterdir())
        for name, entry in labels.items():
            meta = json.loads((built / "meta" / part / name.replace(".jpg", ".json")).read_text())
            readable = {c["code"] for c in meta["cards"] if c["face_up"] and c["readable"]}
            assert {c["card"] for c in entry["cards"]} == readable
            assert entry["subset"] == meta["deck"] and entry["starter"] == meta["starter"]
            partly = {c["code"] for c in meta["cards"] if c["face_up"] and not c["readable"]
                      and any(corner["seen"] > 0 for corner in c["corners"])}
            assert set(entry.get("partly_shown", [])) == partly and not partly & readable
            assert entry.get("cards_in_view", len(readable)) == len(readable | partly)


def test_held_out_designs_never_reach_a_training_set(built, fake_decks, tmp_path):
    heldout = {d.name for d in fake_decks if d.split == "heldout"}
    used = {json.loads(p.read_text())["deck"] for p in (built / "meta").rglob("*.json")}
    assert used and not used & heldout
    with pytest.raises(DataSetError, match="another split"):
        build(_spec(tmp_path / "mixed"), fake_decks, workers=1, progress=False)

    build(_spec(tmp_path / "heldout", split="heldout"), [d for d in fake_decks if d.split == "heldout"],
          workers=1, progress=False)
    assert [p.name for p in (tmp_path / "heldout" / "images").iterdir()] == ["test"]
    used = {json.loads(p.read_text())["deck"] for p in (tmp_path / "heldout" / "meta").rglob("*.json")}
    assert used == heldout


def test_an_existing_data_set_is_not_overwritten_by_accident(built, fake_decks):
    with pytest.raises(DataSetError, match="--force"):
        build(_spec(built), _train(fake_decks), workers=1, progress=False)


def test_a_build_cut_short_is_said_so_not_taken_for_a_data_set(fake_decks, tmp_path):
    out = tmp_path / "cut"
    (out / "images" / "train").mkdir(parents=True)  # as Ctrl-C leaves it: no image written yet
    with pytest.raises(DataSetError, match=r"already holds an unfinished data set \(no data.yaml: a build "
                                           r"cut short\?\) \(images\); choose another folder or pass --force"):
        build(_spec(out), _train(fake_decks), workers=1, progress=False)
    build(_spec(out), _train(fake_decks), workers=1, progress=False, force=True)
    assert (out / "data.yaml").is_file()


def test_the_command_builds_from_the_split_it_is_asked_for(fake_decks, tmp_path, monkeypatch, capsys):
    asked = []

    def load_decks(split=None, **_):
        asked.append(split)
        return [d for d in fake_decks if split is None or d.split == split]

    monkeypatch.setitem(sys.modules, "cribcam.datagen.card_art",
                        SimpleNamespace(load_decks=load_decks, DeckArtError=RuntimeError))
    monkeypatch.setattr("cribcam.datagen.assets.deck_art_plan", lambda split: None)  # all rendered
    out = tmp_path / "cli"
    assert main(["data", "build", "--out", str(out), "--images", "3", "--seed", "1", "--workers", "1",
                 "--imgsz", "128"]) == 0
    assert asked == ["train"]
    assert "3 images" in capsys.readouterr().out
    assert main(["data", "build", "--out", str(out), "--images", "3", "--seed", "1"]) == 2
    assert "--force" in capsys.readouterr().err

    # A deck module that handed out every design would be caught, not used.
    monkeypatch.setitem(sys.modules, "cribcam.datagen.card_art",
                        SimpleNamespace(load_decks=lambda **_: fake_decks, DeckArtError=RuntimeError))
    assert main(["data", "build", "--out", str(tmp_path / "bad"), "--images", "2", "--seed", "1"]) == 2
    assert "another split" in capsys.readouterr().err


def test_preview_draws_a_sheet(built, tmp_path, capsys):
    sheet = tmp_path / "sheet.png"
    assert main(["data", "preview", str(built), "--out", str(sheet), "--n", "4", "--tile", "200"]) == 0
    import cv2
    img = cv2.imread(str(sheet))
    assert img.shape == (400, 400, 3) and np.ptp(img) > 0
    assert main(["data", "preview", str(tmp_path / "nothing"), "--out", str(sheet)]) == 2
    assert "no data set" in capsys.readouterr().err
    assert main(["data", "preview", str(built), "--out", str(sheet), "--n", "1"]) == 0
    assert capsys.readouterr().out == f"1 image -> {sheet}\n"


def test_a_caption_s_black_outline_ends_where_its_text_ends():
    # A thick black copy under the text ran ahead of it, and showed past its end as stray letters.
    from cribcam.datagen.preview import _text

    tile = np.full((30, 500, 3), 255, np.uint8)
    _text(tile, "hand_starter starter 8S kde-svg-penguins", (4, 20), 0.4, (255, 255, 0))
    inked = np.flatnonzero((tile < 200).any(axis=(0, 2)))
    cyan = np.flatnonzero(((tile[..., 0] > 200) & (tile[..., 2] < 100)).any(axis=0))
    assert len(cyan) and inked.max() <= cyan.max() + 2
