"""A game is its log of entries; replaying the log gives the state: scores, pegs, whose turn.

The log is the truth: it is what is saved, and undoing an entry is dropping it and replaying
the rest. ``Game.apply`` checks an entry against the rules at that point of the game and
scores it, one peg at a time, so that the game ends the moment a side reaches the target:
the winner pegs out in the game hole (his score stops at the target), any points past it or
after it in the same entry are listed as not scored, and no later entry is taken.

Choices where the rules leave it open (documented here once):

- Muggins: cribcam calls it for the opponent. A claim short of the true count pegs the
  claim, and the first opponent to the player's left pegs the points overlooked. Without
  muggins the true count is pegged whatever was claimed. An over-claim is always corrected
  to the true count.
- A show from a claimed number alone is pegged as claimed: there is nothing to check it by.
  A claim of 19 is "nineteen", how a show of nothing is said: it pegs nothing.
- The play is entered whole, as ``cribcam peg`` takes it: every card of the deal (only the
  first series in five-card cribbage, where the play stops at the first go or 31), unless
  the game ends during it. A claim on a turn includes the go that the turn earns, as in
  ``cribcam peg``, and every claim is judged, on a card that pegs nothing too. The go is
  pegged apart from its card's points, as on a board; a short claim taken by muggins is
  pegged as claimed, in one peg. Points may also be pegged as numbers, one peg at a time.
- Five-card cribbage: the first non-dealer pegs three (``three for last``) before the
  first deal, for the dealer's advantage.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from functools import partial

from cribcam.game.entries import IRREGULARITIES, Deal, Entry, Irregularity, Peg, PlayTurns, Show, parse_entry
from cribcam.game.result import Result, game_result
from cribcam.game.setup import CRIB_SIZE, GameError, Setup
from cribcam.scoring import Card, judge_show, rules, score_hand, score_play
from cribcam.scoring.muggins import IMPOSSIBLE_TOTALS, MAX_TOTAL, MUGGINS, Verdict, claimed_show_total
from cribcam.scoring.pegging import PegEvent
from cribcam.scoring.spoken import NOTHING, counted, say_peg, say_peg_item

IRREGULARITY_POINTS = 2
THREE_FOR_LAST = 3
CRIB = "crib"  # in the order of the shows, after the players' hands


@dataclass(frozen=True)
class Credit:
    """Points for a side, and why."""

    side: int
    points: int
    reason: str

    def as_dict(self, setup: Setup) -> dict:
        return {"side": setup.side_name(self.side), "points": self.points, "reason": self.reason}


def _line_dict(line: Line, setup: Setup) -> dict:
    return {"entry": line.entry, "text": line.text,
            "scored": [c.as_dict(setup) for c in line.scored],
            "unscored": [c.as_dict(setup) for c in line.unscored], "notes": line.notes}


def _play_pegs(event: PegEvent) -> list[tuple[int, str]]:
    """A turn's pegs, as on a board: its card's points (1 for last among them, said with the
    card), then the go the card earned, pegged apart: at the table the go is pegged once the
    others have said go, not with the card."""
    player = event.play.player
    card = [item for item in event.items if item.kind != "go"]
    go = [item for item in event.items if item.kind == "go"]
    return [(sum(item.points for item in card), f"the play: {player} {say_peg(event.count, card)}"),
            *((item.points, f"the play: {player} {say_peg_item(item)}") for item in go)]


@dataclass
class Line:
    """One entry of the log as it was applied.

    Attributes:
        entry: the entry in its stored form.
        text: what happened, in words.
        scored: the points pegged.
        unscored: points past the game hole, or after the game was won: not pegged.
        notes: judgements of claims, and the like.
    """

    entry: dict
    text: str
    scored: list[Credit] = field(default_factory=list)
    unscored: list[Credit] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class DealState:
    """The deal in progress.

    Attributes:
        number: 1 for the first deal.
        dealer: who dealt.
        order: whose shows are left, in order: the players from the dealer's left, the
            dealer, then ``CRIB``.
        starter: the starter, when typed.
        played: the cards played with their suits known, and by whom.
        shown: the cards of the hands and crib shown so far, and whose they were.
        plays: how many cards each player played, once the play is entered by turns.
    """

    number: int
    dealer: str
    order: list[str]
    starter: Card | None = None
    played: dict[Card, str] = field(default_factory=dict)
    shown: dict[Card, str] = field(default_factory=dict)
    plays: dict[str, int] = field(default_factory=dict)

    @property
    def finished(self) -> bool:
        return not self.order


@dataclass
class Game:
    """The state of a game, built by applying its entries in order.

    Attributes:
        setup: players and rules.
        scores: each side's score (its front peg).
        back: where each side's back peg stands (the score before its last points).
        log: every entry applied, as a ``Line``.
        deal: the current (or last) deal.
        winner: the side that reached the target, once one has.
        ended: why the game ended, in words.
    """

    setup: Setup
    scores: list[int] = field(default_factory=list)
    back: list[int] = field(default_factory=list)
    log: list[Line] = field(default_factory=list)
    deal: DealState | None = None
    winner: int | None = None
    ended: str = ""

    def __post_init__(self) -> None:
        self.scores = self.scores or [0] * len(self.setup.sides)
        self.back = self.back or [0] * len(self.setup.sides)

    @property
    def over(self) -> bool:
        return self.winner is not None

    @property
    def result(self) -> Result | None:
        return None if self.winner is None else game_result(self.setup, self.scores, self.winner)

    def as_dict(self) -> dict:
        """The state as JSON for the API and ``cribcam game show --json``."""
        setup = self.setup
        deal = self.deal
        return {
            "setup": setup.as_dict(),
            "dealing": setup.dealing,
            "sides": [{"name": setup.side_name(i), "players": list(players),
                       "score": self.scores[i], "back": self.back[i]}
                      for i, players in enumerate(setup.sides)],
            "deal": deal and {"number": deal.number, "dealer": deal.dealer,
                              "starter": deal.starter.code if deal.starter else None},
            "next": self.expecting(),
            "log": [_line_dict(line, setup) for line in self.log],
            "over": self.over,
            "ended": self.ended,
            "result": self.result.as_dict(setup) if self.over else None,
        }

    def apply(self, entry: Entry | dict, kept: bool = False) -> Line:
        """Checks ``entry`` against the rules at this point, scores it and logs it.

        Args:
            kept: the entry was taken before, and is replayed from a saved log: a rule added
                since (a go while a card fitted, refused from issue 45 on) does not turn away
                a game saved under the rules of its day.

        Raises:
            GameError: the entry does not fit the game here (``EntryError``: it is
                malformed); the game is left as it was.
            CardError: a card that is no card, or one played or shown twice.
        """
        if isinstance(entry, dict):
            entry = parse_entry(entry)
        if self.over:
            raise GameError(f"the game is over: {self.ended}")
        apply = {Deal: self._deal, PlayTurns: partial(self._play, kept=kept), Peg: self._peg,
                 Show: self._show, Irregularity: self._irregularity}[type(entry)]
        # Some checks need the points scored first (a play may stop short only if the game
        # is won during it), so an entry that fails puts the game back as it was.
        saved = vars(self.fork())
        try:
            line = apply(entry)
        except ValueError:
            vars(self).update(saved)
            raise
        self.log.append(line)
        return line

    def fork(self) -> Game:
        """A copy of the game to go on from, as cheap at entry 1,000 as at entry 10: the lines
        of its log are shared (a line is never changed once logged), the rest is copied."""
        return replace(self, scores=list(self.scores), back=list(self.back), log=list(self.log),
                       deal=copy.deepcopy(self.deal))

    # ---- the entries ------------------------------------------------------------------------

    def _deal(self, entry: Deal) -> Line:
        if self.deal and not self.deal.finished:
            raise GameError(f"deal {self.deal.number} is not finished: {self._expecting()}")
        first = self.deal is None
        dealer = self.setup.first_dealer if first else self.setup.left_of(self.deal.dealer)
        players = [self.setup.left_of(dealer, k) for k in range(1, len(self.setup.players) + 1)]
        self.deal = DealState(1 if first else self.deal.number + 1, dealer, players + [CRIB],
                              entry.starter)
        starter = f", starter {entry.starter}" if entry.starter else ""
        line = Line(entry.as_dict(), f"Deal {self.deal.number}: {dealer} deals{starter}")
        pone = players[0]
        if first and self.setup.variant == "five-card":
            self._credit(line, pone, THREE_FOR_LAST, f"three for last to {pone}, the first "
                                                     f"non-dealer")
        if entry.heels:
            self._credit(line, dealer, rules.HEELS, "his heels (a jack turned up)")
        return line

    def _play(self, entry: PlayTurns, kept: bool) -> Line:
        deal = self._deal_in_play()
        if deal.plays:
            raise GameError("the play of this deal is already entered (undo it to enter it "
                            "again)")
        # Each turn's player by his name, also when written by his initial (B:K for Bob).
        entry = PlayTurns(tuple(replace(play, player=self.setup.player(play.player))
                                for play in entry.turns))
        seating = [who for who in deal.order if who != CRIB]  # from the dealer's left
        leader = entry.turns[0].player
        if leader != seating[0]:
            raise GameError(f"{seating[0]}, on the dealer's left, leads the play, not {leader}")
        # The order of play is the pegging core's to keep, as for `cribcam peg`.
        pegging = score_play(entry.turns, players=seating, hand_size=self.setup.hand_size,
                             goes_checked=not kept)
        line = Line(entry.as_dict(), f"The play: {' '.join(entry.as_dict()['turns'])}")
        played = self._check_play(deal, pegging)
        for event in pegging.events:
            # Every claimed turn is judged (by score_play), a card that pegs nothing too; its
            # note names the card, as a player may claim on several.
            player = event.play.player
            claimant = f"{player}'s {event.play.card.code}" if event.play.card else player
            self._credit_claim(line, player, claimant, _play_pegs(event), event.verdict,
                               f"the play: {player} {event.said}")
        if not self.over:
            self._check_play_complete(deal, pegging, played)
        deal.played = {Card(p.card.rank, p.card.suit): p.player for p in entry.turns
                       if p.card and p.card.suit}
        deal.plays = played
        return line

    def _peg(self, entry: Peg) -> Line:
        self._deal_in_play()
        player = self.setup.player(entry.player)
        entry = replace(entry, player=player)
        line = Line(entry.as_dict(), f"{player} pegs {entry.points} in the play")
        self._credit(line, player, entry.points, f"the play: {player} pegs {entry.points}")
        return line

    def _show(self, entry: Show) -> Line:
        deal = self._deal_needed()
        whose = deal.order[0]
        owner = deal.dealer if whose == CRIB else whose
        crib = whose == CRIB
        if entry.crib is not None and entry.crib != crib:
            raise GameError(f"the crib is counted last: {self._expecting()}" if entry.crib
                            else f"the hands are all shown: {self._expecting()}")
        if entry.player is not None:
            entry = replace(entry, player=self.setup.player(entry.player))
            if entry.player != owner:
                raise GameError(f"it is {owner}'s turn to show "
                                f"{'the crib' if crib else 'his hand'}, not {entry.player}'s")
        what = f"{owner}'s {'crib' if crib else 'hand'}"
        deal.order.pop(0)  # before scoring: if this show wins, it is not among those left
        if entry.cards:
            score = score_hand(self._check_shown(deal, entry.cards, owner, crib, what),
                               deal.starter, crib=crib, variant=self.setup.variant)
            cards = " ".join(card.code for card in entry.cards)
            line = Line(entry.as_dict(), f"{what}: {cards} — {score.spoken}")
            self._credit_claim(line, owner, owner, [(score.total, what)],
                               None if entry.claim is None else judge_show(entry.claim, score),
                               what)
            deal.shown.update({card: what for card in entry.cards})
        else:
            points = claimed_show_total(entry.claim)
            self._check_claim(points, what)
            said = f" ({NOTHING})" if points != entry.claim else ""
            line = Line(entry.as_dict(), f"{what}: {entry.claim} claimed{said}")
            if points:
                self._credit(line, owner, points, what)
        return line

    def _irregularity(self, entry: Irregularity) -> Line:
        if entry.kind == "peg" and self.deal is None:
            # A hand or a crib may be dealt wrong before the starter is cut (the deal's entry);
            # nobody pegs before it.
            raise GameError(f"nobody pegs before the first deal: a peg irregularity comes "
                            f"after it, and {self._expecting()}")
        offender = self.setup.player(entry.player)
        taker = self.setup.player(entry.by) if entry.by else self.setup.next_opponent(offender)
        entry = replace(entry, player=offender, by=entry.by and taker)
        if self.setup.side_of(taker) == self.setup.side_of(offender):
            raise GameError(f"{taker} is on {offender}'s side: an opponent takes the points")
        line = Line(entry.as_dict(), f"Irregularity: {offender}, {IRREGULARITIES[entry.kind]}")
        self._credit(line, taker, IRREGULARITY_POINTS, f"{taker} for {offender}'s irregularity "
                                                      f"({IRREGULARITIES[entry.kind]})")
        return line

    # ---- checks -----------------------------------------------------------------------------

    def _deal_needed(self) -> DealState:
        if self.deal is None or self.deal.finished:
            raise GameError(f"start a deal first: {self._expecting()}")
        return self.deal

    def _deal_in_play(self) -> DealState:
        deal = self._deal_needed()
        if len(deal.order) <= len(self.setup.players):
            raise GameError("the play is over: the shows have begun")
        return deal

    def _check_play(self, deal: DealState, pegging) -> dict[str, int]:
        """The cards each player played; ``GameError`` for a play no deal can have (the order
        of play and the size of the hands are checked by ``score_play``)."""
        played: dict[str, int] = {}
        for event in pegging.events:
            card = event.play.card
            if card is None:
                continue
            if deal.starter and (card.rank, card.suit) == (deal.starter.rank, deal.starter.suit):
                raise GameError(f"{deal.starter} is the starter: nobody can play it")
            played[event.play.player] = played.get(event.play.player, 0) + 1
        if self.setup.variant == "five-card":
            cards = [e for e in pegging.events if e.play.card is not None]
            end = next((e for e in cards if any(item.kind in ("go", "thirty-one")
                                                for item in e.items)), None)
            if end is not None and end is not cards[-1]:
                raise GameError("in five-card cribbage the play stops at the first go or 31: "
                                f"no card is played after {end.play.player}'s "
                                f"{end.play.card.code}")
        return played

    def _check_play_complete(self, deal: DealState, pegging, played: dict[str, int]) -> None:
        if self.setup.variant == "five-card":
            return
        short = [p for p in self.setup.players if played.get(p, 0) != self.setup.hand_size]
        if short:
            raise GameError(f"the play must hold every card: {', '.join(short)} played "
                            f"{', '.join(str(played.get(p, 0)) for p in short)} of "
                            f"{self.setup.hand_size}; enter the whole play, or peg its points "
                            f"as numbers")

    def _check_shown(self, deal: DealState, cards: tuple[Card, ...], owner: str, crib: bool,
                     what: str) -> tuple[Card, ...]:
        if deal.starter is None:
            raise GameError("the starter was not typed at the deal, so hands cannot be counted "
                            "from their cards: enter the claimed number")
        needed = CRIB_SIZE if crib else self.setup.hand_size
        if len(cards) != needed:
            # A show is counted from exactly its cards: a short or long one is pegged from the
            # count claimed, after the irregularity.
            holder = "the crib" if crib else owner
            truly = f"only {len(cards)}" if len(cards) < needed else str(len(cards))
            raise GameError(f"{what} has {counted(len(cards), 'card')}, not {needed}: if "
                            f"{holder} truly holds {truly}, enter the irregularity (2 to the "
                            f"opponent), then the count claimed, without the cards; else enter "
                            f"its {needed} cards")
        for card in cards:
            if card == deal.starter:
                raise GameError(f"{card} is the starter; it cannot also be in {what}")
            by = deal.played.get(card)
            if by is not None and (crib or by != owner):
                raise GameError(f"{card} was played by {by}; it cannot be in {what}")
            if card in deal.shown:
                raise GameError(f"{card} is in {deal.shown[card]}; it cannot also be in {what}")
        if not crib:
            missing = [c for c, by in deal.played.items() if by == owner and c not in cards]
            if missing:
                raise GameError(f"{owner} played {' '.join(c.code for c in missing)}; "
                                f"{what} must hold {'it' if len(missing) == 1 else 'them'}")
        return cards

    def _check_claim(self, claim: int, what: str) -> None:
        impossible = IMPOSSIBLE_TOTALS[self.setup.variant]
        most = MAX_TOTAL[self.setup.variant]
        if claim > most or claim in impossible:
            raise GameError(f"no hand or crib scores {claim} (the most is {most}; none scores "
                            f"{', '.join(map(str, sorted(impossible)))}): enter {what}'s true "
                            f"count")

    # ---- scoring ----------------------------------------------------------------------------

    def _credit_claim(self, line: Line, player: str, claimant: str,
                      pegs: list[tuple[int, str]], verdict: Verdict | None, reason: str) -> None:
        """Pegs ``player``'s count, claimed (``verdict`` judges the claim, noted as
        ``claimant``'s) or not, under the rules of muggins: the true count as its ``pegs``
        (points, reason), one after the other; or, when muggins takes a short claim, the claim
        in one peg (the player pegged what he said), and the points overlooked to the
        opponent. ``reason`` names the whole count."""
        if verdict is not None:
            line.notes.append(f"{claimant}: {verdict.message}")
        if verdict is not None and verdict.verdict == MUGGINS and self.setup.muggins:
            taker = self.setup.next_opponent(player)
            self._credit(line, player, verdict.claimed, f"{reason} (claimed {verdict.claimed})")
            self._credit(line, taker, verdict.difference,
                         f"muggins: {taker} takes {verdict.difference} overlooked in {reason}")
            return
        for points, why in pegs:
            self._credit(line, player, points, why)

    def _credit(self, line: Line, player: str, points: int, reason: str) -> None:
        """Pegs ``points`` for ``player``'s side, unless the game is already won."""
        if points <= 0:
            return
        side = self.setup.side_of(player)
        if self.over:
            line.unscored.append(Credit(side, points, reason))
            return
        # The winner pegs out in the game hole: the score stops at the target, and the rest
        # of these points is listed as not scored.
        pegged = min(points, self.setup.target - self.scores[side])
        self.back[side] = self.scores[side]
        self.scores[side] += pegged
        line.scored.append(Credit(side, pegged, reason))
        if pegged < points:
            line.unscored.append(Credit(side, points - pegged, f"{reason}, past the game hole"))
        if self.scores[side] >= self.setup.target:
            self.winner = side
            self.ended = self._why(side, reason)

    def _why(self, side: int, reason: str) -> str:
        why = (f"{self.setup.side_name(side)} reached {self.setup.target} with {reason}; the "
               f"game ends there")
        if self.deal and self.deal.order:
            left = [f"{who}'s hand" if who != CRIB else f"{self.deal.dealer}'s crib"
                    for who in self.deal.order]
            why += f"; not counted: {', '.join(left)}"
        return why

    # ---- what comes next --------------------------------------------------------------------

    def expecting(self) -> dict:
        """What the next entry should be: ``{"step", "player", "crib"}``."""
        if self.over:
            return {"step": "over", "player": None, "crib": False}
        if self.deal is None or self.deal.finished:
            dealer = (self.setup.first_dealer if self.deal is None
                      else self.setup.left_of(self.deal.dealer))
            return {"step": "deal", "player": dealer, "crib": False}
        whose = self.deal.order[0]
        in_play = len(self.deal.order) > len(self.setup.players) and not self.deal.plays
        step = "play" if in_play else "show"
        if whose == CRIB:
            return {"step": "show", "player": self.deal.dealer, "crib": True}
        return {"step": step, "player": whose, "crib": False}

    def _expecting(self) -> str:
        nxt = self.expecting()
        if nxt["step"] == "deal":
            return f"next is {nxt['player']}'s deal"
        if nxt["crib"]:
            return f"next is {nxt['player']}'s crib"
        if nxt["step"] == "play":
            return f"next is the play, then {nxt['player']}'s hand"
        return f"next is {nxt['player']}'s hand"
