"""Counting the suit pips printed on a card's face, as a player settles a 6 read as a 9.

A 6 and a 9 are one glyph turned half round, and an index reads the right way up only by what
lies beside the rank. A design that prints its lower corner's rank upright (the held-out
kde-svg-ancient-egyptians, its suit pip above the rank there) has that corner read as the other
rank, the diamond's pip the same both ways up: its 9D's corners read 9D and 6D, equally sure.
The face says which: six pips or nine.

The count is made only where it can be trusted, and None said otherwise: the card's index boxes
say which way it lies (longer one way than the other), and what lies darker than its paper
between the indices' columns falls in blobs of one size of print.

Measured with ``bench/pip_count.py`` (models/HISTORY.md, "Counting the pips") on the rendered 6s
and 9s of each suit, laid at the play clips' two table sizes, with the index corners as labelled:
- 217 of the 240 whose corners show counted right on the 16 training designs, 64 of 64 on the 4
  held-out ones, the rest not counted;
- the same cards turned 15, -30, 90 or 180 degrees: fewer counted at a slant, none counted as
  the other rank;
- the real photos of one 6 or 9 (32): 5 counted right, none as the other rank, the rest not
  counted (a tilt, a hand, shadows).

"""

from __future__ import annotations

import cv2
import numpy as np

INK = 0.6  # of the paper's brightness: darker is print
PAPER_PERCENTILE = 80  # the paper's brightness: most of a pip card's face is paper
# The angle between a card's long side and the line through its two index corners' centres:
# atan((W - 2a) / (H - 2b)) for a card W by H with its indices' centres a and b in from a
# corner; 0.7 by 1 with a of 0.09 and b of 0.12 gives 37 degrees.
DIAGONAL = np.deg2rad(37.0)
UPRIGHT = 1.15  # an index box this much longer one way than the other says the card's long axis
ENDS = 0.35  # of an index box's side: how far the pips reach beyond the indices' centres, lengthwise
SMALLEST = 0.1  # of an index box's side: a blob narrower than this (squared) is dust or noise
ONE_SIZE = 2.0  # the largest blob at most this many times the smallest's area: pips, not art


def count_pips(image: np.ndarray, boxes) -> int | None:
    """The pips on the face of the card whose index ``boxes`` (x1, y1, x2, y2, in ``image``'s
    pixels; its two opposite corners, at least) are given, or None when they cannot be counted.

    The card's long axis is found from the line through its indices (``DIAGONAL``) and the way
    its index boxes are long; its face is what lies between the indices' columns, lengthwise no
    farther than the indices, and its pips the print there, darker than its paper.
    """
    boxes = _farthest_two(np.asarray(boxes, np.float64).reshape(-1, 4))
    if boxes is None:
        return None
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    sizes = boxes[:, 2:] - boxes[:, :2]
    side = float(np.median(sizes.max(axis=1)))
    long_axis = _long_axis(centres[1] - centres[0], sizes)
    if long_axis is None:
        return None
    across = np.array([-long_axis[1], long_axis[0]])
    middle = centres.mean(axis=0)
    # the face: inside the indices' inner edges across, and the indices' reach lengthwise
    half_width = abs((centres[0] - middle) @ across) - float(sizes.min()) / 2
    half_length = abs((centres[0] - middle) @ long_axis) + ENDS * side
    if half_width <= 0:
        return None
    corners = np.array([middle + i * half_width * across + j * half_length * long_axis
                        for i, j in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
    x0, y0 = np.maximum(np.floor(corners.min(axis=0)), 0).astype(int)
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int)
    region = image[y0:y1, x0:x1]
    if region.size == 0:
        return None
    face = np.zeros(region.shape[:2], np.uint8)
    cv2.fillConvexPoly(face, np.round(corners - [x0, y0]).astype(np.int32), 1)
    grey = cv2.cvtColor(region, cv2.COLOR_BGR2GRAY) if region.ndim == 3 else region
    ink = face & (grey < INK * np.percentile(grey[face > 0], PAPER_PERCENTILE)).astype(np.uint8)
    _, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    area = stats[1:, cv2.CC_STAT_AREA]
    pips = area[area >= (SMALLEST * side) ** 2]
    if len(pips) == 0 or pips.max() > ONE_SIZE * pips.min():
        return None
    return len(pips)


def _long_axis(diagonal: np.ndarray, sizes: np.ndarray) -> np.ndarray | None:
    """The unit vector along a card's long side, from the line joining its index corners and
    the index boxes' (w, h): of the two sides the line can run between, the one the boxes are
    long along; None when the boxes are as wide as high (a card turned too far to tell)."""
    w, h = sizes.sum(axis=0)
    if max(w, h) < UPRIGHT * min(w, h):
        return None
    angle = np.arctan2(diagonal[1], diagonal[0])
    axes = [np.array([np.cos(angle + turn), np.sin(angle + turn)]) for turn in (DIAGONAL, -DIAGONAL)]
    lengthwise = np.array([0.0, 1.0]) if h > w else np.array([1.0, 0.0])
    return max(axes, key=lambda axis: abs(axis @ lengthwise))


def _farthest_two(boxes: np.ndarray) -> np.ndarray | None:
    """The two boxes whose centres lie farthest apart: a card's opposite corners."""
    if len(boxes) < 2:
        return None
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    apart = np.linalg.norm(centres[:, None] - centres[None], axis=2)
    i, j = np.unravel_index(int(apart.argmax()), apart.shape)
    return boxes[[i, j]]
