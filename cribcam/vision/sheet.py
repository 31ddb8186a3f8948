"""Contact sheets of misread photos: the truth and the reading side by side.

Every change to the reader starts from what it got wrong (``cribcam eval --sheet DIR``): each
misread photo is drawn twice, its labelled corners named on the left and the reading on the
right (``annotate.draw_reading``: cards, unsure ones marked, unreadable marks), with the
cards missed and the cards read wrongly written underneath.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from cribcam.vision.annotate import draw_reading
from cribcam.vision.reading import Reading

TILE = 480  # pixels a side of one drawing
PER_SHEET = 8  # photos (rows) per sheet
CAPTION = 44  # pixels of text under each row
_TRUTH = (60, 200, 60)
_FONT = cv2.FONT_HERSHEY_SIMPLEX


class SheetWriter:
    """Collects misread photos and writes them into numbered sheets in ``folder``.

    Args:
        folder: where ``misread-001.png``, ``misread-002.png``... go (made if missing).
    """

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.rows: list[np.ndarray] = []
        self.written: list[Path] = []

    def add(self, name: str, image: np.ndarray, labels: list[dict], reading: Reading) -> None:
        """Adds one photo: ``labels`` its ``{"card", "box"}`` labels (a box may be None)."""
        truth = {label["card"] for label in labels}
        read = set(reading.codes)
        row = np.hstack([_fit(_draw_truth(image, labels)), _fit(draw_reading(image, reading, TILE))])
        caption = np.full((CAPTION, row.shape[1], 3), 255, np.uint8)
        missed = " ".join(sorted(truth - read)) or "-"
        wrong = " ".join(sorted(read - truth)) or "-"
        cv2.putText(caption, name[:70], (6, 17), _FONT, 0.5, (0, 0, 0), 1, cv2.LINE_AA)
        cv2.putText(caption, f"missed: {missed}   read wrongly: {wrong}", (6, 37), _FONT, 0.5, (0, 0, 200), 1,
                    cv2.LINE_AA)
        self.rows.append(np.vstack([row, caption]))
        if len(self.rows) == PER_SHEET:
            self.flush()

    def flush(self) -> None:
        """Writes the rows collected so far as one more sheet."""
        if not self.rows:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"misread-{len(self.written) + 1:03d}.png"
        cv2.imwrite(str(path), np.vstack(self.rows))
        self.written.append(path)
        self.rows = []


def _draw_truth(image: np.ndarray, labels: list[dict]) -> np.ndarray:
    factor = min(1.0, TILE / max(image.shape[:2]))
    out = cv2.resize(image, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA) if factor < 1 else image.copy()
    for label in labels:
        if label.get("box") is None:
            continue
        x1, y1, x2, y2 = (round(float(v) * factor) for v in label["box"])
        cv2.rectangle(out, (x1, y1), (x2, y2), _TRUTH, 2)
        cv2.putText(out, label["card"], (x1, max(14, y1 - 4)), _FONT, 0.55, _TRUTH, 2, cv2.LINE_AA)
    unboxed = [label["card"] for label in labels if label.get("box") is None]
    if unboxed:
        cv2.putText(out, "labelled: " + " ".join(unboxed), (6, out.shape[0] - 8), _FONT, 0.55, _TRUTH, 2,
                    cv2.LINE_AA)
    return out


def _fit(drawing: np.ndarray) -> np.ndarray:
    """The drawing on a TILE x TILE white square, scaled to fit."""
    factor = TILE / max(drawing.shape[:2])
    if factor != 1:
        drawing = cv2.resize(drawing, None, fx=factor, fy=factor,
                             interpolation=cv2.INTER_AREA if factor < 1 else cv2.INTER_LINEAR)
    tile = np.full((TILE, TILE, 3), 255, np.uint8)
    tile[:drawing.shape[0], :drawing.shape[1]] = drawing[:TILE, :TILE]
    return tile
