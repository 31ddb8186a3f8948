"""Watching the play: frames in, the play's events out, each peg with what to say.

Each frame is read (``StillFrames``: a frame that did not change is not read again), the cards
newly laid are found (``LaidCards``) and given to the play (``game.table_play.TablePlay``) as
the card of the player whose turn it is, unless it lies in front of another player: among that
player's cards of this play, away from the turn player's (``who_laid``); the play then refuses
it as laid out of turn. A go comes from the player (a button on the page, a
``--go FRAME:NAME`` on the command line). A card the play refuses is said as refused and may
be laid again once it has left the table. ``cribcam live play`` writes these events as JSON
lines.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial

import cv2
import numpy as np

from cribcam.game.table_play import PlayRefused, TablePlay
from cribcam.live.laid import LaidCards, index_centres
from cribcam.live.still import StillFrames
from cribcam.scoring.cards import Card
from cribcam.scoring.spoken import counted
from cribcam.vision.reading import Reading, SeenCard

# A card lies in front of another player than the one whose turn it is when it lies this many
# times nearer his cards of this play than the turn player's, and the two players' cards lie at
# least APART index sizes from each other: cards laid in one pile say nothing of who laid them.
# At the play clips' table (rows 1.7 card widths apart, a card every 1.15 in a row), a card laid
# in turn lies 0.68 times as far from its player's cards as from the others', one laid out of
# turn 1.5 times.
NEARER = 1.25
APART = 4.0
# The play's frames are taken this long on their longer side (the page's, and a webcam's on the
# command line), not 640 as a hand's: four players' cards across a table put an index under
# 10 pixels at 640, too few for a real card's print, and most cards the clips of real photos
# missed were those (models/HISTORY.md, "The play filmed at 1280"). It costs the reader no more:
# a 640 frame with cards missing is read enlarged to 1280 anyway, in its closer look.
FRAME_SIDE = 1280
FRAME_SIZE = (FRAME_SIDE, FRAME_SIDE * 3 // 4)  # a 4:3 camera's, width by height
REFUSED_KEPT = 10  # refusals kept among a play's events, the latest (PlayWatch._keep)


def table_reader(read: Callable[..., Reading], table: TablePlay) -> Callable[[np.ndarray], Reading]:
    """``read`` (``CardReader.read``, or anything with its arguments) as the play's table is read:
    the cards laid so far and no starter, as a deal is read, at most every card of the play."""
    return partial(read, expected=table.hand_size * len(table.players), starter=False)


class PlayWatch:
    """One deal's play followed frame by frame: the web page's play session and ``follow_play``.

    Args:
        table: the play of this deal (its players, dealer and hand size).
    """

    def __init__(self, table: TablePlay):
        self.table = table
        self.laid, self.still = LaidCards(), StillFrames()
        self.events: list[dict] = []  # every event so far, in order
        self.places: dict[str, list[np.ndarray]] = {}  # where each player's cards of this play lie

    def frame(self, image: np.ndarray, read: Callable[[np.ndarray], Reading], at: float,
              when: dict | None = None) -> list[dict]:
        """Reads a frame taken at ``at`` seconds (unless it did not change) and plays the cards
        newly laid on it; their events (``follow_play`` says what they hold), each with
        ``when`` added."""
        events = []
        image = _at_most(image, FRAME_SIDE)  # the reading's boxes are in its pixels
        for seen in self.laid.update(self.still.read(image, read), at, image):
            player = who_laid(seen, self.table.turn, self.places)
            event = _step(lambda: self.table.lay(player, seen.card), {**(when or {}), "player": player,
                                                                      "card": seen.card})
            if "refused" in event:
                self.laid.refused(seen.card)
            else:
                self.places.setdefault(player, []).append(_centre(seen)[0])
            events.append({**event, "unsure": seen.unsure})
        self._keep(events)
        return events

    def fix(self, card: str, named: str) -> None:
        """The card read as ``card`` is ``named`` (the player tapped it and named it): the play
        is pegged anew (``TablePlay.corrected``; ``PlayRefused`` if it cannot be), its events
        say the cards as named."""
        self.table = self.table.corrected(card, named)
        card, named = Card.from_code(card).code, Card.from_code(named).code  # both cards: corrected says so
        self.laid.renamed(card, named)
        steps = iter(self.table.steps)
        events = []
        for event in self.events:
            if "refused" not in event:  # each step pegged anew; the card named is sure now
                event = {**event, **next(steps).as_dict(), **({"unsure": False} if event.get("card") == card else {})}
            events.append(event)
        self.events = events

    def go(self, player: str, when: dict | None = None) -> dict:
        """``player`` says go: its event (refused, when it may not)."""
        event = _step(lambda: self.table.go(player), {**(when or {}), "player": player, "go": True})
        self._keep([event])
        return event

    def _keep(self, events: list[dict]) -> None:
        """Adds ``events`` to the play's, keeping the last ``REFUSED_KEPT`` refusals only:
        each go or card refused added one for ever (120 goes refused made every answer 7 MB)."""
        self.events += events
        refused = [k for k, event in enumerate(self.events) if "refused" in event]
        if len(refused) > REFUSED_KEPT:
            dropped = set(refused[:-REFUSED_KEPT])
            self.events = [event for k, event in enumerate(self.events) if k not in dropped]


def who_laid(card: SeenCard, turn: str | None, places: dict[str, list[np.ndarray]]) -> str | None:
    """Who laid ``card``: the player whose turn it is (``turn``), unless the card lies in front of
    another player (``NEARER``, ``APART``), by where each player's cards of this play lie
    (``places``: their centres). Before a player has laid a card, where he sits is not known."""
    here, size = _centre(card)
    near = {player: min(float(np.linalg.norm(here - spot)) for spot in spots)
            for player, spots in places.items() if spots}
    if not near or (turn is not None and turn not in near):
        return turn
    other = min(near, key=near.get)
    if turn is None or other == turn:  # after the play: whoever's place it lies in
        return other
    if near[turn] < NEARER * near[other]:
        return turn
    apart = min(float(np.linalg.norm(a - b)) for a in places[turn] for b in places[other])
    return other if apart >= APART * size else turn


def _centre(card: SeenCard) -> tuple[np.ndarray, float]:
    """The middle of a card's index boxes (the card's centre when both corners are read), and the
    boxes' size."""
    centres, size = index_centres(card)
    return centres.mean(axis=0), size


@dataclass
class PlaySummary:
    """What following the play came to, for a word at its end (as ``desktop.FollowSummary`` for
    the hands): frames read, cards laid, goes, moves refused, what each player pegged, where a
    play not over stands, and the goes given for frames the video does not have."""

    frames: int = 0
    laid: int = 0
    goes: int = 0
    refused: int = 0
    totals: dict[str, int] = field(default_factory=dict)
    turn: str | None = None  # whose turn it is at the end: None once the play is over
    count: int = 0
    last_step: int | None = None  # the frame of the last card laid or go said
    goes_unread: list[tuple[int, str]] = field(default_factory=list)  # (frame, player): past the video's end

    def add(self, event: dict) -> None:
        """Counts one of ``follow_play``'s events."""
        if "totals" in event:
            self.totals = event["totals"]
        elif "refused" in event:
            self.refused += 1
        elif event.get("go"):
            self.goes += 1
        else:
            self.laid += 1
        if "said" in event:  # a card laid or a go said, not a move refused nor the totals
            self.last_step = event.get("frame", self.last_step)

    def stands(self, table: TablePlay) -> None:
        """Notes where the play stands: whose turn, at what count."""
        self.turn, self.count = table.turn, table.count

    def sentence(self) -> str:
        """"98 frames read, 8 cards laid, 1 go, 0 moves refused; pegged: Ann 5, Bob 3", then
        whose turn it is when the play is not over, and the goes said after the last frame."""
        pegged = ", ".join(f"{player} {points}" for player, points in self.totals.items())
        said = (f"{counted(self.frames, 'frame')} read, {counted(self.laid, 'card')} laid, "
                f"{counted(self.goes, 'go', 'goes')}, {counted(self.refused, 'move')} refused; pegged: {pegged}")
        if self.turn is not None:
            said += f"; the play is not over: {self.turn} to play at {self.count}{self._go_hint()}"
        if self.goes_unread:
            said += (f"; {', '.join(f'--go {frame}:{player}' for frame, player in self.goes_unread)} not given: "
                     f"the video has {counted(self.frames, 'frame')}")
        return said

    def _go_hint(self) -> str:
        """How to give the go the play may be waiting for: none on a count of 0, where the turn
        leads a card; else the frame after the last step's (a count is one), when the video has it."""
        if self.count == 0:
            return ""
        after = self.last_step + 1
        return f" (if {self.turn} said go there: --go {after if after < self.frames else 'FRAME'}:{self.turn})"


def follow_play(frames: Iterable[np.ndarray], read: Callable[[np.ndarray], Reading], table: TablePlay,
                fps: float, goes: dict[int, list[str]] | None = None,
                summary: PlaySummary | None = None, until_over: bool = False) -> Iterator[dict]:
    """The play's events as they happen, then the totals.

    Args:
        frames: the camera's frames (BGR).
        read: a frame to its ``Reading``.
        table: the play of this deal (its players, dealer and hand size).
        fps: the frames per second, for the time of each event.
        goes: frame index -> the players who say go just before that frame is read.
        summary: kept up to date frame by frame and event by event, when given.
        until_over: stop reading frames once the play is over (a camera, which has no end).

    Yields:
        For a card laid, ``TablePlay``'s step (``Announcement.as_dict``: ``player``, ``card``,
        ``count``, ``points``, ``said``...) with ``frame``, ``seconds`` and ``unsure`` (the
        reader was not sure of the card: the player should check it); for a go, the same with
        ``"go": true``; for a move refused, ``{"frame", "seconds", "player", "card" (or
        "go"), "refused": why}``; last, ``{"totals": {player: points}}``.
    """
    goes = goes or {}
    summary = summary or PlaySummary()
    watch = PlayWatch(table)
    summary.stands(watch.table)
    for index, frame in enumerate(frames):
        summary.frames = index + 1
        when = {"frame": index, "seconds": round(index / fps, 2)}
        for event in [*(watch.go(player, when) for player in goes.get(index, [])),
                      *watch.frame(frame, read, index / fps, when)]:
            summary.add(event)
            yield event
        summary.stands(watch.table)
        if until_over and watch.table.turn is None:
            break
    else:  # every frame read: a go for a frame past the last was never given
        summary.goes_unread = [(at, player) for at, players in sorted(goes.items()) if at >= summary.frames
                               for player in players]
    end = {"totals": watch.table.totals}
    summary.add(end)
    yield end


def _at_most(image: np.ndarray, side: int) -> np.ndarray:
    """``image`` scaled down to ``side`` pixels on its longer side, if it is longer: a larger
    frame would cost the closer look more than it gains."""
    longest = max(image.shape[:2])
    if longest <= side:
        return image
    return cv2.resize(image, None, fx=side / longest, fy=side / longest, interpolation=cv2.INTER_AREA)


def _step(move: Callable, when: dict) -> dict:
    try:
        return {**move().as_dict(), **{k: v for k, v in when.items() if k in ("frame", "seconds")}}
    except PlayRefused as exc:
        return {**when, "refused": str(exc)}
