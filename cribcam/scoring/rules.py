"""The rule constants and the small rules shared by the itemized scorer and the enumeration.

Each rule lives here once. The functions take plain values and also work element-wise on
numpy arrays, so ``stats`` can apply the very same rules to millions of hands at once.
"""

from __future__ import annotations

from dataclasses import dataclass

FIFTEEN = 15
THIRTY_ONE = 31
PAIR_POINTS = {2: 2, 3: 6, 4: 12}  # pair, pair royal, double pair royal
NOBS = 1  # jack in hand (or crib) of the starter's suit
HEELS = 2  # starter turned up is a jack: to the dealer, not part of any hand
GO = 1
LAST_CARD = 1


@dataclass(frozen=True)
class Variant:
    """A form of the game, as far as the show is concerned.

    Attributes:
        name: how the user names it.
        hand_size: cards in a hand at the show (without the starter).
        crib_size: cards in the crib (without the starter).
    """

    name: str
    hand_size: int
    crib_size: int

    def size(self, crib: bool) -> int:
        return self.crib_size if crib else self.hand_size


VARIANTS = {
    "six-card": Variant("six-card", hand_size=4, crib_size=4),
    "five-card": Variant("five-card", hand_size=3, crib_size=4),
}
DEFAULT_VARIANT = "six-card"


def flush_points(hand_suited, starter_matches, hand_size: int, crib: bool):
    """Points for a flush.

    A hand scores one per card when all its cards share a suit, one more if the starter does
    too; a crib scores only when all of its cards and the starter share a suit.

    Args:
        hand_suited: whether all hand (or crib) cards share one suit (bool or bool array).
        starter_matches: whether the starter is of that suit too (bool or bool array).
        hand_size: cards in the hand or crib, without the starter.
        crib: crib rules.
    """
    full = (hand_size + 1) * (hand_suited & starter_matches)
    if crib:
        return full
    return hand_size * hand_suited + (hand_suited & starter_matches)
