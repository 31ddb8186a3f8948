"""Benchmark the card reader: median time of CardReader.read on 640x640 photos.

Run: python bench/bench_reader.py [--model MODELS_DIR] [--repeats 40] [--expected N]
     [--photos DIR --labels FILE]   (other photos: the held-out designs' small print, say)
The photos are the shared real photos (``$CRIBCAM_SHARED/real-photos``) unless told. ``--repeats
N`` reads the first N of them once each, after one warm-up read: it counts photos, not repeats.
Target (2-core machine, issue 19): median at most 120 ms per 640x640 photo with onnxruntime,
finder, classifier and the rank reader where it is asked. Each photo is read with its own
number of cards given when it holds 3 to 6, as the photo page reads a hand (``cribcam eval
--count-given``), else without. ``--expected 5`` reads every photo as a five-card hand: most
of the first photos show one card, so each then takes the reader's closer look for the four it
cannot find, the slow path. Run it on an idle machine: a training run on the same cores halves it.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from pathlib import Path

import cv2

from cribcam.settings import default_real_photos
from cribcam.vision import CardReader
from cribcam.vision.evaluate import given_count, load_labels

PHOTOS = default_real_photos() / "images"
# The help of the options the benches that time the reader share (``bench_photos``).
PHOTOS_HELP = f"folder of .jpg photos with labels.json beside it (default {PHOTOS})"
COUNT_HELP = "how many photos: the first N of --photos, each read once (default 40)"


def bench_photos(folder: Path, count: int, expected: int | None = None, labels: Path | None = None) -> list[tuple]:
    """The first ``count`` photos of ``folder``, each with the count it is read with: its own
    when it holds 3 to 6 cards, as the photo page reads a hand (``expected`` for all, if given),
    as ``labels`` names them (``labels.json`` beside the folder by default). The benches that
    time the reader share this, so they read the same photos the same way."""
    paths = sorted(folder.glob("*.jpg"))[:count]
    if not paths:
        raise SystemExit(f"no .jpg photos in {folder}: pass --photos DIR, or set CRIBCAM_SHARED to the "
                         f"folder that holds real-photos/")
    try:
        labels = load_labels(labels or folder.parent / "labels.json")
    except ValueError as exc:
        raise SystemExit(f"{exc}: pass --labels FILE") from None
    return [(cv2.imread(str(p)), expected or given_count(labels[p.name]))
            for p in paths]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=None, help="a model folder (default: the bundled models)")
    parser.add_argument("--photos", type=Path, default=PHOTOS, help=PHOTOS_HELP)
    parser.add_argument("--labels", type=Path, help="their labels (default: labels.json beside the folder)")
    parser.add_argument("--repeats", type=int, default=40, metavar="N", help=COUNT_HELP)
    parser.add_argument("--expected", type=int, default=None,
                        help="read every photo with this many cards (default: its own count, when 3 to 6)")
    args = parser.parse_args()
    reader = CardReader(args.model)
    images = bench_photos(args.photos, args.repeats, args.expected, args.labels)
    reader.read(images[0][0])  # warm-up: the first run allocates onnxruntime's buffers
    times = []
    for image, expected in images:
        start = time.perf_counter()
        reader.read(image, expected=expected)
        times.append((time.perf_counter() - start) * 1000)
    shape = images[0][0].shape
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; "
          f"models {reader.folder} (finder input {reader.finder.imgsz}); photos {shape[1]}x{shape[0]}")
    print(f"CardReader.read: median {statistics.median(times):.1f} ms, "
          f"p90 {sorted(times)[int(0.9 * len(times)) - 1]:.1f} ms over {len(times)} photos")


if __name__ == "__main__":
    main()
