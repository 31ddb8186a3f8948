"""The discard advisor: which cards to lay away to the crib, by the points each choice expects.

For every way to lay away, two exact expectations:

- the kept hand's show, averaged over every starter the player cannot see;
- the crib's show, its other cards (the opponent's discards) drawn uniformly from the unseen
  cards and the starter from the rest.

The dealer owns the crib and adds its expectation; the non-dealer (pone) subtracts it. Every
deal is scored by ``stats.deal_totals``, the enumeration's vectorized scorer (the rules of
``score_hand``, checked against it in the tests): for six dealt cards that is 15 x 46 hands
and 15 x 45,540 cribs.

    >>> advice = advise(["5H", "5C", "6D", "JD", "QS", "KS"], dealer=True)
    >>> [card.code for card in advice.best.discard], round(advice.best.net, 2)
    (['5C', '6D'], 18.26)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations

import numpy as np

from cribcam.scoring import rules
from cribcam.scoring.cards import RANKS, SUITS, Card, CardError, CardLike, check_distinct, parse_cards
from cribcam.scoring.spoken import counted
from cribcam.scoring.stats import deal_totals

# Cards dealt to each player, and the games that deal them. Each player keeps a hand of the
# variant's size and lays the rest away: six-card cribbage deals 6 with two players (2 laid
# away) and 5 with three or four (1 laid away; the crib's other 3 cards come from the other
# players and, with three, the stock); five-card cribbage deals 5 (2 laid away).
DEALT = {"six-card": {6: "two players", 5: "three or four players"},
         "five-card": {5: "two players"}}

LayAway = tuple[tuple[Card, ...], tuple[Card, ...]]  # (discard, keep)

_DECK = tuple(Card(rank, suit) for suit in SUITS for rank in range(1, len(RANKS) + 1))


@dataclass(frozen=True)
class Option:
    """One way to lay away, with what it expects.

    Attributes:
        discard: the cards laid away to the crib.
        keep: the cards kept for the show.
        hand: expected points of the kept hand's show.
        crib: expected points of the crib's show.
        net: ``hand + crib`` for the dealer, ``hand - crib`` for the non-dealer.
    """

    discard: tuple[Card, ...]
    keep: tuple[Card, ...]
    hand: float
    crib: float
    net: float

    def as_dict(self) -> dict:
        return {"discard": [c.code for c in self.discard], "keep": [c.code for c in self.keep],
                "hand": round(self.hand, 4), "crib": round(self.crib, 4), "net": round(self.net, 4)}


@dataclass(frozen=True)
class Advice:
    """Every way to lay away a deal, best first.

    Attributes:
        cards: the cards dealt.
        dealer: whether the player deals (the crib is theirs).
        variant: ``six-card`` or ``five-card``.
        options: every way to lay away, by ``net``, best first.
    """

    cards: tuple[Card, ...]
    dealer: bool
    variant: str
    options: tuple[Option, ...]

    @property
    def best(self) -> Option:
        return self.options[0]

    @property
    def worst(self) -> Option:
        return self.options[-1]

    @property
    def spread(self) -> float:
        """How many points the best choice expects over the worst."""
        return self.best.net - self.worst.net

    def as_dict(self) -> dict:
        """The JSON form used by ``cribcam discard --json`` and ``POST /api/discard``."""
        return {"cards": [c.code for c in self.cards], "dealer": self.dealer,
                "variant": self.variant, "options": [o.as_dict() for o in self.options],
                "spread": round(self.spread, 4)}


def advise(cards: Iterable[CardLike] | str, dealer: bool = True,
           variant: str = rules.DEFAULT_VARIANT) -> Advice:
    """Ranks every way to lay away a deal by its expected points.

    Args:
        cards: the cards dealt to the player (6, or 5 with three or four players; 5 in
            five-card cribbage), as codes like ``"5H"`` or ``Card`` objects.
        dealer: the player deals, so the crib is theirs (or their partner's).
        variant: ``"six-card"`` or ``"five-card"``.

    Raises:
        CardError: a bad code, a card twice, or a number of cards the variant does not deal.
    """
    dealt = dealt_cards(cards, variant)
    unseen = unseen_cards(dealt)
    options = []
    for discard, keep in lay_aways(dealt, variant):
        hand = expected_hand(keep, unseen)
        crib = expected_crib(discard, unseen, variant)
        options.append(Option(discard, keep, hand, crib, hand + crib if dealer else hand - crib))
    options.sort(key=lambda option: -option.net)  # stable: equal nets keep the deal's order
    return Advice(dealt, dealer, variant, tuple(options))


def dealt_cards(cards: Iterable[CardLike] | str,
                variant: str = rules.DEFAULT_VARIANT) -> tuple[Card, ...]:
    """The cards of a deal, parsed and checked.

    Raises:
        CardError: as for ``advise``.
    """
    if variant not in rules.VARIANTS:
        raise CardError(f"unknown variant {variant!r}: choose one of {', '.join(rules.VARIANTS)}")
    dealt = tuple(parse_cards(cards))
    # Both mistakes are said at once: a card typed twice is often why the count is wrong.
    problems = []
    try:
        check_distinct(dealt)
    except CardError as exc:
        problems.append(str(exc))
    if len(dealt) not in DEALT[variant]:
        counts = " or ".join(f"{n} ({players})" for n, players in DEALT[variant].items())
        problems.append(f"{counted(len(dealt), 'card')} given; {variant} cribbage deals {counts}")
    if problems:
        raise CardError(". ".join(problems))
    return dealt


def lay_aways(dealt: Sequence[Card], variant: str = rules.DEFAULT_VARIANT) -> list[LayAway]:
    """Every way to lay away the cards dealt, as ``(discard, keep)`` pairs in the deal's order."""
    kept = rules.VARIANTS[variant].hand_size
    return [(tuple(c for c in dealt if c not in keep), keep) for keep in combinations(dealt, kept)]


def unseen_cards(seen: Iterable[Card]) -> tuple[Card, ...]:
    """The cards of the deck the player has not seen."""
    seen = set(seen)
    return tuple(card for card in _DECK if card not in seen)


def expected_hand(keep: Sequence[Card], unseen: Sequence[Card]) -> float:
    """Expected show of a kept hand, exactly: its total with each unseen card as the starter,
    averaged."""
    ranks, suits = _columns(unseen)
    return _mean_total(keep, ranks[None], suits[None], crib=False)


def expected_crib(discard: Sequence[Card], unseen: Sequence[Card],
                  variant: str = rules.DEFAULT_VARIANT) -> float:
    """Expected show of the crib, exactly: averaged over every set of its other cards drawn
    from the unseen cards and then every starter from the rest."""
    others = rules.VARIANTS[variant].crib_size - len(discard)
    positions = _crib_fillings(len(unseen), others)
    ranks, suits = _columns(unseen)
    return _mean_total(discard, ranks[positions], suits[positions], crib=True)


def _mean_total(fixed: Sequence[Card], ranks: np.ndarray, suits: np.ndarray, crib: bool) -> float:
    """Mean show total of ``fixed`` completed by each column of ``ranks``/``suits`` (the
    starter last)."""
    fixed_ranks, fixed_suits = _columns(fixed)
    shape = (len(fixed), ranks.shape[1])
    deal_ranks = np.vstack([np.broadcast_to(fixed_ranks[:, None], shape), ranks])
    deal_suits = np.vstack([np.broadcast_to(fixed_suits[:, None], shape), suits])
    return float(deal_totals(deal_ranks, deal_suits, crib).mean())


def _columns(cards: Sequence[Card]) -> tuple[np.ndarray, np.ndarray]:
    """Ranks (0-12) and suits (0-3) of cards, as ``deal_totals`` takes them."""
    ranks = np.array([card.rank - 1 for card in cards], dtype=np.uint8)
    suits = np.array([SUITS.index(card.suit) for card in cards], dtype=np.uint8)
    return ranks, suits


@cache
def _crib_fillings(unseen: int, others: int) -> np.ndarray:
    """Every way the crib's ``others`` unknown cards and then the starter come from ``unseen``
    cards: a (others + 1, N) array of positions among them, the starter in the last row."""
    sets = np.array(list(combinations(range(unseen), others)), dtype=np.intp)
    # Each set of others goes with every starter not in it.
    free = (sets[:, :, None] != np.arange(unseen)).all(axis=1)
    set_index, starter = np.nonzero(free)
    return np.vstack([sets[set_index].T, starter])
