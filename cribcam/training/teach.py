"""Teaching cribcam a player's own deck: the bundled classifier fine-tuned on photos of it.

Only the index classifier learns: the finder already boxes the indices of designs it never
saw, and it is the glyphs of an unseen design that the classifier misreads. The steps:

1. **Find** the cards of each layout photo and 2. **name** them: ``cribcam.training.layout``.
3. **Teach**: a few minutes of ``train_classifier`` from the bundled weights, on crops of the
   player's indices mixed with a rehearsal of the training designs and photos
   (``cribcam.training.rehearsal``), so that the taught model still reads the decks it knew.
4. **Check**: the taught deck as the reader reads it (its model beside the bundled one,
   ``vision.classifier.DeckClassifier``) against the bundled model, on a corner of some cards
   held back from teaching and on rehearsal crops held back likewise; then the deck is saved
   in the user's data folder (``cribcam.vision.decks``), never over the bundled model.

Everything runs on this machine; no photo leaves it.
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

import cv2
import numpy as np

from cribcam.scoring.cards import CARD_CODES, RANKS
from cribcam.training.layout import LayoutPhoto, as_labels, check_names, missing_cards
from cribcam.training.rehearsal import REHEARSAL, load_rehearsal, rehearsal_crops, split_rehearsal
from cribcam.vision.decks import (LABELS_FILE, PHOTOS_DIR, RECORD_FILE, TEACH_MINUTES, DeckError, TaughtDeck,
                                  deck_folder)
from cribcam.vision.models import CLASSIFIER_FILE, MODELS_DIR

START_WEIGHTS = Path("checkpoints") / "classifier.pt"  # in the models folder, beside the ONNX files
STORED_SIDE = 1920  # teaching photos are kept at most this large (the reader reads no more)
# The taught deck reads the held-back rehearsal crops this much worse: it says so (on about
# 350 crops a share moves by 0.02 or so by chance alone).
FORGOT = 0.05


@dataclass
class Settings:
    """How a deck is taught.

    Attributes:
        minutes: training time, wall-clock (the whole teaching takes about half a minute more).
        batch: crops per step.
        lr: AdamW's peak learning rate, a tenth of the recipe's: the weights are good already,
            and at 1e-3 the taught model read the real validation photos worse (recall 0.47
            against 0.50 at 3e-4 and 0.53 untaught, 2026-11-23, bench/bench_teach.py).
        seed: random seed.
        held_back: share of the cards showing two corners of which one corner is held back
            from teaching, to measure the taught model on.
        shares: each batch's share of the player's crops ("player"), the rehearsal's crops of
            real photos, scenes and card art, and the negatives of both.
        frozen_statistics: keep the starting model's batch-norm statistics: a lesson's
            batches, a player's deck in a large share, shifted them for every deck, and the
            taught model read the others less surely (models/README.md, "Teaching a deck").
    """

    minutes: float = TEACH_MINUTES
    batch: int = 96
    lr: float = 3e-4
    seed: int = 0
    held_back: float = 0.2
    shares: dict = field(default_factory=lambda: {"player": 0.4, "real": 0.1, "synthetic": 0.15, "art": 0.1,
                                                  "negative": 0.25})
    frozen_statistics: bool = True


def teach(photos: list[LayoutPhoto], name: str, models: Path | None = None, settings: Settings | None = None,
          rehearsal: Path = REHEARSAL, progress: Callable[[str, float, float], None] | None = None,
          log: Callable[[str], None] = lambda line: None) -> TaughtDeck:
    """Teaches a deck from named layout photos and saves it under ``name``.

    Args:
        photos: layout photos whose cards are named (unnamed cards are left out).
        name: the deck's name (``cribcam.vision.decks.check_name``).
        models: the folder of the models to start from (``finder.onnx``, ``classifier.onnx``
            and ``checkpoints/classifier.pt``); the bundled ones by default.
        settings: how long and how to train (``Settings()`` by default).
        rehearsal: the rehearsal set of the training designs and photos.
        progress: called with (stage, seconds done, seconds in all) as teaching goes on.
        log: where lines for a log go.

    Returns:
        The taught deck; ``record["checks"]`` says how it reads the held-back crops.

    Raises:
        DeckError: a bad name, or a deck of that name exists already.
        ValueError: no card is named, or a name is no card.
        FileNotFoundError: the starting weights or the rehearsal set are missing.
    """
    from cribcam.training.classifier import export_classifier, train_classifier

    started = time.monotonic()
    settings = settings or Settings()
    report = progress or (lambda stage, done, total: None)
    folder = deck_folder(name)
    if folder.exists():
        raise DeckError(f"a deck named {name!r} exists already: remove it first (cribcam decks remove {name}) "
                        f"or choose another name")
    check_names(photos)
    models = Path(models) if models else MODELS_DIR
    weights = models / START_WEIGHTS
    if not weights.is_file():
        raise FileNotFoundError(f"no classifier weights to start from at {weights}: teaching fine-tunes them")
    labels = {k: v for k, v in as_labels(photos).items() if v["cards"]}
    if not labels:
        raise ValueError("no card is named: there is nothing to teach")

    report("preparing", 0.0, 0.0)
    work = folder.with_name(f".{name}.teaching")
    shutil.rmtree(work, ignore_errors=True)
    try:
        labels = _store_photos(photos, labels, work / PHOTOS_DIR)
        (work / LABELS_FILE).write_text(json.dumps(labels, indent=1) + "\n")
        bank, groups, held, known_held = _lesson(work / PHOTOS_DIR, labels, rehearsal, settings)
        log(f"teach {name}: {len(bank)} crops, {sum(len(v['cards']) for v in held.values())} corners "
            f"and {len(known_held)} rehearsal crops held back")
        budget = settings.minutes * 60
        train_classifier(bank, work / "classifier.pt", settings.minutes, settings.batch, settings.lr, settings.seed,
                         start_from=weights, log=log, save_every=budget + 60, shares=settings.shares,
                         groups=groups, frozen_statistics=settings.frozen_statistics,
                         on_step=lambda done, total: report("training", done, total))
        report("checking", 0.0, 0.0)
        export_classifier(work / "classifier.pt", work / CLASSIFIER_FILE)
        (work / "classifier.pt").unlink()
        checks = _checks(models / CLASSIFIER_FILE, work / CLASSIFIER_FILE, work / PHOTOS_DIR, held, known_held)
        record = {"name": name, "taught": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                  "photos": len(labels), "cards": sorted({c["card"] for v in labels.values() for c in v["cards"]},
                                                         key=CARD_CODES.index),
                  "missing": missing_cards(photos), "settings": asdict(settings),
                  "started_from": str(weights), "seconds": round(time.monotonic() - started, 1), "checks": checks}
        (work / RECORD_FILE).write_text(json.dumps(record, indent=1) + "\n")
        work.rename(folder)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    report("done", 1.0, 1.0)
    return TaughtDeck(name, folder, record)


def _lesson(photos: Path, labels: dict, rehearsal: Path, settings: Settings):
    """The crops to teach from: the player's indices but those held back, negatives from their
    photos, and the rehearsal set but a fifth of its indices; the crops by kind (the player's
    apart from the rehearsal's real ones); then the held-back labels and crops."""
    from cribcam.training.classifier import NO_INDEX, CropBank, bank_from_labelled_photos

    taught, held = _hold_back(labels, settings.held_back, settings.seed)
    player = bank_from_labelled_photos(photos, taught, settings.seed, negatives_per_index=0)
    every = bank_from_labelled_photos(photos, labels, settings.seed)
    negatives = every.rank == NO_INDEX  # drawn clear of every index, held-back ones too
    known, known_held = split_rehearsal(load_rehearsal(rehearsal), settings.seed)
    bank = CropBank.merge([player, CropBank(every.patches[negatives], every.rank[negatives], every.suit[negatives],
                                            every.real[negatives]), known])
    groups = bank.groups()
    groups["player"] = np.arange(len(player))  # merged first
    groups["real"] = np.setdiff1d(groups["real"], groups["player"])
    return bank, groups, held, known_held


def _store_photos(photos: list[LayoutPhoto], labels: dict, out: Path) -> dict:
    """Writes the named photos as JPEG (scaled down to ``STORED_SIDE``); their labels, scaled."""
    out.mkdir(parents=True, exist_ok=True)
    stored = {}
    for k, photo in enumerate(p for p in photos if p.name in labels):
        scale = min(1.0, STORED_SIDE / max(photo.image.shape[:2]))
        image = cv2.resize(photo.image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) \
            if scale < 1 else photo.image
        file = f"{k + 1:02d}-{Path(photo.name).stem[:40]}.jpg"
        cv2.imwrite(str(out / file), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        stored[file] = {"cards": [{"card": c["card"], "box": [round(v * scale, 1) for v in c["box"]]}
                                  for c in labels[photo.name]["cards"]], "subset": "taught"}
    return stored


def _hold_back(labels: dict, share: float, seed: int) -> tuple[dict, dict]:
    """Splits the labels: one corner of ``share`` of the cards showing two or more is held
    back; every card keeps a corner to learn from."""
    rng = np.random.default_rng(seed)
    taught, held = {}, {}
    for image, entry in labels.items():
        taught[image], held[image] = {"cards": []}, {"cards": []}
        by_card: dict[str, list[dict]] = {}
        for label in entry["cards"]:
            by_card.setdefault(label["card"], []).append(label)
        for card_labels in by_card.values():
            if len(card_labels) >= 2 and rng.random() < share:
                k = int(rng.integers(len(card_labels)))
                held[image]["cards"].append(card_labels[k])
                card_labels = card_labels[:k] + card_labels[k + 1:]
            taught[image]["cards"] += card_labels
    return taught, held


def _checks(default: Path, taught: Path, photos: Path, held: dict, known_held) -> dict:
    """Share of held-back crops read right by the bundled classifier and by the taught deck as
    the reader reads it (``DeckClassifier``): corners of the player's cards, and crops of the
    training designs and photos."""
    from cribcam.vision.classifier import DeckClassifier, IndexClassifier

    bundled = IndexClassifier(default)
    readers = {"default": bundled, "taught": DeckClassifier(IndexClassifier(taught), bundled)}
    checks = {}
    boxes = [(image, c["box"], c["card"]) for image, entry in held.items() for c in entry["cards"]]
    if boxes:
        checks["deck"] = {"crops": len(boxes), **{which: _accuracy_on_photos(classifier, photos, boxes)
                                                  for which, classifier in readers.items()}}
    crops = rehearsal_crops(known_held.patches)
    truth = known_held.suit * len(RANKS) + known_held.rank
    checks["training_designs"] = {"crops": len(crops), **{
        which: round(float((classifier.read_crops(crops).argmax(axis=1) == truth).mean()), 4)
        for which, classifier in readers.items()}}
    return checks


def _accuracy_on_photos(classifier, photos: Path, boxes: list[tuple[str, list, str]]) -> float:
    right = 0
    for image_name in sorted({b[0] for b in boxes}):
        image = cv2.imread(str(photos / image_name))
        mine = [b for b in boxes if b[0] == image_name]
        probabilities = classifier(image, np.array([b[1] for b in mine], np.float32))
        right += sum(CARD_CODES[int(p[:52].argmax())] == b[2] and p[:52].max() >= p[52]
                     for p, b in zip(probabilities, mine))
    return round(right / len(boxes), 4)


def check_sentences(checks: dict) -> list[str]:
    """What the checks after teaching mean, in words for the player."""
    lines = []
    deck = checks.get("deck")
    if deck:
        lines.append(f"corners held back from teaching ({deck['crops']}): the taught deck reads "
                     f"{deck['taught']:.0%}, the default {deck['default']:.0%}")
    else:
        lines.append("no corner was held back to measure on (no card showed two corners): "
                     "try the deck with cribcam read --deck")
    known = checks["training_designs"]
    lines.append(f"training designs and photos ({known['crops']} held-back crops): the taught deck reads "
                 f"{known['taught']:.0%}, the default {known['default']:.0%}")
    if known["taught"] < known["default"] - FORGOT:
        lines.append("warning: the taught deck reads the decks cribcam was trained on worse than the default: "
                     "use it for this deck only")
    return lines
