"""The entries of a game's log: what the players tell the scoreboard, one at a time.

An entry is stored as a plain JSON object with a ``type``; ``parse_entry`` checks its fields
and returns one of the dataclasses below, whose ``as_dict`` is the canonical stored form.
Whether an entry fits the game at that point (whose show it is, which cards are still
unseen) is for the state to judge when the entry is applied.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cribcam.game.setup import GameError
from cribcam.scoring import Card, Play, parse_card, parse_cards
from cribcam.scoring.cards import JACK
from cribcam.scoring.muggins import claim_problem

MAX_PEG = 15  # the most one card can peg in the play: 12 for four of a kind, 2 for 15, 1 last
SOURCES = ("typed", "photo", "camera")
ENTRY_TYPES = ("deal", "play", "peg", "show", "irregularity")
_TYPES_SAID = ", ".join(ENTRY_TYPES[:-1]) + f" or {ENTRY_TYPES[-1]}"  # "deal, ... or irregularity"
IRREGULARITIES = {"hand": "the wrong number of cards in a hand",
                  "crib": "the wrong number of cards in the crib",
                  "peg": "pegged more than announced"}


class EntryError(GameError):
    """An entry whose fields are malformed (a missing field, a claim that is no number)."""


@dataclass(frozen=True)
class Deal:
    """A new deal: the starter is cut; a jack scores his heels, 2 to the dealer.

    Attributes:
        starter: the starter, when typed (needed to count hands from their cards).
        heels: the starter is a jack; given only when the starter is not typed.
    """

    starter: Card | None = None
    heels: bool = False

    def __post_init__(self) -> None:
        if self.starter is not None:
            is_jack = self.starter.rank == JACK
            if self.heels and not is_jack:
                raise EntryError(f"his heels needs a jack turned up, not {self.starter}")
            object.__setattr__(self, "heels", is_jack)

    def as_dict(self) -> dict:
        return {"type": "deal", "starter": self.starter.code if self.starter else None,
                "heels": self.heels}


@dataclass(frozen=True)
class PlayTurns:
    """The play, turn by turn, as ``cribcam peg`` takes it (``A:K``, ``B:go``, ``A:2=3``)."""

    turns: tuple[Play, ...]

    def __post_init__(self) -> None:
        if not self.turns:
            raise EntryError("the play has no turns: write them as A:K B:6 A:go ...")

    def as_dict(self) -> dict:
        return {"type": "play", "turns": [_token(play) for play in self.turns]}


@dataclass(frozen=True)
class Peg:
    """Points pegged in the play, entered as a number (one peg at a time, as at the table)."""

    player: str
    points: int

    def __post_init__(self) -> None:
        if not 1 <= self.points <= MAX_PEG:
            raise EntryError(f"{self.points} points: one card pegs 1 to {MAX_PEG} in the play")

    def as_dict(self) -> dict:
        return {"type": "peg", "player": self.player, "points": self.points}


@dataclass(frozen=True)
class Show:
    """A hand or the crib counted at the show, from its cards, a claimed number, or both.

    Attributes:
        cards: the cards (typed, or read from a photo or the camera), without the starter.
        claim: what the player announced.
        player: whose hand, when said (checked against the order of the shows).
        crib: this is the crib, when said (checked likewise).
        source: where the cards came from: typed, photo or camera.
    """

    cards: tuple[Card, ...] = ()
    claim: int | None = None
    player: str | None = None
    crib: bool | None = None
    source: str = "typed"

    def __post_init__(self) -> None:
        if not self.cards and self.claim is None:
            raise EntryError("a show needs the cards, the claimed number, or both")
        if self.source not in SOURCES:
            raise EntryError(f"source {self.source!r}: one of {', '.join(SOURCES)}")

    def as_dict(self) -> dict:
        return {"type": "show", "cards": [c.code for c in self.cards], "claim": self.claim,
                "player": self.player, "crib": self.crib, "source": self.source}


@dataclass(frozen=True)
class Irregularity:
    """A breach of the rules by ``player``: 2 points to an opponent.

    Attributes:
        player: the offender.
        kind: ``hand`` or ``crib`` (the wrong number of cards), ``peg`` (pegged more than
            announced).
        by: the opponent who takes the points; by default the first to the offender's left.
    """

    player: str
    kind: str
    by: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in IRREGULARITIES:
            raise EntryError(f"irregularity {self.kind!r}: one of "
                             f"{'; '.join(f'{k} ({v})' for k, v in IRREGULARITIES.items())}")

    def as_dict(self) -> dict:
        return {"type": "irregularity", "player": self.player, "kind": self.kind, "by": self.by}


Entry = Deal | PlayTurns | Peg | Show | Irregularity


def parse_entry(data) -> Entry:
    """Checks a stored or submitted entry and returns it as a dataclass.

    Raises:
        EntryError: a malformed entry, naming the field.
        CardError: a card that is no card.
    """
    if not isinstance(data, dict):
        raise EntryError(f'an entry is a JSON object with a "type": {_TYPES_SAID}')
    kind = data.get("type")
    if kind == "deal":
        starter = data.get("starter")
        return Deal(parse_card(_text(starter, "starter")) if starter not in (None, "") else None,
                    _flag(data.get("heels"), "heels"))
    if kind == "play":
        turns = data.get("turns")
        if isinstance(turns, str):
            turns = turns.replace(",", " ").split()
        if not isinstance(turns, list) or not all(isinstance(t, str) for t in turns):
            raise EntryError('"turns" must be a list of turns like ["A:K", "B:6", "A:go"]')
        return PlayTurns(tuple(Play.parse(token) for token in turns))
    if kind == "peg":
        return Peg(_text(data.get("player"), "player"), _points(data.get("points")))
    if kind == "show":
        cards = data.get("cards") or ()
        if not isinstance(cards, (list, tuple, str)):
            raise EntryError('"cards" must be a list of cards like ["5H", "10D", "QS", "K♦"]')
        claim = data.get("claim")
        return Show(tuple(parse_cards(cards)),
                    None if claim in (None, "") else _claim(claim),
                    _optional_text(data.get("player"), "player"),
                    None if data.get("crib") is None else _flag(data.get("crib"), "crib"),
                    data.get("source") or "typed")
    if kind == "irregularity":
        return Irregularity(_text(data.get("player"), "player"), _text(data.get("kind"), "kind"),
                            _optional_text(data.get("by"), "by"))
    if kind in (None, ""):
        raise EntryError(f"say what kind of entry: {_TYPES_SAID}")
    raise EntryError(f"{kind!r} is no kind of entry: {_TYPES_SAID}")


def _token(play: Play) -> str:
    card = play.card.code if play.card else "go"
    return f"{play.player}:{card}" + (f"={play.claim}" if play.claim is not None else "")


def _whole_number(value):
    """``value`` as an int when it is a whole number, given as a number or as digits; else
    ``value`` itself, for the caller to refuse."""
    if isinstance(value, str) and re.fullmatch(r"\s*-?[0-9]{1,6}\s*", value):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _points(value) -> int:
    """The points of a peg (``Peg`` checks how many one card can peg)."""
    if value in (None, ""):
        raise EntryError("say how many points were pegged, e.g. 2")
    points = _whole_number(value)
    if isinstance(points, bool) or not isinstance(points, int):
        raise EntryError(f"points are a whole number, e.g. 2, not {value}")
    if points < 0:
        raise EntryError(f"points are never negative: {points}")
    return points


def _claim(value) -> int:
    """A show's claim, by the one rule for claims (``claim_problem``), as `cribcam count`."""
    claim = _whole_number(value)
    problem = claim_problem(claim)
    if problem:
        raise EntryError(f"a claim {problem}, not {value}")
    return claim


def _text(value, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise EntryError(f'"{name}" is missing')
    return value.strip()


def _optional_text(value, name: str) -> str | None:
    return None if value in (None, "") else _text(value, name)


def _flag(value, name: str) -> bool:
    if value is None:
        return False
    if not isinstance(value, bool):
        raise EntryError(f'"{name}" must be true or false')
    return value


__all__ = ["Deal", "ENTRY_TYPES", "Entry", "EntryError", "IRREGULARITIES", "Irregularity", "Peg",
           "PlayTurns", "Show", "parse_entry"]
