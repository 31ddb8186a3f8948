"""The square crop around an index box that the index classifier reads.

One function for training and run time: the classifier only reads right what it was taught
on, so the crop's margin, centring and size must be the same in both places.
"""

from __future__ import annotations

import cv2
import numpy as np

CROP_SIZE = 48  # pixels a side of the classifier's input
MARGIN = 0.15  # the crop reaches this share of the box's longer side beyond it on every side


def crop_square(image: np.ndarray, center: tuple[float, float], side: float,
                size: int = CROP_SIZE) -> np.ndarray:
    """A ``size`` x ``size`` BGR crop of the square of ``side`` pixels around ``center``.

    Beyond the image the border pixels are repeated, so an index at the edge of a photo still
    gives a full crop. The square is cut first and then resized with area averaging, so small
    print is not aliased and a large photo is never resized whole.
    """
    half = max(float(side), 2.0) / 2
    x1, y1 = round(center[0] - half), round(center[1] - half)
    x2, y2 = max(round(center[0] + half), x1 + 2), max(round(center[1] + half), y1 + 2)
    height, width = image.shape[:2]
    pads = (max(0, -y1), max(0, y2 - height), max(0, -x1), max(0, x2 - width))
    patch = image[max(0, y1):max(0, min(y2, height)), max(0, x1):max(0, min(x2, width))]
    if patch.size == 0:  # the square lies wholly outside the image
        return np.zeros((size, size, 3), np.uint8)
    if any(pads):
        patch = cv2.copyMakeBorder(patch, *pads, cv2.BORDER_REPLICATE)
    shrinking = patch.shape[0] > size
    return cv2.resize(patch, (size, size), interpolation=cv2.INTER_AREA if shrinking else cv2.INTER_LINEAR)


def index_crop(image: np.ndarray, box, size: int = CROP_SIZE, margin: float = MARGIN) -> np.ndarray:
    """The classifier's crop of one index box ``(x1, y1, x2, y2)`` in image pixels."""
    x1, y1, x2, y2 = (float(v) for v in box)
    side = max(x2 - x1, y2 - y1) * (1 + 2 * margin)
    return crop_square(image, ((x1 + x2) / 2, (y1 + y2) / 2), side, size)


def to_blob(crops: list[np.ndarray] | np.ndarray) -> np.ndarray:
    """BGR uint8 crops to the classifier's (n, 3, size, size) float32 RGB input in [0, 1]."""
    batch = np.asarray(crops, dtype=np.uint8)
    return np.ascontiguousarray(batch[..., ::-1].transpose(0, 3, 1, 2), dtype=np.float32) / 255.0


def tilted(crops: np.ndarray, degrees: float) -> np.ndarray:
    """(n, size, size, 3) crops turned ``degrees`` anticlockwise about their centres.

    Quarter turns are exact; other angles repeat the border into the corners the turn
    uncovers, as a crop at the photo's edge does.
    """
    if degrees % 90 == 0:
        return np.ascontiguousarray(np.rot90(crops, int(degrees // 90) % 4, axes=(1, 2)))
    size = crops.shape[2]
    turn = cv2.getRotationMatrix2D((size / 2, size / 2), degrees, 1.0)
    return np.array([cv2.warpAffine(crop, turn, (size, size), borderMode=cv2.BORDER_REPLICATE)
                     for crop in crops], np.uint8).reshape(crops.shape)
