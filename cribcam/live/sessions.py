"""Live sessions of the web page: one follower per camera, few of them, forgotten when idle.

Each browser tab that sends frames has a session, named by a random id the server hands
out. The store is bounded: sessions idle for ``idle_seconds`` are dropped, and when
``max_sessions`` are open the one idle longest makes room. A dropped session costs its
camera nothing but a fresh lock: its next frame opens a new session.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from cribcam.live.follow import Follower
from cribcam.live.lock import HandLock
from cribcam.live.still import StillFrames


class SessionBusy(RuntimeError):
    """A frame came for a session that is still reading its previous frame."""


class LiveSession:
    """One camera's follower, read one frame at a time.

    Attributes:
        follower: the camera's ``Follower``.
        frames: how many frames have been read.
        still: reads only the frames that changed (``StillFrames``).
        play: the play being watched (``live.play.PlayWatch``), or None while hands are counted.
        play_game: the kept game the play goes into once over (``{"id"}``, then its answer),
            or None.
    """

    def __init__(self, follower: Follower):
        self.follower = follower
        self.frames = 0
        self.still = StillFrames()
        self.play = None
        self.play_game = None
        self._busy = threading.Lock()

    @contextmanager
    def reading(self) -> Iterator[LiveSession]:
        """Holds the session for one frame; raises ``SessionBusy`` while another is read.

        A client sends a frame only after the answer to the one before, so a second frame
        arriving early is refused rather than queued: a queue of frames would only grow
        staler.
        """
        if not self._busy.acquire(blocking=False):
            raise SessionBusy("a frame of this session is still being read: send the next "
                              "frame after its answer")
        try:
            self.frames += 1
            yield self
        finally:
            self._busy.release()


class LiveSessions:
    """The open sessions of a server.

    Args:
        max_sessions: sessions kept at most.
        idle_seconds: a session without a frame for this long is dropped.
        window, agree: the ``HandLock`` settings of new sessions.
        clock: seconds, monotonic (tests pass a fake one).
    """

    def __init__(self, max_sessions: int = 32, idle_seconds: float = 300.0, window: int = 8,
                 agree: int = 5, clock: Callable[[], float] = time.monotonic):
        if max_sessions < 1:
            raise ValueError(f"max_sessions must be at least 1, not {max_sessions}")
        HandLock(window, agree)  # checks the settings now, not at the first frame
        self.max_sessions, self.idle_seconds = max_sessions, idle_seconds
        self.window, self.agree = window, agree
        self._clock = clock
        self._lock = threading.Lock()
        self._sessions: OrderedDict[str, tuple[LiveSession, float]] = OrderedDict()

    def open(self, session_id: str | None) -> tuple[str, LiveSession]:
        """The session named ``session_id``, or a new one (with a new id) when it is unknown
        or expired."""
        now = self._clock()
        with self._lock:
            self._drop_idle(now)
            entry = self._sessions.pop(session_id, None) if session_id else None
            if entry is None:
                while len(self._sessions) >= self.max_sessions:
                    self._sessions.popitem(last=False)  # the one idle longest
                session_id = secrets.token_urlsafe(16)
                session = LiveSession(Follower(HandLock(self.window, self.agree)))
            else:
                session = entry[0]
            self._sessions[session_id] = (session, now)  # last: the most recently used
            return session_id, session

    @property
    def clock(self) -> Callable[[], float]:
        """The store's clock (seconds, monotonic): the play's frames are timed by it too."""
        return self._clock

    def has(self, session_id: str) -> bool:
        """Whether a session of this id is open (not expired)."""
        with self._lock:
            self._drop_idle(self._clock())
            return session_id in self._sessions

    def __len__(self) -> int:
        with self._lock:
            self._drop_idle(self._clock())
            return len(self._sessions)

    def _drop_idle(self, now: float) -> None:
        # Oldest use first: stop at the first session still in use.
        while self._sessions:
            session_id, (_, used) = next(iter(self._sessions.items()))
            if now - used < self.idle_seconds:
                return
            del self._sessions[session_id]
