"""The end of a game: single game, lurch or skunk; and the tally of a match."""

from __future__ import annotations

from dataclasses import dataclass

from cribcam.game.setup import Setup
from cribcam.scoring.spoken import counted

SKUNK_LINE = 91  # skunk variation, 121 only: a loser short of 91 is skunked
DOUBLE_SKUNK_LINE = 61  # and short of 61 double-skunked

_GAMES = {"single game": 1, "lurch": 2, "skunk": 2, "double skunk": 4}


@dataclass(frozen=True)
class Loss:
    """How one losing side lost.

    Attributes:
        side: the side's index in ``Setup.sides``.
        score: its score at the end.
        kind: ``single game``, ``lurch``, ``skunk`` or ``double skunk``.
        games: what the loss counts in the match: 1, a double game (2) or 4 for a double skunk.
    """

    side: int
    score: int
    kind: str

    @property
    def games(self) -> int:
        return _GAMES[self.kind]


@dataclass(frozen=True)
class Result:
    """The winner and how each other side lost (one loser but in three-handed games)."""

    winner: int
    losses: tuple[Loss, ...]

    @property
    def games(self) -> int:
        """Games the winner takes in the match: the sum over the sides he beat."""
        return sum(loss.games for loss in self.losses)

    def said(self, setup: Setup) -> str:
        """The result in words, as ``cribcam game`` and the page say it: "Ann wins: 1 game
        (Bob 95)", "Ann wins: 2 games (Bob 59: lurch)"; the kind of loss is named when it
        is more than a single game."""
        losses = "; ".join(f"{setup.side_name(loss.side)} {loss.score}"
                           + (f": {loss.kind}" if loss.games > 1 else "")
                           for loss in self.losses)
        win = "win" if len(setup.sides[self.winner]) > 1 else "wins"  # "A & C win"
        return f"{setup.side_name(self.winner)} {win}: {counted(self.games, 'game')} ({losses})"

    def as_dict(self, setup: Setup) -> dict:
        return {"winner": setup.side_name(self.winner), "games": self.games,
                "said": self.said(setup),
                "losses": [{"side": setup.side_name(loss.side), "score": loss.score,
                            "kind": loss.kind, "games": loss.games} for loss in self.losses]}


def game_result(setup: Setup, scores: list[int], winner: int) -> Result:
    """How the game ended, each loser judged by his own score.

    Without the skunk variation a loser short of half the game (61 of 121, 31 of 61) is
    lurched and loses a double game. With it (121 only) the skunk replaces the lurch: short
    of 91 a double game, short of 61 a quadruple one.
    """
    return Result(winner, tuple(Loss(side, score, _kind(setup, score))
                                for side, score in enumerate(scores) if side != winner))


def _kind(setup: Setup, score: int) -> str:
    if setup.skunk:
        if score < DOUBLE_SKUNK_LINE:
            return "double skunk"
        return "skunk" if score < SKUNK_LINE else "single game"
    return "lurch" if score < setup.lurch_line else "single game"


def tally(setup: Setup, results: list[Result]) -> list[int]:
    """Games won by each side over a match of games with the same players."""
    won = [0] * len(setup.sides)
    for result in results:
        won[result.winner] += result.games
    return won
