"""Teaching cribcam a player's own deck: heads of its own on the bundled classifier's features.

Only the reading of indices learns: the finder already boxes the indices of designs it never
saw, and it is the glyphs of an unseen design that the classifier misreads. The bundled
classifier's trunk is kept as it is and answers the features of every crop; a taught deck is
a rank head and a suit head fitted on them (``cribcam.teach.heads``), in numpy, so the
base install teaches in well under a minute with no torch. Rank and suit apart, as the
bundled heads. A deck that prints its own letters ("B", "V", "H" for the jack, queen, king)
teaches them to the text recognizer's reading too, which reads them on every suit; the rank
head learns them on the suits it is shown. The steps:

1. **Find** the cards of each layout photo and 2. **name** them: ``cribcam.teach.layout_photos``.
3. **Teach**: the strings the deck prints for its ranks, as the pretrained text recognizer
   reads them on the named indices (``cribcam.teach.alphabet``): a letter learnt on one
   suit reads on every suit. Then augmented crops of the player's indices beside the
   rehearsal of the training designs and photos (``cribcam.teach.rehearsal``), so that
   the taught heads still read the decks the bundled model knew; each crop read by the
   bundled model for its features (as it is and turned half round, as the reader reads it),
   then both heads fitted.
4. **Check and choose**: the taught deck as the reader reads it
   (``vision.classifier.DeckClassifier``) against the bundled model, on the index corners held
   back from teaching (a quarter of the photos, when there are ``HOLD_PHOTOS`` or more; else a
   corner of some cards; photos also turned and smaller, as a hand shows its cards), with both
   heads taught, the rank head alone, the suit head alone and neither: the deck keeps a head
   only where those cards show it earns its place (``_choose``), so a lesson never leaves a deck
   reading worse than untaught where it can tell. The rehearsal
   crops held back say whether the other decks still read as before. Then the deck is saved in
   the user's data folder (``cribcam.vision.decks``), never over the bundled model.

Everything runs on this machine; no photo leaves it.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from cribcam.scoring.cards import CARD_CODES, RANKS, SUIT_NAMES, SUITS
from cribcam.scoring.spoken import counted
from cribcam.teach.alphabet import (
    LetterQuestion,
    check_stated,
    chosen_texts,
    learn_texts,
    letter_questions,
    likeliest_texts,
)
from cribcam.teach.heads import fit_softmax, standardise
from cribcam.teach.layout_photos import LayoutPhoto, as_labels, check_names, missing_cards
from cribcam.teach.rehearsal import REHEARSAL, load_rehearsal, rehearsal_crops, split_rehearsal
from cribcam.vision import CardReader
from cribcam.vision.classifier import DeckClassifier, IndexClassifier, heads_from_cards
from cribcam.vision.decks import (
    HEADS_FILE,
    LABELS_FILE,
    PHOTOS_DIR,
    RECORD_FILE,
    DeckError,
    TaughtDeck,
    deck_folder,
    lettering,
)
from cribcam.vision.evaluate import given_count
from cribcam.vision.models import ModelMissingError, model_files, rank_reader_file
from cribcam.vision.rank_reader import RankReader

STORED_SIDE = 1920  # teaching photos are kept at most this large (the reader reads no more)
# The taught deck reads the held-back rehearsal crops this much worse: it says so (on about
# 350 crops a share moves by 0.02 or so by chance alone).
FORGOT = 0.05
CHUNK = 256  # crops read for their features between two progress reports
# With this many named photos or more, whole photos are held back to check the lesson on (a
# card's other corner, held back from a photo taught, reads too much like the one taught).
HOLD_PHOTOS = 5
# A held-back photo is read as it is and as a hand photo shows its cards, (scale, degrees
# anticlockwise): turned any way, and at a half to a third of the size a photo of one card or a
# few gives them. A lesson from single cards read its held-back singles as well as cribcam
# untaught every way it was taught (all ties, so no lesson was ever kept), while in drawn hands
# of the same decks it read some decks far better and others worse; read so, the held-back singles
# tell them apart (bench/teach_singles_to_hands.py; models/HISTORY.md, "Teaching for hands").
HAND_VIEWS = ((1.0, 0.0), (0.8, 35.0), (0.5, -20.0), (0.35, 60.0))
# Under this many cards (or corners) held back, the check cannot tell what a lesson is worth (one
# card read otherwise moves its share by a fifth or more): it is said so, and the deck keeps none
# of the lesson's heads, only the letters it learnt. Keeping the part that read those few best
# read drawn hands worse than untaught on 4 of 5 lettered decks taught from 2 cards a suit, and on
# 2 of 5 from 1 (bench/teach_singles_to_hands.py --per-suit; models/HISTORY.md, "Teaching for hands").
FEW_CHECKED = 5
# The parts of a lesson a deck may keep (``_choose``), by the taught heads they keep.
PARTS = {"neither": (), "suits": ("suit",), "ranks": ("rank",), "ranks and suits": ("rank", "suit")}
# A suit head taught on some suits learns that cards are of those suits: taught from the hearts and
# clubs of five drawn lettered decks, it read their diamonds and spades in drawn hands worse than
# without it on every deck (recall 0.03 to 0.11 lower, with the rank head or without), where its
# held-back cards, hearts and clubs too, could not show it (models/HISTORY.md, "Teaching for hands").
SUIT_HEAD_NEEDS = set(SUITS)
# Held-back cards read with a head and without often differ by a reading either way by chance (the
# same lesson taught twice). Measured on drawn hands: a rank head taught on every rank read them
# better than without it on all five lettered decks (recall 0.03 to 0.14 higher, precision too)
# while their held-back singles read it within a reading of without, either way; the gold-on-black
# deck's real photos read the same with it in five splits. So a lesson that showed every rank keeps
# its rank head unless the cards held back read it worse by more than this many readings
# (models/HISTORY.md, "Teaching for hands").
CHECK_SLACK = 1
# A suit head is for suits the reader does not know (a German-suited deck's acorns and bells), which
# it reads better on most cards held back, not by a reading or two: in one of the gold-on-black
# deck's five splits a suit head kept for two readings more of 36 read the rest of its photos worse.
# So it is kept only where the cards held back read it better by more than this share of their readings.
SUIT_HEAD_MARGIN = 0.1


@dataclass
class Settings:
    """How a deck is taught.

    Attributes:
        copies: augmented crops of each of the player's indices.
        negative_copies: augmented crops of each negative of the player's photos.
        rehearsal_copies: augmented crops of each rehearsal patch.
        player_share: the player's indices' share of the loss.
        negative_share: the negatives' share (the player's and the rehearsal's), about the
            bundled training's (0.28); the rehearsal's indices have the rest. With the
            negatives in the rehearsal's share alone, taught decks read more pips and court
            art as cards (models/README.md, "Teaching a deck").
        steps: Adam steps of each head's fit.
        decay: the heads' L2 penalty (their weights and bias): less lets a lesson move the
            other decks' answers more, more takes a lettered deck's gain away (models/HISTORY.md,
            "Teaching measured, 2026-11-25").
        seed: random seed.
        held_back: share of the photos held back from teaching to measure the taught deck on
            (with ``HOLD_PHOTOS`` photos or more); with fewer, share of the cards showing two
            corners of which one corner is held back.
    """

    copies: int = 12
    negative_copies: int = 2
    rehearsal_copies: int = 1
    player_share: float = 0.4
    negative_share: float = 0.25
    steps: int = 300
    decay: float = 0.03
    seed: int = 0
    held_back: float = 0.25


def teaching_unavailable(models: Path | None = None, rehearsal: Path = REHEARSAL) -> str | None:
    """Why a deck cannot be taught with these models, in words, or None when it can.

    Teaching needs the bundled classifier to answer its features (models exported since) and
    the rehearsal set beside it; nothing else beyond the base install.
    """
    try:
        classifier = model_files(models)[1]
    except ModelMissingError as exc:
        return str(exc)
    if not Path(rehearsal).is_file():
        return f"no rehearsal set at {rehearsal}: it ships with the models (models/rehearsal.npz)"
    try:
        answers_features = IndexClassifier(classifier, threads=1).has_features
    except Exception as exc:  # a damaged model file
        return f"the card classifier {classifier} cannot be loaded: {exc}"
    if not answers_features:
        return (f"the card classifier {classifier} answers no features to teach on: it was exported before "
                f"teaching needed them; export it again (cribcam.training.classifier.export_classifier)")
    return None


def teach(photos: list[LayoutPhoto], name: str, models: Path | None = None, settings: Settings | None = None,
          rehearsal: Path = REHEARSAL, progress: Callable[[str, float, float], None] | None = None,
          log: Callable[[str], None] = lambda line: None, letters: dict[str, str] | None = None) -> TaughtDeck:
    """Teaches a deck from named layout photos and saves it under ``name``.

    Args:
        photos: layout photos whose cards are named (unnamed cards are left out).
        name: the deck's name (``cribcam.vision.decks.check_name``).
        models: the folder of the models to teach on (its ``classifier.onnx``); the bundled
            ones by default.
        settings: how to teach (``Settings()`` by default).
        rehearsal: the rehearsal set of the training designs and photos.
        progress: called with (stage, seconds done, seconds in all, as far as can be told)
            as teaching goes on.
        log: where lines for a log go.
        letters: what the deck prints for some ranks, as the player said (``{"Q": "V"}``): kept,
            not learnt (``letters_to_confirm`` asks).

    Returns:
        The taught deck; ``record["checks"]`` says how it reads the held-back crops.

    Raises:
        DeckError: a bad name, or a deck of that name exists already.
        ValueError: no card is named, a name is no card, a letter stated is none a deck prints
            (``alphabet.check_stated``), or the models cannot be taught on (``teaching_unavailable``:
            the classifier or the rehearsal set missing, say).
    """
    started = time.monotonic()
    settings = settings or Settings()
    report = progress or (lambda stage, done, total: None)
    folder = deck_folder(name)
    if folder.exists():
        raise DeckError(f"a deck named {name!r} exists already: remove it first (cribcam decks remove {name}) "
                        f"or choose another name")
    check_names(photos)
    why_not = teaching_unavailable(models, rehearsal)
    if why_not:
        raise ValueError(why_not)
    labels = {k: v for k, v in as_labels(photos).items() if v["cards"]}
    if not labels:
        raise ValueError("no card is named: there is nothing to teach")

    report("preparing", 0.0, 0.0)
    # Its own reader, freed with what it held once taught: the classifier's buffers grow to the
    # lesson's batches, and a server's reader would keep them (bench/server_memory.py: +100 MB).
    # Its finder finds the pips and art to reject; its classifier is taught on; the lesson's
    # variants are read on its models (``_choose``).
    reader = CardReader(models)
    if letters:
        letters = check_stated(letters)
    bundled = reader.classifier
    work = folder.with_name(f".{name}.teaching")
    shutil.rmtree(work, ignore_errors=True)
    try:
        labels = _store_photos(photos, labels, work / PHOTOS_DIR)
        (work / LABELS_FILE).write_text(json.dumps(labels, indent=1) + "\n")
        lesson, held, known_held = _lesson(work / PHOTOS_DIR, labels, rehearsal, settings,
                                           lambda image: reader.find(image, closer=True).xyxy)
        log(f"teach {name}: {len(lesson['crops'])} crops, {sum(len(v['cards']) for v in held.values())} corners "
            f"and {len(known_held)} rehearsal crops held back")
        cards, features = _features(bundled, lesson["crops"], started, report)
        texts = learn_texts(reader.rank_reader, work / PHOTOS_DIR, labels, letters) if reader.rank_reader \
            else chosen_texts({}, letters)
        _fit_heads(cards, features, lesson, settings, bundled.fingerprint(), texts, work / HEADS_FILE)
        report("checking", 0.0, 0.0)
        kept, on_held = _choose(reader, work / HEADS_FILE, work / PHOTOS_DIR, held,
                                {c["card"] for entry in labels.values() for c in entry["cards"]})
        checks = _checks(bundled, work / HEADS_FILE, held, kept, on_held, known_held)
        record = {"name": name, "taught": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                  "photos": len(labels), "cards": sorted({c["card"] for v in labels.values() for c in v["cards"]},
                                                         key=CARD_CODES.index),
                  "missing": missing_cards(photos), "ranks_shown_on": _ranks_shown_on(labels),
                  "rank_texts": dict(zip(RANKS, texts)), "kept": kept,
                  "settings": asdict(settings), "taught_on": str(bundled.path),
                  "seconds": round(time.monotonic() - started, 1), "checks": checks}
        (work / RECORD_FILE).write_text(json.dumps(record, indent=1) + "\n")
        work.rename(folder)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    report("done", 1.0, 1.0)
    return TaughtDeck(name, folder, record)


def _lesson(photos: Path, labels: dict, rehearsal: Path, settings: Settings, find):
    """The crops to teach from, augmented: the player's indices but those held back, negatives
    from the photos taught (what the finder boxes there clear of every index, the pips and
    court art the deck's own reading must reject, and places drawn at random), and the
    rehearsal set but a fifth of its indices; each crop's rank, suit and weight in the loss.
    Then the held-back labels and rehearsal crops."""
    from cribcam.teach.crop_bank import (
        NO_INDEX,
        CropBank,
        augment,
        bank_from_finder_mistakes,
        bank_from_labelled_photos,
    )

    rng = np.random.default_rng(settings.seed)
    taught, held = _hold_back(labels, settings.held_back, settings.seed)
    lesson_photos = {image: labels[image] for image, entry in taught.items() if entry["cards"]}
    player = bank_from_labelled_photos(photos, taught, settings.seed, negatives_per_index=0)
    every = bank_from_labelled_photos(photos, lesson_photos, settings.seed)
    drawn = every.rank == NO_INDEX  # drawn clear of every index, held-back ones too
    negatives = CropBank.merge([
        bank_from_finder_mistakes(find, None, "", photos, lesson_photos),
        CropBank(every.patches[drawn], every.rank[drawn], every.suit[drawn], every.real[drawn])])
    known, known_held = split_rehearsal(load_rehearsal(rehearsal), settings.seed)
    parts = [(player.patches, player.rank, player.suit, settings.copies, True),
             (negatives.patches, negatives.rank, negatives.suit, settings.negative_copies, False),
             (known.patches, known.rank, known.suit, settings.rehearsal_copies, False)]
    crops, rank, suit, mine = [], [], [], []
    for patches, ranks, suits, copies, players in parts:
        if not len(patches) or not copies:
            continue
        crops.append(augment(rng, np.repeat(patches, copies, axis=0)))
        rank.append(np.repeat(ranks, copies))
        suit.append(np.repeat(suits, copies))
        mine.append(np.full(len(patches) * copies, players))
    rank, mine = np.concatenate(rank), np.concatenate(mine)
    negative = rank == NO_INDEX
    known_index = ~mine & ~negative
    weight = np.select([mine, negative], [settings.player_share / max(mine.sum(), 1),
                                          settings.negative_share / max(negative.sum(), 1)],
                       (1 - settings.player_share - settings.negative_share) / max(known_index.sum(), 1))
    return {"crops": np.concatenate(crops), "rank": rank, "suit": np.concatenate(suit), "weight": weight}, \
        held, known_held


def _features(bundled: IndexClassifier, crops: np.ndarray, started: float, report,
              clock: Callable[[], float] = time.monotonic) -> tuple[np.ndarray, np.ndarray]:
    """The bundled model's (2, n, 53) probabilities and (2, n, F) features of the crops both
    ways up, read in chunks; progress in seconds since ``started``, the whole estimated from
    the pace of the chunks read so far (not of the preparing before them, which would make
    the first estimates many times too long)."""
    cards, features = [], []
    reading_since = clock()
    for i in range(0, len(crops), CHUNK):
        answers = bundled.read_with_features(crops[i:i + CHUNK])
        cards.append(answers[0])
        features.append(answers[1])
        now, read = clock(), min(i + CHUNK, len(crops))
        left = (now - reading_since) * (len(crops) - read) / read
        report("training", now - started, now - started + left)
    return np.concatenate(cards, axis=1), np.concatenate(features, axis=1)


def _fit_heads(cards: np.ndarray, features: np.ndarray, lesson: dict, settings: Settings, fingerprint: str,
               texts: tuple[str, ...], out: Path) -> None:
    """Fits the rank head's correction on every crop and the suit head's on the indices (both
    ways up, each with the crop's labels), and writes them and the deck's rank texts as
    ``TaughtHeads`` reads them."""
    from cribcam.teach.crop_bank import NO_INDEX

    x = features.reshape(-1, features.shape[-1])
    rank_prior, suit_prior = heads_from_cards(cards.reshape(-1, cards.shape[-1]))
    rank, suit, weight = (np.tile(lesson[k], 2) for k in ("rank", "suit", "weight"))
    mean, scale = standardise(x)
    z = ((x - mean) / scale).astype(np.float32)
    index = rank != NO_INDEX
    # The rank head's correction is fitted on the features with the suits' mean directions taken
    # out, so that it cannot read a letter by the suit beside it: a lesson of hearts and clubs
    # otherwise taught the Dutch queen's V as a queen beside a heart or a club, and read it as an
    # ace beside a spade (models/HISTORY.md, "A taught rank head blind to the suit").
    suits = suit_directions(z[index], suit[index])
    rank_weights, rank_bias = fit_softmax(z - (z @ suits) @ suits.T, rank, weight, rank_prior, settings.decay,
                                          settings.steps)
    rank_weights -= suits @ (suits.T @ rank_weights)  # the same map on z as on z with its suits taken out
    suit_weights, suit_bias = fit_softmax(z[index], suit[index], weight[index], suit_prior[index], settings.decay,
                                          settings.steps)
    np.savez(out, mean=mean, scale=scale, rank_weights=rank_weights, rank_bias=rank_bias,
             suit_weights=suit_weights, suit_bias=suit_bias, classifier=fingerprint,
             texts=np.array(texts))


def suit_directions(z: np.ndarray, suit: np.ndarray) -> np.ndarray:
    """(F, k) orthonormal directions along which the mean features of each suit in ``suit`` differ
    (k at most one fewer than the suits)."""
    means = np.stack([z[suit == s].mean(axis=0) for s in np.unique(suit)])
    _, singular, directions = np.linalg.svd(means - means.mean(axis=0), full_matrices=False)
    return directions[singular > 1e-6 * singular.max(initial=0.0)].T.astype(np.float32)


def _ranks_shown_on(labels: dict) -> dict:
    """Each rank taught and the suits it was shown on: a rank shown on some suits reads on all."""
    shown: dict[str, set] = {}
    for entry in labels.values():
        for label in entry["cards"]:
            shown.setdefault(label["card"][0], set()).add(label["card"][1])
    return {rank: "".join(s for s in SUITS if s in shown[rank]) for rank in RANKS if rank in shown}


def letters_to_confirm(photos: list[LayoutPhoto], models: Path | None = None,
                       stated: dict[str, str] | None = None) -> list[LetterQuestion]:
    """The ranks whose printed letter the player should confirm before the deck is taught
    (``alphabet.letter_questions``), but those whose letter the player ``stated``; none where no
    text recognizer is installed. Reads each rank's named indices: a second or two."""
    path = rank_reader_file(models)
    labels = {k: v for k, v in as_labels(photos).items() if v["cards"]}
    if path is None or not labels:
        return []
    with tempfile.TemporaryDirectory(prefix="cribcam-letters-") as folder:
        stored = _store_photos(photos, labels, Path(folder))
        likeliest = likeliest_texts(RankReader(path), Path(folder), stored)
    return [q for q in letter_questions(likeliest) if q.rank not in (stated or {})]


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
    """Splits the labels into those taught and those held back to check on: ``share`` of the
    photos, when there are ``HOLD_PHOTOS`` or more (each card taught keeps every corner);
    else one corner of ``share`` of the cards showing two or more (each keeps a corner)."""
    rng = np.random.default_rng(seed)
    if len(labels) >= HOLD_PHOTOS:
        names = sorted(labels)
        held_photos = set(rng.choice(names, max(1, round(share * len(names))), replace=False))
        return ({image: entry if image not in held_photos else {"cards": []} for image, entry in labels.items()},
                {image: entry if image in held_photos else {"cards": []} for image, entry in labels.items()})
    taught, held = {}, {}
    could = []  # (image, a corner) of every card showing two corners or more
    for image, entry in labels.items():
        taught[image], held[image] = {"cards": []}, {"cards": []}
        by_card: dict[str, list[dict]] = {}
        for label in entry["cards"]:
            by_card.setdefault(label["card"], []).append(label)
        for card_labels in by_card.values():
            if len(card_labels) >= 2:
                could.append((image, card_labels[0]))
                if rng.random() < share:
                    k = int(rng.integers(len(card_labels)))
                    held[image]["cards"].append(card_labels[k])
                    card_labels = card_labels[:k] + card_labels[k + 1:]
            taught[image]["cards"] += card_labels
    if could and not any(entry["cards"] for entry in held.values()):
        # The draw held nothing back though it could: one corner checked says little (and the
        # check says so), but it is not "nothing to check on".
        image, corner = could[int(rng.integers(len(could)))]
        taught[image]["cards"].remove(corner)
        held[image]["cards"].append(corner)
    return taught, held


def _choose(reader: CardReader, heads: Path, photos: Path, held: dict, shown: set[str]) -> tuple[str, dict]:
    """Keeps the part of the lesson (``PARTS``) that the cards held back show earns its place,
    and rewrites ``heads`` with the others' corrections set to nothing (their reading the bundled one). The
    rank head is kept where it reads better, or, from a lesson that showed every rank (``shown``,
    its cards), unless it reads worse by more than ``CHECK_SLACK``; the suit head, beside it or
    alone, only from a lesson that showed every suit (``SUIT_HEAD_NEEDS``) and where it reads
    better by more than ``SUIT_HEAD_MARGIN`` of the readings.

    Photos held back are read as the photo page reads them (``_read_photos``): the cards they
    show read right, less the cards read that they do not show. Corners held back (too few
    photos to hold one back) are read as index crops (``_read_corners``). Under ``FEW_CHECKED``
    checked, none is kept. Returns what was kept and each part's share of the held-back cards
    (or corners) read right; no figures when nothing was held back."""
    boxes = [(image, c["box"], c["card"]) for image, entry in held.items() for c in entry["cards"]]
    if not boxes:
        _keep(heads, "neither")
        return "neither", {}
    variants = {part: heads.with_name(f"{part.replace(' ', '-')}.npz") for part in PARTS}
    for part, variant in variants.items():
        _keep(heads, part, variant)
    if len(held) >= HOLD_PHOTOS:
        read = {part: _read_photos(reader.with_deck(variant), photos, held) for part, variant in variants.items()}
    else:
        read = _read_corners({part: DeckClassifier(variant, reader.classifier) for part, variant in variants.items()},
                             photos, boxes)
    score = {part: read[part][1] for part in PARTS}
    if {card[0] for card in shown} >= set(RANKS):
        ranks = score["ranks"] >= score["neither"] - CHECK_SLACK
    else:
        ranks = score["ranks"] > score["neither"]
    best, with_suits = ("ranks", "ranks and suits") if ranks else ("neither", "suits")
    readings = _checked(held) * _views(held)
    if {card[-1] for card in shown} >= SUIT_HEAD_NEEDS \
            and score[with_suits] > score[best] + SUIT_HEAD_MARGIN * readings:
        best = with_suits
    if _checked(held) < FEW_CHECKED:
        best = "neither"  # too few to tell: the lesson has not earned its place
    variants[best].replace(heads)
    for variant in variants.values():
        variant.unlink(missing_ok=True)
    return best, {part: share for part, (share, _) in read.items()}


def _checked(held: dict) -> int:
    """How many cards the held-back photos show (or, with too few photos to hold one back, how
    many corners are held back)."""
    if len(held) >= HOLD_PHOTOS:
        return sum(len({c["card"] for c in entry["cards"]}) for entry in held.values())
    return sum(len(entry["cards"]) for entry in held.values())


def _views(held: dict) -> int:
    """How many ways each card held back is read: every one of ``HAND_VIEWS`` in whole photos,
    once as a corner."""
    return len(HAND_VIEWS) if len(held) >= HOLD_PHOTOS else 1


def _keep(heads: Path, part: str, out: Path | None = None) -> None:
    """Writes ``heads`` (to ``out``, or over itself) with the corrections of the heads ``part``
    does not keep (``PARTS``) set to nothing."""
    with np.load(heads) as saved:
        taught = dict(saved)
    np.savez(out or heads, **_keeping(taught, PARTS[part]))


def _read_photos(reader: CardReader, photos: Path, held: dict) -> tuple[float, int]:
    """The share of the held-back photos' cards read right, each photo read in every one of
    ``HAND_VIEWS`` with its count, as the photo page reads a hand; and those cards less the cards
    read wrong (not in the photo)."""
    right = wrong = shown = 0
    for name, entry in held.items():
        if not entry["cards"]:
            continue
        labelled = {c["card"] for c in entry["cards"]}
        image = cv2.imread(str(photos / name))
        for scale, degrees in HAND_VIEWS:
            read = set(reader.read(as_in_a_hand(image, scale, degrees), expected=given_count(entry)).codes)
            right, wrong, shown = right + len(read & labelled), wrong + len(read - labelled), shown + len(labelled)
    return round(right / shown, 4), right - wrong


def as_in_a_hand(image: np.ndarray, scale: float, degrees: float) -> np.ndarray:
    """``image`` turned ``degrees`` anticlockwise about its middle and shrunk to ``scale``, in a
    frame of its own size filled with the colour of its edge (the table's, mostly)."""
    if scale == 1.0 and degrees == 0.0:
        return image
    height, width = image.shape[:2]
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)  # as a camera sees it
    turn = cv2.getRotationMatrix2D((small.shape[1] / 2, small.shape[0] / 2), degrees, 1.0)
    turn[:, 2] += ((width - small.shape[1]) / 2, (height - small.shape[0]) / 2)
    edge = np.concatenate([image[0], image[-1], image[:, 0], image[:, -1]])
    return cv2.warpAffine(small, turn, (width, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                          borderValue=[float(v) for v in np.median(edge, axis=0)])


def _read_corners(classifiers: dict, photos: Path, boxes: list[tuple[str, list, str]]) -> dict:
    """For each classifier: the share of the labelled index ``boxes`` whose likeliest card is
    the labelled one (not "no index"), and how many those are."""
    read = {which: _on_photos(classifier, photos, boxes) for which, classifier in classifiers.items()}
    return {which: (round(float(right.mean()), 4), int(right.sum())) for which, right in read.items()}


def _keeping(heads: dict, kept: tuple[str, ...]) -> dict:
    """A heads file's arrays with the corrections of the heads not ``kept`` set to nothing."""
    out = dict(heads)
    for head in ("rank", "suit"):
        if head not in kept:
            out[f"{head}_weights"] = np.zeros_like(heads[f"{head}_weights"])
            out[f"{head}_bias"] = np.zeros_like(heads[f"{head}_bias"])
    return out


def _checks(bundled: IndexClassifier, heads: Path, held: dict, kept: str, on_held: dict, known_held) -> dict:
    """What the deck as kept reads right against the bundled classifier: the cards of the photos
    held back, or the corners (``_choose`` measured them), and held-back crops of the training
    designs and photos, read as the reader reads them (``DeckClassifier``)."""
    checks = {}
    if on_held:
        photos = len(held) >= HOLD_PHOTOS  # whole photos held back: their cards; else corners
        checks["deck"] = {"crops": _checked(held),
                          "held_back": "photos" if photos else "corners",
                          "photos": sum(bool(entry["cards"]) for entry in held.values()),
                          "views": _views(held),
                          "default": on_held["neither"], "taught": on_held[kept], "parts": on_held}
    readers = {"default": bundled, "taught": DeckClassifier(heads, bundled)}
    crops = rehearsal_crops(known_held.patches)
    truth = known_held.suit * len(RANKS) + known_held.rank
    checks["training_designs"] = {"crops": len(crops), **{
        which: round(float((classifier.read_crops(crops).argmax(axis=1) == truth).mean()), 4)
        for which, classifier in readers.items()}}
    return checks


def _on_photos(classifier, photos: Path, boxes: list[tuple[str, list, str]]) -> np.ndarray:
    """For each labelled box: whether its likeliest card is the labelled one (not "no index")."""
    right = []
    for image_name in sorted({b[0] for b in boxes}):
        image = cv2.imread(str(photos / image_name))
        mine = [b for b in boxes if b[0] == image_name]
        probabilities = classifier(image, np.array([b[1] for b in mine], np.float32))
        for p, b in zip(probabilities, mine):
            right.append(int(p[:52].argmax()) == CARD_CODES.index(b[2]) and p[:52].max() >= p[52])
    return np.array(right, bool)


def reads_better(record: dict) -> bool:
    """Whether the lesson measured better than cribcam untaught on the cards held back from it,
    on enough of them to tell (``FEW_CHECKED``): only then is the deck offered as the one to
    read with by default (the teach page makes it the browser's deck). A deck that read no
    better, or was not measured, is kept and may be chosen, never pressed on the player."""
    deck = record["checks"].get("deck")
    return bool(deck) and deck["crops"] >= FEW_CHECKED and deck["taught"] > deck["default"]


def taught_sentences(record: dict) -> list[str]:
    """What a deck's teaching found, in words for the player: the deck's lettering, then the
    checks after teaching (``deck.json``'s record)."""
    lines = [lettering(record), *check_sentences(record["checks"], record.get("kept", "ranks and suits"))]
    missing = [SUIT_NAMES[suit] for suit in SUITS if not any(card.endswith(suit) for card in record["cards"])]
    if missing:  # so the suit head was not kept (SUIT_HEAD_NEEDS)
        lines.append(f"it learnt nothing of its suits: it was shown no {' or '.join(missing)}; teach it a few "
                     f"cards of every suit to read its suits better")
    return lines


def check_sentences(checks: dict, kept: str = "ranks and suits") -> list[str]:
    """What the checks after teaching mean, in words for the player."""
    lines = []
    deck = checks.get("deck")
    if deck:
        cards, views = deck["crops"], deck.get("views", 1)  # decks taught before views were read once
        photos = deck.get("held_back") == "photos"
        what = f"{counted(cards, 'card')} in {counted(deck['photos'], 'photo')}" if photos else \
            counted(cards, "card corner")
        readings = cards * views
        taught, untaught = round(deck["taught"] * readings), round(deck["default"] * readings)
        checked = f"checked on {what} held back from the lesson"
        if views > 1:
            checked += (f", each read as it is and {views - 1} ways a hand shows it (turned, smaller): your deck "
                        f"now reads {taught} of {readings} readings right, cribcam untaught {untaught}")
        else:
            checked += f": your deck now reads {taught} right, cribcam untaught {untaught}"
        if cards < FEW_CHECKED:
            checked += ("; too few to tell what the lesson is worth: more photos, or more cards in each, "
                        "check it better" if photos else
                        f"; too few to tell what the lesson is worth: teach from {HOLD_PHOTOS} photos or more "
                        f"to check it on whole photos held back")
        lines.append(checked)
        if cards < FEW_CHECKED and kept == "neither":
            lines.append(TOO_FEW_SAID)
        elif "rank" in PARTS[kept] and deck["taught"] < deck["default"]:  # kept within CHECK_SLACK
            lines.append(RANKS_KEPT_WITHIN_CHANCE)
        else:
            lines.append(KEPT_SAID[kept])
    else:
        lines.append(f"no corner was held back to measure on (no card showed two corners); {TOO_FEW_SAID}")
    known = checks["training_designs"]
    if known["taught"] < known["default"] - FORGOT:
        lines.append(f"warning: the taught deck reads the decks cribcam was trained on worse than the default "
                     f"({known['taught']:.0%} of {known['crops']} held-back corners, {known['default']:.0%} "
                     f"untaught): use it for this deck only")
    else:
        lines.append(f"the usual decks still read as before ({known['taught']:.0%} of {known['crops']} held-back "
                     f"corners of them, {known['default']:.0%} untaught)")
    return lines


# What a deck keeps of a lesson checked on too few cards to tell what it is worth (``_choose``).
# A quarter of the photos is held back, and 5 cards must be: 20 photos of one card, or 8 of three.
TOO_FEW_SAID = ("so the deck keeps only the letters it learnt, and otherwise reads as cribcam does untaught; "
                "teach it again from more photos (20 of one card each, or 8 of three cards or more) to let it "
                "keep more")
# A rank head kept though the cards held back read it a reading worse (``CHECK_SLACK``).
RANKS_KEPT_WITHIN_CHANCE = ("it keeps what it learnt of the ranks all the same: one card more or less is "
                            "within chance on so few, and decks taught every rank have read hands better with "
                            "it")
# What a deck kept of its lesson (``_choose``), in the player's words.
KEPT_SAID = {
    "ranks and suits": "it keeps what it learnt of both ranks and suits",
    "ranks": "it keeps what it learnt of the ranks; its suits read as cribcam read them untaught, which was "
             "as good on the cards held back",
    "suits": "it keeps what it learnt of the suits; its ranks read as cribcam read them untaught, which was "
             "as good on the cards held back",
    "neither": "the lesson read the cards held back no better than cribcam does untaught: the deck reads as "
               "cribcam does (and as its letters say)",
}
