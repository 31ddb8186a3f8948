"""Synthetic layout photos: a deck's suit laid out as teaching asks, with exact labels.

What the player photographs to teach a deck (``cribcam.teach.layout_photos``), drawn with the
scenes' code from a design's card art: the tests teach from them, and the model card's
measurements (``bench/bench_teach.py``) too.
"""

from __future__ import annotations

import numpy as np

from cribcam.datagen import textures
from cribcam.datagen.assets import make_assets
from cribcam.datagen.camera import look_at
from cribcam.datagen.layouts import Item, Layout, card_extent
from cribcam.datagen.scenes import compose
from cribcam.scoring.cards import RANKS


def render_layout(deck, suit: str, seed: int, size: int = 1024, per_row: int = 5,
                  photographic: bool = True) -> tuple[np.ndarray, list]:
    """A synthetic photo of one suit laid out as ``cribcam.vision.decks.LAYOUT`` states, with
    its exact labels.

    Args:
        deck: a ``cribcam.datagen.card_art.Deck`` (or prepared deck).
        suit: the suit laid out, one of CDHS.
        seed: random seed (table, light, the small unevenness of cards put down by hand).
        size: the photo's side in pixels.
        per_row: cards per row.
        photographic: False for the clean composite.

    Returns:
        The BGR image and its labels (``scenes.Label``: card code and index box).
    """
    rng = np.random.default_rng([seed, 0x7EAC])
    assets = make_assets([deck], seed, n_surfaces=len(textures.SURFACES))
    prepared = assets.decks[0]
    aspect = prepared.height / prepared.width
    items = []
    for k, rank in enumerate(RANKS):
        row, column = divmod(k, per_row)
        items.append(Item("card", column * 1.25 + rng.normal(0, 0.03), row * (aspect + 0.3) + rng.normal(0, 0.03),
                          float(rng.normal(0, 2.0)), f"{rank}{suit}", "table"))
    layout = Layout("teaching", items, None, aspect)
    x0, y0, x1, y1 = card_extent(layout)
    card_px = 0.92 * size / max(x1 - x0, y1 - y0)
    # Azimuth 0 and little roll: the rows run across the photo, as the layout asks.
    camera = look_at(((x0 + x1) / 2, (y0 + y1) / 2), card_px, tilt=float(rng.uniform(0, 12)),
                     azimuth=0.0, roll=float(rng.normal(0, 3)), size=size)
    scene = compose(rng, layout, camera, prepared, assets, {"name": "plain"}, photographic)
    return scene.image, scene.labels
