"""Playing cards: parsing, canonical codes and the checks a hand must pass.

Canonical card codes are a rank from ``A23456789TJQK`` and a suit from ``CDHS``
(``5H``, ``TD``, ``JS``). Parsing is forgiving about what people type: lower case,
``10`` for ``T``, and the suit symbols ``♣ ♦ ♥ ♠``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

RANKS = "A23456789TJQK"
SUITS = "CDHS"
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
RANK_NAMES = dict(zip(RANKS, ["ace", "two", "three", "four", "five", "six", "seven", "eight",
                              "nine", "ten", "jack", "queen", "king"]))
JACK = RANKS.index("J") + 1
RANK_TEXTS = tuple("10" if rank == "T" else rank for rank in RANKS)  # what most decks print for each rank
RED_SUITS = "DH"

# The 52 card codes in the classifier's order: suit-major, ace to king.
CARD_CODES = [rank + suit for suit in SUITS for rank in RANKS]

_SUIT_SYMBOLS = {"♣": "C", "♧": "C", "♦": "D", "♢": "D", "♥": "H", "♡": "H", "♠": "S", "♤": "S"}
_ALLOWED = "a rank (A 2-10 T J Q K) then a suit (C D H S or ♣ ♦ ♥ ♠), e.g. 5H, 10d, QS, K♦"


class CardError(ValueError):
    """Cards that make no valid hand: a bad code, a duplicate, or the wrong number of cards."""


@dataclass(frozen=True, order=True)
class Card:
    """One playing card.

    Attributes:
        rank: 1 (ace) to 13 (king).
        suit: one of ``C D H S``.
    """

    rank: int
    suit: str

    def __post_init__(self) -> None:
        if not 1 <= self.rank <= 13:
            raise CardError(f"rank {self.rank!r} is not 1 (ace) to 13 (king)")
        if self.suit not in SUITS:
            raise CardError(f"suit {self.suit!r} is not one of C, D, H, S")

    @property
    def value(self) -> int:
        """Counting value: face cards count 10, an ace 1."""
        return min(self.rank, 10)

    @property
    def code(self) -> str:
        return RANKS[self.rank - 1] + self.suit

    @property
    def index(self) -> int:
        """Position in ``CARD_CODES`` (the classifier's card column)."""
        return SUITS.index(self.suit) * 13 + self.rank - 1

    @property
    def name(self) -> str:
        return f"{RANK_NAMES[RANKS[self.rank - 1]]} of {SUIT_NAMES[self.suit]}"

    def __str__(self) -> str:
        return self.code

    @classmethod
    def from_code(cls, text: str) -> Card:
        """Parses one card as a person would type it.

        Raises:
            CardError: naming the token and what is allowed.
        """
        return _parse_code(str(text))


@lru_cache(maxsize=512)  # people type the same few dozen codes; successful parses only
def _parse_code(text: str) -> Card:
    token = text.strip()
    cleaned = token.upper()
    if cleaned and cleaned[-1] in _SUIT_SYMBOLS:
        cleaned = cleaned[:-1] + _SUIT_SYMBOLS[cleaned[-1]]
    rank_text, suit = cleaned[:-1], cleaned[-1:]
    if rank_text == "10":
        rank_text = "T"
    if len(rank_text) != 1 or rank_text not in RANKS or suit not in SUITS:
        raise CardError(f"{token!r} is not a card: expected {_ALLOWED}")
    return Card(RANKS.index(rank_text) + 1, suit)


CardLike = Card | str


def parse_card(card: CardLike) -> Card:
    """Returns ``card`` as a ``Card``, parsing it if it is a code."""
    return card if isinstance(card, Card) else Card.from_code(card)


def parse_cards(cards: Iterable[CardLike] | str) -> list[Card]:
    """Parses several cards; a string is split on spaces and commas."""
    if isinstance(cards, str):
        cards = cards.replace(",", " ").split()
    return [parse_card(card) for card in cards]


def check_distinct(cards: Iterable[Card]) -> None:
    """Raises ``CardError`` if any card appears twice."""
    cards = list(cards)
    if len(set(cards)) == len(cards):
        return
    for card, times in Counter(cards).items():
        if times > 1:
            raise CardError(f"{card} appears {'twice' if times == 2 else f'{times} times'}; "
                            f"a deck has one {card}")
