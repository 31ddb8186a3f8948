"""Teaching cribcam a player's own deck: the bundled classifier fine-tuned on photos of it.

Only the index classifier learns: the finder already boxes the indices of designs it never
saw, and it is the glyphs of an unseen design that the classifier misreads. The steps:

1. **Find** the cards of each layout photo: the finder's boxes, grouped into cards by
   ``group_corners`` (the two, or four, printed corners of one card).
2. **Name** them: by the stated layout (``cribcam.vision.decks.LAYOUT``), by a labels file, or by the current
   reader's proposals confirmed or fixed on the teach page.
3. **Teach**: a few minutes of ``train_classifier`` from the bundled weights, on crops of the
   player's indices mixed with a rehearsal of the training designs and photos (``models/rehearsal.npz``,
   see ``make_rehearsal``), so that the taught model still reads the decks it knew.
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

from cribcam.scoring.cards import CARD_CODES, RANKS, SUIT_NAMES, SUITS
from cribcam.vision.corners import CORNER_PAIR_SPAN
from cribcam.vision.crops import CROP_SIZE, MARGIN, crop_square, index_crop, to_blob
from cribcam.vision.decks import (LABELS_FILE, PHOTOS_DIR, RECORD_FILE, TEACH_MINUTES, DeckError, TaughtDeck,
                                  deck_folder)
from cribcam.vision.detections import holds
from cribcam.vision.models import CLASSIFIER_FILE, MODELS_DIR, onnx_session

REHEARSAL = MODELS_DIR / "rehearsal.npz"
START_WEIGHTS = Path("checkpoints") / "classifier.pt"  # in the models folder, beside the ONNX files
# A card's corner boxes lie this many box sizes apart (wider than the reader's, which must
# tell corners of neighbouring cards in a hand apart; large indices on small cards come to 1.9).
TEACH_SPAN = (1.5, CORNER_PAIR_SPAN[1])
STEP_TOLERANCE = 0.4  # box sizes by which the corner-to-corner steps of two cards may differ
NO_INDEX_CEILING = 0.5  # ... unless the classifier is this sure it is no index
SIZE_SPREAD = 1.6  # a box this many times larger or smaller than the photo's typical one is no index
TEACH_FINDER_SCORE = 0.3  # a finder box this sure is an index; pips and court art score less
PROPOSAL_FLOOR = 0.25  # a proposal less sure than this is no proposal: the player names it
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


@dataclass
class FoundCard:
    """One card of a layout photo.

    Attributes:
        boxes: its index boxes ``[x1, y1, x2, y2]`` in the photo's pixels.
        name: the card it will be taught as, or None while it has no name.
        proposal: what the current reader reads there (None: it cannot tell).
        confidence: how sure the current reader is of ``proposal``.
    """

    boxes: list[list[float]]
    name: str | None = None
    proposal: str | None = None
    confidence: float = 0.0

    @property
    def centre(self) -> np.ndarray:
        boxes = np.asarray(self.boxes, np.float64)
        return (boxes[:, :2] + boxes[:, 2:]).mean(axis=0) / 2


@dataclass
class LayoutPhoto:
    """A teaching photo, its cards, and what is wrong with it in words.

    Attributes:
        name: the photo's file name.
        image: BGR uint8.
        cards: its cards, in reading order.
        problems: sentences for the player ("holds 12 of the 13 clubs: 8C is missing").
    """

    name: str
    image: np.ndarray = field(repr=False)
    cards: list[FoundCard] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def as_json(self) -> dict:
        return {"name": self.name, "width": int(self.image.shape[1]), "height": int(self.image.shape[0]),
                "cards": [asdict(card) for card in self.cards], "problems": self.problems}


# --- finding the cards --------------------------------------------------------------------

def find_cards(reader, image: np.ndarray) -> list[FoundCard]:
    """The cards of a layout photo, in reading order, each with the current reader's proposal.

    Args:
        reader: a ``CardReader`` (its finder boxes the indices, its classifier proposes names).
        image: BGR uint8.
    """
    found, finder_score, no_index = reader.detect(image)
    # Pips and court art the finder boxes too: the classifier knows them for no index, and
    # every index of one deck in one photo is about the same size.
    keep = no_index < NO_INDEX_CEILING
    sizes = np.maximum(found.xyxy[:, 2] - found.xyxy[:, 0], found.xyxy[:, 3] - found.xyxy[:, 1])
    sure = keep & (finder_score >= TEACH_FINDER_SCORE)
    if sure.any():
        typical = float(np.median(sizes[sure]))
        keep &= (sizes >= typical / SIZE_SPREAD) & (sizes <= typical * SIZE_SPREAD)
    keep = _distinct(found.xyxy, finder_score, keep)
    boxes, scores, finder_score = found.xyxy[keep], found.scores[keep], finder_score[keep]
    # A box the finder is unsure of counts when it pairs with another as a card's corners.
    groups = [g for g in group_corners(image, boxes) if len(g) > 1 or finder_score[g[0]] >= TEACH_FINDER_SCORE]
    groups = _without_inner(groups, boxes)
    cards = [FoundCard([[round(float(v), 1) for v in boxes[i]] for i in group]) for group in groups]
    _propose(cards, [scores[group].sum(axis=0) / len(group) for group in groups])
    return reading_order(cards)


def _distinct(boxes: np.ndarray, score: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Of the boxes kept, one per printed index: the finder's surest, not one whose centre
    lies in a surer box, or that holds the centre of one (a box of the rank alone, say)."""
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    chosen: list[int] = []
    for i in np.flatnonzero(keep)[np.argsort(-score[keep], kind="stable")]:
        if not any(holds(boxes[k], centres[i])[0] or holds(boxes[i], centres[k])[0] for k in chosen):
            chosen.append(int(i))
    return np.array(sorted(chosen), dtype=int)


def _without_inner(groups: list[list[int]], boxes: np.ndarray) -> list[list[int]]:
    """The groups but those lying within another card (its corners' span and half an index
    around): pips and court art. A neighbour's corner lies an index and more beyond."""
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    reach = 0.5 * float(np.median(np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]))) \
        if len(boxes) else 0.0
    spans = [(k, centres[g].min(axis=0) - reach, centres[g].max(axis=0) + reach)
             for k, g in enumerate(groups) if len(g) > 1]
    return [g for k, g in enumerate(groups)
            if not any(other != k and ((low < centres[g]) & (centres[g] < high)).all() for other, low, high in spans)]


def group_corners(image: np.ndarray, boxes: np.ndarray) -> list[list[int]]:
    """Which index boxes are printed corners of one card, in a photo of cards lying apart.

    Every card of a layout photo lies the same way up, so the step from a card's top-left
    index to its bottom-right one (in index sizes) is about the same for each card, and only
    chance pairs of neighbours share another step as often. Opposite corners print the same
    index turned half round, which tells them from other pairs: a pair counts for its step by
    how alike its two crops are with one turned. So:

    1. the step that most alike pairs share (the shorter of equals) is taken, and boxes are
       paired along it, most alike first;
    2. decks printing four corners: alike pairs about the centre of a card found are its
       other diagonal;
    3. boxes left that lie about one step apart in pixels are paired too (a corner in shade,
       half hidden, or boxed larger than the others);
    4. a box left over is a card with one corner in view.

    Returns:
        Lists of box indices, one per card.
    """
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    sizes = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]).astype(np.float64)
    grey = [cv2.cvtColor(index_crop(image, box), cv2.COLOR_BGR2GRAY).astype(np.float32) for box in boxes]
    free = set(range(len(boxes)))

    def candidates() -> list[tuple[int, int, np.ndarray, float]]:
        """Pairs of free boxes a card's corners apart: (i, j, step, likeness)."""
        return [(i, j, _step(centres, sizes, i, j), _turned_likeness(grey[i], grey[j]))
                for i in sorted(free) for j in sorted(free)
                if i < j and TEACH_SPAN[0] <= _span(centres, sizes, i, j) <= TEACH_SPAN[1]]

    def take(chosen) -> list[list[int]]:
        taken = []
        for i, j, *_ in chosen:
            if i in free and j in free:
                free.difference_update((i, j))
                taken.append([i, j])
        return taken

    first = _best_step(candidates())
    if first is None:
        return [[i] for i in sorted(free)]
    pairs = take(sorted((c for c in candidates() if np.linalg.norm(c[2] - first) <= STEP_TOLERANCE
                         and c[3] > 0.5), key=lambda c: -c[3]))
    middles = [centres[pair].mean(axis=0) for pair in pairs]
    pairs += take(sorted((c for c in candidates() if c[3] > 0.5 and any(
        np.linalg.norm(centres[[c[0], c[1]]].mean(axis=0) - m) < sizes[c[0]] for m in middles)), key=lambda c: -c[3]))
    # In pixels: a box drawn larger or smaller than the index changes the step in box sizes.
    usual = np.median([_step(centres, np.ones(len(boxes)), *pair) for pair in pairs[:len(middles)]], axis=0)

    def off(c) -> float:
        return float(np.linalg.norm(_step(centres, np.ones(len(boxes)), c[0], c[1]) - usual))

    pairs += take(sorted((c for c in candidates() if off(c) <= 0.25 * np.linalg.norm(usual)), key=off))
    return _merge_about_centres(pairs, centres, sizes) + [[i] for i in sorted(free)]


def _best_step(candidates: list[tuple[int, int, np.ndarray, float]]) -> np.ndarray | None:
    """The corner-to-corner step that the most alike pairs share, or None when no pair is alike."""
    if not candidates:
        return None
    steps = np.array([c[2] for c in candidates])
    weight = np.array([2 * c[3] - 1 for c in candidates]).clip(0, 1)  # turned glyphs near 1, others 0
    near = np.linalg.norm(steps[:, None] - steps[None], axis=2) <= STEP_TOLERANCE
    support = (near * weight[None]).sum(axis=1) - 0.01 * np.linalg.norm(steps, axis=1)
    best = int(support.argmax())
    return steps[best] if support[best] > 0 else None


def _span(centres: np.ndarray, sizes: np.ndarray, i: int, j: int) -> float:
    return float(np.linalg.norm(centres[i] - centres[j]) / max((sizes[i] + sizes[j]) / 2, 1e-6))


def _step(centres: np.ndarray, sizes: np.ndarray, i: int, j: int) -> np.ndarray:
    """The step from one box to the other in box sizes, pointing rightwards (either order)."""
    step = (centres[j] - centres[i]) / max((sizes[i] + sizes[j]) / 2, 1e-6)
    return -step if step[0] < 0 or (step[0] == 0 and step[1] < 0) else step


def _turned_likeness(a: np.ndarray, b: np.ndarray) -> float:
    """Normalised correlation of crop ``a`` with crop ``b`` turned half round (-1 to 1)."""
    b = b[::-1, ::-1]
    a, b = a - a.mean(), b - b.mean()
    return float((a * b).sum() / max(np.sqrt((a * a).sum() * (b * b).sum()), 1e-6))


def _merge_about_centres(pairs: list[list[int]], centres: np.ndarray, sizes: np.ndarray) -> list[list[int]]:
    """Pairs whose midpoints are within a box size of each other: the diagonals of one card."""
    cards: list[list[int]] = []
    middles: list[np.ndarray] = []
    for pair in pairs:
        middle = centres[pair].mean(axis=0)
        for k, other in enumerate(middles):
            if np.linalg.norm(middle - other) < sizes[pair].mean() and len(cards[k]) < 4:
                cards[k] += pair
                break
        else:
            cards.append(list(pair))
            middles.append(middle)
    return cards


def _propose(cards: list[FoundCard], probabilities: list[np.ndarray]) -> None:
    """Gives each card the current reader's likeliest name, no name to two cards."""
    taken: set[int] = set()
    order = sorted(range(len(cards)), key=lambda k: -float(probabilities[k].max()))
    for k in order:
        ranked = [int(c) for c in np.argsort(-probabilities[k]) if int(c) not in taken]
        best = ranked[0] if ranked else None
        if best is not None and probabilities[k][best] >= PROPOSAL_FLOOR:
            taken.add(best)
            cards[k].proposal, cards[k].confidence = CARD_CODES[best], round(float(probabilities[k][best]), 3)


def reading_order(cards: list[FoundCard]) -> list[FoundCard]:
    """The cards in rows top to bottom, each row left to right.

    A new row starts where a card's centre lies lower than the row's by more than half a card.
    """
    if not cards:
        return []
    centres = card_centres(cards)
    reach = _card_reach(cards)
    rows: list[list[int]] = []
    for k in np.argsort(centres[:, 1], kind="stable"):
        if rows and centres[k, 1] - centres[rows[-1], 1].mean() < reach / 2:
            rows[-1].append(int(k))
        else:
            rows.append([int(k)])
    return [cards[k] for row in rows for k in sorted(row, key=lambda k: centres[k, 0])]


def card_centres(cards: list[FoundCard]) -> np.ndarray:
    """(n, 2) card centres: the middle of a card's corners, and for a card with one corner in
    view, half the usual corner-to-corner step away from it, on whichever side lies closer
    to the other cards' rows and columns."""
    centres = np.array([card.centre for card in cards])
    steps = [_pair_step(card) for card in cards if len(card.boxes) >= 2]
    if not steps:
        return centres
    half = np.median(steps, axis=0) / 2
    placed = centres[[len(card.boxes) >= 2 for card in cards]]
    for k, card in enumerate(cards):
        if len(card.boxes) == 1:
            options = [centres[k] + half, centres[k] - half]
            centres[k] = min(options, key=lambda c: np.abs(placed - c).min(axis=0).sum())
    return centres


def _pair_step(card: FoundCard) -> np.ndarray:
    """The step between a card's first two corners in pixels, pointing rightwards."""
    a, b = (np.add(box[:2], box[2:]) / 2 for box in card.boxes[:2])
    step = b - a
    return -step if step[0] < 0 or (step[0] == 0 and step[1] < 0) else step


def _card_reach(cards: list[FoundCard]) -> float:
    """About a card's height in pixels: the median distance between a card's corner boxes."""
    spans = [np.linalg.norm(_pair_step(card)) for card in cards if len(card.boxes) >= 2]
    if spans:
        return float(np.median(spans))
    return 6.0 * float(np.median([b[3] - b[1] for c in cards for b in c.boxes]))


# --- naming them --------------------------------------------------------------------------

def suit_names(suits: str | None, photos: int) -> str:
    """The suit of each photo of the ordered layout: ``suits`` ("CDHS" by default), checked.

    Raises:
        ValueError: a letter is no suit, a suit is named twice, or there are more photos
            than suits.
    """
    suits = (suits or SUITS[:photos]).upper()
    if any(s not in SUITS for s in suits) or len(set(suits)) != len(suits):
        raise ValueError(f"name each photo's suit once, as letters of CDHS (clubs, diamonds, hearts, spades), "
                         f"not {suits!r}")
    if photos > len(SUITS):
        raise ValueError(f"{photos} photos: the layout takes one suit per photo, four at most")
    if len(suits) != photos:
        raise ValueError(f"{photos} photos but {len(suits)} suits named ({suits}): one suit per photo")
    return suits


def name_in_order(photo: LayoutPhoto, suit: str) -> None:
    """Names the photo's cards ace to king of ``suit`` in reading order (the stated ``LAYOUT``).

    A gap in a row wider than the others stands for a card not found; when the cards and gaps
    make thirteen the missing ones are named in ``photo.problems``, and otherwise nothing is
    named, as any name might be one off.
    """
    rows = _rows_with_gaps(photo.cards)
    slots = [card for row in rows for card in row]  # None where a gap stands for a card
    suit_name = SUIT_NAMES[suit]
    found = sum(card is not None for card in slots)
    if len(slots) != len(RANKS):
        if len(slots) > len(RANKS):
            photo.problems.append(f"{photo.name}: {found} cards found in rows that hold {len(slots)}, but a suit "
                                  f"has 13: lay out only the {suit_name}, ace to king, in even rows, and "
                                  f"photograph them again")
        else:
            photo.problems.append(f"{photo.name}: {found} of the 13 {suit_name} found and it cannot tell which "
                                  f"{'is' if len(RANKS) - found == 1 else 'are'} missing: show both corners of "
                                  f"every card and photograph them again, or name the cards on the teach page")
        for card in photo.cards:
            card.name = None
        return
    missing = []
    for rank, card in zip(RANKS, slots):
        if card is None:
            missing.append(f"{rank}{suit}")
        else:
            card.name = f"{rank}{suit}"
    if missing:
        photo.problems.append(f"{photo.name}: {_listing(missing)} of the {suit_name} not found: "
                              f"{'it is' if len(missing) == 1 else 'they are'} not taught from this photo")


def _rows_with_gaps(cards: list[FoundCard]) -> list[list[FoundCard | None]]:
    """The cards (in reading order) as rows, with None where a row has a gap for a card."""
    if not cards:
        return []
    x = card_centres(cards)[:, 0]
    rows: list[list[int]] = [[0]]
    for k in range(1, len(cards)):
        if x[k] > x[rows[-1][-1]]:
            rows[-1].append(k)
        else:
            rows.append([k])
    steps = [x[b] - x[a] for row in rows for a, b in zip(row, row[1:])]
    pitch = float(np.median(steps)) if steps else _card_reach(cards)
    out = []
    for row in rows:
        filled: list[FoundCard | None] = [cards[row[0]]]
        for a, b in zip(row, row[1:]):
            filled += [None] * max(0, round((x[b] - x[a]) / pitch) - 1)
            filled.append(cards[b])
        out.append(filled)
    return out


def name_by_proposals(photo: LayoutPhoto) -> None:
    """Names each card as the current reader proposes; those it cannot read are said."""
    unnamed = []
    for card in photo.cards:
        card.name = card.proposal
        if card.proposal is None:
            unnamed.append(card)
    if unnamed:
        places = _listing([_place(card, photo.image) for card in unnamed])
        photo.problems.append(f"{photo.name}: the card{'s' if len(unnamed) > 1 else ''} {places} could not be "
                              f"read: name {'them' if len(unnamed) > 1 else 'it'} on the teach page or in --labels")


def name_by_labels(photo: LayoutPhoto, entry: dict, reader) -> None:
    """Takes the cards and boxes of a labels entry as they are, and says which of them the
    finder does not find (they are taught, but reading them will need a clearer photo)."""
    by_card: dict[str, list[list[float]]] = {}
    for label in entry.get("cards", []):
        code = str(label.get("card", "")).upper()
        box = label.get("box")
        if code not in CARD_CODES or not (isinstance(box, list) and len(box) == 4):
            raise ValueError(f"{photo.name}: {label!r} is not a label: expected "
                             '{"card": "TC", "box": [x1, y1, x2, y2]}')
        by_card.setdefault(code, []).append([float(v) for v in box])
    photo.cards = reading_order([FoundCard(boxes, name=code)
                                 for code, boxes in by_card.items()])
    unseen = _unfound(photo, reader.find(photo.image).xyxy)
    if unseen:
        photo.problems.append(f"{photo.name}: the finder does not see the index of {_listing(unseen)}: "
                              f"taught all the same, but photograph them more clearly to read them")


def _unfound(photo: LayoutPhoto, found: np.ndarray) -> list[str]:
    """The named cards of which no index box overlaps a box found (IoU 0.5, as ``cribcam eval``)."""
    from cribcam.vision.detections import box_iou
    from cribcam.vision.evaluate import FOUND_IOU

    unseen = []
    for card in photo.cards:
        overlap = box_iou(np.asarray(card.boxes, np.float32), np.asarray(found, np.float32).reshape(-1, 4))
        if not (overlap >= FOUND_IOU).any():
            unseen.append(card.name)
    return unseen


def missing_cards(photos: list[LayoutPhoto]) -> list[str]:
    """The cards of the deck that no photo names yet, in ``CARD_CODES`` order."""
    named = {card.name for photo in photos for card in photo.cards if card.name}
    return [code for code in CARD_CODES if code not in named]


def check_names(photos: list[LayoutPhoto]) -> None:
    """Raises ValueError for a name that is no card, or one card named twice in a photo."""
    for photo in photos:
        names = [card.name for card in photo.cards if card.name]
        for name in names:
            if name not in CARD_CODES:
                raise ValueError(f"{photo.name}: {name!r} is not a card: name cards like 5H, TD, QS")
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise ValueError(f"{photo.name}: {_listing(twice)} named twice in one photo: a deck has one of each")


def as_labels(photos: list[LayoutPhoto]) -> dict:
    """The named cards of the photos in the labels format of ``cribcam eval --labels``."""
    return {photo.name: {"cards": [{"card": card.name, "box": box} for card in photo.cards if card.name
                                   for box in card.boxes]}
            for photo in photos}


def _listing(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _place(card: FoundCard, image: np.ndarray) -> str:
    x, y = card.centre / np.array(image.shape[1::-1])
    row = "top" if y < 1 / 3 else "bottom" if y > 2 / 3 else "middle"
    column = "left" if x < 1 / 3 else "right" if x > 2 / 3 else "middle"
    return "in the middle" if row == column == "middle" else f"at the {row} {column}".replace("middle ", "")


# --- the rehearsal set --------------------------------------------------------------------

REHEARSAL_SIDE = 64  # rehearsal patches are stored this large (scene indices are ~26 px)
MOSAIC_COLUMNS = 64


def make_rehearsal(synth: Path, out: Path = REHEARSAL, scenes: int = 1200, art: int = 800, negatives: int = 600,
                   real: Path | None = None, seed: int = 0, quality: int = 75) -> Path:
    """Writes the rehearsal set: crops of what the bundled classifier learnt, kept beside the models.

    ``scenes`` index patches of the built synthetic scenes (``cribcam data build``), ``art``
    patches cut from the training designs' card art and ``negatives`` from the scenes, drawn
    at random, and every labelled index of the real training photos, stored as one JPEG
    mosaic of ``REHEARSAL_SIDE`` pixel patches (about 2 MB). Without the real photos'
    crops, teaching a deck made the bundled reader forget real photos most.

    Args:
        synth: a built synthetic set of the training designs (its ``train`` part is read).
        out: the ``.npz`` to write.
        real: the real photos split by capture (``cribcam data real``); their ``train`` part
            is read (never the validation part).
    """
    from cribcam.datagen.decks import load_decks
    from cribcam.training.classifier import NO_INDEX, CropBank, bank_from_decks, bank_from_labelled_photos, \
        bank_from_scenes
    from cribcam.vision.evaluate import load_labels

    rng = np.random.default_rng(seed)
    scene_bank = bank_from_scenes(Path(synth), "train", seed)
    indices = np.flatnonzero(scene_bank.rank != NO_INDEX)
    others = np.flatnonzero(scene_bank.rank == NO_INDEX)
    chosen = np.concatenate([rng.choice(indices, min(scenes, len(indices)), replace=False),
                             rng.choice(others, min(negatives, len(others)), replace=False)])
    backgrounds = [cv2.imread(str(p)) for p in sorted((Path(synth) / "images" / "train").glob("*.jpg"))[:200]]
    decks = load_decks(split="train", progress=False)
    banks = [CropBank(scene_bank.patches[chosen], scene_bank.rank[chosen], scene_bank.suit[chosen],
                      scene_bank.real[chosen]),
             bank_from_decks(decks, art, seed, backgrounds)]
    if real is not None:
        banks.append(bank_from_labelled_photos(Path(real) / "images" / "train",
                                               load_labels(Path(real) / "labels-train.json"), seed,
                                               negatives_per_index=0))
    bank = CropBank.merge(banks)
    small = np.array([cv2.resize(p, (REHEARSAL_SIDE, REHEARSAL_SIDE), interpolation=cv2.INTER_AREA)
                      for p in bank.patches])
    ok, jpeg = cv2.imencode(".jpg", _mosaic(small), [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RuntimeError("could not encode the rehearsal mosaic")
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(out, mosaic=jpeg, rank=bank.rank.astype(np.int8), suit=bank.suit.astype(np.int8), art=bank.art,
             real=bank.real, side=REHEARSAL_SIDE,
             source=f"{synth} seed {seed}: {scenes} scene indices, {art} art, {negatives} negatives, "
                    f"{int(bank.real.sum())} real-photo indices of {real}")
    return out


def load_rehearsal(path: Path = REHEARSAL):
    """The rehearsal set as a ``CropBank`` of full-size patches.

    Raises:
        FileNotFoundError: there is no rehearsal set at ``path``.
    """
    from cribcam.training.classifier import PATCH, CropBank

    if not Path(path).is_file():
        raise FileNotFoundError(f"no rehearsal set at {path}: make it with "
                                f"python -m cribcam.training.teach rehearsal --synth DIR")
    with np.load(path) as saved:
        side, rank, suit, art = int(saved["side"]), saved["rank"], saved["suit"], saved["art"]
        real = saved["real"] if "real" in saved else np.zeros(len(rank), bool)
        mosaic = cv2.imdecode(saved["mosaic"], cv2.IMREAD_COLOR)
    tiles = [mosaic[r * side:(r + 1) * side, c * side:(c + 1) * side]
             for r, c in (divmod(i, MOSAIC_COLUMNS) for i in range(len(rank)))]
    patches = np.array([cv2.resize(t, (PATCH, PATCH), interpolation=cv2.INTER_LINEAR) for t in tiles], np.uint8)
    return CropBank(patches, rank.astype(np.int64), suit.astype(np.int64), real.astype(bool), art.astype(bool))


def _mosaic(tiles: np.ndarray) -> np.ndarray:
    rows = -(-len(tiles) // MOSAIC_COLUMNS)
    side = tiles.shape[1]
    out = np.zeros((rows * side, MOSAIC_COLUMNS * side, 3), np.uint8)
    for i, tile in enumerate(tiles):
        r, c = divmod(i, MOSAIC_COLUMNS)
        out[r * side:(r + 1) * side, c * side:(c + 1) * side] = tile
    return out


# --- teaching -----------------------------------------------------------------------------

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
    known, known_held = _split_rehearsal(load_rehearsal(rehearsal), settings.seed)
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


def _split_rehearsal(bank, seed: int, share: float = 0.2):
    """The rehearsal bank to train on, and a fifth of its indices held back to check on."""
    from cribcam.training.classifier import NO_INDEX, CropBank

    rng = np.random.default_rng([seed, 7])
    held = rng.random(len(bank)) < share
    held &= bank.rank != NO_INDEX

    def part(mask):
        return CropBank(bank.patches[mask], bank.rank[mask], bank.suit[mask], bank.real[mask], bank.art[mask])

    return part(~held), part(held)


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


def rehearsal_crops(patches: np.ndarray) -> np.ndarray:
    """The classifier's crop of the index at the centre of each bank patch, as at run time."""
    from cribcam.training.classifier import CONTEXT, PATCH

    side = PATCH * (1 + 2 * MARGIN) / CONTEXT
    return np.array([crop_square(p, (PATCH / 2, PATCH / 2), side, CROP_SIZE) for p in patches], np.uint8)


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


# --- the stated layout, drawn (tests and the model card's measurements) --------------------

def render_layout(deck, suit: str, seed: int, size: int = 1024, per_row: int = 5,
                  photographic: bool = True) -> tuple[np.ndarray, list]:
    """A synthetic photo of one suit laid out as ``LAYOUT`` states, with its exact labels.

    Args:
        deck: a ``cribcam.datagen.decks.Deck`` (or prepared deck).
        suit: the suit laid out, one of CDHS.
        seed: random seed (table, light, the small unevenness of cards put down by hand).
        size: the photo's side in pixels.
        per_row: cards per row.
        photographic: False for the clean composite.

    Returns:
        The BGR image and its labels (``scenes.Label``: card code and index box).
    """
    from cribcam.datagen import textures
    from cribcam.datagen.assets import make_assets
    from cribcam.datagen.camera import look_at
    from cribcam.datagen.layouts import Item, Layout, card_extent
    from cribcam.datagen.scenes import compose

    rng = np.random.default_rng([seed, 0x7EAC])
    assets = make_assets([deck], seed, n_surfaces=len(textures.SURFACES))
    prepared = assets.decks[0]
    aspect = prepared.height / prepared.width
    items = []
    for k, rank in enumerate(RANKS):
        row, column = divmod(k, per_row)
        items.append(Item("card", column * 1.25 + rng.normal(0, 0.03), row * (aspect + 0.3) + rng.normal(0, 0.03),
                          float(rng.normal(0, 2.0)), f"{rank}{suit}", "table"))
    layout = Layout("teaching", items, None, aspect)
    x0, y0, x1, y1 = card_extent(layout)
    card_px = 0.92 * size / max(x1 - x0, y1 - y0)
    # Azimuth 0 and little roll: the rows run across the photo, as the layout asks.
    camera = look_at(((x0 + x1) / 2, (y0 + y1) / 2), card_px, tilt=float(rng.uniform(0, 12)),
                     azimuth=0.0, roll=float(rng.normal(0, 3)), size=size)
    scene = compose(rng, layout, camera, prepared, assets, {"name": "plain"}, photographic)
    return scene.image, scene.labels


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(prog="python -m cribcam.training.teach",
                                     description="Make the rehearsal set that teaching a deck mixes in.")
    parser.add_argument("command", choices=["rehearsal"])
    parser.add_argument("--synth", type=Path, required=True, help="a built synthetic set (cribcam data build)")
    parser.add_argument("--real", type=Path, default=None,
                        help="the real photos split by capture (cribcam data real); their training part")
    parser.add_argument("--out", type=Path, default=REHEARSAL)
    parser.add_argument("--seed", type=int, default=0)
    arguments = parser.parse_args()
    written = make_rehearsal(arguments.synth, arguments.out, real=arguments.real, seed=arguments.seed)
    print(f"{written}: {written.stat().st_size / 1e6:.2f} MB")
