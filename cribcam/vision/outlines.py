"""Card outlines: the clean four-sided shape of a card lying apart, found by its edges.

A card whose outline shows whole tells the corner decision two things the index boxes alone
cannot: every index inside it belongs to that one card (so two readings there are one card
whose corners disagree, not two cards), and its indices are printed at its corners (so a box
in its middle is a pip or court art read as an index). Only outlines that are clearly one
card are kept: four corners, convex, a playing card's proportions, a fair share of the photo.
Cards in a fan or a heap show no such outline and are decided by their boxes alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

WORK_SIDE = 640  # edges are found on a copy this large: a card's outline needs no more
CARD_ASPECT = (1.25, 1.6)  # long side over short: 88/63 = 1.40 for poker and bridge cards alike
MIN_AREA = 0.02  # of the photo: smaller quadrilaterals are print, pips and clutter
MAX_AREA = 0.9
FILL = 0.82  # of its bounding rectangle that a card's outline fills
# An index's centre lies within this share of the card's short side of a corner (about 0.23
# on the decks of the training scenes); pips and court art lie further in.
CORNER_ZONE = 0.32


@dataclass(frozen=True)
class Outline:
    """One card's outline.

    Attributes:
        corners: (4, 2) its corners in image pixels, in order around it.
    """

    corners: np.ndarray

    def __post_init__(self) -> None:
        if np.asarray(self.corners).shape != (4, 2):
            raise ValueError("an outline has four (x, y) corners")

    @property
    def short_side(self) -> float:
        sides = np.linalg.norm(self.corners - np.roll(self.corners, 1, axis=0), axis=1)
        return float(sides.min())

    def holds(self, point) -> bool:
        """Whether ``point`` (x, y) lies inside the outline."""
        contour = self.corners.astype(np.float32).reshape(-1, 1, 2)
        return cv2.pointPolygonTest(contour, (float(point[0]), float(point[1])), False) >= 0

    def at_corner(self, point) -> bool:
        """Whether ``point`` lies where a card prints an index: near one of its corners."""
        distances = np.linalg.norm(self.corners - np.asarray(point, float), axis=1)
        return bool(distances.min() <= CORNER_ZONE * self.short_side)


def find_outlines(image: np.ndarray) -> list[Outline]:
    """The outlines of the cards lying apart in a BGR image, in its pixels."""
    height, width = image.shape[:2]
    scale = min(1.0, WORK_SIDE / max(height, width))
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else image
    grey = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    _, bright = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    area = small.shape[0] * small.shape[1]
    outlines = []
    # A light face on a darker table, or a dark face (a black deck) on a lighter one.
    for mask in (bright, 255 - bright):
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            hull = cv2.convexHull(contour)
            hull_area = cv2.contourArea(hull)
            if not MIN_AREA * area <= hull_area <= MAX_AREA * area:
                continue
            rect = cv2.minAreaRect(hull)
            (w, h) = rect[1]
            # A card's rounded corners fill its bounding rectangle all but a sliver; a fan, a
            # heap or two cards touching do not.
            if hull_area < FILL * w * h or not CARD_ASPECT[0] <= max(w, h) / min(w, h) <= CARD_ASPECT[1]:
                continue
            corners = cv2.boxPoints(rect)
            if _touches_edge(contour, small.shape):
                continue  # cut by the photo's edge (or the table around the cards): not one whole card
            outlines.append(Outline(corners.astype(np.float64) / scale))
    return outlines


def _touches_edge(contour: np.ndarray, shape) -> bool:
    margin = 2
    xs, ys = contour[:, 0, 0], contour[:, 0, 1]
    return bool(xs.min() < margin or ys.min() < margin or xs.max() >= shape[1] - margin
                or ys.max() >= shape[0] - margin)
