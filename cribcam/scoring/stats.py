"""Every hand at once: the distribution of show totals over all (hand, starter) deals.

There are C(52,5) = 2,598,960 sets of five cards, and each of its five cards can be the
starter: 12,994,800 deals of a 4-card hand. Fifteens, pairs and runs depend only on the
five ranks, so they are counted once per rank pattern (6,175 of them) by the itemized scorer
itself and looked up; flush and nobs depend on which card is the starter and are applied
with the shared rules over whole arrays.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations_with_replacement

import numpy as np

from cribcam.scoring import rules
from cribcam.scoring.cards import JACK, SUITS, Card
from cribcam.scoring.show import score_hand

HAND_SIZE = 4


@dataclass(frozen=True)
class Distribution:
    """How many deals score each total.

    Attributes:
        counts: ``counts[t]`` is the number of deals whose show total is ``t``.
        crib: crib rules.
        seconds: time the enumeration took.
    """

    counts: np.ndarray
    crib: bool
    seconds: float

    @property
    def hands(self) -> int:
        return int(self.counts.sum())

    @property
    def mean(self) -> float:
        return float((np.arange(len(self.counts)) * self.counts).sum() / self.hands)

    def as_dict(self) -> dict:
        return {"distribution": {str(t): int(n) for t, n in enumerate(self.counts)},
                "hands": self.hands, "mean": round(self.mean, 6), "crib": self.crib,
                "seconds": round(self.seconds, 3)}


def distribution(crib: bool = False) -> Distribution:
    """Scores all 12,994,800 (4-card hand, starter) deals.

    Args:
        crib: count them as cribs (a flush must include the starter).
    """
    start = time.perf_counter()
    five = _five_card_sets()  # card index = 4 * (rank - 1) + suit, so ranks come sorted
    ranks, suits = five // 4, five % 4
    key = (ranks.astype(np.int32) * _RANK_WEIGHTS).sum(axis=1)
    base = _rank_pattern_points()[key]

    totals = np.empty((5, len(five)), dtype=np.uint8)
    for starter in range(5):
        hand = [i for i in range(5) if i != starter]
        hand_suits = suits[:, hand]
        suited = (hand_suits == hand_suits[:, :1]).all(axis=1)
        matches = suited & (hand_suits[:, 0] == suits[:, starter])
        flush = rules.flush_points(suited, matches, HAND_SIZE, crib)
        nobs = ((ranks[:, hand] == JACK - 1) & (hand_suits == suits[:, starter:starter + 1])).any(axis=1)
        totals[starter] = base + flush + nobs * rules.NOBS
    counts = np.bincount(totals.ravel(), minlength=30)
    return Distribution(counts, crib, time.perf_counter() - start)


_RANK_WEIGHTS = 13 ** np.arange(4, -1, -1, dtype=np.int32)


@lru_cache(maxsize=1)
def _rank_pattern_points() -> np.ndarray:
    """Fifteens + pairs + runs for every sorted 5-rank pattern, indexed by base-13 key."""
    table = np.zeros(13 ** 5, dtype=np.uint8)
    for pattern in combinations_with_replacement(range(13), 5):
        if max(pattern.count(r) for r in set(pattern)) > len(SUITS):
            continue
        used: dict[int, int] = {}
        cards = []
        for r in pattern:
            cards.append(Card(r + 1, "CDHS"[used.get(r, 0)]))
            used[r] = used.get(r, 0) + 1
        hand, starter = cards[:4], cards[4]
        score = score_hand(hand, starter)
        # Flush and nobs depend on the suits: they are added per starter by the caller.
        points = sum(i.points for i in score.items if i.kind in ("fifteen", "pair", "run"))
        table[int(np.dot(pattern, _RANK_WEIGHTS))] = points
    return table


@lru_cache(maxsize=1)
def _five_card_sets() -> np.ndarray:
    """All C(52,5) five-card sets as a (2598960, 5) uint8 array of increasing card indices."""
    combos = np.arange(52, dtype=np.uint8)[:, None]
    for _ in range(4):
        last = combos[:, -1].astype(np.int64)
        extend = 51 - last  # how many larger cards can follow
        rows = np.repeat(np.arange(len(combos)), extend)
        # The k-th extension of a row takes card last + 1 + k.
        offsets = np.arange(len(rows)) - np.repeat(np.cumsum(extend) - extend, extend)
        nxt = (np.repeat(last, extend) + 1 + offsets).astype(np.uint8)
        combos = np.concatenate([combos[rows], nxt[:, None]], axis=1)
    return combos
