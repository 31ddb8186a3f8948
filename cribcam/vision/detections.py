"""Detections: boxes with scores, the one data structure the vision layer passes on.

Each detection is one printed index corner (rank + suit). The finder scores a box in one
column ("an index is here"); once classified, a box has a score for every one of the 52 cards,
all of them kept, not just the best: deciding per card later needs them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cribcam.scoring.cards import CARD_CODES

NUM_CLASSES = len(CARD_CODES)


@dataclass(frozen=True)
class Detections:
    """Boxes in image pixels with their class scores.

    Attributes:
        xyxy: (n, 4) float32 boxes ``x1, y1, x2, y2``.
        scores: (n, k) float32 scores in [0, 1]: k = 1 from the finder, k = 52 per-card
            scores (columns in ``CARD_CODES`` order) once classified.
    """

    xyxy: np.ndarray
    scores: np.ndarray

    def __post_init__(self) -> None:
        xyxy = np.asarray(self.xyxy, dtype=np.float32).reshape(-1, 4)
        scores = np.asarray(self.scores, dtype=np.float32)
        if scores.ndim != 2 or len(xyxy) != len(scores):
            raise ValueError(f"{len(xyxy)} boxes need a 2-D array of {len(xyxy)} score rows, "
                             f"not one of shape {scores.shape}")
        object.__setattr__(self, "xyxy", xyxy)
        object.__setattr__(self, "scores", scores)

    def __len__(self) -> int:
        return len(self.xyxy)

    def __getitem__(self, index) -> Detections:
        index = np.atleast_1d(np.arange(len(self))[index])
        return Detections(self.xyxy[index], self.scores[index])

    @property
    def class_id(self) -> np.ndarray:
        return self.scores.argmax(axis=1)

    @property
    def confidence(self) -> np.ndarray:
        return self.scores.max(axis=1) if len(self) else np.zeros(0, np.float32)

    @property
    def centers(self) -> np.ndarray:
        return (self.xyxy[:, :2] + self.xyxy[:, 2:]) / 2

    @property
    def sizes(self) -> np.ndarray:
        """The longer side of each box."""
        return (self.xyxy[:, 2:] - self.xyxy[:, :2]).max(axis=1)

    @property
    def short_sides(self) -> np.ndarray:
        """The shorter side of each box."""
        return (self.xyxy[:, 2:] - self.xyxy[:, :2]).min(axis=1)

    @classmethod
    def empty(cls, columns: int = NUM_CLASSES) -> Detections:
        return cls(np.zeros((0, 4)), np.zeros((0, columns)))

    @classmethod
    def merge(cls, parts: list[Detections]) -> Detections:
        if not parts:
            return cls.empty()
        return cls(np.concatenate([p.xyxy for p in parts]), np.concatenate([p.scores for p in parts]))

    @classmethod
    def from_yolo_output(cls, output: np.ndarray, conf: float) -> Detections:
        """Decodes an ultralytics detection head's raw output.

        Args:
            output: (4 + k, anchors) array: box centre x, y, width, height, then k class scores.
            conf: drop anchors whose best class score is below this.
        """
        boxes, scores = output[:4].T, output[4:].T
        keep = scores.max(axis=1) >= conf
        boxes, scores = boxes[keep], scores[keep]
        xyxy = np.concatenate([boxes[:, :2] - boxes[:, 2:] / 2, boxes[:, :2] + boxes[:, 2:] / 2], axis=1)
        return cls(xyxy, scores)


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU between every box in ``a`` (n, 4) and every box in ``b`` (m, 4)."""
    inter, area_a, area_b = _intersections(a, b)
    return inter / np.maximum(area_a[:, None] + area_b[None, :] - inter, 1e-9)


def overlap_of_smaller(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The share of the smaller box's area that lies in the other, for every box in ``a``
    (n, 4) and every box in ``b`` (m, 4): 1 when one box holds the other."""
    inter, area_a, area_b = _intersections(a, b)
    return inter / np.maximum(np.minimum(area_a[:, None], area_b[None, :]), 1e-9)


def _intersections(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The (n, m) intersection areas of the boxes of ``a`` and ``b``, and their own areas."""
    top_left = np.maximum(a[:, None, :2], b[None, :, :2])
    bottom_right = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.clip(bottom_right - top_left, 0, None).prod(axis=2)
    return inter, (a[:, 2:] - a[:, :2]).prod(axis=1), (b[:, 2:] - b[:, :2]).prod(axis=1)


def holds(boxes: np.ndarray, point: np.ndarray) -> np.ndarray:
    """Whether each box (n, 4) holds ``point`` (x, y), its edges included."""
    boxes = np.asarray(boxes).reshape(-1, 4)
    return ((boxes[:, :2] <= point) & (point <= boxes[:, 2:])).all(axis=1)


def suppress(detections: Detections, iou: float = 0.5) -> Detections:
    """Class-agnostic non-maximum suppression: one box per location.

    A printed index is one card whatever the classes say, so overlapping boxes of different
    classes compete. The kept box takes the element-wise maximum of the scores of the boxes it
    suppressed, so a runner-up class stays visible to the per-card decision.
    """
    if len(detections) == 0:
        return detections
    order = np.argsort(-detections.confidence)
    xyxy, scores = detections.xyxy[order], detections.scores[order]
    overlaps = box_iou(xyxy, xyxy)
    taken = np.zeros(len(order), bool)
    kept_boxes, kept_scores = [], []
    for i in range(len(order)):
        if taken[i]:
            continue
        group = ~taken & (overlaps[i] >= iou)
        taken |= group
        kept_boxes.append(xyxy[i])
        kept_scores.append(scores[group].max(axis=0))
    return Detections(np.array(kept_boxes), np.array(kept_scores))
