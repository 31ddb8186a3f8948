"""Painting flat sprites through homographies, with an owner map for exact occlusion.

Each painted object writes its number (1..254, bottom to top) into an owner map wherever its
alpha is over one half; what an index box still shows is then counted on that map.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from cribcam.datagen.camera import Camera
from cribcam.datagen.layouts import Item


@dataclass
class Piece:
    """A flat part of a sprite: its pixel box in the sprite, homography, and light factor."""

    x0: int
    y0: int
    x1: int
    y1: int
    H: np.ndarray
    light: float = 1.0

    def project(self, pts: np.ndarray) -> np.ndarray:
        """Image points of sprite pixels ``pts`` (n, 2); NaN for points behind the camera."""
        p = np.hstack([pts - [self.x0, self.y0], np.ones((len(pts), 1))]) @ self.H.T
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(p[:, 2:3] > 1e-6, p[:, :2] / p[:, 2:3], np.nan)


@dataclass
class Placed:
    """An object as painted: its item, owner number, sprite size and flat pieces.

    Attributes:
        level_scale: Level-0 deck pixels per sprite pixel (cards drawn from a mip level).
    """

    item: Item
    oid: int
    w: int
    h: int
    pieces: list[Piece] = field(default_factory=list)
    level_scale: float = 1.0

    def project(self, pts: np.ndarray) -> np.ndarray:
        """Image points of sprite pixels, each through the piece that holds it."""
        out = np.full((len(pts), 2), np.nan)
        todo = np.ones(len(pts), bool)
        for p in self.pieces:
            inside = todo & (pts[:, 0] >= p.x0) & (pts[:, 0] <= p.x1) & (pts[:, 1] >= p.y0) & (pts[:, 1] <= p.y1)
            if inside.any():
                out[inside] = p.project(pts[inside])
                todo &= ~inside
        return out

    def outline(self) -> np.ndarray:
        return self.project(np.array([[0, 0], [self.w, 0], [self.w, self.h], [0, self.h]], float))


def _plane(item: Item, w: int, h: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """World vectors of one sprite pixel along u and v, and the world point of pixel (0, 0)."""
    s = item.size / w
    a = math.radians(item.angle)
    eu = np.array([math.cos(a), math.sin(a), 0.0]) * s
    ev = np.array([-math.sin(a), math.cos(a), 0.0]) * s
    origin = np.array([item.x, item.y, 0.0]) - eu * w / 2 - ev * h / 2
    return eu, ev, origin


def place(camera: Camera, item: Item, oid: int, w: int, h: int,
          bend: tuple[int, int, float, float] | None = None, level_scale: float = 1.0) -> Placed:
    """Puts a w x h sprite where ``item`` says; a curled card becomes two planes.

    Args:
        camera: The camera.
        item: Where the object lies.
        oid: Owner number.
        w: Sprite width in pixels.
        h: Sprite height in pixels.
        bend: None for a flat object, else (axis, side, angle, light): the card is folded
            across axis 0 (u) or 1 (v) at its middle, and the half on ``side`` (0 low, 1 high)
            is lifted by ``angle`` degrees towards the camera and catches ``light`` times the
            light.
        level_scale: Level-0 deck pixels per sprite pixel.
    """
    eu, ev, origin = _plane(item, w, h)
    if bend is None:
        return Placed(item, oid, w, h, [Piece(0, 0, w, h, camera.homography(np.column_stack([eu, ev, origin])))],
                      level_scale)
    axis, side, angle, light = bend
    e_n = (eu, ev)[axis]  # direction across the fold
    length = w if axis == 0 else h
    fold = length // 2
    up = np.array([0.0, 0.0, -np.linalg.norm(e_n)])  # the camera is on the side of -Z
    b = math.radians(angle)
    # Walking away from the fold on the lifted side rises, whichever way it runs.
    e_lift = math.cos(b) * e_n + (math.sin(b) if side == 1 else -math.sin(b)) * up
    fold_point = origin + fold * e_n
    pieces = []
    # The halves share the fold's row of pixels, so that no seam opens between them.
    for lifted, (a0, a1) in ((side == 0, (0, fold + 1)), (side == 1, (fold, length))):
        e = e_lift if lifted else e_n
        start = fold_point + (a0 - fold) * e  # world point of the piece's first pixel line
        if axis == 0:
            plane, box = np.column_stack([e, ev, start]), (a0, 0, a1, h)
        else:
            plane, box = np.column_stack([eu, e, start]), (0, a0, w, a1)
        pieces.append(Piece(*box, camera.homography(plane), light if lifted else 1.0))
    return Placed(item, oid, w, h, pieces, level_scale)


def paint(canvas: np.ndarray, owner: np.ndarray, sprite: np.ndarray, placed: Placed) -> None:
    """Warps a BGRA sprite (straight alpha, bled edges) onto a uint8 canvas, piece by piece."""
    size = canvas.shape[0]
    for piece in placed.pieces:
        sub = sprite[piece.y0:piece.y1, piece.x0:piece.x1]
        h, w = sub.shape[:2]
        corners = np.array([[0, 0, 1], [w, 0, 1], [w, h, 1], [0, h, 1]], float) @ piece.H.T
        if (corners[:, 2] <= 1e-6).any():
            continue  # reaches behind the camera: out of view anyway
        xy = corners[:, :2] / corners[:, 2:3]
        x0, y0 = np.maximum(np.floor(xy.min(axis=0)).astype(int), 0)
        x1, y1 = np.minimum(np.ceil(xy.max(axis=0)).astype(int) + 1, size)
        if x0 >= x1 or y0 >= y1:
            continue
        H = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1.0]]) @ piece.H
        warped = cv2.warpPerspective(sub, H, (int(x1 - x0), int(y1 - y0)), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        alpha = cv2.extractChannel(warped, 3)
        weight = alpha.astype(np.float32) * (1 / 255)
        colour = cv2.cvtColor(warped, cv2.COLOR_BGRA2BGR)
        if piece.light != 1.0:
            colour = cv2.convertScaleAbs(colour, alpha=piece.light)
        roi = canvas[y0:y1, x0:x1]
        roi[:] = cv2.blendLinear(colour, roi, weight, 1.0 - weight)
        owner[y0:y1, x0:x1][alpha > 127] = placed.oid


def seen_share(quad: np.ndarray, ink: np.ndarray, owner: np.ndarray, oid: int) -> float:
    """Share of an index's ink points (image pixels) that are in the frame and owned by ``oid``.

    Args:
        quad: The index box as seen (4, 2); only its size is used, to rule out an index seen
            at a grazing angle from very close, which no one can read.
        ink: Image points of the index's printed pixels (n, 2); NaN behind the camera.
        owner: Object number of every image pixel (the topmost object drawn there).
        oid: The card's object number.
    """
    size = owner.shape[0]
    if len(ink) == 0 or not np.isfinite(quad).all() or (np.ptp(quad, axis=0) > 4 * size).any():
        return 0.0
    xy = np.floor(np.nan_to_num(ink, nan=-1.0)).astype(np.int64)
    inside = (xy >= 0).all(axis=1) & (xy < size).all(axis=1)
    hits = np.count_nonzero(owner[xy[inside, 1], xy[inside, 0]] == oid)
    return hits / len(ink)


def shadow_gain(rng: np.random.Generator, owner: np.ndarray, card_px: float) -> np.ndarray:
    """Light factor of the shadows objects cast on whatever lies under them.

    A pixel is in shadow when the object the light passes first (the owner map shifted
    along the light) lies above the object seen there.
    """
    size = owner.shape[0]
    length = card_px * float(rng.uniform(0.01, 0.05))
    a = float(rng.uniform(0, 2 * math.pi))
    dx, dy = int(round(length * math.cos(a))), int(round(length * math.sin(a)))
    strength = float(rng.uniform(0.15, 0.45))
    sigma = max(0.6, length * float(rng.uniform(0.4, 1.0)))
    gain = np.ones((size, size), np.float32)
    if (dx == 0 and dy == 0) or abs(dx) >= size or abs(dy) >= size:
        return gain
    shifted = np.zeros_like(owner)  # shifted[y, x] = owner[y - dy, x - dx]
    shifted[max(dy, 0):size + min(dy, 0), max(dx, 0):size + min(dx, 0)] = \
        owner[max(-dy, 0):size - max(dy, 0), max(-dx, 0):size - max(dx, 0)]
    shade = (shifted > owner).astype(np.float32)
    if sigma > 4:  # wide soft shadows: blur at a quarter of the size, much faster, same look
        small = cv2.resize(shade, (size // 4, size // 4), interpolation=cv2.INTER_AREA)
        shade = cv2.resize(cv2.GaussianBlur(small, (0, 0), sigma / 4), (size, size), interpolation=cv2.INTER_LINEAR)
    else:
        shade = cv2.GaussianBlur(shade, (0, 0), sigma)
    gain -= strength * shade
    return gain
