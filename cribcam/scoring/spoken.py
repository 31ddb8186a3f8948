"""Saying a count aloud the way players do: "fifteen 2, fifteen 4 and a double run is 12".

Fifteens come first with their running totals, then runs (with the pairs inside them folded
into the run's name: double run, triple run, quadruple run), then the other pairs (pair,
pair royal, double pair royal), then flush and nobs. The last number said is the total.

A card in the play is said as the count, then each score apart: "15, fifteen for two, run of
three for three", "30, a pair for two, one for the go" (``say_peg``). These are the play's
words everywhere: `cribcam peg`, a game's log and the live play.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from cribcam.scoring.show import Item

NOTHING = "nineteen: nothing to count, 0"
# The number said for a show of nothing ("nineteen": no show scores 19). A claim of 19 on a
# show of nothing is that word, and correct (``muggins.judge_show``).
NOTHING_SAID = 19

_COUNT_WORDS = {3: "three", 4: "four", 5: "five"}
# The numbers said in the play, as words to be spoken: a run's length and what a score pegs.
_PEG_NUMBERS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
                12: "twelve"}
_PEG_PAIRS = {2: "a pair", 6: "pair royal", 12: "double pair royal"}
_SAME_RANK = {2: "a pair", 3: "a pair royal", 4: "a double pair royal"}
# A run's name from its length and how many cards of each of its ranks there are (sorted).
_RUN_NAMES = {
    (1, 1, 1): "a run of three", (1, 1, 1, 1): "a run of four", (1, 1, 1, 1, 1): "a run of five",
    (1, 1, 2): "a double run", (1, 1, 1, 2): "a double run of four",
    (1, 1, 3): "a triple run", (1, 2, 2): "a quadruple run",
}


def say_show(items: Iterable[Item]) -> str:
    """The spoken count of a hand's items, in the customary order."""
    items = list(items)
    if not items:
        return NOTHING
    total = 0
    phrases = []
    for name, points in _named_groups(items):
        total += points
        phrases.append(f"fifteen {total}" if name == "fifteen" else f"{name} is {total}")
    if len(phrases) == 1:
        return phrases[0]
    return ", ".join(phrases[:-1]) + " and " + phrases[-1]


def _named_groups(items: list[Item]) -> list[tuple[str, int]]:
    """Splits items into the groups a player names, each with its points, in speaking order."""
    groups = [("fifteen", item.points) for item in items if item.kind == "fifteen"]

    runs = [item for item in items if item.kind == "run"]
    run_ranks = {card.rank for item in runs for card in item.cards}
    if runs:
        run_cards = {card for item in runs for card in item.cards}
        shape = tuple(sorted(Counter(card.rank for card in run_cards).values()))
        inner_pairs = [i for i in items if i.kind == "pair" and i.cards[0].rank in run_ranks]
        groups.append((_RUN_NAMES[shape], sum(i.points for i in runs + inner_pairs)))

    other_pairs = [i for i in items if i.kind == "pair" and i.cards[0].rank not in run_ranks]
    by_rank: dict[int, list[Item]] = {}
    for item in other_pairs:
        by_rank.setdefault(item.cards[0].rank, []).append(item)
    sets = [(len({c for i in pairs for c in i.cards}), sum(i.points for i in pairs))
            for pairs in by_rank.values()]
    if len(sets) == 2 and all(size == 2 for size, _ in sets):
        groups.append(("two pairs", sum(points for _, points in sets)))
    else:
        groups += [(_SAME_RANK[size], points) for size, points in sets]

    for item in items:
        if item.kind == "flush":
            groups.append((f"a flush of {_COUNT_WORDS[len(item.cards)]}", item.points))
        elif item.kind == "nobs":
            groups.append(("his nobs", item.points))
    return groups


def say_peg(count: int, items: Iterable[Item]) -> str:
    """What a player says as his card is played: the count, then each score apart ("10",
    "15, fifteen for two, run of three for three", "28, one for the go", "24, one for last")."""
    return ", ".join([str(count), *map(say_peg_item, items)])


def say_peg_item(item: Item) -> str:
    """One score of the play in words: "a pair for two", "run of three for three", "one for the
    go"."""
    points = _PEG_NUMBERS.get(item.points, str(item.points))
    if item.kind == "pair":
        return f"{_PEG_PAIRS[item.points]} for {points}"
    if item.kind == "run":
        return f"run of {_PEG_NUMBERS.get(len(item.cards), len(item.cards))} for {points}"
    if item.kind == "go":
        return f"{points} for the go"
    if item.kind == "last":
        return f"{points} for last"
    return f"{item.kind} for {points}"  # fifteen, thirty-one


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """``number`` and ``noun``, plural but for one: "1 card", "5 cards", "0 players"; ``plural``
    for a noun whose plural is not its name and s: "2 goes"."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"
