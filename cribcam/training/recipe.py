"""The detector's training recipe: ultralytics YOLO from a model yaml, exported to ONNX.

Everything that decides the shipped model is a field of ``Recipe`` with its default here,
so `cribcam train` with the same options reproduces it. Needs the ``train`` extra (torch,
ultralytics, onnx); the runtime never imports this module.
"""

from __future__ import annotations

import csv
import os
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path

from cribcam.training.mix import mixed_data

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
        real: the data.yaml of `cribcam data real` to train on as well (``mix``), or None.
        real_repeat: how many times each real training photo is listed in a mixed set.
        extra: further ultralytics train arguments, as (name, value) pairs.
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
    real: str | None = None
    real_repeat: int = 20
    extra: tuple = ()

    def train_args(self) -> dict:
        args = asdict(self)
        for key in ("model", "extra", "real", "real_repeat"):
            args.pop(key)
        args["cache"] = {"false": False, "ram": "ram", "disk": "disk"}[self.cache]
        # ultralytics puts a relative project under its own settings folder, far from here.
        args["project"] = str(Path(self.project).resolve())
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
    args = recipe.train_args()
    if recipe.real:
        mixed = Path(args["project"]) / f"{recipe.name}-data"
        args["data"] = str(mixed_data(Path(recipe.data), Path(recipe.real), recipe.real_repeat, mixed))
    model = YOLO(recipe.model)
    try:
        import polars  # noqa: F401
    except ImportError:
        model.add_callback("on_pretrain_routine_start", _read_results_with_csv)
    model.train(**args)
    run_dir = Path(model.trainer.save_dir)
    best = run_dir / "weights" / "best.pt"
    return best if best.is_file() else run_dir / "weights" / "last.pt"


def _read_results_with_csv(trainer) -> None:
    """Lets a trainer save checkpoints where polars is missing.

    ultralytics reads its results.csv with polars into every checkpoint; polars is some 50 MB
    of wheels that the GPU machine lacks and that must travel there within a size limit, and
    the csv module does the same job here.
    """
    def read_results_csv() -> dict:
        try:
            with open(trainer.csv, newline="") as f:
                rows = list(csv.DictReader(f))
        except OSError:
            return {}
        return {key.strip(): [_number(row[key]) for row in rows] for key in (rows[0] if rows else {})}

    trainer.read_results_csv = read_results_csv


def _number(text: str):
    try:
        return float(text)
    except ValueError:
        return text


def export_onnx(checkpoint: Path, out: Path, imgsz: int) -> Path:
    """Exports a checkpoint to ONNX for onnxruntime and copies it to ``out``."""
    from ultralytics import YOLO

    exported = Path(YOLO(str(checkpoint)).export(format="onnx", imgsz=imgsz, simplify=False,
                                                 dynamic=False, opset=17))
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(exported, out)
    return out
