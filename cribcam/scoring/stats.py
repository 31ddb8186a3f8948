"""Every hand at once: the distribution of show totals over all (hand, starter) deals.

There are C(52,5) = 2,598,960 sets of five cards, and each of its five cards can be the
starter: 12,994,800 deals of a 4-card hand. Fifteens, pairs and runs depend only on the
five ranks, so they are counted once per rank pattern (6,175 of them) by the itemized scorer
itself and looked up; flush and nobs depend on which card is the starter and are applied
with the shared rules over whole arrays.

``deal_totals`` scores any deals the same way, many at once (the discard advisor's).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import combinations_with_replacement

import numpy as np

from cribcam.scoring import rules
from cribcam.scoring.cards import JACK, SUITS, Card
from cribcam.scoring.show import score_hand

MAX_TOTAL = 29
# The variant whose hand, with the starter, is this many cards (a crib is always 5).
_VARIANT_BY_CARDS = {variant.hand_size + 1: name for name, variant in rules.VARIANTS.items()}


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
    ranks, suits = _five_card_columns()
    base = _rank_pattern_points()[_rank_keys(ranks)]
    # Each of the five cards takes its turn as the starter; the rank points stay the same.
    counts = len(ranks) * _histogram(base)
    for starter in range(len(ranks)):
        extra = _flush_and_nobs(ranks, suits, starter, crib)
        # Few deals score a flush or nobs: only those move up from their rank points.
        moved = np.flatnonzero(extra)
        counts += _histogram(base[moved] + extra[moved]) - _histogram(base[moved])
    return Distribution(counts, crib, time.perf_counter() - start)


def deal_totals(ranks: np.ndarray, suits: np.ndarray, crib: bool = False) -> np.ndarray:
    """Show totals of many deals at once, by the enumeration's tables and rules.

    Args:
        ranks: (k, N) uint8 ranks, 0 (ace) to 12 (king): row ``i`` holds card ``i`` of every
            deal, in any order, except that the last row is the starter. k is 5 (a hand of 4
            or a crib) or 4 (a five-card cribbage hand of 3).
        suits: (k, N) suits 0 to 3 (``SUITS`` order), laid out as ``ranks``.
        crib: crib rules (a flush must include the starter).

    Returns:
        (N,) totals: for each deal, what ``score_hand(...).total`` says of it.
    """
    base = _any_order_points(len(ranks))[_rank_keys(ranks)]
    return base + _flush_and_nobs(ranks, suits, len(ranks) - 1, crib)


def _histogram(totals: np.ndarray) -> np.ndarray:
    return np.bincount(totals, minlength=MAX_TOTAL + 1)


def _flush_and_nobs(ranks: np.ndarray, suits: np.ndarray, starter: int, crib: bool) -> np.ndarray:
    """Flush and nobs points of every deal when its card number ``starter`` is the starter."""
    hand = [i for i in range(len(suits)) if i != starter]
    first = suits[hand[0]]
    suited = np.logical_and.reduce([suits[i] == first for i in hand[1:]])
    matches = suited & (suits[starter] == first)
    flush = rules.flush_points(suited, matches, len(hand), crib)
    nobs = np.logical_or.reduce([(ranks[i] == JACK - 1) & (suits[i] == suits[starter])
                                 for i in hand])
    return flush + nobs * rules.NOBS


def _rank_keys(ranks: np.ndarray) -> np.ndarray:
    """Each deal's sorted ranks read as a base-13 number: its row in the rank pattern table."""
    keys = np.zeros(ranks.shape[1], dtype=np.int32)
    for column in ranks:
        keys *= 13
        keys += column
    return keys


@cache
def _rank_pattern_points(size: int = 5) -> np.ndarray:
    """Fifteens + pairs + runs for every sorted pattern of ``size`` ranks (a hand and its
    starter: 5, or 4 in five-card cribbage), indexed by base-13 key."""
    deck = [[Card(rank, suit) for suit in SUITS] for rank in range(1, 14)]
    patterns, points = [], []
    for pattern in combinations_with_replacement(range(13), size):
        if max(pattern.count(r) for r in set(pattern)) > len(SUITS):
            continue
        # A rank repeated in the pattern takes the next suit: the cards stay distinct.
        cards = [deck[r][pattern[:i].count(r)] for i, r in enumerate(pattern)]
        score = score_hand(cards[:-1], cards[-1], variant=_VARIANT_BY_CARDS[size])
        # Flush and nobs depend on the suits: they are added per starter by the caller.
        patterns.append(pattern)
        points.append(sum(i.points for i in score.items if i.kind in ("fifteen", "pair", "run")))
    table = np.zeros(13 ** size, dtype=np.uint8)
    table[_rank_keys(np.array(patterns, dtype=np.uint8).T)] = points
    return table


@cache
def _any_order_points(size: int) -> np.ndarray:
    """The rank pattern table filled in for the ranks in any order, so that deals need no
    sorting: 13 ** size entries, indexed by the base-13 key of the ranks as they come."""
    every_order = np.indices((13,) * size, dtype=np.uint8).reshape(size, -1)  # in key order
    return _rank_pattern_points(size)[_rank_keys(np.sort(every_order, axis=0))]


@lru_cache(maxsize=1)
def _five_card_columns() -> tuple[np.ndarray, np.ndarray]:
    """The ranks (0-12) and suits (0-3) of all C(52,5) five-card sets, as two (5, 2598960)
    uint8 arrays: column ``j`` is one set, its cards in increasing index, so its ranks sorted.
    """
    cards = _five_card_sets()
    return cards // 4, cards % 4


def _five_card_sets() -> np.ndarray:
    """All C(52,5) five-card sets as a (5, 2598960) uint8 array of card indices
    ``4 * (rank - 1) + suit``, increasing down each column, in lexicographic order."""
    rows = [np.arange(52, dtype=np.uint8)]  # the one-card sets
    for _ in range(4):
        last = rows[-1]
        extend = (51 - last).astype(np.int32)  # how many larger cards can follow each set
        parent = np.repeat(np.arange(len(last), dtype=np.int32), extend)
        # The k-th extension of a set takes card last + 1 + k.
        first = np.cumsum(extend, dtype=np.int32) - extend
        k = np.arange(len(parent), dtype=np.int32) - np.repeat(first, extend)
        rows = [row[parent] for row in rows]
        rows.append((rows[-1] + 1 + k).astype(np.uint8))
    return np.stack(rows)
