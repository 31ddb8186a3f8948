"""Counting the suit pips printed on a card's face, as a player settles a 6 read as a 9
(``count_pips``), and reading a card by its face where its corners are a blur (``read_face``).

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

A photo of one card held up to a dim, blurred webcam has its corners a few blurred pixels and its
pips large and plain. ``read_face`` finds the card's outline itself (no corner need be read),
counts what lies darker than its paper inside its index columns, in blobs of one size, and tells
the suit by their colour and the index classifier's answer on them (or their shape, without it).
Measured with ``bench/dim_webcam_singles.py`` on the 144 pip cards of the held-out designs drawn
so: 90 right, 52 not counted, 2 wrong, and one of 64 aces and court cards counted (an ace of clubs
printed in a ring); the reader asks about every card it reads so (``reader._by_face``).

"""

from __future__ import annotations

import cv2
import numpy as np

from cribcam.scoring.cards import CARD_CODES

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


# The face reading of a card whose corners cannot be read (issue 49): the card is the largest
# bright four-sided shape in the photo, and its face what lies inside its index columns.
CARD_ASPECT = (1.15, 1.8)  # long side over short side: a card seen from near above, or smeared
CARD_FILL = 0.8  # of its bounding rectangle the shape fills at least: a card, not a blob
CARD_LEAST = 0.01  # of the photo's area: smaller, its pips are too few pixels to count
FACE_WIDTH, FACE_HEIGHT = 140, 200  # the card warped upright to this many pixels
FACE_IN = 0.16, 0.07  # of the card's width and height: the face within its index columns and edges
PIP_SMALLEST = 0.045  # of the card's width: a blob narrower than this (squared) is dust or noise
# The largest blob at most this many times the smallest's area: pips, not an index's rank and suit
# reaching in past ``FACE_IN`` (``ONE_SIZE`` let them in as pips: 21 cards of 576 counted wrong on
# the training designs, 11 at this, 3 fewer right).
PIP_SIZES = 1.6
SUITS = np.array([code[-1] for code in CARD_CODES])
RED = 1.6  # the pips' red over green, this many times the paper's: a red suit
# A pip's shape, blurred as it may be: its width row by row, against the same turned upside
# down (1: the same), tells a diamond (symmetric) from a heart; that, the share of its convex
# hull it fills, less ``NOTCHED`` for each notch in its outline (a club's lobes leave gaps and
# notches) tell a spade from a club. Chosen on drawn cards of the training designs
# (``bench/dim_webcam_singles.py --split train``): every red pip card told right at 0.84, 0.94
# of the black at 1.58 (0.85 without the notches).
# The classifier's suit (``read_face``) told 763 of the 783 counted right on two drawings of the
# training designs (seeds 7 and 8), the shape 747: the classifier is the reader's choice.
PIP_AS_INDEX = 1.2  # of a pip's height: the room above it a rank takes in an index
DIAMOND_SYMMETRY = 0.84
SPADE_SHAPE = 1.58
NOTCHED = 0.05
NOTCH = 0.08  # of the square root of a pip's area: a notch in its outline at least this deep


def read_face(image: np.ndarray, classifier=None,
              outline: np.ndarray | None = None) -> tuple[str, tuple[float, float, float, float]] | None:
    """The card (``"7H"``) a 2 to 10 is by its face, from the photo of one card: its number of
    pips, their colour and their shape, and the card's box (x1, y1, x2, y2) in the photo; None
    when no card's face shows, or its pips cannot be trusted (a court card's art, an ace's one
    pip, pips run together).

    ``classifier`` (the reader's index classifier: (image, boxes) -> (n, 53) probabilities)
    tells the suit of the pips' colour by its answer on the pips, each boxed as an index's suit
    under room for its rank (``PIP_AS_INDEX``); without one, their shape tells it
    (``DIAMOND_SYMMETRY``, ``SPADE_SHAPE``). ``outline``: the card's ``card_outline``, where the
    caller has found it already (else it is looked for)."""
    found = _card_face(image, outline)
    if found is None:
        return None
    face, box = found
    grey = cv2.cvtColor(face, cv2.COLOR_BGR2GRAY).astype(np.float32)
    mask = np.zeros(grey.shape, np.uint8)
    dx, dy = round(FACE_IN[0] * FACE_WIDTH), round(FACE_IN[1] * FACE_HEIGHT)
    mask[dy:FACE_HEIGHT - dy, dx:FACE_WIDTH - dx] = 1
    paper = float(np.percentile(grey[mask > 0], PAPER_PERCENTILE))
    ink = mask & (grey < INK * paper).astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    area = stats[1:, cv2.CC_STAT_AREA]
    pips = np.flatnonzero(area >= (PIP_SMALLEST * FACE_WIDTH) ** 2) + 1
    if not 2 <= len(pips) <= 10 or area[pips - 1].max() > PIP_SIZES * area[pips - 1].min():
        return None
    rank = "T" if len(pips) == 10 else str(len(pips))
    symmetry, solidity, notches = np.median([_shape(labels == pip) for pip in pips], axis=0)
    in_pips = np.isin(labels, pips)
    b, g, r = (float(face[..., c][in_pips].mean()) for c in range(3))
    pb, pg, pr = (float(face[..., c][(mask > 0) & ~in_pips & (ink == 0)].mean()) for c in range(3))
    red = (r / max(g, 1.0)) > RED * (pr / max(pg, 1.0))
    if classifier is not None:
        x, y, w, h = (stats[pips, k].astype(np.float32) for k in range(4))
        boxes = np.column_stack([x, y - PIP_AS_INDEX * h, x + w, y + h])
        answer = np.asarray(classifier(face, boxes))[:, :len(CARD_CODES)].mean(axis=0)
        return rank + max("DH" if red else "CS", key=lambda suit: float(answer[SUITS == suit].sum())), box
    if red:
        suit = "D" if symmetry >= DIAMOND_SYMMETRY else "H"
    else:
        suit = "S" if symmetry + solidity - NOTCHED * notches >= SPADE_SHAPE else "C"
    return rank + suit, box


def _shape(blob: np.ndarray) -> tuple[float, float, int]:
    """A pip's symmetry end to end (its width row by row, against the same upside down, in
    twenty rows), its solidity (its area over its convex hull's) and its notches (``NOTCH``)."""
    ys, xs = np.nonzero(blob)
    tight = blob[ys.min():ys.max() + 1, xs.min():xs.max() + 1].astype(np.float32)
    widths = cv2.resize(tight.sum(axis=1)[:, None], (1, 20), interpolation=cv2.INTER_AREA)[:, 0]
    widths /= max(float(widths.max()), 1.0)
    symmetry = 1.0 - float(np.abs(widths - widths[::-1]).mean())
    contours, _ = cv2.findContours(blob.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    contour = max(contours, key=cv2.contourArea)
    area = float(np.count_nonzero(blob))
    hull = cv2.contourArea(cv2.convexHull(contour))
    try:
        defects = cv2.convexityDefects(contour, cv2.convexHull(contour, returnPoints=False))
    except cv2.error:  # an outline crossing itself (a pixel-thin neck): its notches are not measured
        defects = None
    depths = defects.reshape(-1, 4)[:, 3] / 256.0 if defects is not None else np.zeros(0)
    return symmetry, (area / hull if hull > 0 else 0.0), int((depths > NOTCH * np.sqrt(area)).sum())


def card_outline(image: np.ndarray) -> np.ndarray | None:
    """The corners of the largest card-shaped region of a BGR photo clear of its border, as four
    (x, y) rows going round it from a short side's end (bottom-left, top-left, top-right,
    bottom-right of the card stood upright, its long side up); None when there is none. The
    shapes tried: what is brighter than the photo's threshold (a card on a dark table), and what
    its edges close (a card on a light one)."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    smooth = cv2.GaussianBlur(grey, (5, 5), 0)
    _, bright = cv2.threshold(smooth, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    bright = cv2.morphologyEx(bright, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
    best = _card_shape(cv2.findContours(bright, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0], grey.shape)
    if best is None:
        edges = cv2.dilate(cv2.Canny(smooth, 20, 50), np.ones((3, 3), np.uint8))
        best = _card_shape(cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)[0], grey.shape)
    if best is None:
        return None
    corners = cv2.boxPoints(best).astype(np.float32)  # bottom-left, top-left, top-right, bottom-right
    if best[1][0] > best[1][1]:  # the long side upright
        corners = np.roll(corners, -1, axis=0)
    return corners


def _card_face(image: np.ndarray,
               outline: np.ndarray | None = None) -> tuple[np.ndarray, tuple[float, float, float, float]] | None:
    """The card of ``card_outline`` (``outline``, where already found) warped upright to
    ``FACE_WIDTH`` by ``FACE_HEIGHT``, and its box in the photo; None when there is none."""
    corners = card_outline(image) if outline is None else outline
    if corners is None:
        return None
    target = np.float32([[0, FACE_HEIGHT], [0, 0], [FACE_WIDTH, 0], [FACE_WIDTH, FACE_HEIGHT]])
    colour = image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    box = (*map(float, corners.min(axis=0)), *map(float, corners.max(axis=0)))
    return cv2.warpPerspective(colour, cv2.getPerspectiveTransform(corners, target), (FACE_WIDTH, FACE_HEIGHT)), box


def _card_shape(contours, shape: tuple[int, ...]):
    """The minimum-area rectangle of the largest of ``contours`` shaped like a card (``CARD_ASPECT``,
    ``CARD_FILL``) and clear of the photo's border; None when none is."""
    height, width = shape[:2]
    best, best_area = None, CARD_LEAST * height * width
    for contour in contours:
        area = cv2.contourArea(contour)
        if area <= best_area:
            continue
        x, y, w, h = cv2.boundingRect(contour)
        if x <= 1 or y <= 1 or x + w >= width - 1 or y + h >= height - 1:
            continue
        rect = cv2.minAreaRect(contour)
        sides = rect[1]
        if min(sides) <= 0 or area < CARD_FILL * sides[0] * sides[1]:
            continue
        if CARD_ASPECT[0] <= max(sides) / min(sides) <= CARD_ASPECT[1]:
            best, best_area = rect, area
    return best
