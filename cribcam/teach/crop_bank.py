"""The crop bank: patches cut around index boxes, and the crops a lesson is augmented from.

A bank patch spans ``CONTEXT`` times an index box's longer side, twice what the classifier
reads, so that each draw (``augment``) can cut a fresh crop from it: shifted, scaled, turned and
squashed as a finder's box might be, then relit, recoloured, blurred and noised. Teaching a deck
cuts its bank from the player's labelled photos and the finder's mistakes there
(``cribcam.teach.lesson``), and mixes in the shipped rehearsal bank (``cribcam.teach.rehearsal``);
the training recipe cuts a far larger one from card art, scenes and photos
(``cribcam.training.classifier``) with the same patches, labels and augmentation. numpy and
OpenCV only: the base install teaches without torch.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from cribcam.datagen.augment import motion_kernel
from cribcam.scoring.cards import CARD_CODES, RANKS
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
# Reshaped print (``reshape_print``): strokes a pixel thinner or thicker and shapes gently bent,
# for numerals drawn unlike any training design's (a held-out design's curled 6 read as a 10).
RESHAPE_MOST_BEND = 3.0  # crop pixels, the largest shift of any point of the print


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
        """One bank of the patches of ``banks``, in their order. ``banks`` is emptied, each bank
        dropped as soon as it is copied: a training run's bank is most of the machine's memory,
        and its pieces and the whole together do not fit (run 20's first start was killed so)."""
        fields = ("patches", "rank", "suit", "real", "art")
        total = sum(len(bank) for bank in banks)
        merged = {field: np.empty((total, *getattr(banks[0], field).shape[1:]),
                                  np.result_type(*(getattr(bank, field).dtype for bank in banks)))
                  for field in fields}
        at = 0
        while banks:
            bank = banks.pop(0)
            for field in fields:
                merged[field][at:at + len(bank)] = getattr(bank, field)
            at += len(bank)
        return cls(**merged)

    def groups(self) -> dict[str, np.ndarray]:
        """Indices of the kinds of patches that a batch is mixed from."""
        index = self.rank != NO_INDEX
        return {"synthetic": np.flatnonzero(index & ~self.real & ~self.art),
                "art": np.flatnonzero(index & self.art), "real": np.flatnonzero(index & self.real),
                "negative": np.flatnonzero(~index)}


def _patch(image: np.ndarray, box) -> np.ndarray:
    x1, y1, x2, y2 = box
    return crop_square(image, ((x1 + x2) / 2, (y1 + y2) / 2), max(x2 - x1, y2 - y1) * CONTEXT, PATCH)


def card_index(code: str) -> tuple[int, int]:
    """A card's (rank, suit) labels, as the two heads number them."""
    position = CARD_CODES.index(code)  # suit-major: AC..KC, AD..KD, ...
    return position % 13, position // 13


class Patches:
    """A bank being filled: patches with their labels."""

    def __init__(self):
        self.patches: list[np.ndarray] = []
        self.ranks: list[int] = []
        self.suits: list[int] = []

    def index(self, image: np.ndarray, code: str, box) -> None:
        self.patches.append(_patch(image, box))
        rank, suit = card_index(code)
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


def random_negatives(rng, image: np.ndarray, avoid: np.ndarray, sizes: np.ndarray, count: int,
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


def scene_corner_zones(record: dict) -> np.ndarray:
    """(x, y, reach) around every printed corner of a scene, labelled or not: a half-hidden
    index is still an index, and must not be taught as "no index"."""
    quads = [np.array(c["quad"]) for card in record["cards"] for c in card.get("corners", []) if c["quad"]]
    return np.array([[*q.mean(axis=0), (q.max(axis=0) - q.min(axis=0)).max()] for q in quads]).reshape(-1, 3)


def _photo_label_zones(boxes: list) -> np.ndarray:
    """(x, y, reach) well around every labelled box of a real photo: its unlabelled print is not
    known, so only places far from any labelled corner are taken for "no index"."""
    return np.array([[(b[0] + b[2]) / 2, (b[1] + b[3]) / 2, 2.5 * max(b[2] - b[0], b[3] - b[1])]
                     for b in boxes]).reshape(-1, 3)


def scene_metas(data_dir: Path, part: str, scenes: int | None, shard: tuple[int, int]) -> list[Path]:
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
        photos, photo_labels: real photos and their labels (the `cribcam eval` format), optional;
            a photo whose labels name cards shown only in part gives none.
        scenes: read only this many scenes (the finder takes a while on each).
        shard: (k, n): every n-th of those scenes from the k-th on, as for
            ``training.classifier.bank_from_scenes``.
    """
    synthetic, real = Patches(), Patches()
    for meta_path in scene_metas(data_dir, part, scenes, shard) if data_dir else []:
        record = json.loads(meta_path.read_text())
        image = cv2.imread(str(data_dir / "images" / part / record["image"]))
        synthetic.negatives(_mistakes(image, find(image), scene_corner_zones(record)))
    for name, entry in sorted((photo_labels or {}).items()):
        if entry.get("partly_shown"):  # such a card has no box: what the finder boxes may be it
            continue
        image = cv2.imread(str(photos / name))
        if image is not None:
            real.negatives(_mistakes(image, find(image), _photo_label_zones([c["box"] for c in entry["cards"]])))
    return CropBank.merge([synthetic.bank(real=False), real.bank(real=True)])


def bank_from_labelled_photos(images: Path, labels: dict, seed: int, negatives_per_index: float = 0.5) -> CropBank:
    """Patches of the labelled index boxes of real photos (labels in the `cribcam eval` format).

    Negatives are taken well clear of every labelled box: a real photo's unlabelled print is
    not known, so only places far from any card corner are taken for "no index".
    """
    rng = np.random.default_rng(seed)
    collected = Patches()
    for name in sorted(labels):
        image = cv2.imread(str(images / name))
        if image is None:
            continue
        boxes = [(c["card"], c["box"]) for c in labels[name]["cards"]]
        for code, box in boxes:
            collected.index(image, code, box)
        sizes = np.array([max(b[2] - b[0], b[3] - b[1]) for _, b in boxes])
        wanted = int(rng.poisson(negatives_per_index * max(len(boxes), 2)))
        collected.negatives(random_negatives(rng, image, _photo_label_zones([b for _, b in boxes]), sizes, wanted, []))
    return collected.bank(real=True)


def reshape_print(rng: np.random.Generator, crop: np.ndarray) -> np.ndarray:
    """``crop`` with its print's strokes a pixel thinner or thicker (half the time) and its
    shapes bent by a smooth random field (Simard et al.'s elastic distortion)."""
    if rng.random() < 0.5:
        kernel = np.ones((2, 2), np.uint8)  # dark print on a light face: erosion thickens it
        crop = cv2.erode(crop, kernel) if rng.random() < 0.5 else cv2.dilate(crop, kernel)
    side = crop.shape[0]
    smoothness = rng.uniform(0.08, 0.16) * side
    field = [cv2.GaussianBlur(rng.uniform(-1, 1, (side, side)).astype(np.float32), (0, 0), smoothness)
             for _ in range(2)]
    bend = rng.uniform(0.3, 1.0) * RESHAPE_MOST_BEND / max(float(np.abs(field).max()), 1e-6)
    grid_y, grid_x = np.mgrid[0:side, 0:side].astype(np.float32)
    return cv2.remap(crop, grid_x + bend * field[0], grid_y + bend * field[1], cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE)


def turned_any_way(rng: np.random.Generator, patches: np.ndarray) -> np.ndarray:
    """Bank patches each turned about its centre to an angle drawn from the whole circle.

    The index lies in the patch's middle half, so a turn never takes it out of the patch; the
    corners the turn uncovers repeat the border, as ``augment``'s own tilt does.
    """
    centre = (PATCH / 2, PATCH / 2)
    return np.array([cv2.warpAffine(patch, cv2.getRotationMatrix2D(centre, float(rng.uniform(0, 360)), 1.0),
                                    (PATCH, PATCH), borderMode=cv2.BORDER_REPLICATE) for patch in patches],
                    np.uint8).reshape(patches.shape)


def augment(rng: np.random.Generator, patches: np.ndarray, reshape: float = 0.0) -> np.ndarray:
    """Classifier crops (n, CROP_SIZE, CROP_SIZE, 3) uint8 drawn from bank patches.

    The geometry stands in for the finder's boxes (looser or tighter, off centre, a little
    turned or squashed); the photometry for cameras, light and decks the scenes lack (light
    print on dark faces, colour casts, washed-out red, blur, noise). A ``reshape`` share of the
    crops have their print reshaped (``reshape_print``): designs drawn unlike the bank's.
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
        if reshape and rng.random() < reshape:
            out[i] = reshape_print(rng, out[i])
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
