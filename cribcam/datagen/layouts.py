"""Where the cards go: the layout kinds of cribbage photos, in table coordinates.

A layout is a list of items from the bottom of the pile to the top. Positions are in table
units where 1.0 is one card width (a card is ``aspect`` units tall); angles are in degrees.
Layouts know nothing about pixels, decks or the camera: ``scenes`` turns them into images.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from cribcam.scoring.cards import CARD_CODES

# Sizes of distractors in card widths (a card is 63 mm wide): a board is about 30 cm long,
# a chip 39 mm, a coin 18 to 30 mm, a finger about 80 mm.
BOARD_LENGTH = 4.7
CHIP_SIZE = 0.62
COIN_SIZE = (0.3, 0.48)
FINGER_LENGTH = (1.1, 1.5)
PHONE_LENGTH = (2.2, 2.6)


@dataclass(frozen=True)
class Item:
    """One object lying on the table.

    Attributes:
        kind: "card" (face up), "back" (a face-down card), or a distractor kind:
            "board", "chip", "coin", "phone", "finger", "palm", "thumb".
        x: Centre, table units.
        y: Centre, table units.
        angle: Rotation about the centre, degrees.
        code: Card code for face-up cards, else None.
        role: What the card is in the game: "hand", "crib", "starter", "pack", "table".
        size: Width (extent along the object's own x axis) in table units (cards: 1).
    """

    kind: str
    x: float
    y: float
    angle: float
    code: str | None = None
    role: str = "table"
    size: float = 1.0


@dataclass
class Layout:
    """A scene's objects, bottom to top, and what they mean."""

    kind: str
    items: list[Item]
    starter: str | None = None
    aspect: float = 1.4

    def cards(self) -> list[Item]:
        return [it for it in self.items if it.kind in ("card", "back")]


class Deal:
    """Hands out distinct card codes from a shuffled deck, as a real deck does."""

    def __init__(self, rng: np.random.Generator, codes=CARD_CODES) -> None:
        """Deals from ``codes`` (a whole deck by default) in a shuffled order."""
        self.order = [codes[i] for i in rng.permutation(len(codes))]

    def take(self, n: int) -> list[str]:
        taken, self.order = self.order[:n], self.order[n:]
        return taken


def _rotate(dx: float, dy: float, angle: float) -> tuple[float, float]:
    a = math.radians(angle)
    return dx * math.cos(a) - dy * math.sin(a), dx * math.sin(a) + dy * math.cos(a)


def _group(items: list[Item], x: float, y: float, angle: float) -> list[Item]:
    """Moves a group of items built around (0, 0) to (x, y), turned by ``angle``."""
    moved = []
    for it in items:
        dx, dy = _rotate(it.x, it.y, angle)
        moved.append(Item(it.kind, x + dx, y + dy, it.angle + angle, it.code, it.role, it.size))
    return moved


def _extent(items: list[Item], aspect: float) -> tuple[float, float, float, float]:
    """Bounding box (x0, y0, x1, y1) of the cards' centres, padded by a card's half diagonal."""
    pad = 0.5 * math.hypot(1.0, aspect)
    xs = [it.x for it in items]
    ys = [it.y for it in items]
    return min(xs) - pad, min(ys) - pad, max(xs) + pad, max(ys) + pad


def _jitter(rng: np.random.Generator, scale: float) -> float:
    return float(rng.normal(0.0, scale))


def _row(rng, codes, aspect, role) -> list[Item]:
    """Cards side by side, with gaps or small overlaps, slightly uneven as if put down by hand."""
    gap = float(rng.uniform(-0.25, 0.35))
    arc = float(rng.uniform(-0.08, 0.08)) if rng.random() < 0.3 else 0.0
    n = len(codes)
    items = []
    for i, code in enumerate(codes):
        u = i - (n - 1) / 2
        items.append(Item("card", u * (1 + gap) + _jitter(rng, 0.04), arc * u * u + _jitter(rng, 0.04),
                          _jitter(rng, 4.0), code, role))
    return items


def _grid(rng, codes, aspect, role) -> list[Item]:
    """Two rows of cards (a 4-card hand as 2 x 2, a 6-card hand as 2 x 3)."""
    cols = math.ceil(len(codes) / 2)
    gap = float(rng.uniform(0.05, 0.3))
    items = []
    for i, code in enumerate(codes):
        r, c = divmod(i, cols)
        items.append(Item("card", (c - (cols - 1) / 2) * (1 + gap) + _jitter(rng, 0.04),
                          (r - 0.5) * (aspect + gap) + _jitter(rng, 0.04), _jitter(rng, 4.0), code, role))
    return items


def _fan(rng, codes, aspect, role, radius: float | None = None) -> list[Item]:
    """Cards turned about a common pivot ``radius`` below their centres, each on top of the one
    to its left; the pivot is (0, radius)."""
    n = len(codes)
    step = float(rng.uniform(8.0, 16.0))
    radius = aspect * float(rng.uniform(0.45, 0.75)) if radius is None else radius
    items = []
    for i, code in enumerate(codes):
        a = (i - (n - 1) / 2) * step
        dx, dy = _rotate(0.0, -radius, a)
        items.append(Item("card", dx, dy + radius, a, code, role))
    return items


def _spread(rng, codes, aspect, role) -> list[Item]:
    """Cards slid apart in a line so that only a strip with the index shows of each but the last."""
    step = float(rng.uniform(0.2, 0.4))
    n = len(codes)
    return [Item("card", (i - (n - 1) / 2) * step + _jitter(rng, 0.01), _jitter(rng, 0.01),
                 _jitter(rng, 1.5), code, role) for i, code in enumerate(codes)]


def _messy(rng, codes, aspect, role) -> list[Item]:
    """Cards dropped roughly on a heap, as a crib is pushed across the table."""
    return [Item("card", _jitter(rng, 0.35), _jitter(rng, 0.35), float(rng.uniform(-30, 30)), code, role)
            for code in codes]


# Ways to put a hand down -> (maker, relative frequency); most people lay the cards in a row.
HAND_ARRANGEMENTS = {"row": (_row, 5), "grid": (_grid, 1), "fan": (_fan, 1), "spread": (_spread, 1),
                     "messy": (_messy, 1)}


def _arrange(rng, codes, aspect, role, allowed=tuple(HAND_ARRANGEMENTS)) -> list[Item]:
    names = list(allowed)
    weights = np.array([HAND_ARRANGEMENTS[n][1] for n in names], float)
    name = names[rng.choice(len(names), p=weights / weights.sum())]
    return HAND_ARRANGEMENTS[name][0](rng, codes, aspect, role)


def _pack(rng, n: int) -> list[Item]:
    """A squared-up stack of ``n`` face-down cards; each card a hair off the one below shows its edge.

    Only the top few layers are drawn, spaced to give the whole pack's thickness: the cards
    between them could not be seen anyway.
    """
    layers = min(n, 5)
    step = float(rng.uniform(0.002, 0.006)) * n / layers
    dx, dy = _rotate(step, 0.0, float(rng.uniform(0, 360)))
    angle = _jitter(rng, 1.0)
    return [Item("back", i * dx + _jitter(rng, 0.003), i * dy + _jitter(rng, 0.003), angle + _jitter(rng, 0.6),
                 role="pack") for i in range(layers)]


def _beside(rng, hand: list[Item], aspect: float, gap: tuple[float, float]) -> tuple[float, float]:
    """A point a little apart from a group of cards, on a random side."""
    x0, y0, x1, y1 = _extent(hand, aspect)
    side = rng.integers(4)
    d = float(rng.uniform(*gap)) + 0.5 * math.hypot(1.0, aspect)
    t = float(rng.uniform(-0.3, 0.3))
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    if side == 0:
        return x1 + d, cy + t * (y1 - y0)
    if side == 1:
        return x0 - d, cy + t * (y1 - y0)
    if side == 2:
        return cx + t * (x1 - x0), y1 + d
    return cx + t * (x1 - x0), y0 - d


def _with_starter(rng, deal, aspect, hand: list[Item], on_pack: float) -> tuple[list[Item], str]:
    """Adds the starter a little apart from ``hand``; sometimes on top of the pack."""
    (starter,) = deal.take(1)
    x, y = _beside(rng, hand, aspect, (0.1, 1.2))
    angle = float(rng.uniform(-180, 180)) if rng.random() < 0.3 else _jitter(rng, 8.0)
    below = _group(_pack(rng, int(rng.integers(6, 30))), x, y, angle) if rng.random() < on_pack else []
    top = Item("card", x + _jitter(rng, 0.03), y + _jitter(rng, 0.03), angle + _jitter(rng, 3.0), starter, "starter")
    return below + [top], starter


def _hand_and_starter(kind: str, n: int, role: str, allowed=tuple(HAND_ARRANGEMENTS)):
    def make(rng, deal, aspect) -> Layout:
        hand = _arrange(rng, deal.take(n), aspect, role, allowed)
        extra, starter = _with_starter(rng, deal, aspect, hand, on_pack=0.3)
        return Layout(kind, hand + extra, starter)
    return make


def _six_card_hand(rng, deal, aspect) -> Layout:
    return Layout("six_card_hand", _arrange(rng, deal.take(6), aspect, "hand"))


def _fanned(rng, deal, aspect) -> Layout:
    return Layout("fanned", _fan(rng, deal.take(int(rng.integers(3, 8))), aspect, "hand"))


def _spread_layout(rng, deal, aspect) -> Layout:
    items = _spread(rng, deal.take(int(rng.integers(4, 11))), aspect, "table")
    return Layout("spread", _group(items, 0, 0, 90.0 * int(rng.integers(2))))


def _overlapping(rng, deal, aspect) -> Layout:
    """Many cards scattered and overlapping, some face down, like a desk after a few deals."""
    n = int(rng.integers(5, 23))
    side = 1.1 * math.sqrt(n) * aspect
    items = []
    for code in deal.take(n):
        face_up = rng.random() < 0.9
        items.append(Item("card" if face_up else "back", float(rng.uniform(0, side)), float(rng.uniform(0, side)),
                          float(rng.uniform(-180, 180)), code if face_up else None))
    return Layout("overlapping", items)


def _stacked(rng, deal, aspect) -> Layout:
    """A loose pile of face-up cards: the top one shows, the others peek out or not at all."""
    items = [Item("card", _jitter(rng, 0.15), _jitter(rng, 0.15), _jitter(rng, 12.0), code)
             for code in deal.take(int(rng.integers(3, 9)))]
    return Layout("stacked", items)


def _held(rng, deal, aspect) -> Layout:
    """A fan held in a hand, seen from above: the back of the hand under the pivot, the thumb
    lying up across the bottoms of the front cards (the fingers are behind the cards)."""
    radius = aspect * float(rng.uniform(0.45, 0.6))
    cards = _fan(rng, deal.take(int(rng.integers(4, 7))), aspect, "hand", radius)
    palm = Item("palm", _jitter(rng, 0.1), radius + float(rng.uniform(0.25, 0.45)), _jitter(rng, 10.0),
                size=float(rng.uniform(1.3, 1.6)))
    thumb_length = float(rng.uniform(0.75, 0.95))
    a = float(rng.uniform(-70, -35))  # from the base at the pivot's left, up and to the right
    dx, dy = _rotate(thumb_length / 2, 0.0, a)
    thumb = Item("thumb", float(rng.uniform(-0.4, -0.15)) + dx, radius + float(rng.uniform(0.0, 0.15)) + dy, a,
                 size=thumb_length)
    return Layout("held", [palm] + cards + [thumb])


def _pack_starter(rng, deal, aspect) -> Layout:
    """The starter turned up on top of the pack, usually with a hand beside it."""
    pack = _pack(rng, int(rng.integers(10, 40)))
    (starter,) = deal.take(1)
    top = Item("card", _jitter(rng, 0.03), _jitter(rng, 0.03), _jitter(rng, 4.0), starter, "starter")
    items = pack + [top]
    if rng.random() < 0.7:
        hand = _arrange(rng, deal.take(4), aspect, "hand")
        x, y = _beside(rng, items, aspect, (0.2, 1.0))
        items += _group(hand, x, y, _jitter(rng, 10.0))
    return Layout("pack_starter", items, starter)


# Layout kind -> (relative frequency, maker). The 4-card hand with its starter is the photo
# users take most, so it is the most frequent.
LAYOUTS = {
    "hand_starter": (30, _hand_and_starter("hand_starter", 4, "hand")),
    "crib_starter": (10, _hand_and_starter("crib_starter", 4, "crib", ("row", "grid", "spread", "messy"))),
    "six_card_hand": (9, _six_card_hand),
    "three_card_hand": (7, _hand_and_starter("three_card_hand", 3, "hand")),
    "fanned": (8, _fanned),
    "spread": (7, _spread_layout),
    "overlapping": (10, _overlapping),
    "stacked": (5, _stacked),
    "held": (7, _held),
    "pack_starter": (7, _pack_starter),
}


def _distractors(rng, layout: Layout) -> tuple[list[Item], list[Item]]:
    """Things found on a cribbage table around the cards: (those under the cards, those over)."""
    x0, y0, x1, y1 = _extent(layout.cards(), layout.aspect)
    cx, cy, r = (x0 + x1) / 2, (y0 + y1) / 2, 0.5 * math.hypot(x1 - x0, y1 - y0)

    def around(extra: float) -> tuple[float, float]:
        d = r + extra + float(rng.uniform(0.0, 1.5))
        a = float(rng.uniform(0, 2 * math.pi))
        return cx + d * math.cos(a), cy + d * math.sin(a)

    under, over = [], []
    if rng.random() < 0.35:
        under.append(Item("board", *around(0.8), float(rng.uniform(0, 180)), size=BOARD_LENGTH))
    if rng.random() < 0.3:
        x, y = around(0.8)
        under += _group(_pack(rng, int(rng.integers(4, 7))), x, y, float(rng.uniform(0, 360)))
    if rng.random() < 0.15:
        length = float(rng.uniform(*PHONE_LENGTH))
        under.append(Item("phone", *around(1.0), float(rng.uniform(0, 360)), size=length))
    for _ in range(int(rng.integers(0, 5)) if rng.random() < 0.35 else 0):
        kind = "chip" if rng.random() < 0.5 else "coin"
        size = CHIP_SIZE if kind == "chip" else float(rng.uniform(*COIN_SIZE))
        (over if rng.random() < 0.15 else under).append(Item(kind, *around(0.0), float(rng.uniform(0, 360)), size=size))
    if rng.random() < 0.2:
        # A finger reaching in from outside to point at (and maybe cover) a card.
        a = float(rng.uniform(0, 360))
        length = float(rng.uniform(*FINGER_LENGTH))
        reach = r * float(rng.uniform(0.3, 1.0)) + length / 2
        dx, dy = _rotate(-reach, 0.0, a)
        over.append(Item("finger", cx + dx, cy + dy, a, size=length))
    return under, over


def sample_layout(rng: np.random.Generator, aspect: float = 1.4, distractors: float = 0.45) -> Layout:
    """Draws a layout kind by its frequency and builds it.

    Args:
        rng: Random source.
        aspect: Card height / width of the deck in use.
        distractors: Probability of adding distractors (board, face-down cards, chips,
            coins, a finger) around the cards.
    """
    kinds = list(LAYOUTS)
    weights = np.array([LAYOUTS[k][0] for k in kinds], float)
    kind = kinds[rng.choice(len(kinds), p=weights / weights.sum())]
    layout = LAYOUTS[kind][1](rng, Deal(rng), aspect)
    layout.aspect = aspect
    layout.items = _group(layout.items, 0.0, 0.0, float(rng.uniform(0, 360)))
    if rng.random() < distractors:
        under, over = _distractors(rng, layout)
        layout.items = under + layout.items + over
    return layout


def card_extent(layout: Layout) -> tuple[float, float, float, float]:
    """Bounding box (x0, y0, x1, y1) of the layout's cards in table units."""
    return _extent(layout.cards(), layout.aspect)
