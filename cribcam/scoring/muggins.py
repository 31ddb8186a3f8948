"""Judging a claimed count: correct, muggins (points overlooked) or over-claimed.

Under the muggins rule, points a player overlooks may be pegged by the opponent. A claim
is only a number, so which combinations were missed is inferred: the fewest items whose
points make up the shortfall, preferring the ones players most often miss.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Sequence

from cribcam.scoring import rules

# Totals no hand or crib can make (six-card and five-card cribbage), checked against the full
# enumeration in the tests.
IMPOSSIBLE_TOTALS = {
    "six-card": frozenset({19, 25, 26, 27}),
    "five-card": frozenset({19, 25, 26, 27}),
}
MAX_TOTAL = {"six-card": 29, "five-card": 29}

# Easiest to overlook first: nobs, long fifteens, then the rest.
_MISSED_FIRST = {"nobs": 0, "fifteen": 1, "flush": 2, "pair": 3, "run": 4}

CORRECT, MUGGINS, OVERCLAIM = "correct", "muggins", "overclaim"


@dataclass(frozen=True)
class Verdict:
    """What a claim earns.

    Attributes:
        verdict: ``correct``, ``muggins`` (claimed less) or ``overclaim`` (claimed more).
        claimed: the number claimed.
        total: the true count.
        difference: ``total - claimed``: points overlooked (muggins), negative when over-claimed.
        overlooked: for muggins, the items most likely overlooked (summing to ``difference``).
        impossible: the claim is a total no hand can make (19, 25, 26, 27, over 29).
        message: one sentence for the players.
    """

    verdict: str
    claimed: int
    total: int
    difference: int
    overlooked: tuple = ()
    impossible: bool = False
    message: str = ""

    def as_dict(self) -> dict:
        return {"verdict": self.verdict, "claimed": self.claimed, "difference": self.difference,
                "overlooked": [item.as_dict() for item in self.overlooked],
                "impossible": self.impossible, "message": self.message}


def judge_claim(claimed: int, total: int, items: Sequence = (), *, what: str = "count",
                impossible: frozenset = frozenset()) -> Verdict:
    """Judges a claim against the true total.

    Args:
        claimed: what the player claimed.
        total: the true count.
        items: the true count's items (anything with ``kind`` and ``points``).
        what: the thing being counted, for the message ("hand", "crib", "peg").
        impossible: totals that cannot occur, to say so when claimed.
    """
    claimed = int(claimed)
    difference = total - claimed
    no_such = claimed in impossible or claimed < 0
    note = f" ({claimed} is not a possible {what} count)" if no_such else ""
    if difference == 0:
        return Verdict(CORRECT, claimed, total, 0, message=f"Correct: the {what} is {total}.")
    if difference < 0:
        return Verdict(OVERCLAIM, claimed, total, difference, impossible=no_such,
                       message=f"Over-claimed by {-difference}{note}: the {what} is {total}; "
                               f"take back {-difference}.")
    missed = overlooked_items(items, difference)
    # No items may add up to the shortfall exactly (a 31 for 2 claimed as 1): then none are named.
    listed = f" ({'; '.join(_describe(item) for item in missed)})" if missed else ""
    return Verdict(MUGGINS, claimed, total, difference, tuple(missed), impossible=no_such,
                   message=f"Muggins{note}: {difference} point{'s' if difference != 1 else ''} "
                           f"overlooked{listed}; the {what} is {total} and the opponent "
                           f"may peg {difference}.")


def judge_show(claimed: int, score) -> Verdict:
    """Judges a claimed show count against a ``Score``."""
    max_total = MAX_TOTAL[score.variant]
    impossible = IMPOSSIBLE_TOTALS[score.variant] | (frozenset({claimed}) if claimed > max_total
                                                   else frozenset())
    return judge_claim(claimed, score.total, score.items,
                       what="crib" if score.crib else "hand", impossible=impossible)


def overlooked_items(items: Sequence, points: int) -> list:
    """The fewest items that add up to ``points``, the most easily overlooked first.

    Items of one kind and value are interchangeable for the sum, so the search runs over
    how many of each such group to take, which stays small even for 20-item hands.
    """
    groups: dict[tuple, list] = {}
    for item in sorted(items, key=lambda i: (_MISSED_FIRST.get(i.kind, 9), -len(i.cards))):
        groups.setdefault((item.kind, item.points), []).append(item)
    keys = list(groups)
    best = None
    for counts in product(*(range(len(groups[k]) + 1) for k in keys)):
        if sum(n * k[1] for n, k in zip(counts, keys)) != points:
            continue
        # Fewest items; among those, take from the earlier (more easily missed) groups.
        rank = (sum(counts), [-n for n in counts])
        if best is None or rank < best[0]:
            best = (rank, counts)
    if best is None:
        return []
    return [item for n, k in zip(best[1], keys) for item in groups[k][:n]]


def _describe(item) -> str:
    cards = "+".join(card.code for card in item.cards)
    name = {"fifteen": "fifteen", "pair": "pair", "run": f"run of {len(item.cards)}",
            "flush": "flush", "nobs": "his nobs", "go": "go", "last": "last card",
            "thirty-one": "31"}.get(item.kind, item.kind)
    return f"{name} {cards} for {item.points}" if cards else f"{name} for {item.points}"


__all__ = ["Verdict", "judge_claim", "judge_show", "overlooked_items", "rules"]
