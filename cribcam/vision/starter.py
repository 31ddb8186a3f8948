"""Finding the starter: the card set apart from the others.

Players put the starter (the cut card) a little away from the hand, or on the pack. The card
whose nearest neighbour is much farther than the others' nearest neighbours is taken for
it; when no card stands out like that, the layout does not say, and the reading says so.
"""

from __future__ import annotations

import numpy as np

from cribcam.vision.reading import SeenCard

APART = 2.0  # the starter's gap must be this many times the typical gap in the hand


def find_starter(cards: list[SeenCard]) -> str | None:
    """The code of the card set apart from the rest, or None when none clearly is."""
    if len(cards) < 3:
        return None
    gaps = np.array([[_gap(a, b) if a is not b else np.inf for b in cards] for a in cards])
    nearest = gaps.min(axis=1)
    loner = int(nearest.argmax())
    others = np.delete(nearest, loner)
    typical = float(np.median(others))
    # Measured against box size too, so a tight hand with a near-touching gap is not taken.
    box = float(np.median([_size(b) for card in cards for b in card.boxes]))
    if nearest[loner] >= APART * max(typical, box):
        return cards[loner].card
    return None


def _gap(a: SeenCard, b: SeenCard) -> float:
    """How far apart two cards lie: between their centres where both show two corners, else
    between their nearest corners. Two cards laid side by side have corners about a card's
    width apart, as near as a starter's corner to the hand's nearest card, so corners alone
    cannot tell a neat row of cards from a starter set apart; their centres can."""
    if len(a.boxes) > 1 and len(b.boxes) > 1:
        return float(np.hypot(a.center[0] - b.center[0], a.center[1] - b.center[1]))
    return min(np.hypot((p[0] + p[2] - q[0] - q[2]) / 2, (p[1] + p[3] - q[1] - q[3]) / 2)
               for p in a.boxes for q in b.boxes)


def _size(box) -> float:
    return max(box[2] - box[0], box[3] - box[1])
