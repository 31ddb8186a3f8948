"""Contact sheet of a data set's images with their boxes and card names, to check by eye.

Each tile shows the image with every label box (green) and its card code; where the scene
record is present, the outlines of cards that have no readable index are drawn in red and the
layout kind, the starter and the deck are written along the top.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np

from cribcam.datagen import yolo


def sample_images(folder: Path, n: int, part: str | None = None) -> list[Path]:
    """``n`` images spread evenly over the data set (sorted by part and name), or all if fewer."""
    parts = [part] if part else sorted(p.name for p in (folder / "images").iterdir() if p.is_dir())
    images = [img for p in parts for img in sorted((folder / "images" / p).glob("*.jpg"))]
    if len(images) <= n:
        return images
    return [images[round(i * (len(images) - 1) / max(n - 1, 1))] for i in range(n)]


def _text(img: np.ndarray, text: str, org: tuple[int, int], scale: float, colour) -> None:
    """``text`` in ``colour``, outlined in black to read on any picture. The outline is the same
    thin text a pixel off each way: OpenCV spaces a thicker stroke's letters wider, so a thick
    black copy ran ahead of the text and showed past its end as stray letters."""
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            cv2.putText(img, text, (org[0] + dx, org[1] + dy), cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), 1,
                        cv2.LINE_AA)
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, 1, cv2.LINE_AA)


def draw_tile(image_path: Path, tile: int) -> np.ndarray:
    """One image scaled to ``tile`` pixels with its labels and record drawn on it."""
    folder = image_path.parents[2]
    part, stem = image_path.parent.name, image_path.stem
    img = cv2.imread(str(image_path))
    h, w = img.shape[:2]
    sx, sy = tile / w, tile / h
    out = cv2.resize(img, (tile, tile), interpolation=cv2.INTER_AREA)
    meta_path = folder / "meta" / part / f"{stem}.json"
    if meta_path.exists():
        meta = json.loads(meta_path.read_text())
        for card in meta.get("cards", []):
            if card.get("face_up") and not card.get("readable", True) and card.get("polygon"):
                poly = np.round(np.array(card["polygon"]) * [sx, sy]).astype(np.int32)
                cv2.polylines(out, [poly], True, (0, 0, 255), 1, cv2.LINE_AA)
        title = " ".join(str(x) for x in (meta.get("layout") or meta.get("subset", ""),
                                          f"starter {meta['starter']}" if meta.get("starter") else "",
                                          meta.get("deck", "")) if x)
        _text(out, title, (4, 14), 0.4, (255, 255, 0))
    for code, (x1, y1, x2, y2) in yolo.read_labels(folder / "labels" / part / f"{stem}.txt", w, h):
        p1, p2 = (round(x1 * sx), round(y1 * sy)), (round(x2 * sx), round(y2 * sy))
        cv2.rectangle(out, p1, p2, (0, 255, 0), 1)
        _text(out, code, (p1[0], max(p1[1] - 3, 24)), 0.38, (0, 255, 0))
    _text(out, f"{part}/{stem}", (4, tile - 6), 0.38, (255, 255, 255))
    return out


def contact_sheet(folder: Path, out: Path, n: int = 16, part: str | None = None, tile: int = 400) -> int:
    """Writes a PNG grid of ``n`` sample images; returns how many were drawn.

    Raises:
        DataSetError: The folder holds no data set images.
    """
    folder = Path(folder)
    if Path(out).suffix.lower() not in (".png", ".jpg", ".jpeg"):
        raise yolo.DataSetError(f"cannot write {out}: give a .png or .jpg name")
    if not (folder / "images").is_dir():
        raise yolo.DataSetError(f"{folder} holds no data set (no images folder)")
    images = sample_images(folder, n, part)
    if not images:
        raise yolo.DataSetError(f"no images in {folder / 'images'}" + (f"/{part}" if part else ""))
    cols = math.ceil(math.sqrt(len(images)))
    rows = math.ceil(len(images) / cols)
    sheet = np.zeros((rows * tile, cols * tile, 3), np.uint8)
    for k, path in enumerate(images):
        r, c = divmod(k, cols)
        sheet[r * tile:(r + 1) * tile, c * tile:(c + 1) * tile] = draw_tile(path, tile)
    out.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(out), sheet):
        raise yolo.DataSetError(f"cannot write {out}")
    return len(images)
