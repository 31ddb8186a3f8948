"""Following one camera: each frame's reading goes into the hand lock; which hand is locked.

The desktop mode and the live web page both follow frames through a ``Follower``, so a hand
locks, unlocks and counts as new by the same rules wherever it is watched. A hand does not
lock on a passing guess: while one of its cards is unsure in most of the frames that saw the
hand, the lock waits and says which card to check. But a card read unsure as the same card
frame after frame is no reason to wait for ever: once the hand has been read the same way in
``STEADY_WINDOWS`` lock windows of frames running, it locks, its unsure cards marked in the
locked reading for the player to confirm.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from cribcam.live.lock import HandLock
from cribcam.vision.reading import Reading

STEADY_WINDOWS = 2  # lock windows of frames running, all read alike, that lock a hand unsure cards held


@dataclass(frozen=True)
class Step:
    """Where following stands after one frame.

    Attributes:
        reading: this frame's reading.
        locked: the latest reading of the locked hand (one whose cards are the locked set),
            or None while nothing is locked.
        hand: the number of the last hand locked, from 1; 0 before the first.
        new_hand: this frame locked a hand other than the last one locked. A hand that
            locks again after a passing arm or a cleared table is the same hand: it keeps
            its number, and the count the player may have fixed stays.
        unsure: the cards that keep a hand from locking: each unsure in most of the recent
            frames that saw the hand (until the hand has been read alike long enough to lock
            with them unsure).
    """

    reading: Reading
    locked: Reading | None
    hand: int
    new_hand: bool
    unsure: tuple[str, ...] = ()


class Follower:
    """Feeds readings, frame by frame, to a ``HandLock``.

    Args:
        lock: the hand lock; a ``HandLock()`` with its default window by default.
    """

    def __init__(self, lock: HandLock | None = None):
        self.lock = lock or HandLock()
        self.recent: deque[Reading] = deque(maxlen=self.lock.window)
        self.hand = 0
        self._last_locked: frozenset[str] | None = None
        self._view: Reading | None = None
        self._alike: tuple[frozenset[str], int] = (frozenset(), 0)  # the last frames' cards, and how many ran

    def update(self, reading: Reading) -> Step:
        """Adds one frame's reading and says what is locked now."""
        self.recent.append(reading)
        codes = frozenset(reading.codes)
        self._alike = (codes, self._alike[1] + 1 if codes == self._alike[0] else 1)
        cards = self.lock.update(reading.codes).cards
        unsure = self._mostly_unsure(cards) if cards is not None and cards != self._last_locked else ()
        if unsure and self._steady(cards):
            unsure = ()  # read alike all along: it locks, and its reading says which cards to confirm
        if unsure:
            cards = None
        new_hand = cards is not None and cards != self._last_locked
        if new_hand:
            self.hand += 1
            self._last_locked = cards
        if cards is None:
            self._view = None
        else:
            # The newest frame that saw the locked cards: its boxes and its starter guess are
            # the freshest. (One always exists when a set locks: it has most of the votes.)
            self._view = next((r for r in reversed(self.recent) if frozenset(r.codes) == cards),
                              self._view)
        return Step(reading, self._view, self.hand, new_hand, unsure)

    def _steady(self, cards: frozenset[str]) -> bool:
        """Whether the last ``STEADY_WINDOWS`` lock windows of frames all read ``cards``."""
        seen, running = self._alike
        return seen == cards and running >= STEADY_WINDOWS * self.lock.window

    def _mostly_unsure(self, cards: frozenset[str]) -> tuple[str, ...]:
        """The cards of ``cards`` read unsure in most of the recent frames that saw them all."""
        frames = [r for r in self.recent if frozenset(r.codes) == cards]
        doubts = [seen.card for r in frames for seen in r.cards if seen.unsure]
        return tuple(sorted(c for c in cards if 2 * doubts.count(c) > len(frames)))
