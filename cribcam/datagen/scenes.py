"""A synthetic photo of cards on a table, with exact labels and a record of the scene.

A scene is a layout (``layouts``) seen through a camera (``camera``): the table surface is
warped through the camera, then every object is painted bottom to top (``compositing``),
shadows are cast, and the light and camera effects are applied (``augment``).

A printed index is labelled when at least ``READABLE`` of its ink (the printed pixels of its
rank and suit) is in the frame and owned by its own card on the owner map, i.e. neither
covered by anything on top nor cut off by the frame's edge. At 85 % the rank and suit can
still be read; a card edge or a finger over more of the print hides enough of one of them to
make the reading a guess. Ink, not the box: a neighbour in a fan often covers the blank margin
of a box while the print stays in full view, and such an index must be labelled.

The record of a scene (written beside each image as JSON) holds:

* ``layout``: the layout kind; ``starter``: the starter's code, or null.
* ``deck``, ``deck_split``, ``look``: the design, its split, and its repainting.
* ``cards``: every card in the scene, bottom to top: ``code`` (null when face down),
  ``face_up``, ``role`` (hand, crib, starter, pack, table), ``polygon`` (its four corners in
  image pixels, null if behind the camera), ``visible_fraction`` (share of its area in view and
  uncovered); for face-up cards also ``corners`` (each index's ``quad`` in image pixels, the
  share of its ink ``seen``, and whether it is ``labelled``) and ``readable`` (any corner labelled).
* ``distractors``: kind and outline of everything else on the table.
* ``camera``, ``surface``, ``effects``, ``jpeg_quality``: how the photo was taken.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from cribcam.datagen import augment, textures
from cribcam.datagen.assets import Assets, PreparedDeck, bleed
from cribcam.datagen.camera import Camera, sample_camera
from cribcam.datagen.compositing import Placed, paint, place, seen_share, shadow_gain
from cribcam.datagen.layouts import Item, Layout, card_extent, sample_layout

# Share of an index's ink that must be seen for the index to be labelled (see module docs).
READABLE = 0.85
# Smallest index height in pixels that scenes are drawn with.
MIN_INDEX_PX = 10.0
# Labels narrower or lower than this many pixels after clipping are dropped.
MIN_BOX_PX = 2.0
# Texture pixels per card width in the table surfaces.
SURFACE_PPU = 150.0
# Share of face-up cards drawn curled (folded a little along a middle line).
CURL = 0.2


@dataclass
class Label:
    """One readable index: its card code and box (x1, y1, x2, y2) in image pixels."""

    code: str
    box: tuple[float, float, float, float]


@dataclass
class Scene:
    """A rendered image (BGR uint8), its labels, the JSON-ready record, the JPEG quality."""

    image: np.ndarray
    labels: list[Label]
    record: dict
    jpeg_quality: int = 95


def _mip_level(mips: list[np.ndarray], px: float) -> np.ndarray:
    """The smallest mip level not much smaller than ``px`` pixels wide (no more than 1.2x)."""
    level = 0
    while level + 1 < len(mips) and mips[level + 1].shape[1] >= px / 1.2:
        level += 1
    return mips[level]


def _sprite(rng, item: Item, deck: PreparedDeck, style: dict, px: float) -> np.ndarray:
    """The BGRA sprite of an item, for an object ``px`` pixels wide on screen."""
    if item.kind == "card":
        return augment.restyle(_mip_level(deck.faces[item.code], px), style["look"])
    if item.kind == "back":
        return _mip_level(deck.back, px)
    px = int(np.clip(px, 8, 900))
    if item.kind == "board":
        sprite = textures.cribbage_board(rng, px)
    elif item.kind == "chip":
        sprite = textures.chip(rng, px)
    elif item.kind == "coin":
        sprite = textures.coin(rng, px)
    elif item.kind == "phone":
        sprite = textures.phone(rng, px)
    elif item.kind == "finger":
        sprite = textures.finger(rng, px, style["skin"])
    elif item.kind == "thumb":
        sprite = textures.finger(rng, px, style["skin"], thickness=0.33)
    elif item.kind == "palm":
        sprite = textures.palm(rng, px, style["skin"])
    else:
        raise ValueError(f"unknown item kind {item.kind!r}")
    return bleed(sprite)


def _px_per_unit(camera: Camera, item: Item) -> float:
    """Pixels per table unit on screen at the item's place (the larger of the two axes)."""
    pts = np.array([[item.x, item.y, 1], [item.x + 1, item.y, 1], [item.x, item.y + 1, 1]]) @ camera.table().T
    if (pts[:, 2] <= 1e-6).any():
        return 1.0
    xy = pts[:, :2] / pts[:, 2:3]
    return float(max(np.linalg.norm(xy[1] - xy[0]), np.linalg.norm(xy[2] - xy[0])))


def _surface(rng, camera: Camera, assets: Assets, centre: tuple[float, float]) -> tuple[np.ndarray, str]:
    """The table seen through the camera (BGR uint8), and the surface kind."""
    kind, levels = assets.surfaces[int(rng.integers(len(assets.surfaces)))]
    ppu = SURFACE_PPU * float(rng.uniform(0.7, 1.4))
    level = 0  # avoid minifying the texture much more than 2x: it would shimmer
    while level + 1 < len(levels) and ppu / 2 ** (level + 1) >= camera.info["card_px"] / 1.2:
        level += 1
    tex = levels[level]
    ppu /= 2 ** level
    half = tex.shape[0] / 2 + rng.uniform(-0.25, 0.25, 2) * tex.shape[0]
    a = float(rng.uniform(0, 2 * math.pi))
    c, s = math.cos(a) / ppu, math.sin(a) / ppu
    tex_to_table = np.array([[c, -s, centre[0] - c * half[0] + s * half[1]],
                             [s, c, centre[1] - s * half[0] - c * half[1]], [0, 0, 1]])
    size = camera.size
    canvas = cv2.warpPerspective(tex, camera.table() @ tex_to_table, (size, size), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REFLECT_101)
    return canvas, kind


def _round(points: np.ndarray) -> list | None:
    return np.round(points, 1).tolist() if np.isfinite(points).all() else None


def _polygon_area(poly: np.ndarray) -> float:
    x, y = poly[:, 0], poly[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def _read_cards(placed: list[Placed], deck: PreparedDeck, owner: np.ndarray) -> tuple[list[Label], list[dict]]:
    """Labels of the readable indices, and the record of every card (face up or down)."""
    size = owner.shape[0]
    pixels = np.bincount(owner.ravel(), minlength=256)  # pixels shown of each object
    labels, records = [], []
    for p in placed:
        outline = p.outline()
        area = _polygon_area(outline) if np.isfinite(outline).all() else 0.0
        shown = min(pixels[p.oid] / area, 1.0) if area > 0 else 0.0
        record = {"code": p.item.code, "face_up": p.item.kind == "card", "role": p.item.role,
                  "polygon": _round(outline), "visible_fraction": round(shown, 3)}
        if p.item.kind == "card":
            corners = []
            x1, y1, x2, y2 = (deck.corners[p.item.code] / p.level_scale).T
            quads = p.project(np.stack([x1, y1, x2, y1, x2, y2, x1, y2], axis=1).reshape(-1, 2)).reshape(-1, 4, 2)
            for quad, ink in zip(quads, deck.index_ink[p.item.code]):
                seen = seen_share(quad, p.project(ink / p.level_scale), owner, p.oid) if pixels[p.oid] else 0.0
                labelled = False
                if seen >= READABLE:
                    lo, hi = np.clip(quad.min(axis=0), 0, size), np.clip(quad.max(axis=0), 0, size)
                    labelled = bool(min(hi - lo) >= MIN_BOX_PX)
                    if labelled:
                        labels.append(Label(p.item.code, (*lo.tolist(), *hi.tolist())))
                corners.append({"quad": _round(quad), "seen": round(seen, 3), "labelled": labelled})
            record["corners"] = corners
            record["readable"] = any(c["labelled"] for c in corners)
        records.append(record)
    return labels, records


def compose(rng: np.random.Generator, layout: Layout, camera: Camera, deck: PreparedDeck, assets: Assets,
            look: dict, photographic: bool = True) -> Scene:
    """Draws a layout through a camera: table, objects, shadows, labels, then the photo effects.

    Args:
        rng: Random source for everything the arguments leave open.
        layout: What lies on the table.
        camera: How it is seen.
        deck: The deck the cards come from.
        assets: Surfaces and noise.
        look: Deck look from ``augment.sample_look``.
        photographic: False for the clean composite: no light, blur or noise effects.
    """
    if len(layout.items) > 254:
        raise ValueError("a scene holds at most 254 objects")  # owner numbers are uint8
    size = camera.size
    x0, y0, x1, y1 = card_extent(layout)
    canvas, surface = _surface(rng, camera, assets, ((x0 + x1) / 2, (y0 + y1) / 2))
    owner = np.zeros((size, size), np.uint8)
    style = {"look": look, "skin": textures.skin_tone(rng)}
    placed = []
    for oid, item in enumerate(layout.items, start=1):
        sprite = _sprite(rng, item, deck, style, item.size * _px_per_unit(camera, item))
        h, w = sprite.shape[:2]
        bend = None
        if item.kind == "card" and rng.random() < CURL:
            axis, side = int(rng.integers(2)), int(rng.integers(2))
            bend = (axis, side, float(rng.uniform(3, 10)), float(rng.uniform(0.9, 1.05)))
        p = place(camera, item, oid, w, h, bend, deck.width / w if item.kind == "card" else 1.0)
        paint(canvas, owner, sprite, p)
        placed.append(p)
    gain = shadow_gain(rng, owner, camera.info["card_px"]) if rng.random() < 0.85 else None
    cards = [p for p in placed if p.item.kind in ("card", "back")]
    labels, card_records = _read_cards(cards, deck, owner)

    effects: list[str] = []
    quality = 95
    if photographic:
        is_card = np.zeros(256, np.float32)
        is_card[[p.oid for p in cards]] = 1.0
        image, effects = augment.photograph(rng, canvas, is_card[owner], assets.noise, gain)
        quality = augment.jpeg_quality(rng)
    elif gain is not None:
        image = np.clip(canvas * gain[..., None], 0, 255).astype(np.uint8)
    else:
        image = canvas
    record = {
        "layout": layout.kind, "starter": layout.starter, "deck": deck.name, "deck_split": deck.split,
        "look": look["name"], "surface": surface, "width": size, "height": size,
        "camera": {k: round(float(v), 3) for k, v in camera.info.items()},
        "effects": effects, "jpeg_quality": quality, "readable_threshold": READABLE,
        "cards": card_records,
        "distractors": [{"kind": p.item.kind, "polygon": _round(p.outline())} for p in placed if p not in cards],
    }
    return Scene(image, labels, record, quality)


def render_scene(rng: np.random.Generator, assets: Assets, size: int = 640, photographic: bool = True) -> Scene:
    """Draws a random scene: a deck, a layout, a camera and a look, then composes it."""
    deck = assets.decks[int(rng.integers(len(assets.decks)))]
    layout = sample_layout(rng, aspect=deck.height / deck.width)
    faces = [(it.x, it.y) for it in layout.items if it.kind == "card"] or [(it.x, it.y) for it in layout.cards()]
    camera = sample_camera(rng, size, card_extent(layout), faces, MIN_INDEX_PX / deck.index_height)
    return compose(rng, layout, camera, deck, assets, augment.sample_look(rng), photographic)
