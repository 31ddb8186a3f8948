"""Measure the pip count (``vision.pips``) on 6s and 9s: right, not counted, or the other rank.

The count settles a card of the play whose two corners read a 6 and a 9 at once
(``live.laid``), so what matters most is that it never counts a 6 as a 9 or a 9 as a 6; where
it cannot count, the surer reading stands as before.

- Rendered cards: the 6 and 9 of each suit of every design (``--split``: train, heldout or
  all), laid in rows as ``datagen.play_clips`` lays them at two and at four players' tables,
  as the play's frames are taken (1280 wide; the scene rendered square), each card turned
  ``--angle`` degrees (and a few more at random, as a hand lays it); the index corners as
  labelled.
- Real photos: the real photos of one 6 or 9, both its corners labelled
  (``datasets/build/real``, as ``cribcam data real`` builds it; both parts).

Run: python bench/pip_count.py [--split all] [--angle 0 ...] [--real DIR]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from cribcam.datagen import play_clips
from cribcam.datagen.assets import make_assets
from cribcam.datagen.card_art import load_decks
from cribcam.datagen.clips import FILL
from cribcam.datagen.layouts import Item, Layout, card_extent
from cribcam.live.play import FRAME_SIZE
from cribcam.vision.pips import count_pips

REAL = Path(__file__).resolve().parents[1] / "datasets" / "build" / "real"
CODES = ["9D", "6D", "9S", "6S", "9H", "6H", "9C", "6C"]
TABLES = (("Ann", "Bob"), ("Ann", "Bob", "Cat", "Dan"))


def verdict(code: str, pips: int | None) -> str:
    rank = int(code[0])
    if pips == rank:
        return "right"
    return "other rank" if pips in (6, 9) else "not counted"


def rendered(deck, angle: float) -> Counter:
    """The verdicts on one design's 6s and 9s at both tables."""
    assets = make_assets([deck], 3, n_surfaces=1)
    prepared = assets.decks[0]
    aspect = prepared.height / prepared.width
    verdicts: Counter = Counter()
    for players in TABLES:
        spec = play_clips.PlaySpec(players=players, seed=3, width=FRAME_SIZE[0], height=FRAME_SIZE[1])
        rng = np.random.default_rng(len(players))
        places = play_clips.all_places(spec)
        items = [Item("card", x + rng.normal(0, 0.04), y + rng.normal(0, 0.04), angle + rng.normal(0, 4), code, "table")
                 for (x, y), code in zip(places, CODES)]
        x0, y0, x1, y1 = card_extent(Layout("play", [Item("card", x, y, 0.0, "AS", "table") for x, y in places],
                                            None, aspect))
        card_px = FILL * min(spec.width / (x1 - x0), spec.height / (y1 - y0))
        camera = play_clips.look_at(((x0 + x1) / 2, (y0 + y1) / 2), card_px, tilt=8.0, azimuth=0.0, roll=0.0,
                                    size=spec.width)
        scene = play_clips.compose(np.random.default_rng(1), Layout("play", items, None, aspect), camera, prepared,
                                   assets, {"name": "plain"}, photographic=False)
        for code in CODES:
            boxes = [label.box for label in scene.labels if label.code == code]
            verdicts[verdict(code, count_pips(scene.image, boxes)) if len(boxes) == 2 else "corner hidden"] += 1
    return verdicts


def real(folder: Path) -> Counter:
    verdicts: Counter = Counter()
    for part in ("train", "val"):
        labels = json.loads((folder / f"labels-{part}.json").read_text())
        for name, entry in labels.items():
            codes = {card["card"] for card in entry["cards"]}
            if len(codes) != 1 or len(entry["cards"]) != 2 or next(iter(codes))[0] not in "69":
                continue
            image = cv2.imread(str(folder / "images" / part / name))
            if image is not None:
                code = codes.pop()
                verdicts[verdict(code, count_pips(image, [card["box"] for card in entry["cards"]]))] += 1
    return verdicts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", choices=("train", "heldout", "all"), default="all")
    parser.add_argument("--angle", type=float, nargs="+", default=[0.0])
    parser.add_argument("--real", type=Path, default=REAL, help="a real set as `cribcam data real` builds it")
    args = parser.parse_args()
    decks = load_decks(split=None if args.split == "all" else args.split, progress=False)
    for split in ("train", "heldout"):
        chosen = [deck for deck in decks if deck.split == split]
        for angle in args.angle if chosen else []:
            total = sum((rendered(deck, angle) for deck in chosen), Counter())
            print(f"rendered, {split} designs ({len(chosen)}), turned {angle:g} degrees: {dict(total)}")
    if (args.real / "labels-train.json").is_file():
        print(f"real photos of one 6 or 9 ({args.real}): {dict(real(args.real))}")
    else:
        print(f"no real set in {args.real}: build it with `cribcam data real --out {args.real}`")


if __name__ == "__main__":
    main()
