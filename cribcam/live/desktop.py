"""The desktop live mode: a camera or a video file, the overlay, and a line per locked hand;
or, where OpenCV opens no window, the browser opened on the web app's live page."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
import webbrowser
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TextIO

import cv2
import numpy as np

from cribcam.live.follow import Follower
from cribcam.live.lock import HandLock
from cribcam.live.still import StillFrames
from cribcam.vision.annotate import draw_reading
from cribcam.vision.reading import Reading
from cribcam.vision.report import reading_report

WINDOW = "cribcam live hands (q to quit)"


@dataclass(frozen=True)
class LockedHand:
    """A hand the lock settled on: when, which cards, and its count."""

    frame: int
    seconds: float
    report: dict

    def as_json(self) -> str:
        return json.dumps({"frame": self.frame, "seconds": round(self.seconds, 3), **self.report})


@dataclass
class FollowSummary:
    """What following a source came to, for a word at its end: frames read, hands locked, and
    the cards whose unsure readings last held a hand back (for a while, or for good)."""

    frames: int = 0
    hands: int = 0
    held_back: tuple[str, ...] = ()

    def sentence(self) -> str:
        """"20 frames read, 2 hands locked", with why none locked when unsure cards kept it."""
        said = f"{self.frames} frame{'s' if self.frames != 1 else ''} read, " \
               f"{self.hands} hand{'s' if self.hands != 1 else ''} locked"
        if self.hands == 0 and self.held_back:
            said += (f": {', '.join(self.held_back)} read unsure in most frames kept the hand from locking "
                     f"(more light, a sharper view or the card's whole corner in sight)")
        elif self.held_back:
            said += (f"; {', '.join(self.held_back)}, read unsure, held a hand back until it was read "
                     f"alike for long enough: check {'it' if len(self.held_back) == 1 else 'them'}")
        return said


def frames(capture: cv2.VideoCapture) -> Iterator[np.ndarray]:
    while True:
        ok, frame = capture.read()
        if not ok:
            return
        yield frame


def follow(frame_source: Iterator[np.ndarray], read: Callable[[np.ndarray], Reading],
           lock: HandLock, fps: float, count_options: dict,
           on_frame: Callable[[np.ndarray, Reading, dict | None], bool] | None = None,
           summary: FollowSummary | None = None) -> Iterator[LockedHand]:
    """Reads every frame that changed (``StillFrames``) and yields each new hand the lock
    settles on.

    Args:
        frame_source: BGR frames.
        read: a frame to a ``Reading`` (``CardReader.read`` with the expected count bound).
        lock: the hand lock.
        fps: the source's frame rate, for the time stamps.
        count_options: ``starter``, ``crib``, ``claim``, ``variant`` for the count.
        on_frame: called with each frame, its reading and the locked hand's report (or
            None while nothing is locked); returning False stops.
        summary: kept up to date frame by frame, when given.
    """
    follower = Follower(lock)
    still = StillFrames()  # a frame that shows what the last one read showed is not read again
    report: dict | None = None
    for index, frame in enumerate(frame_source):
        reading = still.read(frame, read)
        step = follower.update(reading)
        if summary is not None:
            summary.frames, summary.hands = index + 1, follower.hand
            summary.held_back = step.unsure or summary.held_back
        if step.new_hand:
            report = reading_report(step.locked, **count_options)
            yield LockedHand(index, index / fps, report)
        locked = report if step.locked is not None else None
        if on_frame is not None and on_frame(frame, reading, locked) is False:
            return


def show(frame: np.ndarray, reading: Reading, locked: dict | None, frame_seconds: float) -> bool:
    """Draws the overlay in a window; False when the user pressed q or closed it."""
    view = draw_reading(frame, reading)
    lines = [f"{1 / max(frame_seconds, 1e-6):.1f} fps"]
    if locked and locked.get("count"):
        lines.append(locked["count"]["spoken"])
    elif locked:
        lines.append("locked: " + " ".join(c["card"] for c in locked["cards"]) + " (which is the starter?)")
    for i, line in enumerate(lines):
        cv2.putText(view, line, (10, 30 + 30 * i), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255, 255, 255), 3, cv2.LINE_AA)
        cv2.putText(view, line, (10, 30 + 30 * i), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (20, 20, 20), 1, cv2.LINE_AA)
    cv2.imshow(WINDOW, view)
    return (cv2.waitKey(1) & 0xFF) != ord("q")


def write_lines(hands: Iterator[LockedHand], out: TextIO) -> int:
    """Writes one JSON line per locked hand; returns how many."""
    written = 0
    for hand in hands:
        out.write(hand.as_json() + "\n")
        out.flush()
        written += 1
    return written


def open_in_browser(url: str) -> bool:
    """Opens ``url`` in the user's web browser, without waiting for it.

    Returns:
        False when no graphical browser can be opened here: no display (and no ``$BROWSER``
        named), where Python's ``webbrowser`` would start a console browser in the terminal
        the server prints to, or no browser at all.
    """
    if _no_display() and not os.environ.get("BROWSER"):
        return False
    try:
        browser = webbrowser.get()
    except webbrowser.Error:
        return False
    threading.Thread(target=browser.open, args=(url,), name="open-browser", daemon=True).start()
    return True


def window_available() -> bool:
    """Whether this OpenCV build can open windows here (the headless wheel cannot, nor can
    any build on a Linux machine without a display: Qt's would abort the process)."""
    if _no_display():
        return False
    try:
        cv2.namedWindow("cribcam-probe", cv2.WINDOW_AUTOSIZE)
        cv2.destroyWindow("cribcam-probe")
        return True
    except cv2.error:
        return False


def _no_display() -> bool:
    """A Linux (or other X11) machine with no graphical display to open anything on."""
    return sys.platform not in ("darwin", "win32") and not any(
        os.environ.get(name) for name in ("DISPLAY", "WAYLAND_DISPLAY"))


class FrameTimer:
    """Seconds per frame, smoothed, for the fps shown on the overlay."""

    def __init__(self) -> None:
        self.last, self.seconds = time.perf_counter(), 0.0

    def tick(self) -> float:
        now = time.perf_counter()
        elapsed, self.last = now - self.last, now
        self.seconds = elapsed if not self.seconds else 0.8 * self.seconds + 0.2 * elapsed
        return self.seconds
