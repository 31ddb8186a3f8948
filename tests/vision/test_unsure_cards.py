"""Unsure cards, read by the shipped models from a real photo: marked in the JSON, in the
words of `cribcam read`, and named by the count as the cards to check."""

import json
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

from cribcam.vision import CardReader
from cribcam.vision.corners import UNSURE_CONF
from cribcam.vision.reading import CHECK_CARDS, GUESSED, STARTER_UNKNOWN
from cribcam.vision.report import reading_report

# A held-out design whose indices the reader reads unsurely (datasets/samples, never trained on).
PHOTO = Path(__file__).resolve().parents[2] / "datasets" / "samples" / "heldout-kde-svg-ancient-egyptians-0000027.jpg"


# A hand of five of another held-out design whose 8S and 2C the reader does not read, nor its AD
# surely: two cards it can only guess.
GUESSED_PHOTO = PHOTO.with_name("heldout-gnome-bellot-0000055.jpg")


# In OpenVINO's bfloat16 (an Intel Xeon) the unsure 7S of PHOTO is read as a guess only.
pytestmark = pytest.mark.usefixtures("onnxruntime_only")


@pytest.fixture(scope="module")
def reading(shipped_models, onnxruntime_only):
    return CardReader(shipped_models).read(cv2.imread(str(PHOTO)), expected=5)


@pytest.fixture(scope="module")
def guessing(shipped_models, onnxruntime_only):
    return CardReader(shipped_models).read(cv2.imread(str(GUESSED_PHOTO)), expected=5)


def test_cards_under_the_bar_are_unsure_in_the_json(reading):
    as_json = reading.as_dict()
    cards = as_json["cards"]
    assert len(cards) + len(as_json["guesses"]) == 5
    assert any(c["unsure"] for c in cards)
    assert all(c["unsure"] == (c["confidence"] < UNSURE_CONF) or c["unsure"] for c in cards)


def test_cards_filled_in_are_guesses_asked_about_in_words_and_json(shipped_models, guessing):
    guessed = [seen.card for seen in guessing.guesses]
    assert guessed and all(seen.guessed and seen.unsure for seen in guessing.guesses)
    assert not set(guessed) & set(guessing.codes)
    assert any(p.code == GUESSED and p.message.startswith("a card could only be guessed: ")
               and all(code in p.message for code in guessed) for p in guessing.problems)
    result = subprocess.run([sys.executable, "-m", "cribcam", "read", str(GUESSED_PHOTO), "--model", str(shipped_models)],
                            capture_output=True, text=True, timeout=300, check=True)
    line = next(line for line in result.stdout.splitlines() if line.startswith("Guessed, not counted: "))
    assert all(f"{code}? (" in line for code in guessed)


def test_the_count_names_the_cards_to_check(reading):
    # Five cards read, three of them unsure: a hand and its starter, the starter named (a sure one).
    starter = next(seen.card for seen in reading.cards if not seen.unsure)
    report = reading_report(reading, starter=starter)
    assert report["count"] is not None
    unsure = [c["card"] for c in report["cards"] if c["unsure"]]
    check = [p["message"] for p in report["problems"] if p["code"] == CHECK_CARDS]
    assert len(check) == 1 and check[0].startswith("check the ") and all(code in check[0] for code in unsure)


def test_a_named_starter_clears_the_starter_problem(reading):
    assert STARTER_UNKNOWN in [p.code for p in reading.problems] or reading.starter is not None
    report = reading_report(reading, starter=reading.codes[0])
    assert STARTER_UNKNOWN not in [p["code"] for p in report["problems"]]


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


def test_the_pips_beside_a_card_read_are_no_card_that_could_not_be_read(shipped_models, real_photos):
    # A 7H photographed alone: the old rule said three cards around it could not be read (its
    # pips, within two index sizes of its indices), on a reading that was right.
    photo = real_photos / "images" / "CardCounterML__IMG_20220921_193936_jpg.jpg"
    reading = CardReader(shipped_models).read(cv2.imread(str(photo)))
    assert reading.codes == ["7H"]
    assert reading.unreadable_boxes == () and not reading.warns, reading.problems
