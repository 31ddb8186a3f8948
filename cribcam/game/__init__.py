"""The whole game at the table: the scoreboard that keeps the rules (no I/O, no framework).

A game is a ``Setup`` (players, six-card or five-card, 121 or 61, muggins, skunk) and an
append-only log of entries (a deal and its starter, the play, each show, irregularities).
``replay`` turns the log into the state: the scores, where the pegs stand, whose turn it
is, and at the end the result. Undoing an entry is replaying the log without it (``undo``).

    >>> from cribcam.game import Setup, replay
    >>> game = replay(Setup(("A", "B")), [{"type": "deal", "starter": "JD"}])
    >>> game.scores      # A dealt, and a jack turned up: two for his heels
    [2, 0]
"""

from cribcam.game.entries import EntryError, parse_entry
from cribcam.game.result import Result, game_result, tally
from cribcam.game.setup import GameError, Setup
from cribcam.game.state import CRIB, Game, Line


def replay(setup: Setup, entries: list[dict]) -> Game:
    """The game after ``entries``, a saved log, applied in order (as kept: ``Game.apply``).

    Raises:
        GameError: an entry that does not fit the game at its point.
        CardError: an entry with a card that is no card, or a card seen twice.
    """
    game = Game(setup)
    for entry in entries:
        game.apply(entry, kept=True)
    return game


def undo(setup: Setup, entries: list[dict], number: int | None = None) -> tuple[Game, list]:
    """The game and its log without entry ``number`` (1 for the first; by default the last).

    An entry in the middle can go only if the entries after it still fit without it.

    Raises:
        GameError: no such entry, or a later entry that no longer fits (naming it).
    """
    number = len(entries) if number is None else number
    if not entries:
        raise GameError("nothing to undo: the game has no entries")
    if not 1 <= number <= len(entries):
        raise GameError(f"no entry {number}: the game has entries 1 to {len(entries)}")
    kept = entries[:number - 1] + entries[number:]
    game = replay(setup, kept[:number - 1])
    for later, entry in enumerate(kept[number - 1:], number + 1):
        try:
            game.apply(entry, kept=True)
        except ValueError as exc:  # GameError, CardError
            raise GameError(f"entry {number} cannot be undone on its own: without it, entry "
                            f"{later} no longer fits ({exc}); undo from the last entry "
                            f"back") from None
    return game, kept


__all__ = ["CRIB", "EntryError", "Game", "GameError", "Line", "Result", "Setup", "game_result",
           "parse_entry", "replay", "tally", "undo"]
