"""Measure the reader on photos labelled by rank alone, one box around each whole card.

An independent check on real photos that no training run has seen: EdjeElectronics'
TensorFlow-Object-Detection-API-Tutorial-Train-Multiple-Objects-Windows-10 (Apache-2.0) holds
363 phone photos of cards on carpets and tables, each card boxed whole and named by its rank
(nine to ace, Pascal VOC XML beside each photo in images/train and images/test). Put those
photos and their XML files in one folder; nothing of them is committed.

A card counts as read when a card of its rank is read inside its box; a card read inside a
box that another card already explains, or outside every box, is an extra card; a photo is
exact when each of its cards is read once, at its rank, and nothing else is read.

Run: python bench/rank_only_photos.py FOLDER [--count-given] [--model DIR]
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import cv2

from cribcam.vision import CardReader
from cribcam.vision.evaluate import COUNT_GIVEN

RANKS = {"nine": "9", "ten": "T", "jack": "J", "queen": "Q", "king": "K", "ace": "A"}
_OBJECT = re.compile(r"<name>(\w+)</name>.*?<xmin>(\d+)</xmin>\s*<ymin>(\d+)</ymin>\s*"
                     r"<xmax>(\d+)</xmax>\s*<ymax>(\d+)</ymax>", re.S)


def labels(xml: Path) -> list[tuple[str, tuple[float, ...]]]:
    """The (rank, whole-card box) labels of one Pascal VOC file."""
    return [(RANKS[name], tuple(map(float, box))) for name, *box in _OBJECT.findall(xml.read_text())]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="the photos, each with its Pascal VOC .xml beside it")
    parser.add_argument("--count-given", action="store_true",
                        help="read a photo of 3 to 6 cards with its number of cards")
    parser.add_argument("--model", type=Path, default=None, help="a model folder (default: the bundled models)")
    args = parser.parse_args()
    if not args.folder.is_dir():
        raise SystemExit(f"no such folder: {args.folder}")
    photos = sorted(p for p in args.folder.iterdir() if p.suffix.lower() == ".jpg" and p.with_suffix(".xml").exists())
    if not photos:
        raise SystemExit(f"no .jpg photos with their .xml labels in {args.folder}")
    reader = CardReader(args.model)
    cards = right = extra = exact = 0
    for photo in photos:
        truth = labels(photo.with_suffix(".xml"))
        expected = len(truth) if args.count_given and len(truth) in COUNT_GIVEN else None
        reading = reader.read(cv2.imread(str(photo)), expected=expected)
        explained, photo_right = set(), True
        for rank, (x1, y1, x2, y2) in truth:
            inside = [i for i, seen in enumerate(reading.cards)
                      if any(x1 <= (b[0] + b[2]) / 2 <= x2 and y1 <= (b[1] + b[3]) / 2 <= y2 for b in seen.boxes)]
            read = any(reading.cards[i].card[0] == rank for i in inside)
            cards += 1
            right += read
            photo_right &= read and len(inside) == 1
            extra += max(0, len(set(inside) - explained) - 1)
            explained.update(inside)
        extra += len(reading.cards) - len(explained)
        exact += photo_right and len(explained) == len(reading.cards)
    print(f"{len(photos)} photos, {cards} cards: rank recall {right / cards:.3f}, extra cards {extra}, "
          f"exact photos {exact} ({exact / len(photos):.3f})")


if __name__ == "__main__":
    main()
