"""Drawing a reading on the photo: each card's corners, name and confidence."""

from __future__ import annotations

import cv2
import numpy as np

from cribcam.vision.reading import Reading

_CARD = (60, 200, 60)      # BGR green: a card read
_STARTER = (0, 170, 255)   # orange: the starter
_UNREADABLE = (60, 60, 230)  # red: seen, not readable


def draw_reading(image: np.ndarray, reading: Reading) -> np.ndarray:
    """A copy of ``image`` with the reading drawn on it."""
    out = image.copy()
    scale = max(out.shape[:2]) / 800
    thickness = max(1, round(2 * scale))
    for seen in reading.cards:
        colour = _STARTER if seen.card == reading.starter else _CARD
        label = f"{seen.card} {seen.confidence:.2f}" + (" starter" if seen.card == reading.starter else "")
        for x1, y1, x2, y2 in seen.boxes:
            cv2.rectangle(out, (round(x1), round(y1)), (round(x2), round(y2)), colour, thickness)
        x1, y1 = seen.boxes[0][:2]
        _label(out, label, (round(x1), round(y1)), colour, scale)
    for x1, y1, x2, y2 in reading.unreadable_boxes:
        cv2.rectangle(out, (round(x1), round(y1)), (round(x2), round(y2)), _UNREADABLE, thickness)
        _label(out, "?", (round(x1), round(y1)), _UNREADABLE, scale)
    return out


def _label(image: np.ndarray, text: str, corner: tuple[int, int], colour, scale: float) -> None:
    font, size, weight = cv2.FONT_HERSHEY_SIMPLEX, 0.6 * scale, max(1, round(1.5 * scale))
    (w, h), base = cv2.getTextSize(text, font, size, weight)
    x, y = corner[0], max(corner[1], h + base + 2)
    cv2.rectangle(image, (x, y - h - base - 2), (x + w + 4, y), colour, -1)
    cv2.putText(image, text, (x + 2, y - base), font, size, (255, 255, 255), weight, cv2.LINE_AA)
