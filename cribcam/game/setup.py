"""Who plays, and the form of the game: the rules fixed before the first deal.

The deal for each number of players follows Hoyle:

- two players: six cards each and two each to the crib (six-card cribbage), or five cards
  each and two each to the crib (five-card cribbage, hands of three);
- three players, each for himself: five cards each and one to the crib from the stock, then
  one each to the crib;
- four players, two partnerships of the players sitting opposite: five cards each, one each
  to the crib;
- six players, two teams of three sitting alternately: the four players from the dealer's
  left get five cards and lay one each away, the last two (the dealer among them) get four.

So every hand at the show holds four cards (three in five-card cribbage) and every crib four.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from cribcam.scoring import rules
from cribcam.scoring.pegging import NAME_RULE, shown_name, usable_name
from cribcam.scoring.spoken import counted


class GameError(ValueError):
    """An entry or a setting that the rules do not allow; the message says why."""


PLAYER_COUNTS = (2, 3, 4, 6)
TARGETS = (121, 61)
CRIB_SIZE = 4
DEFAULT_NAMES = "ABCDEF"
_DEALING = {
    (2, "six-card"): "six cards each, two each laid away to the crib",
    (2, "five-card"): "five cards each, two each laid away to the crib",
    (3, "six-card"): "five cards each and one to the crib from the stock; one each laid away",
    (4, "six-card"): "five cards each, one each laid away to the crib",
    (6, "six-card"): "five cards to the four players from the dealer's left, four to the last "
                     "two; the four lay one each away to the crib",
}


def _check_count(count: int) -> None:
    """``GameError`` for a number of players cribbage is not played by."""
    if count not in PLAYER_COUNTS:
        raise GameError(f"{counted(count, 'player')}: cribbage is played by 2, 3, 4 (two "
                        f"partnerships) or 6 (two teams of three)")


@dataclass(frozen=True)
class Setup:
    """The players and the rules chosen for one game.

    Attributes:
        players: the names in seating order, clockwise (each player's left is the next).
        variant: ``six-card`` or ``five-card`` (two players only).
        target: 121 or 61; 0 for the usual game: 121, and 61 in five-card cribbage.
        muggins: points a player overlooks in a claim go to an opponent.
        skunk: the skunk variation (121 only): a loser short of 91 loses a double game,
            short of 61 a quadruple one, instead of the lurch.
        first_dealer: who deals first; the deal then passes to the left.
    """

    players: tuple[str, ...]
    variant: str = rules.DEFAULT_VARIANT
    target: int = 0
    muggins: bool = False
    skunk: bool = False
    first_dealer: str = ""

    def __post_init__(self) -> None:
        players = tuple(self.players)
        object.__setattr__(self, "players", players)
        _check_count(len(players))
        for name in players:
            if not usable_name(name):
                raise GameError(f"{shown_name(name)} is not a usable name: {NAME_RULE}")
        if len(set(players)) != len(players):
            raise GameError("two players have the same name")
        if self.variant not in rules.VARIANTS:
            raise GameError(f"unknown variant {self.variant!r}: choose one of "
                            f"{', '.join(rules.VARIANTS)}")
        if self.variant != "six-card" and len(players) != 2:
            raise GameError(f"{self.variant} cribbage is a game for two players")
        if not self.target:
            object.__setattr__(self, "target", 61 if self.variant == "five-card" else 121)
        if self.target not in TARGETS:
            raise GameError(f"a game is played to 121 or 61, not {self.target}")
        if self.skunk and self.target != 121:
            raise GameError("the skunk variation is played to 121; a 61-point game has the lurch")
        if not self.first_dealer:
            object.__setattr__(self, "first_dealer", players[0])
        if self.first_dealer not in players:
            raise GameError(f"the first dealer {self.first_dealer!r} is not one of the players "
                            f"({', '.join(players)})")

    @classmethod
    def for_count(cls, count: int, **options) -> Setup:
        """A setup for ``count`` players named A, B, C...; ``options`` as the attributes."""
        _check_count(count)
        return cls(tuple(DEFAULT_NAMES[:count]), **options)

    @classmethod
    def from_dict(cls, data: dict) -> Setup:
        return cls(**{**data, "players": tuple(data["players"])})

    def as_dict(self) -> dict:
        return {**asdict(self), "players": list(self.players)}

    @property
    def sides(self) -> tuple[tuple[str, ...], ...]:
        """The players of each side: one each for 2 and 3 players, else alternate seats."""
        if len(self.players) <= 3:
            return tuple((name,) for name in self.players)
        return self.players[0::2], self.players[1::2]

    def side_of(self, player: str) -> int:
        return self.players.index(player) % len(self.sides)

    def side_name(self, side: int) -> str:
        return " & ".join(self.sides[side])

    def player(self, name) -> str:
        """The player ``name`` stands for: his name, the name in other letter case, or his
        initial when no other player's name starts with it (``b`` for Bob); else a
        ``GameError`` listing the players, or naming the players an initial could mean."""
        if name in self.players:
            return name
        if isinstance(name, str) and name:
            folded = name.casefold()
            for matches in ([p for p in self.players if p.casefold() == folded],
                            [p for p in self.players if len(name) == 1
                             and p[0].casefold() == folded]):
                if len(matches) == 1:
                    return matches[0]
                if matches:
                    raise GameError(f"{name!r} could be {' or '.join(matches)}: write the "
                                    f"name in full")
        raise GameError(f"{shown_name(name)} is not a player of this game ({', '.join(self.players)})")

    def left_of(self, player: str, steps: int = 1) -> str:
        return self.players[(self.players.index(player) + steps) % len(self.players)]

    def next_opponent(self, player: str) -> str:
        """The first player to ``player``'s left who is not on his side."""
        side = self.side_of(player)
        return next(self.left_of(player, k) for k in range(1, len(self.players))
                    if self.side_of(self.left_of(player, k)) != side)

    @property
    def hand_size(self) -> int:
        return rules.VARIANTS[self.variant].hand_size

    @property
    def dealing(self) -> str:
        """How the cards are dealt, in words."""
        return _DEALING[len(self.players), self.variant]

    @property
    def lurch_line(self) -> int:
        """A loser short of this (half the game: 61 of 121, 31 of 61) is lurched."""
        return (self.target + 1) // 2
