"""The reader's quick look: a photo is first read at a quarter of the finder's pixels, and that
reading stands only where the print is large enough for it; real photos, the shipped models."""

import json
from pathlib import Path

import cv2
import pytest

from cribcam.vision import CardReader

PHOTOS = Path(__file__).resolve().parents[1] / "data" / "photos"
SAMPLES = Path(__file__).resolve().parents[2] / "datasets" / "samples"
LABELS = json.loads((PHOTOS / "labels.json").read_text())


def _whole_look_only(reader: CardReader) -> CardReader:
    whole = CardReader(reader.folder)
    whole._quick_look = lambda image, expected, starter: None
    return whole


@pytest.mark.parametrize("name, expected", [("closeup-3-cards.jpg", None), ("closeup-3-cards.jpg", 3),
                                            ("blackgold-3-cards.jpg", 3)])
def test_large_print_is_read_by_the_quick_look_as_by_the_whole_look(reader, name, expected):
    photo = cv2.imread(str(PHOTOS / name))
    quick = reader._quick_look(photo, expected, True)
    assert quick is not None
    cards = {seen.card for seen in quick[1][0]}
    assert cards == set(LABELS[name]["cards"])
    assert set(reader.read(photo, expected=expected).codes) == cards
    assert set(_whole_look_only(reader).read(photo, expected=expected).codes) == cards


def test_the_quick_look_does_not_stand_for_small_print_or_a_count_it_cannot_meet(reader):
    # Drawn scenes of held-out designs, their indices 6 to 31 pixels across (median 20): the whole look reads them.
    for scene in sorted(SAMPLES.glob("*.jpg")):
        assert reader._quick_look(cv2.imread(str(scene)), 5, True) is None, scene.name
    # Without its count the black-and-gold hand's print reads too small to be sure none was missed.
    assert reader._quick_look(cv2.imread(str(PHOTOS / "blackgold-3-cards.jpg")), None, True) is None
    # A webcam's five cards: the quick look does not read all five.
    assert reader._quick_look(cv2.imread(str(PHOTOS / "webcam-5-cards.jpg")), 5, True) is None
