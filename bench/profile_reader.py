"""Where a photo's read goes: `CardReader.read` timed by stage on the bench's photos.

The stages: the finder's passes (each look and tile, letterboxing included), the classifier
(cropping and its tilted looks included), the rank reader (likewise), and the rest (scaling
the photo, merging the looks, the decision), each as the mean milliseconds
a photo and the calls a photo, over the same photos read as `bench_reader.py` reads them (each
with its count when it holds 3 to 6 cards). Run it on an idle machine.

Run: python bench/profile_reader.py [--model DIR] [--repeats 40] [--rounds 2]
"""

from __future__ import annotations

import argparse
import collections
import os
import time
from pathlib import Path

from bench_reader import COUNT_HELP, PHOTOS, PHOTOS_HELP, bench_photos  # a sibling in bench/

from cribcam.vision import CardReader


def timed(totals: dict, counts: dict, stage: str, function):
    """``function`` wrapped to add its time to ``totals[stage]`` and a call to ``counts``."""
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            totals[stage] += time.perf_counter() - start
            counts[stage] += 1
    return wrapper


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=None, help="a model folder (default: the bundled models)")
    parser.add_argument("--photos", type=Path, default=PHOTOS, help=PHOTOS_HELP)
    parser.add_argument("--repeats", type=int, default=40, metavar="N", help=COUNT_HELP)
    parser.add_argument("--rounds", type=int, default=2, help="times the photos are read (the first warms up)")
    args = parser.parse_args()
    reader = CardReader(args.model)
    photos = bench_photos(args.photos, args.repeats)
    totals, counts = collections.defaultdict(float), collections.defaultdict(int)
    # During a read each is only called: a timed function stands in for the object.
    reader.finder._find = timed(totals, counts, "finder pass", reader.finder._find)
    reader.classifier = timed(totals, counts, "classifier", reader.classifier)
    if reader.rank_reader is not None:
        reader.rank_reader = timed(totals, counts, "rank reader", reader.rank_reader)
    for _ in range(args.rounds):
        totals.clear()
        counts.clear()
        start = time.perf_counter()
        for image, expected in photos:
            reader.read(image, expected=expected)
        whole = time.perf_counter() - start
    n = len(photos)
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; {n} photos, the last of {args.rounds} rounds")
    print(f"{'stage':<14}{'ms a photo':>12}{'calls a photo':>15}")
    for stage in ("finder pass", "classifier", "rank reader"):
        print(f"{stage:<14}{totals[stage] / n * 1000:>12.1f}{counts[stage] / n:>15.2f}")
    rest = whole - sum(totals.values())
    print(f"{'the rest':<14}{rest / n * 1000:>12.1f}")
    print(f"{'read':<14}{whole / n * 1000:>12.1f}")


if __name__ == "__main__":
    main()
