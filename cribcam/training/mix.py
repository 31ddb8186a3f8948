"""One training set from synthetic scenes and real photos.

The real photos are few (238 in training) and the synthetic scenes many, so each real photo is
listed ``repeat`` times: without that, a model trained on tens of thousands of scenes would see
each real photo once per epoch and learn little of how real cameras and decks look.

Checkpoints are chosen on the synthetic validation part only. The real validation photos are
for measuring the finished model; choosing checkpoints on them would tune to them.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from cribcam.datagen import yolo


def mixed_data(synthetic: Path, real: Path, repeat: int, out: Path) -> Path:
    """Writes a data.yaml training on both sets and validating on the synthetic one.

    Args:
        synthetic: data.yaml of a `cribcam data build` train set.
        real: data.yaml of `cribcam data real`.
        repeat: how many times each real training photo is listed (at least 1).
        out: folder for the image lists and the data.yaml.

    Returns:
        The new data.yaml.

    Raises:
        ValueError: ``repeat`` below 1, or a set without a train or val part.
    """
    if repeat < 1:
        raise ValueError(f"real photos must be listed at least once, not {repeat} times")
    synthetic_parts, real_parts = _parts(synthetic), _parts(real)
    out.mkdir(parents=True, exist_ok=True)
    lists = {
        "train": _images(synthetic_parts["train"]) + _images(real_parts["train"]) * repeat,
        "val": _images(synthetic_parts["val"]),
    }
    parts = {}
    for part, images in lists.items():
        listing = (out / f"{part}.txt").resolve()
        listing.write_text("".join(f"{image}\n" for image in images))
        parts[part] = str(listing)
    yolo.write_data_yaml(out, parts, f"{len(lists['train'])} training images: "
                                     f"synthetic scenes and real photos x{repeat}")
    return out / "data.yaml"


def _parts(data_yaml: Path) -> dict[str, Path]:
    """Image folders of a data.yaml's train and val parts."""
    data = yaml.safe_load(Path(data_yaml).read_text())
    root = Path(data.get("path") or Path(data_yaml).parent)
    try:
        return {part: root / data[part] for part in ("train", "val")}
    except KeyError as missing:
        raise ValueError(f"{data_yaml} has no {missing} part") from None


def _images(folder: Path) -> list[str]:
    return [str(p.resolve()) for p in sorted(folder.glob("*.jpg"))]
