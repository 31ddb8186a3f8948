"""The show: counting a hand or crib with its starter, every combination itemized."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from itertools import combinations
from typing import NamedTuple

from cribcam.scoring import rules
from cribcam.scoring.cards import JACK, Card, CardError, CardLike, check_distinct, parse_card, parse_cards

# For 4 and 5 cards (a hand with its starter): each subset as a bitmask with its lowest card
# and the mask of the others, and the card positions in each mask; computed once.
_MASKS = {n: [(m, (m & -m).bit_length() - 1, m & (m - 1)) for m in range(1, 1 << n)]
          for n in (4, 5)}
_MEMBERS = [tuple(i for i in range(5) if m >> i & 1) for m in range(1 << 5)]
_PAIRS = {n: list(combinations(range(n), 2)) for n in (4, 5)}


class Item(NamedTuple):  # a tuple, not a dataclass: hands make many of these, fast
    """One scoring combination.

    Attributes:
        kind: ``fifteen``, ``pair``, ``run``, ``flush`` or ``nobs``.
        points: what it scores.
        cards: the cards that make it.
    """

    kind: str
    points: int
    cards: tuple[Card, ...]

    def as_dict(self) -> dict:
        return {"kind": self.kind, "points": self.points, "cards": [c.code for c in self.cards]}


@dataclass(frozen=True)
class Score:
    """The count of one hand or crib.

    Attributes:
        hand: the hand (or crib) cards, as given.
        starter: the starter (cut card).
        crib: whether crib rules applied.
        variant: ``six-card`` or ``five-card``.
        items: every scoring combination, fifteens first, then runs, pairs, flush, nobs.
        heels: 2 when the starter is a jack (to the dealer; never part of ``total``).
    """

    hand: tuple[Card, ...]
    starter: Card
    crib: bool
    variant: str
    items: tuple[Item, ...] = field(repr=False)
    heels: int

    @property
    def total(self) -> int:
        return sum(item.points for item in self.items)

    @cached_property
    def spoken(self) -> str:
        """The count as an expert says it aloud, ending with the total."""
        from cribcam.scoring.spoken import say_show  # spoken imports this module

        return say_show(self.items)

    def as_dict(self) -> dict:
        """The JSON form used by ``cribcam count --json`` and the web API."""
        return {
            "hand": [c.code for c in self.hand],
            "starter": self.starter.code,
            "crib": self.crib,
            "variant": self.variant,
            "total": self.total,
            "items": [item.as_dict() for item in self.items],
            "spoken": self.spoken,
            "heels": self.heels,
        }


def score_hand(hand: Iterable[CardLike] | str, starter: CardLike, crib: bool = False,
               variant: str = rules.DEFAULT_VARIANT) -> Score:
    """Counts a hand or crib at the show.

    Args:
        hand: the hand's cards (4, or 3 in five-card cribbage; a crib always has 4), as codes
            like ``"5H"`` or ``Card`` objects.
        starter: the starter card.
        crib: apply crib rules (a flush must include the starter).
        variant: ``"six-card"`` (the usual game) or ``"five-card"``.

    Returns:
        The itemized ``Score``.

    Raises:
        CardError: a bad code, a card twice, or the wrong number of cards.
    """
    if variant not in rules.VARIANTS:
        raise CardError(f"unknown variant {variant!r}: choose one of {', '.join(rules.VARIANTS)}")
    cards = tuple(parse_cards(hand))
    starter = parse_card(starter)
    needed = rules.VARIANTS[variant].size(crib)
    if len(cards) != needed:
        raise CardError(_wrong_count(len(cards), needed, "crib" if crib else f"{variant} cribbage hand"))
    check_distinct(cards + (starter,))

    five = cards + (starter,)
    items = [*_fifteens(five), *_runs(five), *_pairs(five)]
    items += _flush(cards, starter, crib)
    items += _nobs(cards, starter)
    return Score(cards, starter, crib, variant, tuple(items),
                 heels=rules.HEELS if starter.rank == JACK else 0)


def _wrong_count(others: int, needed: int, what: str) -> str:
    """What is wrong with a hand of ``others`` cards beside its starter, where ``what`` (a
    crib, a six-card cribbage hand...) needs ``needed``: what is needed first, then every card
    given counted, the starter too (a player counts the cards on the table, not the hand).

        >>> _wrong_count(1, 4, "six-card cribbage hand")
        'a six-card cribbage hand needs 4 cards and a starter; 2 cards given (the starter and 1 other)'
    """
    if others == 0:
        given = "1 card given (the starter alone)"
    else:
        given = f"{others + 1} cards given (the starter and {others} other{'s' if others != 1 else ''})"
    return f"a {what} needs {needed} cards and a starter; {given}"


def _fifteens(cards: tuple[Card, ...]) -> list[Item]:
    # Subset sums by bitmask, each built from a smaller one: 31 additions for five cards.
    values = [c.value for c in cards]
    sums = [0] * (1 << len(cards))
    items = []
    for mask, low_bit, rest in _MASKS[len(cards)]:
        sums[mask] = total = sums[rest] + values[low_bit]
        if total == rules.FIFTEEN:  # no single card is worth 15, so these are 2+ cards
            items.append(Item("fifteen", 2, tuple(cards[i] for i in _MEMBERS[mask])))
    return items


def _pairs(cards: tuple[Card, ...]) -> list[Item]:
    return [Item("pair", rules.PAIR_POINTS[2], (cards[i], cards[j]))
            for i, j in _PAIRS[len(cards)] if cards[i].rank == cards[j].rank]


def _runs(cards: tuple[Card, ...]) -> list[Item]:
    """Every run of the longest length (3+): one per way of choosing a card of each rank."""
    by_rank: dict[int, list[Card]] = {}
    for card in cards:
        by_rank.setdefault(card.rank, []).append(card)
    best: list[int] = []
    current: list[int] = []
    for rank in sorted(by_rank):
        current = current + [rank] if current and rank == current[-1] + 1 else [rank]
        if len(current) > len(best):
            best = current
    if len(best) < 3:
        return []
    runs: list[tuple[Card, ...]] = [()]
    for rank in best:
        runs = [run + (card,) for run in runs for card in by_rank[rank]]
    return [Item("run", len(run), run) for run in runs]


def _flush(hand: tuple[Card, ...], starter: Card, crib: bool) -> list[Item]:
    suited = len({c.suit for c in hand}) == 1
    matches = suited and starter.suit == hand[0].suit
    points = int(rules.flush_points(suited, matches, len(hand), crib))
    if not points:
        return []
    return [Item("flush", points, hand + (starter,) if matches else hand)]


def _nobs(hand: tuple[Card, ...], starter: Card) -> list[Item]:
    return [Item("nobs", rules.NOBS, (card, starter)) for card in hand
            if card.rank == JACK and card.suit == starter.suit]
