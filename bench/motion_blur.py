"""How the reader holds up under motion blur: a labelled set read sharp and smeared.

Each photo is smeared along a line of ``--lengths`` pixels at a random angle (the same angles for
every model, from ``--seed``), as a hand-held camera or a moving hand smears a frame, and read
with its count given (``cribcam eval --count-given``). Prints recall / precision / exact hand per
subset and length. A measure of robustness, never a set to choose with: the smear is made up,
and the photos are the real validation photos by default.

Run: python bench/motion_blur.py [--model DIR] [--lengths 0 7 13]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np

from cribcam.datagen.augment import motion_kernel
from cribcam.vision import CardReader
from cribcam.vision.evaluate import evaluate, load_labels
from cribcam.vision.models import MODELS_DIR

REAL = MODELS_DIR.parent / "datasets" / "build" / "real"


def smeared_reader(reader: CardReader, length: int, seed: int):
    """``reader.read`` on each image smeared by a ``length``-pixel motion first (0: as it is);
    the n-th image read gets the n-th angle of ``seed``."""
    rng = np.random.default_rng(seed)

    def read(image, **kwargs):
        if length > 1:
            image = cv2.filter2D(image, -1, motion_kernel(rng, length))
        return reader.read(image, **kwargs)

    return read


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default=None, help="a model folder (default: the bundled models)")
    parser.add_argument("--images", type=Path, default=REAL / "images" / "val",
                        help="folder of the labelled photos (default: the real validation photos as "
                             "`cribcam data real --out datasets/build/real` builds them)")
    parser.add_argument("--labels", type=Path, default=REAL / "labels-val.json",
                        help="their labels (default: datasets/build/real/labels-val.json)")
    parser.add_argument("--lengths", type=int, nargs="+", default=[0, 7, 13], help="smear lengths, pixels")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)

    if args.labels == REAL / "labels-val.json" and not args.labels.is_file():
        raise SystemExit(f"no real photos built at {REAL}: run `cribcam data real --out {REAL}` first, "
                         f"or pass --images and --labels")
    try:
        labels = load_labels(args.labels)
    except ValueError as exc:
        raise SystemExit(str(exc)) from None
    reader = CardReader(args.model, threads=args.threads)
    print(f"{'smear':>5}  {'subset':24s} {'images':>6} {'recall':>7} {'precision':>9} {'exact':>6}")
    for length in args.lengths:
        result = evaluate(smeared_reader(reader, length, args.seed), args.images, labels, count_given=True)
        if len(result.unreadable) == len(labels):
            raise SystemExit(f"none of the photos {args.labels} labels could be read in {args.images}")
        for name, tally in [*result.subsets.items(), ("overall", result.overall)]:
            t = tally.as_dict()
            print(f"{length:>5}  {name:24s} {t['images']:>6} {_figure(t['recall']):>7} {_figure(t['precision']):>9} "
                  f"{_figure(t['exact_hand_rate']):>6}", flush=True)


def _figure(value: float | None) -> str:
    """A rate to three places, or "-" where it has nothing to be a rate of (no card labelled, none read)."""
    return "-" if value is None else f"{value:.3f}"


if __name__ == "__main__":
    main()
