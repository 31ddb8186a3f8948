"""Measuring a reader on labelled photos, in the format of the shared real-photo labels.

Labels: ``{image_name: {"cards": [{"card": "TC", "box": [x1, y1, x2, y2]}, ...],
"subset": "..."}}``, one box per printed index corner. A card counts as found when it is in
the reading; a hand is exact when the set read equals the set labelled. The exact-hand rate is
taken over the images that show at least one readable card: a synthetic scene whose cards are
all hidden would otherwise count as a hand read right by a reader that sees nothing. Cards read
in such an image still count against precision.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import cv2
import numpy as np

from cribcam.vision.detections import box_iou
from cribcam.vision.reading import Reading

FOUND_IOU = 0.5  # a labelled index counts as found by a box overlapping it this much


@dataclass
class Tally:
    """Counts for one group of images."""

    images: int = 0
    hands: int = 0  # images with at least one labelled card
    exact: int = 0  # hands read exactly
    true_cards: int = 0  # labelled cards found
    labelled: int = 0
    read: int = 0
    boxes_labelled: int = 0  # index boxes, when the finder is measured too
    boxes_found: int = 0  # ... of them overlapped by a finder box at IoU >= FOUND_IOU

    def add(self, labelled: set[str], read: set[str]) -> None:
        self.images += 1
        if labelled:
            self.hands += 1
            self.exact += labelled == read
        self.true_cards += len(labelled & read)
        self.labelled += len(labelled)
        self.read += len(read)

    def as_dict(self) -> dict:
        return {"images": self.images, "hands": self.hands,
                "recall": _ratio(self.true_cards, self.labelled),
                "precision": _ratio(self.true_cards, self.read),
                "exact_hand_rate": _ratio(self.exact, self.hands),
                "cards_labelled": self.labelled, "cards_read": self.read,
                "index_boxes_found": _ratio(self.boxes_found, self.boxes_labelled)}


@dataclass
class Evaluation:
    """Per-card recall and precision and exact-hand rate, overall and per subset."""

    overall: Tally = field(default_factory=Tally)
    subsets: dict[str, Tally] = field(default_factory=dict)
    confusions: Counter = field(default_factory=Counter)
    unreadable: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"overall": self.overall.as_dict(),
                "subsets": {name: t.as_dict() for name, t in sorted(self.subsets.items())},
                "confusions": [{"labelled": a, "read": b, "times": n}
                               for (a, b), n in self.confusions.most_common()],
                "unreadable_images": self.unreadable}


def evaluate(read: Callable[[object], Reading], images: Path, labels: dict,
             progress: Callable | None = None, find: Callable | None = None) -> Evaluation:
    """Runs ``read`` (a BGR image to a ``Reading``) over labelled images and tallies.

    Args:
        read: typically ``CardReader(...).read``.
        images: the folder holding the labelled images.
        labels: parsed labels, in the shared real-photos format.
        progress: wraps the iteration (e.g. ``tqdm``), optional.
        find: a BGR image to its (n, 4) finder boxes (``CardReader(...).find``), to measure
            the share of labelled index boxes found as well; optional.
    """
    result = Evaluation()
    names = sorted(labels)
    for name in progress(names) if progress else names:
        entry = labels[name]
        image = cv2.imread(str(images / name))
        if image is None:
            result.unreadable.append(name)
            continue
        reading = read(image)
        labelled = {c["card"] for c in entry["cards"]}
        read_set = set(reading.codes)
        result.overall.add(labelled, read_set)
        result.subsets.setdefault(entry.get("subset", "all"), Tally()).add(labelled, read_set)
        result.confusions.update(_confusions(entry["cards"], reading))
        if find is not None:
            found = _boxes_found(entry["cards"], np.asarray(find(image), np.float32).reshape(-1, 4))
            for tally in (result.overall, result.subsets[entry.get("subset", "all")]):
                tally.boxes_labelled += len(entry["cards"])
                tally.boxes_found += found
    return result


def _boxes_found(labelled_boxes: list[dict], boxes: np.ndarray) -> int:
    """How many labelled index boxes some found box overlaps at IoU >= ``FOUND_IOU``."""
    if not labelled_boxes or not len(boxes):
        return 0
    labelled = np.array([label["box"] for label in labelled_boxes], np.float32)
    return int((box_iou(labelled, boxes) >= FOUND_IOU).any(axis=1).sum())


def load_labels(path: Path) -> dict:
    """Reads a labels file, with a clear error for a file that is not one."""
    try:
        labels = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read labels from {path}: {exc}") from None
    if not isinstance(labels, dict) or not all(
            isinstance(v, dict) and isinstance(v.get("cards"), list) for v in labels.values()):
        raise ValueError(f"{path} is not a labels file: expected "
                         '{"image.jpg": {"cards": [{"card": "TC", "box": [x1, y1, x2, y2]}]}}')
    return labels


def _confusions(labelled_boxes: list[dict], reading: Reading) -> Counter:
    """(labelled, read) pairs where a read card sits on the corner of a different labelled one."""
    pairs = Counter()
    for seen in reading.cards:
        for box in seen.boxes:
            cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
            for label in labelled_boxes:
                x1, y1, x2, y2 = label["box"]
                if x1 <= cx <= x2 and y1 <= cy <= y2 and label["card"] != seen.card:
                    pairs[(label["card"], seen.card)] += 1
    return pairs


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None
