"""Rank accuracy on ground-truth index boxes: the text recognizer alone, and with the classifier.

Reads every labelled index box of the real validation photos and of the held-out designs'
scenes (the finder left out, so that only the reading of a box is measured) with:

* the classifier alone (``IndexClassifier``, ranks summed over suits);
* the recognizer alone (``RankReader``: the likeliest of the 13 rank strings; a box too small
  to cut a line from counts as wrong);
* the two combined as the reader combines them (``with_rank_opinion``), rank and card;

once with the bundled recognizer (``models/rank_reader.onnx``: PP-OCRv6 small, already fine-tuned
here, run 6) and once with ``--model`` (another fine-tune, ``cribcam.training.rank_reader``; the
original PP-OCRv6 file for a zero-shot row). Nothing here chooses anything: these sets are for
measuring. The sets are built first: ``cribcam data real --out datasets/build/real`` and
``cribcam data build --out datasets/build/heldout --images 600 --seed 2 --split heldout``
(``--real`` and ``--heldout`` read them elsewhere).

Run: python bench/rank_reader_boxes.py --model runs/rank_reader/rank_reader.onnx
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import cv2
import numpy as np

from cribcam.scoring.cards import CARD_CODES, RANKS
from cribcam.vision.classifier import IndexClassifier
from cribcam.vision.models import CLASSIFIER_FILE, MODELS_DIR, RANK_READER_FILE
from cribcam.vision.rank_reader import RankReader, with_rank_opinion

BUILT = MODELS_DIR.parent / "datasets" / "build"
# Each set: the option naming its folder, its default, the part read, and how it is built.
SETS = {
    "real-val": ("real", BUILT / "real", "val", "cribcam data real --out {}"),
    "heldout": ("heldout", BUILT / "heldout", "test",
                "cribcam data build --out {} --images 600 --seed 2 --split heldout"),
}


def read_set(images: Path, labels: dict, classifier: IndexClassifier, readers: dict, limit: int | None = None):
    """Per box: the true card, the classifier's (53) probabilities, and each reader's (13)
    rank log-likelihoods."""
    truth, probabilities, likelihoods = [], [], {name: [] for name in readers}
    seconds = {name: 0.0 for name in readers}
    for name in sorted(labels)[:limit]:
        image = cv2.imread(str(images / name))
        cards = [c for c in labels[name]["cards"] if c.get("box") is not None]
        if image is None or not cards:
            continue
        boxes = np.array([c["box"] for c in cards], np.float64)
        truth += [c["card"] for c in cards]
        probabilities.append(classifier(image, boxes))
        for reader_name, reader in readers.items():
            started = time.perf_counter()
            likelihoods[reader_name].append(reader(image, boxes))
            seconds[reader_name] += time.perf_counter() - started
    return (truth, np.concatenate(probabilities), {k: np.concatenate(v) for k, v in likelihoods.items()}, seconds)


def measure(truth: list[str], probabilities: np.ndarray, likelihoods: np.ndarray) -> dict:
    """Rank accuracy of the recognizer alone and combined, and card accuracy combined."""
    ranks = np.array([RANKS.index(card[0]) for card in truth])
    cards = np.array([CARD_CODES.index(card) for card in truth])
    alone = np.where(np.isfinite(likelihoods).all(axis=1), likelihoods.argmax(axis=1), -1)
    combined = with_rank_opinion(probabilities, lambda asked: likelihoods[asked])
    return {"recognizer_rank": float((alone == ranks).mean()),
            "combined_rank": float((_ranks(combined) == ranks).mean()),
            "combined_card": float((combined[:, :52].argmax(axis=1) == cards).mean())}


def _ranks(probabilities: np.ndarray) -> np.ndarray:
    """The likeliest rank of each box: card probabilities summed over suits (rank fastest)."""
    return probabilities[:, :52].reshape(-1, 4, 13).sum(axis=1).argmax(axis=1)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", required=True, help="the rank reader ONNX to compare with the bundled one")
    for option, default, part, _ in SETS.values():
        parser.add_argument(f"--{option}", type=Path, default=default,
                            help=f"the {option} set as built: its images/{part} and labels-{part}.json "
                                 f"(default {default})")
    parser.add_argument("--classifier", default=str(MODELS_DIR / CLASSIFIER_FILE))
    parser.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--limit", type=int, default=None, help="only the first N images of each set (a quick check)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    for option, path in (("--model", args.model), ("--classifier", args.classifier)):
        if not Path(path).is_file():
            raise SystemExit(f"{option} {path}: no such file")
    sets = {}
    for set_name in args.sets:
        option, _, part, command = SETS[set_name]
        folder = getattr(args, option)
        labels_path = folder / f"labels-{part}.json"
        if not labels_path.is_file():
            raise SystemExit(f"no {set_name} set built at {folder}: run `{command.format(folder)}` first, "
                             f"or pass --{option} DIR")
        sets[set_name] = folder / "images" / part, json.loads(labels_path.read_text())
    classifier = IndexClassifier(Path(args.classifier), threads=args.threads)
    readers = {"bundled": RankReader(MODELS_DIR / RANK_READER_FILE, threads=args.threads),
               "--model": RankReader(Path(args.model), threads=args.threads)}
    results = {}
    for set_name, (images, labels) in sets.items():
        truth, probabilities, likelihoods, seconds = read_set(images, labels, classifier, readers, args.limit)
        ranks = np.array([RANKS.index(card[0]) for card in truth])
        cards = np.array([CARD_CODES.index(card) for card in truth])
        results[set_name] = {"boxes": len(truth),
                             "classifier_rank": float((_ranks(probabilities) == ranks).mean()),
                             "classifier_card": float((probabilities[:, :52].argmax(axis=1) == cards).mean())}
        for reader_name in readers:
            results[set_name][reader_name] = measure(truth, probabilities, likelihoods[reader_name])
            results[set_name][reader_name]["ms_per_box"] = 1000 * seconds[reader_name] / max(1, len(truth))
    if args.json:
        print(json.dumps(results, indent=1))
        return
    for set_name, result in results.items():
        print(f"{set_name}: {result['boxes']} boxes; classifier alone: rank {result['classifier_rank']:.4f}, "
              f"card {result['classifier_card']:.4f}")
        for reader_name in readers:
            r = result[reader_name]
            print(f"  {reader_name:10s} recognizer rank {r['recognizer_rank']:.4f} | combined rank "
                  f"{r['combined_rank']:.4f} card {r['combined_card']:.4f} | {r['ms_per_box']:.0f} ms a box")


if __name__ == "__main__":
    main()
