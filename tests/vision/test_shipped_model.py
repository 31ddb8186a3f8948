"""The bundled detector reads the bundled samples exactly (skipped until a model ships).

The samples are photos no training run has seen: synthetic scenes of the held-out deck
designs (datasets/samples) and real photos from the validation part of the shared set
(tests/data/photos).
"""

import json
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

from cribcam.vision import CardReader

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "datasets" / "samples"
PHOTOS = ROOT / "tests" / "data" / "photos"
SAMPLE_LABELS = json.loads((SAMPLES / "labels.json").read_text())
PHOTO_LABELS = json.loads((PHOTOS / "labels.json").read_text())


@pytest.fixture(scope="module")
def reader(shipped_models):
    return CardReader(shipped_models)


def _cards(entry: dict) -> set[str]:
    return {c["card"] if isinstance(c, dict) else c for c in entry["cards"]}


@pytest.mark.parametrize("name", sorted(SAMPLE_LABELS))
def test_held_out_design_samples_read_exactly(reader, name):
    cards = _cards(SAMPLE_LABELS[name])
    reading = reader.read(cv2.imread(str(SAMPLES / name)), expected=len(cards))
    assert set(reading.codes) == cards, reading.problems
    assert len(reading.codes) == len(cards), "a card read twice"


@pytest.mark.parametrize("name", [n for n, e in sorted(SAMPLE_LABELS.items()) if e["starter"]])
def test_the_starter_set_apart_is_found(reader, name):
    entry = SAMPLE_LABELS[name]
    reading = reader.read(cv2.imread(str(SAMPLES / name)), expected=len(_cards(entry)))
    assert reading.starter == entry["starter"]


@pytest.mark.parametrize("name", sorted(PHOTO_LABELS))
def test_real_validation_photos_read_exactly(reader, name):
    cards = _cards(PHOTO_LABELS[name])
    reading = reader.read(cv2.imread(str(PHOTOS / name)))
    assert set(reading.codes) == cards, reading.problems


def test_a_read_hand_counts_as_the_same_cards_typed(shipped_models):
    name = next(n for n, e in sorted(SAMPLE_LABELS.items()) if e["layout"] == "hand_starter")
    entry = SAMPLE_LABELS[name]
    starter = entry["starter"]
    hand = sorted(_cards(entry) - {starter})

    def cribcam(*args: str) -> dict:
        result = subprocess.run([sys.executable, "-m", "cribcam", *args, "--json"],
                                capture_output=True, text=True, timeout=120, check=True)
        return json.loads(result.stdout)

    read = cribcam("read", str(SAMPLES / name), "--starter", starter, "--model", str(shipped_models))
    typed = cribcam("count", *hand, "--starter", starter)
    assert read["count"] is not None, read["problems"]
    assert read["count"]["total"] == typed["total"]
    assert sorted(map(tuple, (sorted(i["cards"]) for i in read["count"]["items"]))) == \
        sorted(map(tuple, (sorted(i["cards"]) for i in typed["items"])))
