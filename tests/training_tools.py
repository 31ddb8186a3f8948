"""Training a tiny detector with the real recipe, for tests (a few seconds on the CPU)."""

from __future__ import annotations

from pathlib import Path

from cribcam.datagen.real_photos import convert
from cribcam.training.recipe import Recipe, export_onnx, train

TINY_IMGSZ = 64


def tiny_data(real_photos: Path, out: Path, images: int = 16) -> Path:
    """A data.yaml over a few real photos: ultralytics accepts lists of image paths."""
    convert(real_photos, out / "real")
    lists = {}
    for part in ("train", "val"):
        chosen = sorted((out / "real" / "images" / part).glob("*.jpg"))[:images]
        lists[part] = out / f"{part}.txt"
        lists[part].write_text("".join(f"{p}\n" for p in chosen))
    yaml = (out / "real" / "data.yaml").read_text()
    names = yaml[yaml.index("names:"):]
    data = out / "tiny.yaml"
    data.write_text(f"path: {out}\ntrain: {lists['train']}\nval: {lists['val']}\n{names}")
    return data


def train_tiny_model(real_photos: Path, out: Path) -> Path:
    recipe = Recipe(data=str(tiny_data(real_photos, out)), epochs=1, imgsz=TINY_IMGSZ, batch=4,
                    workers=0, project=str(out / "runs"), name="tiny", seed=0)
    return export_onnx(train(recipe), out / "tiny.onnx", TINY_IMGSZ)
