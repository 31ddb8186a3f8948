"""Fixtures for the scene generator tests: small stand-in decks drawn with OpenCV.

The real decks come from ``cribcam.datagen.card_art.load_decks`` (rendered SVG art, slow to
fetch on a fresh machine); these stand-ins have the same shape (BGRA faces with rounded
corners, index boxes measured from the drawn ink) so the tests run anywhere in seconds.
"""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from cribcam.scoring.cards import CARD_CODES

WIDTH, HEIGHT = 240, 336


def _suit(img: np.ndarray, suit: str, cx: int, cy: int, r: int, colour) -> None:
    """A suit symbol built from circles and polygons."""
    if suit == "D":
        pts = np.array([[cx, cy - r], [cx + r * 3 // 4, cy], [cx, cy + r], [cx - r * 3 // 4, cy]])
        cv2.fillConvexPoly(img, pts, colour)
        return
    tip = 1 if suit == "H" else -1  # a heart points down, a spade up
    for side in (-1, 1):
        cv2.circle(img, (cx + side * r // 2, cy - tip * r // 4), r // 2 + 1, colour, -1)
    if suit == "C":
        cv2.circle(img, (cx, cy - r // 2), r // 2 + 1, colour, -1)
    else:
        tri = np.array([[cx - r, cy - tip * r // 6], [cx + r, cy - tip * r // 6], [cx, cy + tip * r]])
        cv2.fillConvexPoly(img, tri, colour)
    if suit in "CS":
        cv2.fillConvexPoly(img, np.array([[cx, cy], [cx - r // 3, cy + r], [cx + r // 3, cy + r]]), colour)


def _index(code: str, scale: float, font: int, colour) -> np.ndarray:
    """The printed index (rank over suit) on a white tile, as a BGR image."""
    rank = "10" if code[0] == "T" else code[0]
    tile = np.full((int(80 * scale), int(44 * scale), 3), 255, np.uint8)
    (tw, th), _ = cv2.getTextSize(rank, font, 1.1 * scale, max(1, int(2 * scale)))
    cv2.putText(tile, rank, ((tile.shape[1] - tw) // 2, th + int(4 * scale)), font, 1.1 * scale, colour,
                max(1, int(2 * scale)), cv2.LINE_AA)
    _suit(tile, code[1], tile.shape[1] // 2, int(58 * scale), int(12 * scale), colour)
    return tile


def make_fake_deck(name: str, split: str, scale: float = 1.0, font: int = cv2.FONT_HERSHEY_SIMPLEX,
                   four_corners: bool = False) -> SimpleNamespace:
    """A deck shaped like ``cribcam.datagen.card_art.Deck`` with simple drawn faces."""
    alpha = np.zeros((HEIGHT, WIDTH), np.uint8)
    cv2.rectangle(alpha, (12, 0), (WIDTH - 13, HEIGHT - 1), 255, -1)
    cv2.rectangle(alpha, (0, 12), (WIDTH - 1, HEIGHT - 13), 255, -1)
    for cx, cy in ((12, 12), (WIDTH - 13, 12), (12, HEIGHT - 13), (WIDTH - 13, HEIGHT - 13)):
        cv2.circle(alpha, (cx, cy), 12, 255, -1)
    cards, corners = {}, {}
    for code in CARD_CODES:
        colour = (30, 30, 200) if code[1] in "HD" else (20, 20, 20)
        face = np.full((HEIGHT, WIDTH, 3), 250, np.uint8)
        cv2.rectangle(face, (40, 60), (WIDTH - 41, HEIGHT - 61), (230, 230, 230), 2)
        _suit(face, code[1], WIDTH // 2, HEIGHT // 2, 40, colour)
        tile = _index(code, scale, font, colour)
        th, tw = tile.shape[:2]
        spots = [(8, 10), (WIDTH - 8 - tw, HEIGHT - 10 - th)]
        if four_corners:
            spots += [(WIDTH - 8 - tw, 10), (8, HEIGHT - 10 - th)]
        boxes = []
        for k, (x, y) in enumerate(spots):
            t = tile if k % 2 == 0 else tile[::-1, ::-1]
            face[y:y + th, x:x + tw] = t
            ys, xs = np.nonzero((t < 200).any(axis=2))
            boxes.append((float(x + xs.min()), float(y + ys.min()), float(x + xs.max() + 1), float(y + ys.max() + 1)))
        cards[code] = np.dstack([face, alpha])
        corners[code] = boxes
    back = np.dstack([np.full((HEIGHT, WIDTH, 3), (140, 60, 20), np.uint8), alpha])
    return SimpleNamespace(name=name, split=split, licence="test drawing", cards=cards, back=back,
                           corners=corners)


@pytest.fixture(scope="session")
def fake_decks() -> list[SimpleNamespace]:
    """Two training designs and one held-out design."""
    return [make_fake_deck("fake-simplex", "train"),
            make_fake_deck("fake-duplex", "train", 0.8, cv2.FONT_HERSHEY_DUPLEX, four_corners=True),
            make_fake_deck("fake-heldout", "heldout", 1.1, cv2.FONT_HERSHEY_TRIPLEX)]
