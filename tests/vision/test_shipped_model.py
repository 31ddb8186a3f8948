"""The bundled models on the bundled photos that no training run has seen.

The photos are synthetic scenes of the held-out deck designs (datasets/samples) and real photos
from the validation part of the shared set (tests/data/photos). The issue's target is every one
of them read exactly; the shipped models do not reach it yet, so these tests hold them to what
the model card reports (``FLOORS``), and fail when a change reads them worse. Raise the floors
with the models; never lower them to make a change pass.
"""

import json
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

from cribcam.vision.evaluate import Tally
from cribcam.vision.reading import Reading

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "datasets" / "samples"
PHOTOS = ROOT / "tests" / "data" / "photos"
SAMPLE_LABELS = json.loads((SAMPLES / "labels.json").read_text())
PHOTO_LABELS = json.loads((PHOTOS / "labels.json").read_text())
# Measured with the shipped models (models/HISTORY.md, "Run 9"), 11 photos, 51 cards: recall
# 46/51 = 0.902, precision 46/50 = 0.920, exact 8/11 = 0.727 (run 4's finder, run 9's
# classifier, the fine-tuned rank reader, the closer look; the same with the tilted looks and the
# farther look, "Tilted looks, a farther look, and run 10"). Run 8's classifier read 45/51, 45/50,
# 8/11 here, run 7's 48/51, 48/51, 9/11 (the 600 held-out scenes read better with each: eight
# scenes are a smoke test, not a measure). Earlier: run 4's classifier 46/51, 46/51, 8/11;
# zero-shot 45/51, 45/51, 8/11; before the rank reader and the count-keeping decision 41/51,
# 41/45, 6/11. The floors are one card (or one photo) below, as another CPU's arithmetic may flip
# a card on the edge of a threshold.
# Since cards filled in for a missing one are guesses, asked about and never counted (issue 31,
# point 2), they are not cards read: the same models read 43/51, 43/46, 7/11 here, with 4
# guesses, 3 of them right (two cards each in two scenes). The floors moved with that: one card
# below 43/51 and 43/46 (precision's floor up from 45/50), the exact hands held at 7/11.
# Run 16's classifier (models/HISTORY.md, "Run 16"; 2-core Intel Xeon, 2026-11-29) reads 46/51,
# 46/48, 8/11 here, with 2 guesses, 1 of them right; the floors one card and one photo below.
# Run 23's classifier ("Run 23"; 2-core AMD EPYC, 2026-11-30) reads the same here.
FLOORS = {"recall": 45 / 51, "precision": 45 / 48, "exact_hand_rate": 7 / 11}


def _cards(entry: dict) -> set[str]:
    return {c["card"] if isinstance(c, dict) else c for c in entry["cards"]}


@pytest.fixture(scope="module")
def readings(reader) -> dict[str, tuple[set[str], Reading]]:
    """Every bundled photo's labelled cards and its reading, the samples read with their size."""
    out = {}
    for folder, labels in ((SAMPLES, SAMPLE_LABELS), (PHOTOS, PHOTO_LABELS)):
        for name, entry in sorted(labels.items()):
            truth = _cards(entry)
            expected = len(truth) if folder == SAMPLES else None
            out[name] = truth, reader.read(cv2.imread(str(folder / name)), expected=expected)
    return out


def test_bundled_photos_read_at_least_as_well_as_the_model_card_says(readings):
    tally = Tally()
    for truth, reading in readings.values():
        tally.add(truth, reading)
    measured = tally.as_dict()
    assert measured["cards_labelled"] == 51
    for figure, floor in FLOORS.items():
        assert measured[figure] >= floor, (figure, measured)


def test_with_the_count_known_never_more_cards_than_expected(reader, readings):
    for name, (truth, reading) in readings.items():
        if name in SAMPLE_LABELS:
            assert len(reading.codes) + len(reading.guesses) <= len(truth), name
    for name, entry in PHOTO_LABELS.items():  # the real photos, read here with their count
        expected = len(_cards(entry))
        reading = reader.read(cv2.imread(str(PHOTOS / name)), expected=expected)
        assert len(reading.codes) <= expected, name


def test_no_card_is_read_twice(readings):
    for name, (_, reading) in readings.items():
        codes = reading.codes + [seen.card for seen in reading.guesses]
        assert len(codes) == len(set(codes)), name


def test_a_read_hand_counts_as_the_same_cards_typed(shipped_models, readings):
    """Whatever the reader read, its count is the count of those cards typed."""
    name = next((n for n, e in sorted(SAMPLE_LABELS.items())
                 if e["layout"] == "hand_starter" and len(readings[n][1].codes) == 5), None)
    assert name is not None, "no bundled hand and starter was read as five cards"

    def cribcam(*args: str) -> dict:
        result = subprocess.run([sys.executable, "-m", "cribcam", *args, "--json"],
                                capture_output=True, text=True, timeout=120, check=True)
        return json.loads(result.stdout)

    read = cribcam("read", str(SAMPLES / name), "--model", str(shipped_models))
    codes = [c["card"] for c in read["cards"]]
    starter = read["starter"] or codes[-1]
    read = cribcam("read", str(SAMPLES / name), "--starter", starter, "--model", str(shipped_models))
    typed = cribcam("count", *[c for c in codes if c != starter], "--starter", starter)
    assert read["count"] is not None, read["problems"]
    assert read["count"]["total"] == typed["total"]
    assert sorted(sorted(i["cards"]) for i in read["count"]["items"]) == \
        sorted(sorted(i["cards"]) for i in typed["items"])
