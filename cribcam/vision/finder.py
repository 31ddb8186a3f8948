"""The index finder at run time: a one-class YOLO model run by onnxruntime on the CPU.

It says where printed indices (rank + suit corners) are, not which card they show: that is
the classifier's job. Torch and ultralytics are only needed to train; finding needs
onnxruntime, OpenCV and numpy. It reads a whole image at its input size; asked for a closer
look, it also reads the image at its own size when that is much larger than the input (a phone
photo), else enlarged, so that small indices stay large enough: in one pass where the model
takes any input size, in overlapping tiles of its input size where it takes one; asked for a
farther look, it reads the image shrunk, for indices larger than it learnt.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from cribcam.vision.detections import Detections, suppress
from cribcam.vision.fast_runtime import openvino_forward
from cribcam.vision.models import onnx_session

PAD_VALUE = 114  # the grey ultralytics pads letterboxed images with
CLOSER = 2  # a closer look reads an image enlarged to this many times the model's input
FARTHER = 2  # a farther look reads an image in the middle of a canvas this many times its sides
QUICK = 2  # a quick look reads an image at this many times less than the input, a quarter of the pixels


class IndexFinder:
    """Finds printed card indices in a BGR image.

    A finder exported with a free input shape reads a frame letterboxed only to the next
    multiple of its stride (640x480 for a 4:3 frame): a square input would spend a quarter
    of its time and more on grey padding. One of fixed shape reads the square.

    Args:
        path: the finder's ONNX file.
        conf: minimum score for a box; low, since the classifier rejects what is no index.
        iou: overlap above which two boxes are one index.
        tile: a closer look reads an image at least this many times the input size in tiles
            at its own size, and a smaller one enlarged.
        threads: onnxruntime intra-op threads (0: onnxruntime decides).
    """

    def __init__(self, path: Path, conf: float = 0.1, iou: float = 0.5, tile: float = 1.6, threads: int = 0):
        self.session = onnx_session(path, threads)
        model_input = self.session.get_inputs()[0]
        self.input_name = model_input.name
        height = model_input.shape[2]
        # ultralytics records the export's size and stride, e.g. {"imgsz": "[640, 640]", "stride": "32"}
        metadata = self.session.get_modelmeta().custom_metadata_map
        self.stride = None if isinstance(height, int) else int(metadata.get("stride", 32))
        self.imgsz = int(height) if isinstance(height, int) else max(json.loads(metadata.get("imgsz", "[640]")))
        self.conf, self.iou, self.tile = conf, iou, tile
        self.path = Path(path)
        # OpenVINO runs the pass where it is installed (the ``fast`` extra), at twice the speed;
        # the onnxruntime session reads the model's shape and metadata, and runs it elsewhere.
        fast = openvino_forward(self.path, threads)
        self.runtime = f"openvino ({fast.precision})" if fast else "onnxruntime"
        self._forward = fast or (lambda blob: self.session.run(None, {self.input_name: blob})[0])

    def __call__(self, image: np.ndarray, closer: bool = False) -> Detections:
        """Index boxes in a BGR uint8 image, in its pixels, with one score column.

        Args:
            image: BGR uint8.
            closer: also read the image larger: at its own size when it is at least ``tile``
                times the input, else enlarged to ``CLOSER`` times the input (at most
                ``CLOSER`` times its own size). Indices under about 16 pixels at the input
                size fall between the cells of the finder's finest grid, and most of them are
                boxed only so. A finder of free input shape reads the larger image in one pass
                (about four times one look), every pixel once; one of fixed shape reads it in
                overlapping tiles (seven to fifteen looks), reading the same cards or better
                (models/HISTORY.md, "Speed"). The reader asks for it when cards are missing
                (``CardReader``). Always reading a large photo larger made phantom cards of
                pips and print (models/HISTORY.md, "Run 8").
        """
        whole = self._find(image, 0, 0)
        return suppress(Detections.merge([whole, self.enlarged(image)]), self.iou) if closer else whole

    def enlarged(self, image: np.ndarray) -> Detections:
        """The closer look's own boxes (see ``__call__``), not yet merged with the whole look's:
        a reader that has the whole look already adds these to it."""
        height, width = image.shape[:2]
        # Never more than CLOSER times the image's own pixels: the whole look already enlarges a
        # small image to the input, and a crop of one card enlarged further had its pips boxed.
        large = max(height, width) >= self.tile * self.imgsz
        scale = 1.0 if large else min(CLOSER, CLOSER * self.imgsz / max(height, width))
        tiled = image if scale == 1.0 else cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_LINEAR)
        parts = []
        if self.stride is not None:  # a free input shape: the whole of it in one pass, no pixel twice
            found = self._find(tiled, 0, 0, size=max(tiled.shape[:2]))
            parts.append(Detections(found.xyxy / scale, found.scores))
        else:
            for x, y, w, h in _tiles(tiled.shape[1], tiled.shape[0], self.imgsz):
                found = self._find(tiled[y:y + h, x:x + w], x, y)
                parts.append(Detections(found.xyxy / scale, found.scores))
        return Detections.merge(parts)

    def farther(self, image: np.ndarray) -> Detections:
        """Index boxes in a BGR uint8 image read from farther away: the image in the middle of a
        grey canvas ``FARTHER`` times its sides, so each index is that many times smaller at the
        input. A close-up of a card (a photo of one card filling it) puts its index larger than
        any the finder learnt from, and it boxes nothing there (models/HISTORY.md, "Tilted looks,
        a farther look, and run 10")."""
        height, width = image.shape[:2]
        pad_x, pad_y = round(width * (FARTHER - 1) / 2), round(height * (FARTHER - 1) / 2)
        canvas = cv2.copyMakeBorder(image, pad_y, pad_y, pad_x, pad_x, cv2.BORDER_CONSTANT, value=(PAD_VALUE,) * 3)
        found = self._find(canvas, -pad_x, -pad_y)
        return Detections(np.clip(found.xyxy, 0, [width, height, width, height]), found.scores)

    def negative(self, image: np.ndarray) -> Detections:
        """Index boxes in a BGR uint8 image's negative: light print on a dark face becomes the
        dark print on a light face the finder boxes best (models/HISTORY.md, "The finder on an
        inverted photo"). Pips and art are boxed in it as often as indices."""
        return self._find(255 - image, 0, 0)

    @property
    def quick_size(self) -> int | None:
        """The input size of the quick look; None for a finder of fixed input shape, which
        reads only its own size."""
        return None if self.stride is None else self.imgsz // QUICK

    def quick(self, image: np.ndarray) -> Detections:
        """Index boxes in a BGR uint8 image read at ``quick_size``, a quarter of the input's
        pixels. Large print reads as well so, or better (a close-up's indices come nearer the
        sizes the finder learnt); small print is lost."""
        return self._find(image, 0, 0, size=self.quick_size)

    def _find(self, image: np.ndarray, dx: int, dy: int, size: int | None = None) -> Detections:
        blob, scale, (pad_x, pad_y) = letterbox(image, size or self.imgsz, self.stride)
        output = self._forward(blob)[0]
        found = Detections.from_yolo_output(output, self.conf)
        xyxy = (found.xyxy - [pad_x, pad_y, pad_x, pad_y]) / scale + [dx, dy, dx, dy]
        return suppress(Detections(xyxy, found.scores), self.iou)


def letterbox(image: np.ndarray, size: int, stride: int | None = None) -> tuple[np.ndarray, float, tuple[int, int]]:
    """Scales ``image`` to fit a ``size`` square, pads it, and makes the model's input blob.

    Args:
        image: BGR uint8.
        size: the longer side after scaling.
        stride: pad each side only up to a multiple of this; None pads to the square.

    Returns:
        The (1, 3, height, width) float32 RGB blob in [0, 1], the scale applied, and the
        padding (x, y) added on the left and top.
    """
    height, width = image.shape[:2]
    scale = size / max(height, width)
    new_w, new_h = max(1, round(width * scale)), max(1, round(height * scale))
    resized = cv2.resize(image, (new_w, new_h), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    out_w, out_h = (size, size) if stride is None else (-(-new_w // stride) * stride, -(-new_h // stride) * stride)
    pad_x, pad_y = (out_w - new_w) // 2, (out_h - new_h) // 2
    canvas = np.full((out_h, out_w, 3), PAD_VALUE, np.uint8)
    canvas[pad_y:pad_y + new_h, pad_x:pad_x + new_w] = resized
    # Reordered while still bytes, then made float in place: the same blob as converting the
    # reordered view, in a fifth of the time (29 ms of a closer look's 1280-pixel pass).
    blob = np.ascontiguousarray(canvas[:, :, ::-1].transpose(2, 0, 1))[None].astype(np.float32)
    blob /= np.float32(255.0)
    return blob, scale, (pad_x, pad_y)


def _tiles(width: int, height: int, size: int, overlap: float = 0.25):
    """Square tiles of ``size`` pixels covering the image with some overlap."""
    step = int(size * (1 - overlap))
    xs = list(range(0, max(width - size, 0) + 1, step)) or [0]
    ys = list(range(0, max(height - size, 0) + 1, step)) or [0]
    if xs[-1] + size < width:
        xs.append(width - size)
    if ys[-1] + size < height:
        ys.append(height - size)
    return [(x, y, min(size, width - x), min(size, height - y)) for y in ys for x in xs]
