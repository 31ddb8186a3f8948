"""What scenes are drawn from, prepared once per build and shared by the worker processes.

Decks get downscaled copies of every face (mip levels) so that a small card on screen is
warped from a small image instead of aliasing, and their transparent pixels take the colour
of the card's edge so that straight-alpha warping leaves no dark fringe. Table surfaces, card
backs for decks without one, and a field of sensor noise are drawn from the build's seed.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from cribcam.datagen import art_corners as corner_tools
from cribcam.datagen import textures
from cribcam.settings import deck_cache_dir

# Downscaled copies of each card: warping down more than ~2x aliases the print.
MIP_LEVELS = 3
# Ink pixels kept per index to judge how much of it is seen: plenty for a share in percent.
INK_POINTS = 400


@dataclass
class PreparedDeck:
    """A deck ready for compositing.

    Attributes:
        name: Deck design name.
        split: "train" or "heldout".
        licence: The design's licence.
        width: Card width in pixels at level 0.
        height: Card height in pixels at level 0.
        faces: Card code -> mip levels (BGRA, each half the size of the one before).
        back: Mip levels of the card back (a drawn one for decks that have none).
        corners: Card code -> (k, 4) array of index boxes x1, y1, x2, y2 at level 0.
        index_ink: Card code -> for each index box, the (n, 2) level-0 pixel centres of the
            printed rank and suit in it (at most ``INK_POINTS``): what must stay in view for
            the index to be readable.
        index_height: Median index box height in card widths.
    """

    name: str
    split: str
    licence: str
    width: int
    height: int
    faces: dict[str, list[np.ndarray]]
    back: list[np.ndarray]
    corners: dict[str, np.ndarray]
    index_ink: dict[str, list[np.ndarray]]
    index_height: float


@dataclass
class Assets:
    """Decks, table surfaces (kind, mip levels), and a noise field."""

    decks: list[PreparedDeck]
    surfaces: list[tuple[str, list[np.ndarray]]]
    noise: np.ndarray


def bleed(bgra: np.ndarray) -> np.ndarray:
    """Gives transparent pixels the mean colour of the sprite's opaque edge.

    Warping interpolates colour and alpha separately; with black under the transparent parts,
    every antialiased edge would get a dark rim.
    """
    alpha = bgra[..., 3]
    clear = alpha < 255
    if not clear.any():
        return bgra
    edge = ~clear & cv2.dilate(clear.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    if not edge.any():
        return bgra
    out = bgra.copy()
    out[..., :3][clear] = bgra[..., :3][edge].mean(axis=0).astype(np.uint8)
    return out


def mips(image: np.ndarray, levels: int = MIP_LEVELS) -> list[np.ndarray]:
    """``image`` and ``levels - 1`` copies, each half the size of the one before."""
    out = [image]
    for _ in range(levels - 1):
        h, w = out[-1].shape[:2]
        out.append(cv2.resize(out[-1], (max(w // 2, 1), max(h // 2, 1)), interpolation=cv2.INTER_AREA))
    return out


def prepare_deck(deck, rng: np.random.Generator) -> PreparedDeck:
    """Mip levels and index arrays of a ``cribcam.datagen.card_art.Deck``.

    Args:
        deck: The deck.
        rng: Draws a card back for a deck without one.
    """
    height, width = next(iter(deck.cards.values())).shape[:2]
    corners = {code: np.asarray(boxes, np.float64).reshape(-1, 4) for code, boxes in deck.corners.items()}
    heights = [b[3] - b[1] for boxes in corners.values() for b in boxes]
    if deck.back is None:
        back = mips(bleed(textures.card_back(rng, width, height)))
    else:
        back = mips(bleed(cv2.resize(deck.back, (width, height), interpolation=cv2.INTER_AREA)))
    return PreparedDeck(
        name=deck.name, split=deck.split, licence=deck.licence, width=width, height=height,
        faces={code: mips(bleed(img)) for code, img in deck.cards.items()}, back=back,
        corners=corners, index_ink=index_ink(deck.cards, corners), index_height=float(np.median(heights)) / width)


def index_ink(cards: dict[str, np.ndarray], corners: dict[str, np.ndarray]) -> dict[str, list[np.ndarray]]:
    """The printed pixels inside each index box of each card, as (n, 2) pixel centres.

    Ink is told from paper as in the corner locator (``corners.ink_mask``); a box whose
    ink is all gone (a test deck with blanked indices) gets an empty array.
    """
    face = corner_tools.face_colour(cards)
    border = corner_tools.border_width(cards, face)
    out = {}
    for code, boxes in corners.items():
        mask = corner_tools.ink_mask(cards[code], face, border)
        points = []
        for x1, y1, x2, y2 in boxes:
            x0, y0 = int(np.floor(x1)), int(np.floor(y1))
            # Pixel-edge boxes: columns x1 .. x2-1 and rows y1 .. y2-1 (see ``corners``).
            ys, xs = np.nonzero(mask[y0:int(np.ceil(y2)), x0:int(np.ceil(x2))])
            ink = np.stack([xs + x0 + 0.5, ys + y0 + 0.5], axis=1)
            points.append(ink[::max(1, -(-len(ink) // INK_POINTS))])  # at most INK_POINTS
        out[code] = points
    return out


def make_assets(decks: list, seed: int, n_surfaces: int = 40, noise_size: int = 1024) -> Assets:
    """Prepares decks and draws the shared surfaces and noise from ``seed``.

    Args:
        decks: ``Deck`` objects or prepared decks, in a fixed order (a scene picks by index).
        seed: Seed of the build; the same seed gives the same assets.
        n_surfaces: Number of table surfaces, spread evenly over the surface kinds.
        noise_size: Side of the noise field; at least the image size.
    """
    rng = np.random.default_rng([seed, 0xA55E7])
    prepared = [d if isinstance(d, PreparedDeck) else prepare_deck(d, rng) for d in decks]
    kinds = [textures.SURFACES[i % len(textures.SURFACES)] for i in range(n_surfaces)]
    surfaces = [(kind, mips(textures.table_surface(rng, kind))) for kind in kinds]
    noise = rng.standard_normal((noise_size, noise_size, 3), dtype=np.float32)
    return Assets(prepared, surfaces, noise)


@dataclass(frozen=True)
class DeckArtPlan:
    """What ``decks.load_decks`` will render before it can return a split's decks (nothing,
    for a split already in the deck cache).

    Attributes:
        decks: the designs of the split not rendered yet.
        cache: the deck cache folder.
        missing: what the rendering needs that is not installed, with the Debian package that
            has each: ``[("rsvg-convert", "librsvg2-bin"), ("gnome-cards-data", "gnome-cards-data")]``
            (a card package stands for itself).
    """

    decks: tuple[str, ...]
    cache: Path
    missing: tuple[tuple[str, str], ...] = ()

    def sentence(self, purpose: str) -> str:
        """One sentence saying, before it starts, what will be done, and why: ``purpose`` says
        what the decks are for ("the clip shows held-out deck designs")."""
        designs = f"{len(self.decks)} of them {'are' if len(self.decks) != 1 else 'is'}"
        if len(self.decks) == 1:
            designs = "one of them is"
        return (f"{purpose}: {designs} not in the deck cache yet ({', '.join(self.decks)}), so "
                f"this run renders every card with rsvg-convert into {self.cache} (a minute or "
                f"two, once; later runs take them from there)")


def deck_art_plan(split: str | None, cache_dir: str | Path | None = None, width: int = 240
                  ) -> DeckArtPlan | None:
    """What ``decks.load_decks(split, cache_dir, width)`` would render, read from the deck
    cache without touching it; None when every deck of the split is rendered."""
    from cribcam.datagen import card_art as deck_art

    cache = Path(cache_dir) if cache_dir is not None else deck_cache_dir()
    todo = [e for e in deck_art.manifest_decks(split) if not deck_art.rendered(e, cache, width)]
    if not todo:
        return None
    missing = [("rsvg-convert", "librsvg2-bin")] if shutil.which("rsvg-convert") is None else []
    missing += [(package, package) for package in deck_art.missing_packages(todo)]
    return DeckArtPlan(tuple(e["name"] for e in todo), cache, tuple(missing))
