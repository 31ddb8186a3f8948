"""The play (pegging): scoring cards as they are played towards 31.

A play is written the way it happens at the table, one token per turn: ``A:K`` (player A
plays a king), ``B:go``, ``A:2=3`` (A plays a two and claims 3 points). Suits are optional
(``A:KH``), since only ranks score in the play. Where one series ends and the next begins
follows from the rules: at 31, when the next card would pass 31, or when a player who said
go plays again; the last player of a series that ends short of 31 pegs 1 for the go, and the
very last card of the play pegs 1 for last.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Iterable

from cribcam.scoring import rules
from cribcam.scoring.cards import RANKS, SUITS, CardError, Card
from cribcam.scoring.muggins import Verdict, judge_claim
from cribcam.scoring.show import Item

_TOKEN = re.compile(r"^(?P<player>[^\s:=]+):(?P<card>[^\s:=]+)(?:=(?P<claim>\d+))?$")
_WORDS = {2: "two", 4: "four", 6: "six", 8: "eight", 12: "twelve", 14: "fourteen"}


@dataclass(frozen=True)
class Played:
    """A card as played: the rank always, the suit when it was given."""

    rank: int
    suit: str | None = None

    @property
    def value(self) -> int:
        return min(self.rank, 10)

    @property
    def code(self) -> str:
        return RANKS[self.rank - 1] + (self.suit or "")

    @classmethod
    def parse(cls, text: str) -> "Played":
        rank_only = text.strip().upper()
        if rank_only in RANKS or rank_only == "10":
            return cls(RANKS.index("T" if rank_only == "10" else rank_only) + 1)
        try:
            card = Card.from_code(text)
        except CardError:
            raise CardError(f"{text!r} is not a card: expected a rank (A 2-10 T J Q K), "
                            f"optionally with its suit (C D H S), e.g. K, 10, 5H") from None
        return cls(card.rank, card.suit)


@dataclass(frozen=True)
class Play:
    """One turn: a card played, or ``card=None`` for a go.

    Attributes:
        player: who played.
        card: the card, or None when the player says go.
        claim: the points the player claimed for this turn, if any.
    """

    player: str
    card: Played | None
    claim: int | None = None

    @classmethod
    def parse(cls, token: str) -> "Play":
        """Parses ``PLAYER:CARD[=CLAIM]`` or ``PLAYER:go``."""
        match = _TOKEN.match(token.strip())
        if not match:
            raise CardError(f"{token!r} is not a turn: write PLAYER:CARD (A:5H, B:K), "
                            f"PLAYER:go, or add a claim as A:5H=2")
        card = None if match["card"].lower() == "go" else Played.parse(match["card"])
        claim = int(match["claim"]) if match["claim"] is not None else None
        if card is None and claim:
            raise CardError(f"{token!r}: a go scores nothing itself; claim the go point on the "
                            f"last card of the series")
        return cls(match["player"], card, claim)


@dataclass
class PegEvent:
    """What one turn scored.

    Attributes:
        play: the turn.
        count: the running count after it (0 for a go with nothing played).
        items: what it scored: fifteen, thirty-one, pair, run, go, last.
        verdict: the judgement of the turn's claim, when one was made.
    """

    play: Play
    count: int
    items: list[Item]
    verdict: Verdict | None = None

    @property
    def points(self) -> int:
        return sum(item.points for item in self.items)

    @property
    def said(self) -> str:
        """What the player says: "10", "fifteen two", "30 for 3", "24 for 3 and 1 for last"."""
        if self.play.card is None:
            return "go"
        last = sum(i.points for i in self.items if i.kind == "last")
        points = self.points - last
        if self.count == rules.FIFTEEN:
            text = f"fifteen {_WORDS.get(points, points)}"
        else:
            text = f"{self.count} for {points}" if points else str(self.count)
        return text + (f" and {last} for last" if last else "")

    def as_dict(self) -> dict:
        out = {"player": self.play.player, "card": self.play.card.code if self.play.card else "go",
               "count": self.count, "points": self.points, "said": self.said,
               "items": [item.as_dict() for item in self.items]}
        if self.verdict:
            out["verdict"] = self.verdict.as_dict()
        return out


@dataclass(frozen=True)
class Pegging:
    """The scored play: every turn, and each player's pegging total."""

    events: tuple[PegEvent, ...]

    @property
    def totals(self) -> dict[str, int]:
        totals: dict[str, int] = {}
        for event in self.events:
            totals[event.play.player] = totals.get(event.play.player, 0) + event.points
        return totals

    def as_dict(self) -> dict:
        return {"events": [e.as_dict() for e in self.events], "totals": self.totals}


def score_play(plays: Iterable[Play | str] | str) -> Pegging:
    """Scores the play.

    Args:
        plays: the turns in order, as ``Play`` objects or tokens like ``"A:K"`` (a string is
            split on spaces and commas).

    Raises:
        CardError: a malformed turn, or a card played twice.
    """
    if isinstance(plays, str):
        plays = plays.replace(",", " ").split()
    plays = [p if isinstance(p, Play) else Play.parse(p) for p in plays]
    _check_cards(plays)

    events: list[PegEvent] = []
    series: list[PegEvent] = []  # card events of the current series
    said_go: set[str] = set()
    count = 0
    for play in plays:
        if play.card is None:
            said_go.add(play.player)
            events.append(PegEvent(play, count, []))
            continue
        if series and (count + play.card.value > rules.THIRTY_ONE or play.player in said_go):
            series[-1].items.append(Item("go", rules.GO, ()))
            series, said_go, count = [], set(), 0
        count += play.card.value
        event = PegEvent(play, count, [])
        series.append(event)
        event.items.extend(_scores(series, count))
        events.append(event)
        if count == rules.THIRTY_ONE:
            series, said_go, count = [], set(), 0
    if series:
        series[-1].items.append(Item("last", rules.LAST_CARD, ()))

    for event in events:
        if event.play.claim is not None:
            event.verdict = judge_claim(event.play.claim, event.points, event.items, what="peg")
    return Pegging(tuple(events))


def _scores(series: list[PegEvent], count: int) -> list[Item]:
    """What the newest card of a series scores."""
    cards = [e.play.card for e in series]
    items = []
    if count == rules.FIFTEEN:
        items.append(Item("fifteen", 2, tuple(cards)))
    if count == rules.THIRTY_ONE:
        items.append(Item("thirty-one", 2, tuple(cards)))
    same = 1
    while same < len(cards) and cards[-same - 1].rank == cards[-1].rank:
        same += 1
    if same >= 2:
        items.append(Item("pair", rules.PAIR_POINTS[same], tuple(cards[-same:])))
    for length in range(len(cards), 2, -1):  # the longest run among the last cards, any order
        ranks = sorted(c.rank for c in cards[-length:])
        if all(b == a + 1 for a, b in zip(ranks, ranks[1:])):
            items.append(Item("run", length, tuple(cards[-length:])))
            break
    return items


def _check_cards(plays: list[Play]) -> None:
    cards = [p.card for p in plays if p.card is not None]
    for card, times in Counter(c for c in cards if c.suit).items():
        if times > 1:
            raise CardError(f"{card.code} is played {times} times; a deck has one {card.code}")
    for rank, times in Counter(c.rank for c in cards).items():
        if times > len(SUITS):
            raise CardError(f"{times} cards of rank {RANKS[rank - 1]} played; a deck has 4")
