"""The play (pegging): scoring cards as they are played towards 31, in the order of play.

A play is written the way it happens at the table, one token per turn: ``A:K`` (player A
plays a king), ``B:go``, ``A:2=3`` (A plays a two and claims 3 points). Suits are optional
(``A:KH``), since only ranks score in the play.

The order of play is kept here, once, for ``cribcam peg``, the game's play entries and the
API alike (Hoyle's rules):

- the players take turns in their seating order, the leader first;
- a player who cannot play says "go", on his own turn; the others go on playing in turn as
  long as they can, skipping whoever said go or has no card left;
- when nobody can play on, the last player to play pegs 1 for the go, the count starts
  afresh, and the player after him (on his left) leads; likewise after a 31 (2 for the 31,
  no go point);
- a player whose card would pass 31 cannot play it: a card written there means everybody
  went go before it, so it must be the lead of the next count;
- a player must play while he holds a card that fits: a go, said or meant by such a card, is
  refused when the player plays a card later that would have fitted on that count (a written
  play shows every card each player held);
- the very last card of the play pegs 1 for last.

A turn out of order is refused (``TurnError``), naming whose turn it was.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from cribcam.scoring import rules
from cribcam.scoring.cards import RANKS, SUITS, Card, CardError
from cribcam.scoring.muggins import Verdict, claim_problem, judge_claim, typed_claim
from cribcam.scoring.show import Item
from cribcam.scoring.spoken import say_peg

# Whatever follows "=" is the claim, to be judged by the one rule for claims (claim_problem).
_TOKEN = re.compile(r"^(?P<player>[^\s:=]+):(?P<card>[^\s:=]+)(?:=(?P<claim>[^\s:=]+))?$")
NAME_LENGTH = 20  # the longest name of a player
# A name must survive in a play token, `NAME:CARD`, and be shown and kept as it is.
_NAME = re.compile(rf"^[^\s:=]{{1,{NAME_LENGTH}}}$")
NAME_RULE = f"1 to {NAME_LENGTH} printable characters, no spaces, ':' or '='"


def usable_name(name) -> bool:
    """Whether ``name`` can name a player (``NAME_RULE``): no control character, nor half of
    a UTF-16 pair, which no page, terminal or database could show or keep."""
    return isinstance(name, str) and bool(_NAME.match(name)) and name.isprintable()


def shown_name(name) -> str:
    """``name`` quoted for a message, cut short when it is too long to be a name: a message
    that repeated thousands of characters pasted by mistake would bury what it says. (``repr``
    shows a control character or half a UTF-16 pair as its escape.)"""
    if isinstance(name, str) and len(name) > NAME_LENGTH:
        return repr(name[:NAME_LENGTH] + "…")
    return repr(name)


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
    def parse(cls, text: str) -> Played:
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
    def parse(cls, token: str) -> Play:
        """Parses ``PLAYER:CARD[=CLAIM]`` or ``PLAYER:go``."""
        match = _TOKEN.match(token.strip())
        if not match:
            raise CardError(f"{token!r} is not a turn: write PLAYER:CARD (A:5H, B:K), "
                            f"PLAYER:go, or add a claim as A:5H=2")
        card = None if match["card"].lower() == "go" else Played.parse(match["card"])
        claim = _claim(match["claim"], token) if match["claim"] is not None else None
        if card is None and claim:
            raise CardError(f"{token!r}: a go scores nothing itself; claim the go point on the "
                            f"last card of the series")
        return cls(match["player"], card, claim)


def _claim(text: str, token: str) -> int:
    """The claim written after "=" in ``token``; ``CardError`` unless it can be judged."""
    claim = typed_claim(text)
    problem = claim_problem(claim)
    if problem:
        raise CardError(f"{token!r}: a claim {problem}, not {text}")
    return claim


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
        """What the player says, as the live play says it: "10", "15, fifteen for two", "30, a
        pair for two, one for the go", "24, run of three for three, one for last"; "go"."""
        return say_peg(self.count, self.items) if self.play.card else "go"

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


class TurnError(CardError):
    """A turn out of the order of play: a card or a go from a player whose turn it is not,
    or a card from a player whose hand is played out."""


HAND_SIZE = rules.VARIANTS[rules.DEFAULT_VARIANT].hand_size  # cards each player plays: 4
MAX_VALUE = 10  # a ten or a face card


def score_play(plays: Iterable[Play | str] | str, players: Iterable[str] | None = None,
               hand_size: int | None = HAND_SIZE, goes_checked: bool = True) -> Pegging:
    """Scores the play, checking the order of play as it goes.

    Args:
        plays: the turns in order, as ``Play`` objects or tokens like ``"A:K"`` (a string is
            split on spaces and commas).
        players: the players in seating order, the leader first (each one's left is the
            next); by default the order in which they first appear in the turns.
        hand_size: the cards each player holds for the play (4; 3 in five-card cribbage); a
            player who has played them all is passed over. None when not known: then a
            player with no card left says go like any other.
        goes_checked: refuse a go from a player who plays a card later that would have
            fitted. False only to replay a play kept by a cribcam from before that rule (a
            saved game), which is scored as it was then.

    Raises:
        TurnError: a turn out of order, naming whose turn it is.
        CardError: a malformed turn, or a card played twice.
    """
    if isinstance(plays, str):
        plays = plays.replace(",", " ").split()
    plays = [p if isinstance(p, Play) else Play.parse(p) for p in plays]
    _check_cards(plays)
    order = _seating(plays, players)
    table = OrderOfPlay(order, hand_size)
    events: list[PegEvent] = []
    for number, play in enumerate(plays, 1):
        table.check(play, number)
        if goes_checked:
            _check_goes(table, play, number, plays[number:])
        events.append(table.take(play))
    table.finish()

    for event in events:
        if event.play.claim is not None:
            event.verdict = judge_claim(event.play.claim, event.points, event.items, what="peg")
    return Pegging(tuple(events))


def _check_goes(table: OrderOfPlay, play: Play, number: int, later: list[Play]) -> None:
    """``TurnError`` when a player goes on this turn while holding a card that fits: one he
    plays ``later`` that would have made 31 or less on the count."""
    fitting = []
    for player in table.going(play):
        for step, card in enumerate(later, number + 1):
            if card.player == player and card.card and \
                    table.count + card.card.value <= rules.THIRTY_ONE:
                fitting.append(f"{player}'s {card.card.code} (turn {step}) makes "
                               f"{table.count + card.card.value}")
                break
    if not fitting:
        return
    where = f"turn {number} ({_token(play)})"
    if play.card is None:
        raise TurnError(f"{where}: {play.player} cannot say go on {table.count} while a card "
                        f"fits: {fitting[0]}")
    raise TurnError(f"{where}: on {table.count} it would pass 31, so it would lead after "
                    f"everybody went go; but nobody goes while a card fits: {', '.join(fitting)}")


def seated(players: Iterable[str]) -> list[str]:
    """The players of a play in seating order, checked: two or more, each named once.

    Raises:
        CardError: fewer than two players, one named twice, or a name that is none
            (``usable_name``).
    """
    order = list(players)
    for name in order:
        if not usable_name(name):
            raise CardError(f"{shown_name(name)} is not a usable name: {NAME_RULE}")
    if len(order) < 2 or len(set(order)) != len(order):
        raise CardError(f"the play needs two players or more, each named once, not "
                        f"{', '.join(order) or 'none'}")
    return order


def _seating(plays: list[Play], players: Iterable[str] | None) -> list[str]:
    if players is not None:
        order = seated(players)
        for play in plays:
            if play.player not in order:
                raise TurnError(f"{play.player!r} is not one of the players "
                                f"({', '.join(order)})")
        return order
    order = list(dict.fromkeys(play.player for play in plays))
    if len(order) == 1 and len(plays) > 1:
        raise TurnError(f"every turn is {order[0]}'s: the players take turns, so write the "
                        f"others' turns too, and their go (NAME:go)")
    return order


class OrderOfPlay:
    """The order of play as the turns come: whose turn it is, the count, who said go.

    ``score_play`` feeds it a written play; ``game.table_play.TablePlay`` the turns of a play
    watched as it happens. ``check`` refuses a turn out of order; ``take`` scores one it let
    through, and may add the go point (or last) to the last card of the count it closes.
    """

    def __init__(self, order: list[str], hand_size: int | None):
        self.order = order
        self.hand_size = hand_size
        self.left = {player: hand_size for player in order} if hand_size else None
        self.turn: str | None = order[0] if order else None  # None: every card is played
        self.count = 0
        self.went: set[str] = set()  # said go in this count
        self.series: list[PegEvent] = []  # the card events of this count
        self.last: str | None = None  # who played the last card of this count

    def has_cards(self, player: str) -> bool:
        return self.left is None or self.left[player] > 0

    def can_go_on(self, player: str) -> bool:
        return player not in self.went and self.has_cards(player)

    def after(self, player: str, test) -> str | None:
        """The first player after ``player`` (ending with himself) who passes ``test``."""
        start = self.order.index(player)
        for step in range(1, len(self.order) + 1):
            other = self.order[(start + step) % len(self.order)]
            if test(other):
                return other
        return None

    def going(self, play: Play) -> list[str]:
        """Who goes by ``play``, a turn that ``check`` let through: the player of a go; for a
        card that would pass 31, so leads the next count, everybody still holding a card who
        had not said go (each went go, unsaid)."""
        if play.card is None:
            return [play.player]
        if self.series and self.count + play.card.value > rules.THIRTY_ONE:
            return [player for player in self.order if self.can_go_on(player)]
        return []

    def check(self, play: Play, number: int) -> None:
        """``TurnError`` unless ``play`` is the turn the rules expect here."""
        where = f"turn {number} ({_token(play)})"
        player, card = play.player, play.card
        if self.turn is None:
            raise TurnError(f"{where}: the play is over, every card is played")
        if card is not None and not self.has_cards(player):
            raise TurnError(f"{where}: {player} has played all {self.hand_size} of his cards")
        if card is not None and self.series and self.count + card.value > rules.THIRTY_ONE:
            leader = self.after(self.last, self.has_cards)
            if player == leader:
                return  # everybody went go: this card leads the next count
            if player == self.turn:
                raise TurnError(f"{where}: {player} cannot play a {card.code} on {self.count}, "
                                f"it would pass 31: {player} says go ({player}:go)")
        if player == self.turn:
            # A player who holds a card must play if he can: every card fits on 21 or less.
            if card is None and self.hand_size is not None and \
                    self.count + MAX_VALUE <= rules.THIRTY_ONE:
                raise TurnError(f"{where}: {player} cannot say go on {self.count}: any card "
                                f"fits under 31, so {player} plays one")
            return
        why = f"it is {self.turn}'s turn, not {player}'s"
        if number == 1:
            why += f": {self.turn} leads"
        elif player in self.went:
            why += (f": {player} said go, and plays again only when the count starts afresh"
                    if card else f": {player} has said go already")
        elif card is None:
            why += f": {player} says go only on his own turn"
        elif player == self.last:
            why += f": {player} plays again only after {self.turn} says go ({self.turn}:go)"
        if card is not None and self.series and self.count + card.value > rules.THIRTY_ONE:
            # The card is named where the refusal is said (the turn's token, the page's card):
            # not again here, where a page would show it in another form ("J♣: ... a JC").
            why += f" (and on {self.count} it would pass 31)"
        raise TurnError(f"{where}: {why}")

    def take(self, play: Play) -> PegEvent:
        """Scores a turn that ``check`` let through, and moves the turn on."""
        if play.card is None:
            self.went.add(play.player)
            event = PegEvent(play, self.count, [])
            self._pass_turn(play.player)
            return event
        if self.series and self.count + play.card.value > rules.THIRTY_ONE:
            self._end_count()
        self.count += play.card.value
        if self.left is not None:
            self.left[play.player] -= 1
        event = PegEvent(play, self.count, [])
        self.series.append(event)
        event.items.extend(_scores(self.series, self.count))
        self.last = play.player
        if self.count == rules.THIRTY_ONE:
            self._end_count()
        else:
            self._pass_turn(play.player)
        return event

    def finish(self) -> None:
        """The turns are all in: the last card of a count still open pegs 1 for last."""
        if self.series:
            self.series[-1].items.append(Item("last", rules.LAST_CARD, ()))

    def _pass_turn(self, player: str) -> None:
        following = self.after(player, self.can_go_on)
        if following is None:  # nobody can play on
            self._end_count()
        else:
            self.turn = following

    def _end_count(self) -> None:
        """The count ends: 1 for the go (or for last) to the last card under 31; the player
        after the last to play leads the next."""
        if self.series and self.count < rules.THIRTY_ONE:
            over = not any(self.has_cards(player) for player in self.order)
            self.series[-1].items.append(Item("last", rules.LAST_CARD, ()) if over
                                         else Item("go", rules.GO, ()))
        # A count with no card (every player said go, hand sizes unknown): the play is over.
        self.turn = None if self.last is None else self.after(self.last, self.has_cards)
        self.count, self.went, self.series, self.last = 0, set(), [], None


def _token(play: Play) -> str:
    return f"{play.player}:{play.card.code if play.card else 'go'}"


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
