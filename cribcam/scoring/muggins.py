"""Judging a claimed count: correct, muggins (points overlooked) or over-claimed.

Under the muggins rule, points a player overlooks may be pegged by the opponent. A claim
is only a number, so which combinations were missed is inferred: the fewest items whose
points make up the shortfall, preferring the ones players most often miss.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product

from cribcam.scoring import rules
from cribcam.scoring.spoken import NOTHING_SAID

# Totals no hand or crib can make (six-card and five-card cribbage), checked against the full
# enumeration in the tests.
IMPOSSIBLE_TOTALS = {
    "six-card": frozenset({19, 25, 26, 27}),
    "five-card": frozenset({19, 25, 26, 27}),
}
MAX_TOTAL = {"six-card": 29, "five-card": 29}
# The claims judged: a whole number of points from 0 to this. The one bound of `cribcam count
# --claim` (and read, live) and of the web API: no count comes near it, and a number beyond it
# is a slip of the keyboard, not a claim.
MAX_CLAIM = 1000

# Easiest to overlook first: nobs, long fifteens, then the rest.
_MISSED_FIRST = {"nobs": 0, "fifteen": 1, "flush": 2, "pair": 3, "run": 4}

CORRECT, MUGGINS, OVERCLAIM = "correct", "muggins", "overclaim"


def claim_problem(claimed) -> str | None:
    """What is wrong with ``claimed`` as a claim (the end of a sentence: "... must be a whole
    number of points from 0 to 1000"), or None for a claim that can be judged."""
    if isinstance(claimed, bool) or not isinstance(claimed, int) or not 0 <= claimed <= MAX_CLAIM:
        return f"must be a whole number of points from 0 to {MAX_CLAIM}"
    return None


def typed_claim(text: str) -> int | str:
    """The number typed as a claim ("12", "-3"), or ``text`` itself when it is no number, for
    ``claim_problem`` to refuse in the same words either way."""
    # Past nine digits no claim is possible, and int() of thousands of digits would itself fail.
    return int(text) if re.fullmatch(r"-?[0-9]{1,9}", text.strip()) else text


@dataclass(frozen=True)
class Verdict:
    """What a claim earns.

    Attributes:
        verdict: ``correct``, ``muggins`` (claimed less) or ``overclaim`` (claimed more).
        claimed: the number claimed.
        total: the true count.
        difference: ``total - claimed``: points overlooked (muggins), negative when over-claimed.
            A show of nothing claimed as "nineteen" (19, how players say zero) is correct,
            with a difference of 0: the claim means 0.
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
    """Judges a claimed show count against a ``Score``.

    A show of nothing is said "nineteen" (no show scores 19, so the word is free for zero):
    19 claimed for it is correct, and the message says why.
    """
    what = "crib" if score.crib else "hand"
    if claimed == NOTHING_SAID and score.total == 0:
        return Verdict(CORRECT, claimed, 0, 0,
                       message=f"Correct: the {what} is 0, and \"nineteen\" is how a {what} of "
                               f"nothing is said (no {what} scores 19).")
    max_total = MAX_TOTAL[score.variant]
    impossible = IMPOSSIBLE_TOTALS[score.variant] | (frozenset({claimed}) if claimed > max_total
                                                   else frozenset())
    return judge_claim(claimed, score.total, score.items, what=what, impossible=impossible)


def claimed_show_total(claimed: int) -> int:
    """The total a show's claim stands for when there are no cards to judge it by: itself,
    except "nineteen" (19, which no show scores), which is how a show of nothing is said."""
    return 0 if claimed == NOTHING_SAID else claimed


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


__all__ = ["MAX_CLAIM", "Verdict", "claim_problem", "claimed_show_total", "judge_claim",
           "judge_show", "overlooked_items", "rules", "typed_claim"]
