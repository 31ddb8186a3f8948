"""The play as it happens at the table: card by card, go by go, each peg announced.

The engine the live pegging page and ``cribcam live play`` share (issue 33): whatever sees a
card laid (a camera, a tap) tells it ``lay(player, card)``; a player who cannot play tells it
``go(player)``. It keeps the order of play and the count by the rules of
``scoring.pegging`` (``OrderOfPlay``: one place for them) and answers each step with what
to say aloud and what it pegs ("fifteen for two", "thirty-one for two", "pair royal for six",
"run of three for three", "one for the go", "one for last": the play's words everywhere, from
``scoring.spoken.say_peg``). A move the rules refuse is explained, not crashed on
(``PlayRefused``): a card out of turn, a card that would pass 31 ("that makes 34: say go"), a
card laid twice, a go with a card that fits.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from cribcam.scoring import rules
from cribcam.scoring.cards import Card, CardError
from cribcam.scoring.pegging import OrderOfPlay, PegEvent, Play, Played, seated, shown_name
from cribcam.scoring.show import Item
from cribcam.scoring.spoken import say_peg, say_peg_item


class PlayRefused(ValueError):
    """A move the rules do not allow here; the message says why and what to do, to be said."""


class NotAtPlay(ValueError):
    """A kept game whose next step is not a play; the message says why ("not at a play: enter
    its deal first")."""


@dataclass(frozen=True)
class Announcement:
    """One step of the play.

    Attributes:
        player: who laid the card or said go.
        card: the card's code, or None for a go.
        count: the running count after it.
        pegged: the points each player pegs on this step (a go can peg the player who laid
            the last card: one for the go).
        said: what is announced aloud ("15, fifteen for two", "go: one for the go to Ann").
        next_player: whose turn it is now (None once the play is over).
    """

    player: str
    card: str | None
    count: int
    pegged: dict[str, int]
    said: str
    next_player: str | None

    @property
    def points(self) -> int:
        """What the player of this step pegs."""
        return self.pegged.get(self.player, 0)

    def as_dict(self) -> dict:
        out = {"player": self.player, "count": self.count, "points": self.points, "said": self.said,
               "pegged": self.pegged, "next": self.next_player}
        return {**out, "card": self.card} if self.card else {**out, "go": True}


@dataclass
class TablePlay:
    """One deal's play, watched as it happens.

    Args:
        players: the players in seating order (each one's left is the next).
        dealer: who dealt; the player on his left (the pone, with two) leads.
        hand_size: the cards each player holds for the play (4; 3 in five-card cribbage).
    """

    players: list[str]
    dealer: str
    hand_size: int = 4
    steps: list[Announcement] = field(default_factory=list, init=False)  # each step taken, in order

    def __post_init__(self) -> None:
        self.players = seated(self.players)
        if self.dealer not in self.players:
            raise ValueError(f"the dealer {shown_name(self.dealer)} is not one of the players ({', '.join(self.players)})")
        start = (self.players.index(self.dealer) + 1) % len(self.players)
        self._order = OrderOfPlay(self.players[start:] + self.players[:start], self.hand_size)
        self._laid: set[str] = set()

    @classmethod
    def of_game(cls, game) -> TablePlay:
        """The play of a kept game (``cribcam.game.Game``) at its play: its players in seating
        order, the dealer of its deal, its variant's hand size.

        Raises:
            NotAtPlay: the game is at another step.
        """
        step = game.expecting()["step"]
        if step != "play":
            why = {"deal": "enter its deal first", "over": f"the game is over ({game.ended})"}.get(
                step, "its play is entered already")
            raise NotAtPlay(f"not at a play: {why}")
        return cls(list(game.setup.players), game.deal.dealer, game.setup.hand_size)

    def game_entry(self) -> dict:
        """The play seen, as a kept game's play entry: each turn "Player:CARD" or "Player:go",
        and no claims (the game pegs each turn's true count). The one way a watched play goes
        into a game, from the command line and from the live page alike."""
        return {"type": "play", "turns": [f"{step.player}:{step.card or 'go'}" for step in self.steps]}

    @property
    def turn(self) -> str | None:
        """Whose turn it is (None once every card is played)."""
        return self._order.turn

    @property
    def count(self) -> int:
        return self._order.count

    @property
    def series(self) -> list[tuple[str, str]]:
        """The cards of the count going on, in order, each with who laid it."""
        return [(event.play.player, event.play.card.code) for event in self._order.series]

    def state(self) -> dict:
        """Where the play stands, for a page: the players, the dealer, whose turn, the count,
        its cards, each player's pegs, and whether the play is over. Once it is over, the count
        it ended on and that count's cards, as they lie on the table (not a new count of none)."""
        over = self.turn is None
        count, series = self._final_count() if over else (self.count, self.series)
        return {"players": self.players, "dealer": self.dealer, "turn": self.turn, "count": count,
                "series": [{"player": p, "card": c} for p, c in series], "totals": self.totals,
                "over": over}

    def _final_count(self) -> tuple[int, list[tuple[str, str]]]:
        """The count of the last card laid, and the cards of that count, back to its lead."""
        laid = [step for step in self.steps if step.card is not None]
        if not laid:
            return 0, []
        cards, start = [], laid[-1].count
        for step in reversed(laid):
            if step.count != start:
                break
            cards.append((step.player, step.card))
            start -= Played.parse(step.card).value
            if start == 0:
                break
        return laid[-1].count, cards[::-1]

    @property
    def totals(self) -> dict[str, int]:
        """Each player's pegs in the play so far."""
        totals = dict.fromkeys(self.players, 0)
        for step in self.steps:
            for player, points in step.pegged.items():
                totals[player] += points
        return totals

    def lay(self, player: str, card: str) -> Announcement:
        """A card laid face up by ``player``: its count and pegs.

        Raises:
            PlayRefused: not a card, a card on the table already, not this player's turn, or
                a card that would pass 31.
        """
        try:
            code = Card.from_code(card).code
        except CardError as exc:
            raise PlayRefused(str(exc)) from None
        if self.turn is None:  # before the player: a card seen after the play has no one to lay it
            raise PlayRefused("the play is over: every card is played")
        if code in self._laid:
            # Not named again: a refusal is said beside the card it refuses (a page shows it as J♣).
            raise PlayRefused("it is on the table already: a deck has one")
        played = Played.parse(code)
        if player == self.turn and self._order.series and self.count + played.value > rules.THIRTY_ONE:
            raise PlayRefused(f"that makes {self.count + played.value}: {player} says go")
        step = self._take(Play(self._known(player), played))
        self._laid.add(code)
        return step

    def corrected(self, card: str, named: str) -> TablePlay:
        """The play so far with the card ``card`` named ``named`` instead (a card misread):
        every step played again, each pegged anew.

        Raises:
            PlayRefused: ``card`` was not laid, ``named`` is no card or is laid already, or
                the play so named breaks a rule (a count past 31, say).
        """
        try:
            old, new = Card.from_code(card).code, Card.from_code(named).code
        except CardError as exc:
            raise PlayRefused(str(exc)) from None
        if old not in self._laid:
            raise PlayRefused(f"the {old} was not laid in this play")
        again = TablePlay(self.players, self.dealer, self.hand_size)
        for step in self.steps:
            if step.card is None:
                again.go(step.player)
                continue
            try:
                again.lay(step.player, new if step.card == old else step.card)
            except PlayRefused as exc:
                raise PlayRefused(f"the {old} cannot be the {new}: {exc}") from None
        return again

    def go(self, player: str) -> Announcement:
        """``player`` says go: he cannot play under 31.

        Raises:
            PlayRefused: not this player's turn, or he holds a card that fits.
        """
        return self._take(Play(self._known(player), None))

    def _known(self, player: str) -> str:
        if player not in self.players:
            raise PlayRefused(f"{shown_name(player)} is not one of the players ({', '.join(self.players)})")
        return player

    def _take(self, play: Play) -> Announcement:
        if self.turn is None:
            raise PlayRefused("the play is over: every card is played")
        closing = self._order.series[-1] if self._order.series else None  # may take the go point
        before = len(closing.items) if closing else 0
        try:
            self._order.check(play, len(self.steps) + 1)
        except CardError as exc:  # a TurnError: out of turn, or a go with a card that fits
            # Without the turn's number, nor the hint of how a typed play says go ("(Bob:go)").
            raise PlayRefused(re.sub(r" \([^()]*:go\)", "", str(exc).split(": ", 1)[-1])) from None
        event = self._order.take(play)
        pegged: dict[str, int] = {}
        if event.points:
            pegged[play.player] = event.points
        closed = closing.items[before:] if closing is not None and closing is not event else []
        for item in closed:  # the go (or last) point of the count this go closed
            pegged[closing.play.player] = pegged.get(closing.play.player, 0) + item.points
        step = Announcement(play.player, play.card and play.card.code, event.count, pegged,
                            _said(event, closing.play.player if closed else None, closed), self.turn)
        self.steps.append(step)
        return step


def _said(event: PegEvent, closer: str | None, closed: list[Item]) -> str:
    """The words for a step: the count and each score ("24, run of three for three"), or
    "go" and the point it gives ("go: one for the go to Ann")."""
    closing = [f"{say_peg_item(item)} to {closer}" for item in closed]
    if event.play.card is None:
        return ": ".join(["go", *closing])
    # A card that leads a new count after a go not said closes the count before it.
    return "; ".join([*closing, say_peg(event.count, event.items)])
