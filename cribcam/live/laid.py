"""Seeing a card laid in the play: a card new to the table that lies still for a moment.

Frame after frame the reader reads the cards in view. A card counts as laid when it has been
read where it lies for ``STILL_FOR`` seconds, frame after frame (a frame or two missed is
forgiven: a hand reaching over it, a blur), and it was never laid before. Seconds, not
frames: a phone's page sends 10 to 30 frames a second, a video plays at its own rate. A card read only while
a hand moves it is not laid: the reading of a passing blur rarely holds still long enough. A
card moved a little after it was laid, turned face down, or taken away is not laid again: the
play counts each card once (``game.table_play`` refuses a card laid twice anyway); a card read
unsure on a card laid before is its back or its art, and not laid (``_on_laid``). A card the
play refused (out of turn, past 31) is ``refused``: once it has left the table it may be laid
again, as it would be when its turn comes. Two readings laid at the same moment where one card
lies are that one card read two ways (``ONE_CARD_SPAN``): it is laid once, to be checked; one
laid there a moment after is not laid. Read as a 6 and a 9, it is the one its face's pips count
(``vision.pips``), when they can be counted; otherwise, and for other ranks, the surer reading.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from cribcam.vision.corners import CORNER_PAIR_SPAN
from cribcam.vision.pips import count_pips
from cribcam.vision.reading import Reading, SeenCard

STILL_FOR = 0.5  # seconds a card lies still, where it lies, to count as laid
MISSED = 2  # frames running a card may go unread (a hand over it) and still be lying still
# Index sizes a card's corner may move between frames and still lie still. Measured corner to
# corner (the nearest two), not centre to centre: a card read from one corner in one frame and
# from two in the next has not moved.
SAME_PLACE = 1.0
# Cards first seen laid at the same moment (or within TWIN_SECONDS), their corners this near
# (index sizes, as far as one card's opposite corners lie: ``vision.corners.CORNER_PAIR_SPAN``),
# are one card read two ways: the play lays one card at a time, and the next player's card lies
# still half a second before it counts. A design printing its lower rank upright had that corner
# read as another card (a 9D as a 6D, a 6S as a 9H, a TS as a TH) at once or a frame later, and
# the turns went out of step for the rest of the count (models/HISTORY.md, "One card at a time").
ONE_CARD_SPAN = CORNER_PAIR_SPAN[1]
TWIN_SECONDS = 0.25


@dataclass
class _Candidate:
    corners: np.ndarray  # (n, 2) the centres of the index boxes it was last read from
    size: float
    since: float  # when it was first read where it lies, in seconds
    missed: int = 0  # frames since it was last read


class LaidCards:
    """Follows the cards of a play frame by frame and says which are newly laid.

    Args:
        still_for: seconds a new card must lie still to count as laid.
    """

    def __init__(self, still_for: float = STILL_FOR):
        self.still_for = still_for
        self.laid: dict[str, np.ndarray] = {}  # each card laid, and its corners' centres
        self._candidates: dict[str, _Candidate] = {}
        self._refused: dict[str, float | None] = {}  # cards laid but refused: when last read (None: not yet)
        self._latest: list[tuple[SeenCard, float]] = []  # the cards laid last, and when
        self._read_otherwise: dict[str, np.ndarray] = {}  # a laid card's other readings, where they lie

    def renamed(self, code: str, named: str) -> None:
        """A card laid was read as ``code`` but is ``named``: the camera may go on reading it
        as ``code`` where it lies, and that is not another card laid."""
        self.laid[named] = self.laid[code]  # the misreading stays laid: it is this card

    def refused(self, code: str) -> None:
        """The play refused this card: it counts as not laid once it has left the table, gone
        for ``still_for`` seconds (a card read now and then, a flicker, has not left it)."""
        self._refused[code] = None

    def update(self, reading: Reading, at: float, image: np.ndarray | None = None) -> list[SeenCard]:
        """This frame's reading, and when the frame was taken (seconds, any origin); the cards
        it sees newly laid, in the order they came. ``image``, the frame read, settles a card
        read as a 6 and a 9 at once by its pips."""
        in_view = {card.card for card in reading.cards}
        for code, last in list(self._refused.items()):
            if code in in_view or last is None:
                self._refused[code] = at
            elif at - last >= self.still_for - 1e-6:  # taken back: it may be laid again
                del self._refused[code], self.laid[code]
        seen = {card.card: card for card in reading.cards if card.card not in self.laid
                and not self._otherwise(card) and not (card.unsure and self._on_laid(card))}
        for code, candidate in list(self._candidates.items()):
            if code not in seen:
                candidate.missed += 1
                if candidate.missed > MISSED:
                    del self._candidates[code]
        for code, card in seen.items():
            corners, size = index_centres(card)
            candidate = self._candidates.get(code)
            if candidate is not None and _nearest(corners, candidate.corners) <= SAME_PLACE * size:
                candidate.missed, candidate.corners = 0, corners
            else:  # new here, or moved: lying still from now
                self._candidates[code] = _Candidate(corners, size, at)
        newly = sorted((c for c in self._candidates.items()
                        if c[1].missed == 0 and at - c[1].since >= self.still_for - 1e-6),
                       key=lambda item: item[1].since)
        for code, candidate in newly:
            self.laid[code] = candidate.corners
            del self._candidates[code]
        recent = [card for card, when in self._latest if at - when <= TWIN_SECONDS + 1e-6]
        kept = _one_card_a_place([seen[code] for code, _ in newly], recent, image)
        for code, candidate in newly:  # a reading not kept is the card kept, read otherwise there
            if code not in {card.card for card in kept}:
                del self.laid[code]
                self._read_otherwise[code] = candidate.corners
        if kept:
            self._latest = [(card, at) for card in kept]
        return kept

    def _on_laid(self, card: SeenCard) -> bool:
        """Whether every corner ``card`` was read from lies on a card laid before (between its two
        corners, give or take an index): an unsure reading there is that card's back, turned
        face down after its count, or its art, read as a card. A sure one is laid: a pile."""
        corners, size = index_centres(card)
        spans = [(c.min(axis=0) - size, c.max(axis=0) + size) for c in self.laid.values() if len(c) >= 2]
        return bool(spans) and all(any(((low <= corner) & (corner <= high)).all() for low, high in spans)
                                   for corner in corners)

    def _otherwise(self, card: SeenCard) -> bool:
        """Whether ``card`` is a laid card's other reading, where that reading lay: read there, and
        from no corner new to the table. The card it was read as may be laid later, and be read
        together with that corner, a card's corners away: a 9S laid below a 6H whose lower corner,
        printed upright, read as a 9S was read from its own corner and the 6H's, and never laid
        (models/HISTORY.md, "A card read with another's phantom corner")."""
        corners, size = index_centres(card)
        there = self._read_otherwise.get(card.card)
        if there is None or _nearest(corners, there) > SAME_PLACE * size:
            return False
        known = np.concatenate([there, *self.laid.values()])
        return all(_nearest(corner[None], known) <= SAME_PLACE * size for corner in corners)


def _one_card_a_place(newly: list[SeenCard], recent: list[SeenCard], image: np.ndarray | None = None
                      ) -> list[SeenCard]:
    """``newly`` with each card read two ways (``ONE_CARD_SPAN``) laid once: as its surest
    reading (a 6 or a 9 as ``image`` shows its pips: ``_by_pips``), marked unsure so the player
    checks it, or not again when ``recent`` (the cards laid a moment before) holds it."""
    def twin(card: SeenCard, others) -> int | None:
        corners, size = index_centres(card)
        return next((i for i, other in others if _nearest(corners, index_centres(other)[0]) <= ONE_CARD_SPAN * size),
                    None)

    kept: dict[int, SeenCard] = {}  # by place in ``newly``
    for k in sorted(range(len(newly)), key=lambda k: -newly[k].confidence):
        if twin(newly[k], enumerate(recent)) is not None:
            continue
        same = twin(newly[k], kept.items())
        if same is None:
            kept[k] = newly[k]
        else:
            kept[same] = replace(_by_pips(kept[same], newly[k], image), unsure=True)
    return [kept[k] for k in sorted(kept)]


def _by_pips(surer: SeenCard, other: SeenCard, image: np.ndarray | None) -> SeenCard:
    """Of two readings of one card, a 6 and a 9, the one whose rank its face's pips count;
    ``surer`` when they are other ranks or the pips cannot be counted."""
    if image is None or {surer.card[0], other.card[0]} != {"6", "9"}:
        return surer
    pips = count_pips(image, surer.boxes + other.boxes)
    return other if pips == int(other.card[0]) else surer


def index_centres(card: SeenCard) -> tuple[np.ndarray, float]:
    """The (n, 2) centres of a card's index boxes, and their size (the median longer side)."""
    boxes = np.asarray(card.boxes, np.float64).reshape(-1, 4)
    return (boxes[:, :2] + boxes[:, 2:]) / 2, float(np.median(np.maximum(boxes[:, 2] - boxes[:, 0],
                                                                           boxes[:, 3] - boxes[:, 1])))


def _nearest(a: np.ndarray, b: np.ndarray) -> float:
    """The distance between the nearest two of two sets of points."""
    return float(np.linalg.norm(a[:, None, :] - b[None, :, :], axis=2).min())
