"""Drawing a reading on the photo: each card's corners, name and confidence, each guess as a
question ("JS?"), and the marks that could not be read.

The picture is drawn at a size made for looking at (``max_side``: a 24-megapixel photo is
annotated at 1600 pixels across, not at its own size), and every label lies inside the
picture, clear of the other labels: beside one of its card's corners when there is room there,
else as near it as the others leave.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from cribcam.vision.reading import Reading

_CARD = (60, 200, 60)      # BGR green: a card read
_STARTER = (0, 170, 255)   # orange: the starter
_UNREADABLE = (60, 60, 230)  # red: seen, not readable
_UNSURE = (0, 200, 255)  # amber: read, but to be checked

# The longer side of an annotated photo written to a file (`cribcam read --annotate`).
ANNOTATE_MAX_SIDE = 1600
JPEG_QUALITY = 90
_FONT = cv2.FONT_HERSHEY_SIMPLEX

Box = tuple[float, float, float, float]


def draw_reading(image: np.ndarray, reading: Reading, max_side: int | None = None) -> np.ndarray:
    """A copy of ``image`` with the reading drawn on it.

    Args:
        image: the BGR image the reading was made on.
        reading: its reading (boxes in ``image``'s pixels).
        max_side: when given, the copy is scaled down (never up) so that its longer side is at
            most this, and drawn at that size.
    """
    height, width = image.shape[:2]
    factor = min(1.0, max_side / max(height, width)) if max_side else 1.0
    if factor < 1.0:
        size = (max(1, round(width * factor)), max(1, round(height * factor)))
        out = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    else:
        out = image.copy()
    scale = max(out.shape[:2]) / 800
    thickness = max(1, round(2 * scale))
    labels: list[tuple[str, list[Box], tuple]] = []
    for seen in reading.cards:
        colour = _UNSURE if seen.unsure else _STARTER if seen.card == reading.starter else _CARD
        boxes = [_scaled(box, factor) for box in seen.boxes]
        label = f"{seen.card} {seen.confidence:.2f}" + (" starter" if seen.card == reading.starter else "") \
            + (" check" if seen.unsure else "")
        labels.append((label, boxes, colour))
    for seen in reading.guesses:  # not counted: asked about
        labels.append((f"{seen.card}?", [_scaled(box, factor) for box in seen.boxes], _UNSURE))
    for box in reading.unreadable_boxes:
        labels.append(("not read", [_scaled(box, factor)], _UNREADABLE))
    every_box = [box for _, boxes, _ in labels for box in boxes]
    for _, boxes, colour in labels:
        for x1, y1, x2, y2 in boxes:
            cv2.rectangle(out, (round(x1), round(y1)), (round(x2), round(y2)), colour, thickness)
    placed: list[Box] = []
    for text, boxes, colour in labels:
        if boxes:
            placed.append(_label(out, text, boxes, colour, scale, placed, every_box))
    return out


def write_annotated(path: str | Path, image: np.ndarray, reading: Reading,
                    max_side: int = ANNOTATE_MAX_SIDE) -> None:
    """Writes the annotated photo to ``path``: JPEG for a ``.jpg`` or ``.jpeg`` name, PNG for
    ``.png``, its longer side at most ``max_side``.

    Raises:
        ValueError: a name that is neither.
        OSError: the file cannot be written.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".jpg", ".jpeg"):
        params = [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY]
    elif suffix == ".png":
        params = []
    else:
        raise ValueError(f"an annotated photo is written as .jpg, .jpeg or .png, not {path.name}")
    picture = draw_reading(image, reading, max_side)
    ok, data = cv2.imencode(".png" if suffix == ".png" else ".jpg", picture, params)
    if not ok:  # pragma: no cover - encoding a uint8 BGR image does not fail
        raise OSError(f"could not encode {path.name}")
    path.write_bytes(data.tobytes())


def _scaled(box, factor: float) -> Box:
    return tuple(float(v) * factor for v in box)


def _label(image: np.ndarray, text: str, boxes: list[Box], colour, scale: float,
           placed: list[Box], every_box: list[Box]) -> Box:
    """Draws ``text`` on a filled tag beside one of ``boxes``, inside the image and clear of
    the tags ``placed`` before it (and of the other corners, where it can be); returns where."""
    size, weight = 0.6 * scale, max(1, round(1.5 * scale))
    (text_w, text_h), base = cv2.getTextSize(text, _FONT, size, weight)
    pad = max(2, round(2 * scale))
    w, h = text_w + 2 * pad, text_h + base + 2 * pad
    x, y = _place(w, h, image.shape[1], image.shape[0], boxes, placed, every_box)
    cv2.rectangle(image, (x, y), (x + w - 1, y + h - 1), colour, -1)
    cv2.putText(image, text, (x + pad, y + pad + text_h), _FONT, size, (255, 255, 255), weight, cv2.LINE_AA)
    return (x, y, x + w, y + h)


def _place(w: int, h: int, width: int, height: int, boxes: list[Box], placed: list[Box],
           every_box: list[Box]) -> tuple[int, int]:
    """The top-left corner of a ``w`` x ``h`` tag for a card with these corner ``boxes``.

    Spots are tried nearest first: above each corner, below it, inside its top, then to its
    sides, then further away; each is moved inside the image. The first spot that overlaps no
    tag placed and no other corner is taken; failing that, of the spots clear of the tags the
    one covering least of the other corners; failing that, the one overlapping the tags least.
    """
    spots: list[tuple[float, float]] = []
    for x1, y1, x2, y2 in boxes:
        spots += [(x1, y1 - h), (x1, y2), (x1, y1), (x2 - w, y1 - h), (x2 - w, y2),
                  (x2, y1), (x1 - w, y1)]
    for step in range(1, 13):
        for x1, y1, _, y2 in boxes:
            spots += [(x1, y1 - h - step * h), (x1, y2 + step * h),
                      (x1 + step * w, y1 - h), (x1 - step * w, y1 - h)]
    others = [box for box in every_box if box not in boxes]
    best, best_cost = None, None
    for sx, sy in spots:
        x = int(round(min(max(sx, 0), max(width - w, 0))))
        y = int(round(min(max(sy, 0), max(height - h, 0))))
        tag = (x, y, x + w, y + h)
        cost = (sum(_overlap(tag, other) for other in placed),
                sum(_overlap(tag, other) for other in others))
        if cost == (0, 0):
            return x, y
        if best_cost is None or cost < best_cost:
            best, best_cost = (x, y), cost
    return best


def _overlap(a: Box, b: Box) -> float:
    """The area two boxes share."""
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
