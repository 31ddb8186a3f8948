"""Card outlines, and what they settle in the corner decision when the count is not known."""

import cv2
import numpy as np

from cribcam.scoring import CARD_CODES
from cribcam.vision.corners import cards_from_corners
from cribcam.vision.detections import Detections
from cribcam.vision.outlines import Outline, find_outlines


def photo_of_a_card(center=(320, 240), angle=20.0, size=(126, 176), face=235, table=50):
    """A light card turned ``angle`` degrees on a dark table, and its four corners."""
    image = np.full((480, 640, 3), table, np.uint8)
    corners = cv2.boxPoints((center, size, angle))
    cv2.fillConvexPoly(image, corners.astype(np.int32), (face, face, face))
    return image, corners


def test_a_card_lying_apart_has_its_outline_found():
    image, corners = photo_of_a_card()
    outlines = find_outlines(image)
    assert len(outlines) == 1
    found = outlines[0].corners
    assert max(np.linalg.norm(found - c, axis=1).min() for c in corners) < 6  # every corner matched


def test_a_dark_card_on_a_light_table_is_found_too():
    image, _ = photo_of_a_card(face=30, table=230)
    assert len(find_outlines(image)) == 1


def test_a_card_cut_by_the_photos_edge_or_of_other_proportions_is_no_outline():
    cut, _ = photo_of_a_card(center=(600, 240))
    square, _ = photo_of_a_card(size=(170, 176))
    assert find_outlines(cut) == [] and find_outlines(square) == []


def test_corners_and_middle_of_an_outline():
    outline = Outline(np.array([[0, 0], [100, 0], [100, 140], [0, 140]], float))
    assert outline.holds((50, 70)) and not outline.holds((150, 70))
    assert outline.at_corner((14, 22)) and outline.at_corner((88, 120))
    assert not outline.at_corner((50, 70)) and not outline.at_corner((35, 35))


def boxes(*items):
    xyxy, scores = [], []
    for (x, y), votes in items:
        xyxy.append([x - 10, y - 14, x + 10, y + 14])
        row = np.zeros(52, np.float32)
        for code, p in votes.items():
            row[CARD_CODES.index(code)] = p
        scores.append(row)
    return Detections(np.array(xyxy, float), np.array(scores))


CARD = Outline(np.array([[100, 100], [226, 100], [226, 276], [100, 276]], float))


def test_corners_of_one_outline_that_disagree_make_one_card_with_their_evidence_pooled():
    # The upside-down corner reads a 2 of clubs; the card is the 2 of spades.
    found = boxes(((116, 122), {"2S": 0.7, "2C": 0.2}), ((210, 254), {"2C": 0.6, "2S": 0.35}))
    assert sorted(c.card for c in cards_from_corners(found, conf=0.5)[0]) == ["2C", "2S"]
    cards, _ = cards_from_corners(found, conf=0.5, outlines=[CARD])
    assert [(c.card, len(c.boxes)) for c in cards] == [("2S", 2)]


def test_a_reading_in_the_middle_of_a_card_is_a_pip_and_goes():
    found = boxes(((116, 122), {"4S": 0.9}), ((210, 254), {"4S": 0.9}), ((163, 150), {"7S": 0.6}))
    cards, _ = cards_from_corners(found, conf=0.5, outlines=[CARD])
    assert [c.card for c in cards] == ["4S"]


def test_cards_outside_every_outline_are_left_alone():
    found = boxes(((116, 122), {"4S": 0.9}), ((400, 300), {"9H": 0.9}))
    assert sorted(c.card for c in cards_from_corners(found, conf=0.5, outlines=[CARD])[0]) == ["4S", "9H"]
