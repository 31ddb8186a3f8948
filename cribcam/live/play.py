"""Watching the play: frames in, the play's events out, each peg with what to say.

Each frame is read (``StillFrames``: a frame that did not change is not read again), the cards
newly laid are found (``LaidCards``) and given to the play (``game.table_play.TablePlay``) as
the card of the player whose turn it is; a go comes from the player (a button on the page, a
``--go FRAME:NAME`` on the command line). A card the play refuses is said as refused and may
be laid again once it has left the table. ``cribcam live --play`` writes these events as JSON
lines.
"""

from __future__ import annotations

from typing import Callable, Iterable, Iterator

import numpy as np

from cribcam.game.table_play import PlayRefused, TablePlay
from cribcam.live.laid import LaidCards
from cribcam.live.still import StillFrames
from cribcam.vision.reading import Reading


def follow_play(frames: Iterable[np.ndarray], read: Callable[[np.ndarray], Reading], table: TablePlay,
                fps: float, goes: dict[int, list[str]] | None = None) -> Iterator[dict]:
    """The play's events as they happen, then the totals.

    Args:
        frames: the camera's frames (BGR).
        read: a frame to its ``Reading``.
        table: the play of this deal (its players, dealer and hand size).
        fps: the frames per second, for the time of each event.
        goes: frame index -> the players who say go just before that frame is read.

    Yields:
        For a card laid, ``TablePlay``'s step (``Announcement.as_dict``: ``player``, ``card``,
        ``count``, ``points``, ``said``...) with ``frame``, ``seconds`` and ``unsure`` (the
        reader was not sure of the card: the player should check it); for a go, the same with
        ``"go": true``; for a move refused, ``{"frame", "seconds", "player", "card" (or
        "go"), "refused": why}``; last, ``{"totals": {player: points}}``.
    """
    goes = goes or {}
    laid, still = LaidCards(fps), StillFrames()
    for index, frame in enumerate(frames):
        when = {"frame": index, "seconds": round(index / fps, 2)}
        for player in goes.get(index, []):
            yield _step(lambda: table.go(player), {**when, "player": player, "go": True})
        for seen in laid.update(still.read(frame, read)):
            player = table.turn
            event = _step(lambda: table.lay(player, seen.card), {**when, "player": player, "card": seen.card})
            if "refused" in event:
                laid.refused(seen.card)
            yield {**event, "unsure": seen.unsure}
    yield {"totals": table.totals}


def _step(move: Callable, when: dict) -> dict:
    try:
        return {**move().as_dict(), **{k: v for k, v in when.items() if k in ("frame", "seconds")}}
    except PlayRefused as exc:
        return {**when, "refused": str(exc)}
