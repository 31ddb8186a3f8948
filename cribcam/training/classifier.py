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

The bank, its patches and their augmentation are teaching's too: ``cribcam.teach.crop_bank``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from cribcam.datagen import yolo
from cribcam.teach.crop_bank import (
    CONTEXT,
    NO_INDEX,
    PATCH,
    CropBank,
    Patches,
    augment,
    card_index,
    random_negatives,
    scene_corner_zones,
    scene_metas,
    turned_any_way,
)
from cribcam.training.crop_draw import AS_TAUGHT, CropDraw
from cribcam.vision.classifier import FEATURES_OUTPUT
from cribcam.vision.crops import CROP_SIZE


def bank_from_scenes(data_dir: Path, part: str, seed: int, negatives_per_index: float = 1.0,
                     shard: tuple[int, int] = (0, 1), scenes: int | None = None) -> CropBank:
    """Patches of every labelled index of a built synthetic set, and as many negatives.

    ``shard`` (k, n) takes every n-th of the first ``scenes`` scenes from the k-th on, so
    that n processes can cut one set between them (``training.stages.cut_bank``).
    """
    rng = np.random.default_rng(seed)
    collected = Patches()
    for meta_path in scene_metas(data_dir, part, scenes, shard):
        record = json.loads(meta_path.read_text())
        image = cv2.imread(str(data_dir / "images" / part / record["image"]))
        labels = yolo.read_labels(data_dir / "labels" / part / f"{meta_path.stem}.txt", *image.shape[1::-1])
        for code, box in labels:
            collected.index(image, code, box)
        outlines = [np.array(card["polygon"]) for card in record["cards"] if card["polygon"]]
        sizes = np.array([max(b[2] - b[0], b[3] - b[1]) for _, b in labels])
        wanted = int(rng.poisson(negatives_per_index * max(len(labels), 2)))
        collected.negatives(random_negatives(rng, image, scene_corner_zones(record), sizes, wanted, outlines))
    return collected.bank(real=False)


def bank_from_decks(decks: list, count: int, seed: int, backgrounds: list[np.ndarray],
                    neighbour_share: float = 0.0) -> CropBank:
    """Patches of indices cut straight from the card art of ``decks`` (``datagen.card_art.Deck``).

    Each is one corner of a random card, repainted in a random look of the scenes, turned
    about the index to any angle (the finder's box is then the turned index's bounding box,
    and the patch is sized on that, as at run time) and laid on a random patch of
    ``backgrounds`` (BGR images: tables and cards as the scenes show them). A share
    ``neighbour_share`` of them first get another card's print beside the index (``_beside``).
    """
    from cribcam.scoring.cards import CARD_CODES

    rng = np.random.default_rng(seed)
    patches = np.empty((count, PATCH, PATCH, 3), np.uint8)
    ranks, suits = np.empty(count, np.int64), np.empty(count, np.int64)
    for i in range(count):
        deck = decks[int(rng.integers(len(decks)))]
        code = CARD_CODES[int(rng.integers(len(CARD_CODES)))]
        corners = deck.corners[code]
        face, box = deck.cards[code], corners[int(rng.integers(len(corners)))]
        if neighbour_share and rng.random() < neighbour_share:
            other = CARD_CODES[int(rng.integers(len(CARD_CODES)))]
            others = deck.corners[other]
            face = _beside(rng, face, box, deck.cards[other], others[int(rng.integers(len(others)))], deck.dark)
        patches[i] = _art_patch(rng, face, box, backgrounds)
        ranks[i], suits[i] = card_index(code)
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


def _beside(rng: np.random.Generator, face: np.ndarray, box, other: np.ndarray, other_box,
            dark: bool) -> np.ndarray:
    """A copy of the BGRA ``face`` with print of the ``other`` face beside its index ``box``.

    Some decks print a large pip right beside the index, inside the classifier's crop, and in
    a fanned hand the next card's index or pips lie there: the classifier must read the index
    and not what is beside it. The print is the other index whole, or its lower half (its
    suit), enlarged up to 2.5 times, laid on the card side of the index (where a card's print
    is) at a small gap, and the ink wins over the face (the lighter one on a ``dark`` face), as
    print on a face does.
    """
    x1, y1, x2, y2 = (float(v) for v in other_box)
    part = 0.5 if rng.random() < 0.5 else 1.0  # the lower half: the suit
    y1 = y2 - part * (y2 - y1)
    glyph = other[int(y1):int(np.ceil(y2)), int(x1):int(np.ceil(x2)), :3]
    bx1, by1, bx2, by2 = (float(v) for v in box)
    scale = rng.uniform(0.8, 2.5) * part * (by2 - by1) / max(glyph.shape[0], 1)
    glyph = cv2.resize(glyph, (max(2, round(glyph.shape[1] * scale)), max(2, round(glyph.shape[0] * scale))),
                       interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    gh, gw = glyph.shape[:2]
    gap = rng.uniform(0.05, 0.5) * (bx2 - bx1)
    inward = (bx1 + bx2) / 2 < face.shape[1] / 2  # the card's print lies toward its middle
    x = round(bx2 + gap) if inward else round(bx1 - gap - gw)
    y = round(rng.uniform(by1 - gh / 2, by2 - gh / 2))
    out = face.copy()
    fx1, fy1, fx2, fy2 = max(x, 0), max(y, 0), min(x + gw, face.shape[1]), min(y + gh, face.shape[0])
    if fx2 > fx1 and fy2 > fy1:
        region = out[fy1:fy2, fx1:fx2]
        ink = np.maximum if dark else np.minimum
        region[..., :3] = ink(region[..., :3], glyph[fy1 - y:fy2 - y, fx1 - x:fx2 - x])
    return out


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


# The network's layer widths: each convolution's output channels, in order (the last one is
# the pooled features' size). Run 9's classifier has these; run 16's, shipped, is 1.5 times as wide.
BASE_WIDTHS = (24, 32, 48, 48, 96, 96, 160)
_STRIDES = (2, 1, 2, 1, 2, 1, 2)  # 48 -> 24 -> 12 -> 6 -> 3 pixels a side


def widths_for(scale: float) -> tuple[int, ...] | None:
    """``BASE_WIDTHS`` scaled (at least as wide as run 9's), each a multiple of 8; None for a
    scale of 0, the training options' "as wide as the classifier continued"."""
    if not scale:
        return None
    return tuple(max(base, int(round(base * scale / 8)) * 8) for base in BASE_WIDTHS)


def build_model(widths: tuple[int, ...] = BASE_WIDTHS):
    """The classifier network, 48x48 BGR-as-RGB input in [0, 1]: seven 3x3 convolutions of
    ``widths`` output channels (about 0.3 M parameters at ``BASE_WIDTHS``), pooled, two heads."""
    import torch.nn as nn

    layers, cin = [], 3
    for cout, stride in zip(widths, _STRIDES, strict=True):
        layers += [nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.SiLU(inplace=True)]
        cin = cout

    class IndexNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.1))
            self.rank = nn.Linear(cin, NO_INDEX + 1)
            self.suit = nn.Linear(cin, 4)

        def forward(self, x):
            features = self.features(x)
            return self.rank(features), self.suit(features)

    return IndexNet()


def widths_of(weights: dict) -> tuple[int, ...]:
    """The layer widths of a state dict of ``build_model``'s network."""
    return tuple(int(weights[f"features.{3 * k}.weight"].shape[0]) for k in range(len(_STRIDES)))


def widened(weights: dict, widths: tuple[int, ...], seed: int = 0) -> dict:
    """``weights`` of a narrower network as weights of one of ``widths`` that reads the same
    (Net2WiderNet, Chen et al. 2016): each new channel copies one of its layer's old channels,
    and the layer after divides what it takes from a copied channel by its copies. A little
    noise on the copies' weights lets them learn apart.
    """
    import torch

    rng = np.random.default_rng(seed)
    noise = torch.Generator().manual_seed(seed)
    new = {name: tensor.float() if tensor.is_floating_point() else tensor  # a half checkpoint's too
           for name, tensor in weights.items()}
    old_widths = widths_of(weights)
    for k, (old, wide) in enumerate(zip(old_widths, widths, strict=True)):
        if wide < old:
            raise ValueError(f"layer {k} would narrow from {old} to {wide} channels")
        source = np.concatenate([np.arange(old), rng.integers(0, old, wide - old)])
        share = torch.from_numpy(1.0 / np.bincount(source, minlength=old)[source]).float()
        pick = torch.from_numpy(source)
        conv, norm = f"features.{3 * k}.weight", f"features.{3 * k + 1}"
        copies = new[conv][pick]  # indexing copies
        if wide > old:
            copies[old:] += 0.01 * copies[old:].std() * torch.randn(copies[old:].shape, generator=noise)
        new[conv] = copies
        for name in ("weight", "bias", "running_mean", "running_var"):
            new[f"{norm}.{name}"] = new[f"{norm}.{name}"][pick]
        takers = [f"features.{3 * (k + 1)}.weight"] if k + 1 < len(widths) else ["rank.weight", "suit.weight"]
        for taker in takers:
            shape = (1, -1, 1, 1) if taker.startswith("features") else (1, -1)
            new[taker] = new[taker][:, pick] * share.reshape(shape)
    return new


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

    def __init__(self, bank: CropBank, batch: int, rng: np.random.Generator, draw: CropDraw = AS_TAUGHT):
        self.bank, self.batch, self.rng, self.draw = bank, batch, rng, draw
        self.groups = {k: v for k, v in bank.groups().items() if len(v)}
        total = sum(self.SHARES[k] for k in self.groups)
        self.counts = {k: round(batch * self.SHARES[k] / total) for k in self.groups}

    def next(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(crops (n, CROP_SIZE, CROP_SIZE, 3) uint8 BGR, ranks, suits)."""
        chosen = np.concatenate([self.rng.choice(self.groups[k], n) for k, n in self.counts.items()])
        patches = self.bank.patches[chosen]
        if self.draw.turn_real:  # drawn only then, so a run without it draws as runs before it did
            turned = self.bank.real[chosen] & (self.rng.random(len(chosen)) < self.draw.turn_real)
            patches[turned] = turned_any_way(self.rng, patches[turned])
        crops = augment(self.rng, patches, self.draw.reshape)
        return crops, self.bank.rank[chosen], self.bank.suit[chosen]


def _batch_stream(bank: CropBank, batch: int, seed: int, first_step: int, workers: int, draw: CropDraw = AS_TAUGHT):
    """Endless batches: drawn here with one generator (``workers`` 0), or by ``workers`` forked
    processes, batch ``step`` with a generator of its own, a few batches ahead of the trainer:
    on a GPU the step takes far less than the augmentation of its crops."""
    if workers == 0:
        batches = _Batches(bank, batch, np.random.default_rng([seed, first_step]), draw)
        while True:
            yield batches.next()
    global _POOL_BANK
    _POOL_BANK = (bank, batch, seed, draw)  # forked into the workers, never sent through a pipe
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
    bank, batch, seed, draw = _POOL_BANK
    return _Batches(bank, batch, np.random.default_rng([seed, step]), draw).next()


def _tensors(crops: np.ndarray, rank: np.ndarray, suit: np.ndarray, device: str):
    """A batch as the network takes it: RGB in [0, 1], NCHW, on ``device``."""
    import torch

    x = torch.from_numpy(crops[..., ::-1].transpose(0, 3, 1, 2).copy()).to(device).float() / 255.0
    return x, torch.from_numpy(rank).to(device), torch.from_numpy(suit).to(device)


def train_classifier(bank: CropBank, checkpoint: Path, minutes: float, batch: int, lr: float, seed: int,
                     start_from: Path | None = None, log=print, save_every: float = 120.0,
                     device: str = "cpu", workers: int = 0, on_save: Callable[[], None] | None = None,
                     widths: tuple[int, ...] | None = None, draw: CropDraw = AS_TAUGHT) -> Path:
    """Trains for ``minutes`` of wall-clock in all, resuming from ``checkpoint`` if it is there.

    Args:
        bank: the crops to learn from.
        checkpoint: where the state is saved every ``save_every`` seconds, at the end, and
            when the training is interrupted (Ctrl-C).
        minutes: the training time in all, over every resumed run.
        batch: crops per step.
        lr: AdamW's peak learning rate (cosine schedule over ``minutes``).
        seed: random seed.
        start_from: weights to continue from when there is no checkpoint yet (a continued run);
            a narrower network's are widened to ``widths`` first (``widened``).
        log: where progress lines go.
        save_every: seconds between checkpoints.
        device: where the network trains ("cpu", or "cuda" on a GPU machine).
        workers: processes that augment the crops (0: this one, between steps).
        on_save: called after each checkpoint is written.
        widths: the network's layer widths (``build_model``); None: ``start_from``'s, or
            ``BASE_WIDTHS`` without one. A resumed checkpoint keeps its own.
        draw: what the run adds to each crop's augmentation (``CropDraw``).

    Returns:
        ``checkpoint``, holding the weights under "model".
    """
    import torch
    import torch.nn.functional as F

    torch.manual_seed(seed)
    state = {"seconds": 0.0, "steps": 0}
    saved = torch.load(checkpoint, map_location="cpu", weights_only=False) if checkpoint.is_file() else None
    if saved is not None:
        model = build_model(widths_of(saved["model"]))
        model.load_state_dict(saved["model"])
        state = saved["state"]
        log(f"classifier: resuming at {state['seconds'] / 60:.1f} of {minutes:g} min, step {state['steps']}")
    elif start_from is not None:
        start = torch.load(start_from, map_location="cpu", weights_only=False)["model"]
        start_widths = widths_of(start)
        widths = tuple(widths or start_widths)
        model = build_model(widths)
        if start_widths != widths:
            log(f"classifier: {start_from}'s layers {start_widths} widened to {widths}")
            start = widened(start, widths, seed)
        model.load_state_dict(start)
    else:
        model = build_model(widths or BASE_WIDTHS)
    # The workers are forked before this process touches the GPU: a forked child cannot use it.
    batches = _batch_stream(bank, batch, seed, state["steps"], workers, draw)
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

    The features are what teaching a deck learns from (``cribcam.teach.lesson``): it fits
    heads of its own on them, in numpy, so the base install teaches without torch.
    """
    import torch

    weights = torch.load(checkpoint, map_location="cpu", weights_only=False)["model"]
    model = build_model(widths_of(weights))
    model.load_state_dict(weights)
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
