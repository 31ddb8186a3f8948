"""Training the index classifier: a small CNN reading a crop of one index into rank and suit.

Two heads, so that every rank learns from all four suits and every suit from all thirteen
ranks: a 14-way rank head (the 13 ranks and "no index", for pips, court art, card backs and
table clutter that the finder, run at a low threshold, boxes by mistake) and a 4-way suit
head. Exported, the model answers 53 probabilities per crop: the 52 cards (rank probability
times suit probability, columns in ``CARD_CODES`` order) and "no index".

Crops come from three places, each cut with twice the context that the classifier reads
(``CONTEXT``), so that each step can draw a fresh crop from them: shifted, scaled, turned and
squashed as a finder's box might be, then relit, recoloured, blurred and noised:

* the rendered card art itself: crisp indices of every card and corner of the training
  designs, at any angle, repainted in the scenes' looks (dark faces with gold print among
  them), on table backgrounds. Crops of the scenes alone taught next to nothing in ten
  minutes: most of their indices are a few blurred pixels high, too little to learn a glyph
  from; the art teaches the glyphs, the scenes and real photos how cameras see them;
* the scenes of `cribcam data build`: every labelled index, as a camera saw it in a scene,
  and negatives from card faces and the table away from every printed corner;
* the real training photos.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from cribcam.datagen import yolo
from cribcam.datagen.augment import motion_kernel
from cribcam.scoring.cards import RANKS
from cribcam.vision.classifier import FEATURES_OUTPUT
from cribcam.vision.crops import CROP_SIZE, MARGIN, crop_square

CONTEXT = 2.0  # bank patches span this many times an index box's longer side
PATCH = 96  # pixels a side of a bank patch
NO_INDEX = len(RANKS)  # the rank head's extra class
# Motion blur of a hand-held camera or a moving hand: a share of the crops smeared along a line
# of up to this many crop pixels, about a third of an index's height in its crop. Before run 7
# the crops had only round blur, and motion-blurred indices read far worse than sharp ones
# (models/HISTORY.md, "Motion blur"). Run 7 smeared a fifth of the crops and still read photos
# smeared 13 px at 0.44 recall; run 8 smears three tenths.
MOTION_SHARE = 0.3
MOTION_LONGEST = 11
# A share of the crops are shrunk to as little as this share of the crop and enlarged again: an
# index a few pixels high, as the finder's closer look now finds them (models/HISTORY.md, "Run 8"),
# is read from a crop cut from about 10 pixels. Before run 9 the least was 0.3 (14 pixels).
SMALLEST_SHARE = 0.2


@dataclass
class CropBank:
    """Context patches around indices (rank, suit) and around things that are not indices.

    Attributes:
        patches: (n, PATCH, PATCH, 3) uint8 BGR.
        rank: (n,) int64, 0-12 for a rank, ``NO_INDEX`` for no index.
        suit: (n,) int64, 0-3 (meaningless for no index).
        real: (n,) bool, cut from a real photo.
        art: (n,) bool, cut from the card art (all False when not given).
    """

    patches: np.ndarray
    rank: np.ndarray
    suit: np.ndarray
    real: np.ndarray
    art: np.ndarray | None = None

    def __post_init__(self) -> None:
        n = len(self.patches)
        if self.art is None:
            self.art = np.zeros(n, bool)
        if not len(self.rank) == len(self.suit) == len(self.real) == len(self.art) == n:
            raise ValueError("a crop bank's arrays must have one entry per patch")

    def __len__(self) -> int:
        return len(self.patches)

    @classmethod
    def merge(cls, banks: list[CropBank]) -> CropBank:
        return cls(*(np.concatenate([getattr(b, k) for b in banks])
                     for k in ("patches", "rank", "suit", "real", "art")))

    def groups(self) -> dict[str, np.ndarray]:
        """Indices of the kinds of patches that a batch is mixed from."""
        index = self.rank != NO_INDEX
        return {"synthetic": np.flatnonzero(index & ~self.real & ~self.art),
                "art": np.flatnonzero(index & self.art), "real": np.flatnonzero(index & self.real),
                "negative": np.flatnonzero(~index)}


def _patch(image: np.ndarray, box) -> np.ndarray:
    x1, y1, x2, y2 = box
    return crop_square(image, ((x1 + x2) / 2, (y1 + y2) / 2), max(x2 - x1, y2 - y1) * CONTEXT, PATCH)


def _card_index(code: str) -> tuple[int, int]:
    from cribcam.scoring.cards import CARD_CODES

    position = CARD_CODES.index(code)  # suit-major: AC..KC, AD..KD, ...
    return position % 13, position // 13


class _Patches:
    """A bank being filled: patches with their labels."""

    def __init__(self):
        self.patches: list[np.ndarray] = []
        self.ranks: list[int] = []
        self.suits: list[int] = []

    def index(self, image: np.ndarray, code: str, box) -> None:
        self.patches.append(_patch(image, box))
        rank, suit = _card_index(code)
        self.ranks.append(rank)
        self.suits.append(suit)

    def negatives(self, patches: list[np.ndarray]) -> None:
        self.patches += patches
        self.ranks += [NO_INDEX] * len(patches)
        self.suits += [0] * len(patches)

    def bank(self, real: bool) -> CropBank:
        n = len(self.patches)
        return CropBank(np.array(self.patches, np.uint8).reshape(n, PATCH, PATCH, 3),
                        np.array(self.ranks, np.int64), np.array(self.suits, np.int64), np.full(n, real, bool))


def _negatives(rng, image: np.ndarray, avoid: np.ndarray, sizes: np.ndarray, count: int,
               inside: list[np.ndarray]) -> list[np.ndarray]:
    """Patches of index-sized squares whose centre is clear of every printed corner.

    Half are drawn inside a card's outline (pips, court art, backs), the rest anywhere.
    """
    height, width = image.shape[:2]
    typical = float(np.median(sizes)) if len(sizes) else 24.0
    found, tries = [], 0
    while len(found) < count and tries < count * 20:
        tries += 1
        side = typical * rng.uniform(0.7, 1.6)
        if inside and rng.random() < 0.5:
            poly = inside[int(rng.integers(len(inside)))]
            lo, hi = poly.min(axis=0), poly.max(axis=0)
            point = rng.uniform(lo, hi)
            if cv2.pointPolygonTest(poly.astype(np.float32), (float(point[0]), float(point[1])), False) < 0:
                continue
        else:
            point = rng.uniform([0, 0], [width, height])
        if not _clear_of(avoid, point, side):
            continue
        half = side / 2
        found.append(_patch(image, (point[0] - half, point[1] - half, point[0] + half, point[1] + half)))
    return found


def _clear_of(avoid: np.ndarray, point: np.ndarray, side: float) -> bool:
    """Whether a square of ``side`` around ``point`` keeps clear of every (x, y, reach) zone."""
    return not len(avoid) or bool((np.linalg.norm(avoid[:, :2] - point, axis=1) >= avoid[:, 2] + side / 2).all())


def _scene_corner_zones(record: dict) -> np.ndarray:
    """(x, y, reach) around every printed corner of a scene, labelled or not: a half-hidden
    index is still an index, and must not be taught as "no index"."""
    quads = [np.array(c["quad"]) for card in record["cards"] for c in card.get("corners", []) if c["quad"]]
    return np.array([[*q.mean(axis=0), (q.max(axis=0) - q.min(axis=0)).max()] for q in quads]).reshape(-1, 3)


def _photo_label_zones(boxes: list) -> np.ndarray:
    """(x, y, reach) well around every labelled box of a real photo: its unlabelled print is not
    known, so only places far from any labelled corner are taken for "no index"."""
    return np.array([[(b[0] + b[2]) / 2, (b[1] + b[3]) / 2, 2.5 * max(b[2] - b[0], b[3] - b[1])]
                     for b in boxes]).reshape(-1, 3)


def _scene_metas(data_dir: Path, part: str, scenes: int | None, shard: tuple[int, int]) -> list[Path]:
    """The meta files of the first ``scenes`` scenes of a part, the ``shard`` (k, n) of them."""
    k, n = shard
    return sorted((data_dir / "meta" / part).glob("*.json"))[:scenes][k::n]


def _mistakes(image: np.ndarray, boxes: np.ndarray, avoid: np.ndarray) -> list[np.ndarray]:
    """Patches of the found boxes that lie clear of every index."""
    return [_patch(image, box) for box in boxes
            if _clear_of(avoid, (box[:2] + box[2:]) / 2, float((box[2:] - box[:2]).max()))]


def bank_from_finder_mistakes(find: Callable[[np.ndarray], np.ndarray], data_dir: Path | None, part: str,
                              photos: Path | None = None, photo_labels: dict | None = None,
                              scenes: int | None = None, shard: tuple[int, int] = (0, 1)) -> CropBank:
    """Hard negatives: what a finder boxes in scenes (and real photos) that is no index.

    Pips, court art, backs and clutter that the finder takes for indices are the classifier's
    commonest false cards; taught as "no index" they are rejected.

    Args:
        find: a BGR image to (n, 4) boxes, e.g. an ``IndexFinder`` at a low threshold.
        data_dir, part: a built synthetic set and its part (None: no scenes, the photos alone;
            teaching a deck takes its photos' own).
        photos, photo_labels: real photos and their labels (the `cribcam eval` format), optional.
        scenes: read only this many scenes (the finder takes a while on each).
        shard: (k, n): every n-th of those scenes from the k-th on, as for ``bank_from_scenes``.
    """
    synthetic, real = _Patches(), _Patches()
    for meta_path in _scene_metas(data_dir, part, scenes, shard) if data_dir else []:
        record = json.loads(meta_path.read_text())
        image = cv2.imread(str(data_dir / "images" / part / record["image"]))
        synthetic.negatives(_mistakes(image, find(image), _scene_corner_zones(record)))
    for name, entry in sorted((photo_labels or {}).items()):
        image = cv2.imread(str(photos / name))
        if image is not None:
            real.negatives(_mistakes(image, find(image), _photo_label_zones([c["box"] for c in entry["cards"]])))
    return CropBank.merge([synthetic.bank(real=False), real.bank(real=True)])


def bank_from_scenes(data_dir: Path, part: str, seed: int, negatives_per_index: float = 1.0,
                     shard: tuple[int, int] = (0, 1), scenes: int | None = None) -> CropBank:
    """Patches of every labelled index of a built synthetic set, and as many negatives.

    ``shard`` (k, n) takes every n-th of the first ``scenes`` scenes from the k-th on, so
    that n processes can cut one set between them (``training.device_run``).
    """
    rng = np.random.default_rng(seed)
    collected = _Patches()
    for meta_path in _scene_metas(data_dir, part, scenes, shard):
        record = json.loads(meta_path.read_text())
        image = cv2.imread(str(data_dir / "images" / part / record["image"]))
        labels = yolo.read_labels(data_dir / "labels" / part / f"{meta_path.stem}.txt", *image.shape[1::-1])
        for code, box in labels:
            collected.index(image, code, box)
        outlines = [np.array(card["polygon"]) for card in record["cards"] if card["polygon"]]
        sizes = np.array([max(b[2] - b[0], b[3] - b[1]) for _, b in labels])
        wanted = int(rng.poisson(negatives_per_index * max(len(labels), 2)))
        collected.negatives(_negatives(rng, image, _scene_corner_zones(record), sizes, wanted, outlines))
    return collected.bank(real=False)


def bank_from_decks(decks: list, count: int, seed: int, backgrounds: list[np.ndarray]) -> CropBank:
    """Patches of indices cut straight from the card art of ``decks`` (``datagen.card_art.Deck``).

    Each is one corner of a random card, repainted in a random look of the scenes, turned
    about the index to any angle (the finder's box is then the turned index's bounding box,
    and the patch is sized on that, as at run time) and laid on a random patch of
    ``backgrounds`` (BGR images: tables and cards as the scenes show them).
    """
    from cribcam.scoring.cards import CARD_CODES

    rng = np.random.default_rng(seed)
    patches = np.empty((count, PATCH, PATCH, 3), np.uint8)
    ranks, suits = np.empty(count, np.int64), np.empty(count, np.int64)
    for i in range(count):
        deck = decks[int(rng.integers(len(decks)))]
        code = CARD_CODES[int(rng.integers(len(CARD_CODES)))]
        corners = deck.corners[code]
        patches[i] = _art_patch(rng, deck.cards[code], corners[int(rng.integers(len(corners)))], backgrounds)
        ranks[i], suits[i] = _card_index(code)
    return CropBank(patches, ranks, suits, np.zeros(count, bool), np.ones(count, bool))


def bank_from_jokers(jokers: list, count: int, seed: int, backgrounds: list[np.ndarray]) -> CropBank:
    """Patches of the corners of jokers (``datagen.font_decks.joker_faces``), as no index: a
    joker is no card in cribbage, and its corner was read as one (the gold-on-black deck's,
    as a 3C). Cut as ``bank_from_decks`` cuts an index."""
    rng = np.random.default_rng(seed)
    patches = np.empty((count, PATCH, PATCH, 3), np.uint8)
    for i in range(count):
        face, corners = jokers[int(rng.integers(len(jokers)))]
        patches[i] = _art_patch(rng, face, corners[int(rng.integers(len(corners)))], backgrounds)
    return CropBank(patches, np.full(count, NO_INDEX, np.int64), np.zeros(count, np.int64), np.zeros(count, bool),
                    np.ones(count, bool))


def _art_patch(rng: np.random.Generator, face: np.ndarray, box, backgrounds: list[np.ndarray]) -> np.ndarray:
    """The patch around ``box`` of a BGRA card face: repainted in a random look, turned about
    the box to a random angle and laid on a random patch of ``backgrounds``."""
    from cribcam.datagen.augment import restyle, sample_look

    face = restyle(face, sample_look(rng))
    x1, y1, x2, y2 = box
    angle = rng.uniform(0, 360) if rng.random() < 0.6 else rng.normal(0, 6) + 180 * rng.integers(2)
    cos, sin = abs(np.cos(np.radians(angle))), abs(np.sin(np.radians(angle)))
    w, h = x2 - x1, y2 - y1
    turned_side = max(w * cos + h * sin, w * sin + h * cos)
    centre = ((x1 + x2) / 2, (y1 + y2) / 2)
    matrix = cv2.getRotationMatrix2D(centre, angle, PATCH / CONTEXT / turned_side * rng.uniform(0.92, 1.08))
    matrix[:, 2] += PATCH / 2 - np.array(centre)
    card = cv2.warpAffine(face, matrix, (PATCH, PATCH), flags=cv2.INTER_AREA, borderValue=(0, 0, 0, 0))
    alpha = card[..., 3:].astype(np.float32) / 255
    return (card[..., :3] * alpha + _background(rng, backgrounds) * (1 - alpha)).astype(np.uint8)


def _background(rng: np.random.Generator, images: list[np.ndarray]) -> np.ndarray:
    image = images[int(rng.integers(len(images)))]
    side = int(rng.integers(PATCH // 2, min(image.shape[:2])))
    y, x = (int(rng.integers(0, image.shape[k] - side + 1)) for k in (0, 1))
    return cv2.resize(image[y:y + side, x:x + side], (PATCH, PATCH), interpolation=cv2.INTER_AREA)


def bank_from_labelled_photos(images: Path, labels: dict, seed: int, negatives_per_index: float = 0.5) -> CropBank:
    """Patches of the labelled index boxes of real photos (labels in the `cribcam eval` format).

    Negatives are taken well clear of every labelled box: a real photo's unlabelled print is
    not known, so only places far from any card corner are taken for "no index".
    """
    rng = np.random.default_rng(seed)
    collected = _Patches()
    for name in sorted(labels):
        image = cv2.imread(str(images / name))
        if image is None:
            continue
        boxes = [(c["card"], c["box"]) for c in labels[name]["cards"]]
        for code, box in boxes:
            collected.index(image, code, box)
        sizes = np.array([max(b[2] - b[0], b[3] - b[1]) for _, b in boxes])
        wanted = int(rng.poisson(negatives_per_index * max(len(boxes), 2)))
        collected.negatives(_negatives(rng, image, _photo_label_zones([b for _, b in boxes]), sizes, wanted, []))
    return collected.bank(real=True)


def augment(rng: np.random.Generator, patches: np.ndarray) -> np.ndarray:
    """Classifier crops (n, CROP_SIZE, CROP_SIZE, 3) uint8 drawn from bank patches.

    The geometry stands in for the finder's boxes (looser or tighter, off centre, a little
    turned or squashed); the photometry for cameras, light and decks the scenes lack (light
    print on dark faces, colour casts, washed-out red, blur, noise).
    """
    n = len(patches)
    nominal = PATCH * (1 + 2 * MARGIN) / CONTEXT  # the crop's side in patch pixels for an exact box
    out = np.empty((n, CROP_SIZE, CROP_SIZE, 3), np.uint8)
    for i in range(n):
        side = nominal * rng.uniform(0.85, 1.5)
        angle = rng.normal(0, 8) if rng.random() < 0.7 else 0.0
        squash = rng.uniform(0.88, 1.12)
        shift = rng.uniform(-0.12, 0.12, 2) * nominal
        scale = CROP_SIZE / side
        matrix = cv2.getRotationMatrix2D((PATCH / 2 + shift[0], PATCH / 2 + shift[1]), angle, scale)
        matrix[:, 2] += CROP_SIZE / 2 - (PATCH / 2 + shift)
        matrix[0] *= squash  # squashed about the crop's centre, which stays put
        matrix[0, 2] += (1 - squash) * CROP_SIZE / 2
        out[i] = cv2.warpAffine(patches[i], matrix, (CROP_SIZE, CROP_SIZE), flags=cv2.INTER_AREA,
                                borderMode=cv2.BORDER_REPLICATE)
        if rng.random() < 0.3:
            small = max(8, int(CROP_SIZE * rng.uniform(SMALLEST_SHARE, 0.8)))
            out[i] = cv2.resize(cv2.resize(out[i], (small, small), interpolation=cv2.INTER_AREA),
                                (CROP_SIZE, CROP_SIZE), interpolation=cv2.INTER_LINEAR)
        if rng.random() < 0.25:
            out[i] = cv2.GaussianBlur(out[i], (0, 0), rng.uniform(0.5, 1.4))
        if rng.random() < MOTION_SHARE:
            out[i] = cv2.filter2D(out[i], -1, motion_kernel(rng, int(rng.integers(3, MOTION_LONGEST + 1))))
    x = out.astype(np.float32) / 255.0
    grey = x.mean(axis=3, keepdims=True)
    fade = np.where(rng.random((n, 1, 1, 1)) < 0.3, rng.uniform(0.4, 1.0, (n, 1, 1, 1)), 0.0)
    x = x * (1 - fade) + grey * fade  # washed-out or grey prints: suits by shape, not only colour
    swap = rng.random(n) < 0.1
    x[swap] = x[swap][..., rng.permutation(3)]
    x = x * rng.uniform(0.8, 1.2, (n, 1, 1, 3))  # colour cast
    mean = x.mean(axis=(1, 2, 3), keepdims=True)
    x = (x - mean) * rng.uniform(0.55, 1.4, (n, 1, 1, 1)) + mean + rng.uniform(-0.25, 0.25, (n, 1, 1, 1))
    x = np.clip(x, 0, 1) ** rng.uniform(0.6, 1.6, (n, 1, 1, 1))
    invert = rng.random(n) < 0.1  # light print on dark faces
    x[invert] = 1 - x[invert]
    x = x + rng.normal(0, 1, (n, 1, 1, 1)).clip(0) * 0.03 * rng.standard_normal(x.shape).astype(np.float32)
    return (np.clip(x, 0, 1) * 255).astype(np.uint8)


def build_model():
    """The classifier network: about 0.3 M parameters, 48x48 BGR-as-RGB input in [0, 1]."""
    import torch.nn as nn

    def conv(cin: int, cout: int, stride: int = 1):
        return [nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.SiLU(inplace=True)]

    class IndexNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(
                *conv(3, 24, 2), *conv(24, 32),      # 24 x 24
                *conv(32, 48, 2), *conv(48, 48),     # 12 x 12
                *conv(48, 96, 2), *conv(96, 96),     # 6 x 6
                *conv(96, 160, 2),                   # 3 x 3
                nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.1))
            self.rank = nn.Linear(160, NO_INDEX + 1)
            self.suit = nn.Linear(160, 4)

        def forward(self, x):
            features = self.features(x)
            return self.rank(features), self.suit(features)

    return IndexNet()


def card_probabilities(model, x):
    """(n, 53): the 52 cards' probabilities in ``CARD_CODES`` order, then "no index"."""
    return cards_from_logits(*model(x))


def cards_from_logits(rank_logits, suit_logits):
    """``card_probabilities`` from the two heads' logits."""
    import torch

    rank = torch.softmax(rank_logits, dim=1)
    suit = torch.softmax(suit_logits, dim=1)
    cards = suit[:, :, None] * rank[:, None, :NO_INDEX]  # (n, suit, rank): suit-major like CARD_CODES
    return torch.cat([cards.flatten(1), rank[:, NO_INDEX:]], dim=1)


class _Batches:
    """Mixes each batch from the bank's kinds in fixed shares, drawing crops afresh each time."""

    SHARES = {"art": 0.35, "synthetic": 0.24, "real": 0.13, "negative": 0.28}

    def __init__(self, bank: CropBank, batch: int, rng: np.random.Generator):
        self.bank, self.batch, self.rng = bank, batch, rng
        self.groups = {k: v for k, v in bank.groups().items() if len(v)}
        total = sum(self.SHARES[k] for k in self.groups)
        self.counts = {k: round(batch * self.SHARES[k] / total) for k in self.groups}

    def next(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(crops (n, CROP_SIZE, CROP_SIZE, 3) uint8 BGR, ranks, suits)."""
        chosen = np.concatenate([self.rng.choice(self.groups[k], n) for k, n in self.counts.items()])
        return augment(self.rng, self.bank.patches[chosen]), self.bank.rank[chosen], self.bank.suit[chosen]


def _batch_stream(bank: CropBank, batch: int, seed: int, first_step: int, workers: int):
    """Endless batches: drawn here with one generator (``workers`` 0), or by ``workers`` forked
    processes, batch ``step`` with a generator of its own, a few batches ahead of the trainer:
    on a GPU the step takes far less than the augmentation of its crops."""
    if workers == 0:
        batches = _Batches(bank, batch, np.random.default_rng([seed, first_step]))
        while True:
            yield batches.next()
    global _POOL_BANK
    _POOL_BANK = (bank, batch, seed)  # forked into the workers, never sent through a pipe
    import collections
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(workers) as pool:
        ahead = collections.deque(pool.apply_async(_pool_batch, (step,))
                                  for step in range(first_step, first_step + 2 * workers))
        step = first_step + 2 * workers
        while True:
            yield ahead.popleft().get()
            ahead.append(pool.apply_async(_pool_batch, (step,)))
            step += 1


_POOL_BANK = None


def _pool_batch(step: int):
    bank, batch, seed = _POOL_BANK
    return _Batches(bank, batch, np.random.default_rng([seed, step])).next()


def _tensors(crops: np.ndarray, rank: np.ndarray, suit: np.ndarray, device: str):
    """A batch as the network takes it: RGB in [0, 1], NCHW, on ``device``."""
    import torch

    x = torch.from_numpy(crops[..., ::-1].transpose(0, 3, 1, 2).copy()).to(device).float() / 255.0
    return x, torch.from_numpy(rank).to(device), torch.from_numpy(suit).to(device)


def train_classifier(bank: CropBank, checkpoint: Path, minutes: float, batch: int, lr: float, seed: int,
                     start_from: Path | None = None, log=print, save_every: float = 120.0,
                     device: str = "cpu", workers: int = 0, on_save: Callable[[], None] | None = None) -> Path:
    """Trains for ``minutes`` of wall-clock in all, resuming from ``checkpoint`` if it is there.

    Args:
        bank: the crops to learn from.
        checkpoint: where the state is saved every ``save_every`` seconds, at the end, and
            when the training is interrupted (Ctrl-C).
        minutes: the training time in all, over every resumed run.
        batch: crops per step.
        lr: AdamW's peak learning rate (cosine schedule over ``minutes``).
        seed: random seed.
        start_from: weights to continue from when there is no checkpoint yet (a continued run).
        log: where progress lines go.
        save_every: seconds between checkpoints.
        device: where the network trains ("cpu", or "cuda" on a GPU machine).
        workers: processes that augment the crops (0: this one, between steps).
        on_save: called after each checkpoint is written.

    Returns:
        ``checkpoint``, holding the weights under "model".
    """
    import torch
    import torch.nn.functional as F

    torch.manual_seed(seed)
    model = build_model()
    state = {"seconds": 0.0, "steps": 0}
    saved = torch.load(checkpoint, map_location="cpu", weights_only=False) if checkpoint.is_file() else None
    if saved is not None:
        model.load_state_dict(saved["model"])
        state = saved["state"]
        log(f"classifier: resuming at {state['seconds'] / 60:.1f} of {minutes:g} min, step {state['steps']}")
    elif start_from is not None:
        model.load_state_dict(torch.load(start_from, map_location="cpu", weights_only=False)["model"])
    # The workers are forked before this process touches the GPU: a forked child cannot use it.
    batches = _batch_stream(bank, batch, seed, state["steps"], workers)
    model.to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    if saved is not None:
        optimizer.load_state_dict(saved["optimizer"])
    budget = minutes * 60
    model.train()
    last_save = last_log = time.monotonic()
    clock = time.monotonic() - state["seconds"]
    try:
        # Said once in the loop's try: a Ctrl-C from here on is saved in the checkpoint.
        log(f"classifier: training, {max(0.0, budget - state['seconds']) / 60:.1f} min to go")
        while state["seconds"] < budget:
            for group in optimizer.param_groups:  # cosine over the wall-clock budget, 2 % warm-up
                progress = state["seconds"] / budget
                group["lr"] = lr * min(1.0, progress / 0.02 + 0.05) * 0.5 * (1 + np.cos(np.pi * progress))
            x, rank, suit = _tensors(*next(batches), device)
            rank_logits, suit_logits = model(x)
            is_index = rank != NO_INDEX
            loss = F.cross_entropy(rank_logits, rank, label_smoothing=0.05)
            if is_index.any():
                loss = loss + F.cross_entropy(suit_logits[is_index], suit[is_index], label_smoothing=0.05)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            state["steps"] += 1
            now = time.monotonic()
            state["seconds"] = now - clock
            if now - last_log >= 30:
                log(f"classifier: step {state['steps']}, loss {loss.item():.3f}, "
                    f"{state['seconds'] / 60:.1f} of {minutes:.1f} min, about {(budget - state['seconds']) / 60:.0f} min left")
                last_log = now
            if now - last_save >= save_every:
                _save(checkpoint, model, optimizer, state, on_save)
                last_save = now
    except KeyboardInterrupt:  # Ctrl-C: what was learnt since the last checkpoint is kept for the next start
        _save(checkpoint, model, optimizer, state, on_save)
        raise
    finally:
        batches.close()  # ends the workers
    _save(checkpoint, model, optimizer, state, on_save)
    return checkpoint


def _save(path: Path, model, optimizer, state: dict, then: Callable[[], None] | None = None) -> None:
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "state": dict(state)}, partial)
    partial.replace(path)  # a cut mid-write never leaves a broken checkpoint
    if then is not None:
        then()


def export_classifier(checkpoint: Path, out: Path) -> Path:
    """Writes the ONNX classifier: (n, 3, 48, 48) RGB in [0, 1] to (n, 53) probabilities
    ("cards") and the (n, 160) pooled features both heads read ("features").

    The features are what teaching a deck learns from (``cribcam.training.teach``): it fits
    heads of its own on them, in numpy, so the base install teaches without torch.
    """
    import torch

    model = build_model()
    model.load_state_dict(torch.load(checkpoint, map_location="cpu", weights_only=False)["model"])
    model.eval()

    class CardsAndFeatures(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.net = model

        def forward(self, x):
            features = self.net.features(x)
            return cards_from_logits(self.net.rank(features), self.net.suit(features)), features

    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(CardsAndFeatures(), torch.zeros(1, 3, CROP_SIZE, CROP_SIZE), str(out),
                      input_names=["crops"], output_names=["cards", FEATURES_OUTPUT], opset_version=17,
                      dynamic_axes={"crops": {0: "n"}, "cards": {0: "n"}, FEATURES_OUTPUT: {0: "n"}}, dynamo=False)
    return out
