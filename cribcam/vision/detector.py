"""The card-corner detector at run time: an ONNX model run by onnxruntime on the CPU.

Torch and ultralytics are only needed to train; reading cards needs onnxruntime, OpenCV
and numpy. Photos much larger than the model's input are also read in overlapping tiles, so
that the small indices of a whole table in view stay large enough to be found.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from cribcam.vision.detections import Detections, suppress

MODELS_DIR = Path(__file__).resolve().parents[2] / "models"
DEFAULT_MODEL = MODELS_DIR / "cribcam-cards.onnx"
PAD_VALUE = 114  # the grey ultralytics pads letterboxed images with


class ModelMissingError(RuntimeError):
    """No detector weights where they were expected."""


class Detector:
    """Finds printed card indices in a BGR image.

    Args:
        model_path: the ONNX file; defaults to the bundled ``models/cribcam-cards.onnx``.
        conf: minimum class score for a box.
        iou: overlap above which two boxes are one index (class-agnostic).
        tile: also read tiles when the image is at least this many times the input size.
        threads: onnxruntime intra-op threads (0: onnxruntime decides).
    """

    def __init__(self, model_path: str | Path | None = None, conf: float = 0.25, iou: float = 0.5,
                 tile: float = 1.6, threads: int = 0):
        import onnxruntime as ort  # imported here so the scoring core never needs it

        path = Path(model_path) if model_path else DEFAULT_MODEL
        if not path.is_file():
            raise ModelMissingError(f"no detector model at {path}: train one with `cribcam train` "
                                    f"or pass the path of an .onnx file")
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.log_severity_level = 3
        self.session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        model_input = self.session.get_inputs()[0]
        self.input_name = model_input.name
        height, width = model_input.shape[2:]
        self.imgsz = int(height) if isinstance(height, int) else 640
        self.conf, self.iou, self.tile = conf, iou, tile
        self.path = path

    def __call__(self, image: np.ndarray) -> Detections:
        """Detects index corners in a BGR uint8 image; boxes come back in its pixels."""
        height, width = image.shape[:2]
        parts = [self._detect(image, 0, 0)]
        if max(height, width) >= self.tile * self.imgsz:
            parts += [self._detect(image[y:y + h, x:x + w], x, y)
                      for x, y, w, h in _tiles(width, height, self.imgsz)]
        return suppress(Detections.merge(parts), self.iou)

    def _detect(self, image: np.ndarray, dx: int, dy: int) -> Detections:
        blob, scale, (pad_x, pad_y) = letterbox(image, self.imgsz)
        output = self.session.run(None, {self.input_name: blob})[0][0]
        found = Detections.from_yolo_output(output, self.conf)
        xyxy = (found.xyxy - [pad_x, pad_y, pad_x, pad_y]) / scale + [dx, dy, dx, dy]
        return suppress(Detections(xyxy, found.scores), self.iou)


def letterbox(image: np.ndarray, size: int) -> tuple[np.ndarray, float, tuple[int, int]]:
    """Scales ``image`` to fit a ``size`` square, pads it, and makes the model's input blob.

    Returns:
        The (1, 3, size, size) float32 RGB blob in [0, 1], the scale applied, and the padding
        (x, y) added on the left and top.
    """
    height, width = image.shape[:2]
    scale = size / max(height, width)
    new_w, new_h = max(1, round(width * scale)), max(1, round(height * scale))
    resized = cv2.resize(image, (new_w, new_h), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    pad_x, pad_y = (size - new_w) // 2, (size - new_h) // 2
    canvas = np.full((size, size, 3), PAD_VALUE, np.uint8)
    canvas[pad_y:pad_y + new_h, pad_x:pad_x + new_w] = resized
    blob = canvas[:, :, ::-1].transpose(2, 0, 1)[None].astype(np.float32) / 255.0
    return np.ascontiguousarray(blob), scale, (pad_x, pad_y)


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
