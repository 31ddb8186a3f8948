"""The detector's training recipe: ultralytics YOLO from a model yaml, exported to ONNX.

Everything that decides the shipped model is a field of ``Recipe`` with its default here,
so `cribcam train` with the same options reproduces it. Needs the ``train`` extra (torch,
ultralytics, onnx); the runtime never imports this module.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path

# No network here or on the GPU machine: keep ultralytics from trying (auto-installs,
# downloading fonts for plots, an AMP check model, analytics).
os.environ.setdefault("YOLO_OFFLINE", "1")
os.environ.setdefault("YOLO_AUTOINSTALL", "false")


@dataclass(frozen=True)
class Recipe:
    """How the detector is trained.

    Attributes:
        data: the data set's ``data.yaml`` (from `cribcam data build`).
        model: a model yaml (trained from scratch) or a ``.pt`` checkpoint to start from.
        epochs: passes over the data.
        imgsz: square input size in pixels.
        batch: images per step.
        seed: random seed.
        device: ``cpu``, or a CUDA device such as ``0``.
        workers: data-loader processes.
        cache: keep decoded images in RAM (``ram``) or not (``false``).
        project: where ultralytics writes its run folders.
        name: this run's folder name.
        patience: epochs without improvement before stopping early.
        extra: further ultralytics train arguments, by name.
    """

    data: str
    model: str = "yolo11n.yaml"
    epochs: int = 100
    imgsz: int = 640
    batch: int = 64
    seed: int = 0
    device: str = "cpu"
    workers: int = 8
    cache: str = "false"
    project: str = "runs"
    name: str = "cards"
    patience: int = 30
    extra: tuple = ()

    def train_args(self) -> dict:
        args = asdict(self)
        for key in ("model", "extra"):
            args.pop(key)
        args["cache"] = {"false": False, "ram": "ram", "disk": "disk"}[self.cache]
        args.update(
            # Cards have a handedness-free look but printed indices do not read mirrored:
            # a flipped "6" is no card. Rotations and scale come from the scene generator.
            fliplr=0.0, flipud=0.0, mosaic=0.5, close_mosaic=5,
            hsv_h=0.02, hsv_s=0.6, hsv_v=0.5,
            plots=False, exist_ok=True, deterministic=False, verbose=False, amp=self.device != "cpu",
        )
        args.update(dict(self.extra))
        return args


def train(recipe: Recipe) -> Path:
    """Trains and returns the path of the best checkpoint."""
    from ultralytics import YOLO

    if not Path(recipe.data).is_file():
        raise FileNotFoundError(f"no data set at {recipe.data}: build one with `cribcam data build`")
    model = YOLO(recipe.model)
    model.train(**recipe.train_args())
    run_dir = Path(model.trainer.save_dir)
    best = run_dir / "weights" / "best.pt"
    return best if best.is_file() else run_dir / "weights" / "last.pt"


def export_onnx(checkpoint: Path, out: Path, imgsz: int) -> Path:
    """Exports a checkpoint to ONNX for onnxruntime and copies it to ``out``."""
    from ultralytics import YOLO

    exported = Path(YOLO(str(checkpoint)).export(format="onnx", imgsz=imgsz, simplify=False,
                                                 dynamic=False, opset=17))
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(exported, out)
    return out
