"""Unsure cards, read by the shipped models from a real photo: marked in the JSON, in the
words of `cribcam read`, and named by the count as the cards to check."""

import json
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

from cribcam.vision import CardReader
from cribcam.vision.report import reading_report

# A held-out design whose indices the reader reads unsurely (datasets/samples, never trained on).
PHOTO = Path(__file__).resolve().parents[2] / "datasets" / "samples" / "heldout-kde-svg-ancient-egyptians-0000027.jpg"


@pytest.fixture(scope="module")
def reading(shipped_models):
    return CardReader(shipped_models).read(cv2.imread(str(PHOTO)), expected=5)


def test_cards_under_the_bar_are_unsure_in_the_json(reading):
    cards = reading.as_dict()["cards"]
    assert len(cards) == 5
    assert any(c["unsure"] for c in cards)
    assert all(c["unsure"] == (c["confidence"] < 0.75) or c["unsure"] for c in cards)


def test_the_count_names_the_cards_to_check(reading):
    starter = reading.codes[-1]
    report = reading_report(reading, starter=starter)
    assert report["count"] is not None
    unsure = [c["card"] for c in report["cards"] if c["unsure"]]
    check = [p for p in report["problems"] if p.startswith("check the")]
    assert len(check) == 1 and all(code in check[0] for code in unsure)


def test_a_named_starter_clears_the_starter_problem(reading):
    assert any("starter" in p for p in reading.problems) or reading.starter is not None
    report = reading_report(reading, starter=reading.codes[0])
    assert not any(p.startswith("could not tell which card is the starter") for p in report["problems"])


def test_cribcam_read_marks_unsure_cards(shipped_models, reading):
    result = subprocess.run([sys.executable, "-m", "cribcam", "read", str(PHOTO), "--model", str(shipped_models)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    first_line = result.stdout.splitlines()[0]
    unsure = [c.card for c in reading.cards if c.unsure]
    for code in unsure:
        assert f"{code} (" in first_line
    assert first_line.count("unsure: check it") == len(unsure)
    as_json = json.loads(subprocess.run([sys.executable, "-m", "cribcam", "read", str(PHOTO), "--json",
                                         "--model", str(shipped_models)],
                                        capture_output=True, text=True, timeout=300, check=True).stdout)
    assert [c["card"] for c in as_json["cards"] if c["unsure"]] == unsure
