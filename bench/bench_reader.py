"""Benchmark the card reader: median time of CardReader.read on 640x640 photos.

Run: python bench/bench_reader.py [--model MODELS_DIR] [--repeats 40]
Target (2-core machine, issue 19): median at most 120 ms per 640x640 photo with onnxruntime,
finder, classifier and the rank reader where it is asked, read with the count given (5 cards)
as the photo page reads. Run it on an idle machine: a training run on the same cores halves it.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from pathlib import Path

import cv2

from cribcam.vision import CardReader

PHOTOS = Path(__file__).resolve().parents[1].parent / "shared" / "real-photos" / "images"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=None)
    parser.add_argument("--photos", type=Path, default=PHOTOS)
    parser.add_argument("--repeats", type=int, default=40)
    args = parser.parse_args()
    reader = CardReader(args.model)
    images = [cv2.imread(str(p)) for p in sorted(args.photos.glob("*.jpg"))[:args.repeats]]
    if not images:
        raise SystemExit(f"no .jpg photos in {args.photos}")
    reader.read(images[0])  # warm-up: the first run allocates onnxruntime's buffers
    times = []
    for image in images:
        start = time.perf_counter()
        reader.read(image, expected=5)
        times.append((time.perf_counter() - start) * 1000)
    shape = images[0].shape
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; "
          f"models {reader.folder} (finder input {reader.finder.imgsz}); photos {shape[1]}x{shape[0]}")
    print(f"CardReader.read: median {statistics.median(times):.1f} ms, "
          f"p90 {sorted(times)[int(0.9 * len(times)) - 1]:.1f} ms over {len(times)} photos")


if __name__ == "__main__":
    main()
