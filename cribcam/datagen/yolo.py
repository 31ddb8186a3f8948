"""The on-disk data set format shared by synthetic and real data (ultralytics YOLO detection).

    DIR/images/PART/NAME.jpg   the image
    DIR/labels/PART/NAME.txt   one line per readable index: class cx cy w h (normalised)
    DIR/meta/PART/NAME.json    the scene record (cards, outlines, starter, layout, deck)
    DIR/data.yaml              ultralytics data set file; classes are the 52 card codes
    DIR/labels-PART.json       the part's labels in the format of ``cribcam eval`` (that of
                               shared/real-photos/labels.json), subset = deck design

PART is "train", "val", or "test" (held-out designs).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from cribcam.scoring.cards import CARD_CODES

CLASS_OF = {code: i for i, code in enumerate(CARD_CODES)}


class DataSetError(ValueError):
    """A problem with a data set's inputs or output folder, to be told to the user in one line."""


def label_lines(boxes: Iterable[tuple[str, tuple[float, float, float, float]]], width: int, height: int) -> str:
    """YOLO label text for (code, (x1, y1, x2, y2)) pixel boxes in a width x height image."""
    lines = []
    for code, (x1, y1, x2, y2) in boxes:
        cx, cy = (x1 + x2) / 2 / width, (y1 + y2) / 2 / height
        w, h = (x2 - x1) / width, (y2 - y1) / height
        lines.append(f"{CLASS_OF[code]} {cx:.6f} {cy:.6f} {w:.6f} {h:.6f}\n")
    return "".join(lines)


def read_labels(path: Path, width: int, height: int) -> list[tuple[str, tuple[float, float, float, float]]]:
    """Reads a YOLO label file back into (code, pixel box) pairs."""
    out = []
    for line in Path(path).read_text().splitlines():
        if not line.strip():
            continue
        cls, cx, cy, w, h = line.split()
        cx, cy, w, h = float(cx) * width, float(cy) * height, float(w) * width, float(h) * height
        out.append((CARD_CODES[int(cls)], (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)))
    return out


def write_json(path: Path, record: dict) -> None:
    """Writes a record as compact, key-sorted JSON (the same record gives the same bytes)."""
    path.write_text(json.dumps(record, sort_keys=True, separators=(",", ":"), default=_plain) + "\n")


def _plain(value):
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def write_data_yaml(out: Path, parts: dict[str, str], comment: str,
                    names: Sequence[str] = CARD_CODES) -> None:
    """Writes ``data.yaml`` for ultralytics.

    Args:
        out: Data set folder.
        parts: ultralytics key ("train", "val", "test") -> images folder relative to ``out``.
        comment: First line, saying what the data set is.
        names: The class names; the 52 card codes unless told (the finder has one class).
    """
    lines = [f"# {comment}", f"path: {out.resolve()}"]
    lines += [f"{key}: {folder}" for key, folder in parts.items()]
    lines.append(f"nc: {len(names)}")
    lines.append("names:")
    lines += [f"  {i}: {name}" for i, name in enumerate(names)]
    (out / "data.yaml").write_text("\n".join(lines) + "\n")


def write_eval_labels(out: Path, part: str) -> Path:
    """Writes ``labels-PART.json``: each image's readable cards with their index boxes.

    The format is that of ``cribcam eval --labels``, so a reader can be measured on a built
    set directly. Cards whose corners are all hidden are left out (no reader can see them);
    a face-up card with some of an index's ink in view but no index labelled (under another
    card, or cut by the frame) is named under ``"partly_shown"``, which a reader may read or
    not; a record may also name such cards itself (``"partly_shown"``, the real photos' edge
    pass, with their number under ``"cards_in_view"``, as a card there may be one of several).
    Where cards show in part, ``"cards_in_view"`` counts them with the labelled ones: the count a
    player gives (``evaluate.given_count``). Each entry also names its subset (the deck design of a synthetic scene), starter and
    layout where the record has them.
    """
    entries = {}
    for meta in sorted((out / "meta" / part).glob("*.json")):
        record = json.loads(meta.read_text())
        boxes = read_labels(out / "labels" / part / f"{meta.stem}.txt", record["width"], record["height"])
        entries[record["image"]] = {
            "cards": [{"card": code, "box": [round(v, 1) for v in box]} for code, box in boxes],
            "subset": record.get("deck", record.get("subset")), "starter": record.get("starter"),
            **({"layout": record["layout"]} if "layout" in record else {}),
        }
        drawn_in_part = {card["code"] for card in record.get("cards", ())
                         if card.get("corners") and not card["readable"]
                         and max(corner["seen"] for corner in card["corners"]) > 0}
        partly_shown = sorted(drawn_in_part | set(record.get("partly_shown", ())))  # or named by hand
        if partly_shown:
            entries[record["image"]]["partly_shown"] = partly_shown
        labelled = {code for code, _ in boxes}
        in_view = record.get("cards_in_view", len(labelled | drawn_in_part))  # a drawn card: one code
        if in_view > len(labelled):
            entries[record["image"]]["cards_in_view"] = in_view
    path = out / f"labels-{part}.json"
    path.write_text(json.dumps(entries, indent=1, sort_keys=True) + "\n")
    return path


def make_dirs(out: Path, parts: Iterable[str]) -> None:
    for part in parts:
        for kind in ("images", "labels", "meta"):
            (out / kind / part).mkdir(parents=True, exist_ok=True)
