"""Suit symbols drawn as shapes of random geometry, for decks whose suits no font prints.

The font decks take their suit symbols from the few installed fonts that have all four, about
ten designs in all, and the classifier reads a suit in a font it never saw worse than its
rank: a club on an unfamiliar base reads as a spade. Printed decks vary their suits far more
(lobes round or pointed, stems flared, straight or on a foot, diamonds with bowed sides), so
a share of the font decks draws its four suits here instead. One deck keeps one geometry for
all four, as a printer does: its club and spade share their stem, so the two are told apart by
what sits on the stem, not by the stem.
"""

from __future__ import annotations

import cv2
import numpy as np

STEMS = ("flared", "straight", "footed")
_SIDE = 256  # the drawing canvas' height; shapes are drawn large and shrunk, for smooth edges
_SHIFT = 4  # cv2's sub-pixel bits for the drawn coordinates


def suit_geometry(rng: np.random.Generator) -> dict:
    """One deck's suit design: the parameters ``suit_mask`` draws all four suits from."""
    return {
        "aspect": float(rng.uniform(0.8, 1.1)),  # width over height of the heart, spade and club
        "lobe": float(rng.uniform(0.25, 0.32)),  # a heart's or spade's lobe radius, of the width
        "cleft": float(rng.uniform(0.0, 0.6)),  # how deep the lobes part: 0 at their centres
        "leaf": float(rng.uniform(0.2, 0.27)),  # a club's leaf radius, of the width
        "spread": float(rng.uniform(0.85, 1.15)),  # how far apart a club's leaves lie
        "stem": STEMS[int(rng.integers(len(STEMS)))],
        "stem_length": float(rng.uniform(0.18, 0.32)),  # of the symbol's height
        "stem_base": float(rng.uniform(0.25, 0.6)),  # the stem's widest, of the width
        "diamond_aspect": float(rng.uniform(0.6, 0.85)),
        "diamond_bow": float(rng.uniform(-0.12, 0.08)),  # sides bowed in (<0) or out (>0)
    }


def suit_mask(suit: str, height: int, geometry: dict) -> np.ndarray:
    """The ink of ``suit`` ("C", "D", "H" or "S") about ``height`` pixels tall, as a tight
    uint8 mask like a font glyph's."""
    canvas = np.zeros((_SIDE, _SIDE * 2), np.uint8)
    width = _SIDE * (geometry["diamond_aspect"] if suit == "D" else geometry["aspect"])
    left = (canvas.shape[1] - width) / 2
    if suit == "D":
        _diamond(canvas, left, width, geometry["diamond_bow"])
    elif suit == "H":
        _heart(canvas, left, width, 0.0, _SIDE, geometry)
    else:
        body = _SIDE * (1 - geometry["stem_length"])
        _stem(canvas, left, width, body, geometry)
        if suit == "S":
            _heart(canvas, left, width, body * 1.05, 0.0, geometry)  # upside down: point on top
        else:
            _club(canvas, left, width, body, geometry)
    ys, xs = np.nonzero(canvas)
    tight = canvas[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    scale = height / tight.shape[0]
    return cv2.resize(tight, (max(2, round(tight.shape[1] * scale)), max(2, height)), interpolation=cv2.INTER_AREA)


def _fill(canvas: np.ndarray, points) -> None:
    cv2.fillPoly(canvas, [np.round(np.asarray(points) * (1 << _SHIFT)).astype(np.int32)], 255, cv2.LINE_AA, _SHIFT)


def _disc(canvas: np.ndarray, x: float, y: float, radius: float) -> None:
    cv2.circle(canvas, (round(x * (1 << _SHIFT)), round(y * (1 << _SHIFT))), round(radius * (1 << _SHIFT)),
               255, -1, cv2.LINE_AA, _SHIFT)


def _heart(canvas: np.ndarray, left: float, width: float, lobes_y: float, point_y: float, geometry: dict) -> None:
    """Two round lobes touching ``lobes_y`` and a point at ``point_y``, its sides tangent to the lobes."""
    # A point shorter than about three radii reads as a dome (a club's top, from afar).
    radius = min(geometry["lobe"] * width, abs(point_y - lobes_y) / 3.2)
    down = 1.0 if point_y > lobes_y else -1.0
    centre_y = lobes_y + down * radius
    centres = (np.array([left + radius, centre_y]), np.array([left + width - radius, centre_y]))
    tip = np.array([left + width / 2, point_y])
    for centre in centres:
        _disc(canvas, *centre, radius)
    sides = []
    for centre, outward in zip(centres, (-1.0, 1.0)):
        towards = centre - tip
        distance = np.linalg.norm(towards)
        turn = np.arcsin(min(1.0, radius / distance)) * outward * down  # the tangent's angle off the line
        along = np.sqrt(max(0.0, distance ** 2 - radius ** 2))
        rotation = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
        sides.append(tip + rotation @ (towards / distance) * along)
    cleft = np.array([left + width / 2, centre_y - down * radius * geometry["cleft"]])
    _fill(canvas, [sides[0], tip, sides[1], centres[1], cleft, centres[0]])


def _club(canvas: np.ndarray, left: float, width: float, body: float, geometry: dict) -> None:
    """Three leaves above the stem's top at ``body``."""
    radius = geometry["leaf"] * width
    middle = left + width / 2
    side = (width / 2 - radius) * geometry["spread"]
    low = body - radius * 1.1
    _disc(canvas, middle, radius, radius)
    for x in (middle - side, middle + side):
        _disc(canvas, x, low, radius)
    _disc(canvas, middle, (radius + low) / 2 + radius * 0.2, radius * 0.7)  # fills the leaves' meeting


def _stem(canvas: np.ndarray, left: float, width: float, body: float, geometry: dict) -> None:
    """A club's or spade's stem from ``body`` down to the canvas' foot, in the deck's style."""
    middle = left + width / 2
    base = geometry["stem_base"] * width / 2
    neck = max(2.0, width * 0.035)
    top = body * 0.6  # inside the leaves' or lobes' ink
    if geometry["stem"] == "flared":  # widening down in concave sides
        ts = np.linspace(0, 1, 12)
        sides = neck + (base - neck) * ts ** 2.2
        ys = top + (_SIDE - top) * ts
        _fill(canvas, [*zip(middle - sides, ys), *zip(middle + sides[::-1], ys[::-1])])
    elif geometry["stem"] == "straight":
        half = max(neck * 1.5, base * 0.35)
        _fill(canvas, [(middle - half, top), (middle + half, top), (middle + half, _SIDE), (middle - half, _SIDE)])
    else:  # a narrow neck standing on a flat foot
        foot = (_SIDE - top) * 0.3
        _fill(canvas, [(middle - neck * 1.5, top), (middle + neck * 1.5, top), (middle + neck * 2, _SIDE - foot),
                       (middle - neck * 2, _SIDE - foot)])
        _fill(canvas, [(middle - base, _SIDE - foot), (middle + base, _SIDE - foot), (middle + base, _SIDE),
                       (middle - base, _SIDE)])


def _diamond(canvas: np.ndarray, left: float, width: float, bow: float) -> None:
    """Four points, the sides bowed in or out by ``bow`` of the width."""
    corners = [(left + width / 2, 0.0), (left + width, _SIDE / 2), (left + width / 2, float(_SIDE)),
               (left, _SIDE / 2)]
    centre = np.array([left + width / 2, _SIDE / 2])
    points = []
    for a, b in zip(corners, corners[1:] + corners[:1]):
        a, b = np.array(a), np.array(b)
        middle = (a + b) / 2
        outward = (middle - centre) / np.linalg.norm(middle - centre)
        control = middle + outward * bow * width * 2
        for t in np.linspace(0, 1, 10, endpoint=False):  # a quadratic Bezier side
            points.append((1 - t) ** 2 * a + 2 * (1 - t) * t * control + t ** 2 * b)
    _fill(canvas, points)
