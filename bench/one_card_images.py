"""Measure the reader on images of one card each, filed in folders named for the card.

An independent check on deck designs that no training run has seen: the "Cards Image
Dataset" copy in hiroonwijekoon/pytorch-cnn-playing-cards-classifier holds, in
`dataset/test` and `dataset/valid`, 265 + 265 images of 224 x 224 pixels, one card each, of
many deck designs gathered from the web, in folders named "ace of clubs" ... "king of spades"
and "joker". Its licence could not be established (the repository has no licence file and
the Kaggle page it names cannot be reached from the project's machines), so it is used only
to measure: never trained on, never committed.

Each image is read as a photo of one card is read, without a count. An image is right when
its card, and nothing else, is read; a joker is right when nothing is read. Per card, recall
is the share of cards read among what was read, precision the share of cards read that are
the image's.

Run: python bench/one_card_images.py FOLDER [FOLDER ...] [--model DIR]
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

import cv2

from cribcam.scoring.cards import RANK_NAMES, SUIT_NAMES
from cribcam.vision import CardReader


def card_of(folder_name: str) -> str | None:
    """The card code a folder is named for ("ace of clubs" -> "AC"); None for the joker."""
    if folder_name.strip().lower() == "joker":
        return None
    rank, _, suit = folder_name.strip().lower().partition(" of ")
    ranks = {name: code for code, name in RANK_NAMES.items()}
    suits = {name: code for code, name in SUIT_NAMES.items()}
    return ranks[rank] + suits[suit]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", type=Path, nargs="+", help="folders of card-named folders of images")
    parser.add_argument("--model", type=Path, default=None)
    args = parser.parse_args()
    reader = CardReader(args.model)
    outcome, cards, right, read_cards = Counter(), 0, 0, 0
    for root in args.folders:
        for folder in sorted(p for p in root.iterdir() if p.is_dir()):
            truth = card_of(folder.name)
            for image in sorted(folder.glob("*.jpg")):
                read = [seen.card for seen in reader.read(cv2.imread(str(image))).cards]
                read_cards += len(read)
                cards += truth is not None
                right += truth in read
                if read == ([truth] if truth else []):
                    outcome["right"] += 1
                elif not read:
                    outcome["nothing read"] += 1
                elif truth in read:
                    outcome["its card and more"] += 1
                else:
                    outcome["read wrong"] += 1
    images = sum(outcome.values())
    if not images:
        raise SystemExit(f"no card-named folders of .jpg images in {', '.join(map(str, args.folders))}")
    print(f"{images} images, {cards} cards: recall {right / cards:.3f}, precision "
          f"{right / max(read_cards, 1):.3f}; " + ", ".join(f"{k} {v} ({v / images:.3f})" for k, v in outcome.most_common()))


if __name__ == "__main__":
    main()
