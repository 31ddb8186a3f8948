"""Following without rereading: a camera over a still hand sends the same picture frame after frame.

Each frame is shrunk to a small grey thumbnail, blurred so that the camera's noise averages out,
and compared pixel by pixel with the frame last read. When no pixel changed by more than
``STILL_LEVELS`` grey levels, the cards have not moved and that reading stands for this frame
too. A card moved, turned or swapped changes the pixels it covers, and the frame is read. The
lock (``live.follow``) sees the readings it would have made, frame after frame, and keeps its
rules.

A reading is reused only when it was made on a settled frame (one still against the frame
before it): the first frame after a move may be blurred, and its reading should not stand for
the sharp frames that follow. Nor is a reading that warns (``Reading.warns``: a card unsure or
guessed, a card missing) reused: another look may settle it, and the lock waits on an unsure
card only while the frames disagree on it. Nor is one that lost a card the reading before it
had: a card read in one frame and missed in the next, unmoved, is more likely missed than gone,
and a reading that stood for the frames after hid it from the play for a second (a real photo's
7D, read in 7 of 10 frames, never counted as laid: models/HISTORY.md, "Four players hold four
cards"). And at most ``MAX_REUSED`` frames in a row reuse a reading, so a change too slow to see
from one frame to the next is read all the same.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

import cv2
import numpy as np

from cribcam.vision.reading import Reading

THUMB_SIDE = 160  # the thumbnail's longer side, in pixels: a quarter of a 640-pixel frame
# A thumbnail pixel that moved by more than this many grey levels has changed. A webcam's noise
# (3 levels a pixel) moves the blurred thumbnail's pixels by 2 at most; a card's edge moved by a
# few pixels, or a rank printed in another's place, by 20 and more.
STILL_LEVELS = 12.0
MAX_REUSED = 30  # about a second and a half of frames


class StillFrames:
    """Reads a camera's frames, each only when it changed since the last one read.

    Attributes:
        frames: frames seen.
        read_anew: frames actually read (the rest reused a reading).
        last_reading: the reading of the last frame seen (made or reused), None before one.
    """

    def __init__(self):
        self.frames = 0
        self.read_anew = 0
        self.last_reading: Reading | None = None
        self._previous: np.ndarray | None = None  # the thumbnail of the frame before
        self._last: tuple[np.ndarray, Hashable, Reading, bool] | None = None  # thumb, key, reading, reusable
        self._reused = 0

    def read(self, image: np.ndarray, read: Callable[[np.ndarray], Reading], key: Hashable = None) -> Reading:
        """``read(image)``, or the last reading (made on a settled frame, without a warning,
        having lost no card of the reading before it) when ``image`` shows what the frame read then showed, at its size, and was read with
        the same ``key`` (the reader and its options)."""
        thumb = thumbnail(image)
        key = (image.shape[:2], key)  # the reading's boxes are in the frame's pixels
        settled = self._previous is not None and still(thumb, self._previous)
        self._previous = thumb
        self.frames += 1
        if self._last is not None and self._reused < MAX_REUSED:
            last_thumb, last_key, reading, reusable = self._last
            if reusable and not reading.warns and key == last_key and still(thumb, last_thumb):
                self._reused += 1
                self.last_reading = reading
                return reading
        before, reading = self.last_reading, read(image)
        self.last_reading = reading
        self.read_anew += 1
        self._reused = 0
        kept_every_card = before is None or {c.card for c in before.cards} <= {c.card for c in reading.cards}
        self._last = (thumb, key, reading, settled and kept_every_card)
        return reading


def thumbnail(image: np.ndarray) -> np.ndarray:
    """A blurred grey copy of a BGR (or grey) image, its longer side ``THUMB_SIDE``, as float32."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    scale = THUMB_SIDE / max(grey.shape[:2])
    small = cv2.resize(grey, (max(1, round(grey.shape[1] * scale)), max(1, round(grey.shape[0] * scale))),
                       interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(small, (3, 3), 0).astype(np.float32)


def still(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two thumbnails show the same: of one size, no pixel changed by more than
    ``STILL_LEVELS`` grey levels."""
    return a.shape == b.shape and float(np.abs(a - b).max()) <= STILL_LEVELS
