"""Counting a card's pips: drawn cards at any angle, and a rendered held-out design's 6s and 9s;
reading a blurred card by its face."""

import cv2
import numpy as np
import pytest

from cribcam.vision.corners import corner_of
from cribcam.vision.pips import card_outline, count_pips, read_face
from image_tools import NINE, SIX, blurred_card, drawn_card


@pytest.mark.parametrize("angle", [0, 10, -15, 90, 180, 265])
@pytest.mark.parametrize("pips", [SIX, NINE], ids=["six", "nine"])
def test_a_cards_pips_are_counted_whichever_way_it_lies(pips, angle):
    image, boxes = drawn_card(pips, angle)
    assert count_pips(image, boxes) == len(pips)


def test_the_index_corners_print_is_not_counted_as_pips():
    image, boxes = drawn_card(SIX)
    for box in boxes:  # the index's own suit pip, beside its rank
        x1, y1, x2, y2 = map(int, box)
        cv2.circle(image, ((x1 + x2) // 2, y2 - 5), 6, (20, 20, 200), -1)
    assert count_pips(image, boxes) == 6


def test_what_cannot_be_counted_is_said_so():
    image, boxes = drawn_card(NINE, angle=45)  # index boxes as wide as high: which way it lies is unknown
    assert count_pips(image, boxes) is None
    image, boxes = drawn_card(NINE, radius=[12] * 8 + [30])  # print of two sizes: court art, not pips
    assert count_pips(image, boxes) is None
    image, boxes = drawn_card(SIX)
    assert count_pips(image, boxes[:1]) is None  # one corner: no face between corners
    assert count_pips(np.full((640, 640, 3), 235, np.uint8), boxes) is None  # no print at all


@pytest.mark.parametrize("angle", [0, 20, -35, 90, 160])
def test_a_cards_outline_puts_its_two_indices_in_opposite_corners(angle):
    image, boxes = drawn_card(SIX, angle)
    outline = card_outline(image)
    assert outline is not None and outline.shape == (4, 2)
    sides = np.linalg.norm(outline[1] - outline[0]), np.linalg.norm(outline[3] - outline[0])
    assert sides[0] > sides[1]  # the first side is the long one
    where = [corner_of(outline, np.array([(x1 + x2) / 2, (y1 + y2) / 2])) for x1, y1, x2, y2 in boxes]
    assert None not in where and abs(where[0] - where[1]) == 2
    assert corner_of(outline, outline.mean(axis=0)) is None  # the middle of its face
    assert card_outline(np.full((640, 640, 3), 60, np.uint8)) is None


def test_a_held_out_designs_sixes_and_nines_are_counted_as_printed(heldout_decks):
    """The design whose 9D's corners read 9D and 6D at once is the first such case; every held-out
    design is rendered as the play clips lay cards."""
    from cribcam.datagen.assets import make_assets
    from cribcam.datagen.camera import look_at
    from cribcam.datagen.layouts import Item, Layout
    from cribcam.datagen.scenes import compose

    codes = ["9D", "6D", "9S", "6H"]
    for design in heldout_decks:
        assets = make_assets([design], 3, n_surfaces=1)
        deck = assets.decks[0]
        items = [Item("card", 1.2 * k, 0.0, angle, code, "table") for k, (code, angle) in
                 enumerate(zip(codes, (0.0, 5.0, -6.0, 180.0)))]
        camera = look_at((1.8, 0.0), 220.0, tilt=8.0, azimuth=0.0, roll=0.0, size=1280)
        scene = compose(np.random.default_rng(1), Layout("play", items, None, deck.height / deck.width), camera,
                        deck, assets, {"name": "plain"}, photographic=False)
        for code in codes:
            boxes = [label.box for label in scene.labels if label.code == code]
            assert count_pips(scene.image, boxes) == int(code[0]), (design.name, code)


def _design(heldout_decks, name: str):
    return next(deck for deck in heldout_decks if deck.name == name)


@pytest.mark.parametrize("code", ["8D", "5D", "TS", "7H"])
def test_a_blurred_cards_face_is_read_by_its_pips_and_their_shape(heldout_decks, code):
    image, _ = blurred_card(_design(heldout_decks, "gnome-bellot"), code)
    card, box = read_face(image)
    assert card == code
    x1, y1, x2, y2 = box  # the card's box, about the middle of the photo where it lies
    assert x1 < 320 < x2 and y1 < 320 < y2


def test_a_face_whose_outline_was_found_already_is_read_from_it(heldout_decks, monkeypatch):
    from cribcam.vision import pips

    image, _ = blurred_card(_design(heldout_decks, "gnome-bellot"), "8D")
    outline = pips.card_outline(image)
    monkeypatch.setattr(pips, "card_outline", lambda image: pytest.fail("the outline looked for again"))
    assert read_face(image, outline=outline)[0] == "8D"


@pytest.mark.parametrize("code", ["AS", "AH", "JH", "QS", "KD"])
def test_an_ace_or_a_court_cards_face_says_nothing(heldout_decks, code):
    image, _ = blurred_card(_design(heldout_decks, "gnome-bellot"), code)
    assert read_face(image) is None


def test_no_card_no_face():
    assert read_face(np.full((480, 640, 3), 40, np.uint8)) is None
    image, _ = drawn_card(SIX)
    assert read_face(image[:200]) is None  # a card cut off by the photo's edge
