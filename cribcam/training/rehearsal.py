"""The rehearsal set: crops of what the bundled classifier learnt, mixed into every lesson.

Teaching a deck corrects the bundled classifier's heads on the player's indices; without a
rehearsal of the training designs and photos the correction would change how they read too.
The set ships beside the models (``models/rehearsal.npz``, about 2 MB) and is made once per
trained classifier; its crops, not their features, are kept, so it serves any classifier
re-exported or retrained since (teaching reads their features with the classifier it teaches):

    python -m cribcam.training.rehearsal --synth datasets/build/synth --real datasets/build/real
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from cribcam.vision.crops import CROP_SIZE, MARGIN, crop_square
from cribcam.vision.models import MODELS_DIR

REHEARSAL = MODELS_DIR / "rehearsal.npz"
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
    from cribcam.datagen.card_art import load_decks
    from cribcam.teach.crop_bank import NO_INDEX, CropBank, bank_from_labelled_photos
    from cribcam.training.classifier import bank_from_decks, bank_from_scenes
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
    from cribcam.teach.crop_bank import PATCH, CropBank

    if not Path(path).is_file():
        raise FileNotFoundError(f"no rehearsal set at {path}: make it with "
                                f"python -m cribcam.training.rehearsal --synth DIR")
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


def split_rehearsal(bank, seed: int, share: float = 0.2):
    """The rehearsal bank to train on, and a fifth of its indices held back to check on."""
    from cribcam.teach.crop_bank import NO_INDEX, CropBank

    rng = np.random.default_rng([seed, 7])
    held = rng.random(len(bank)) < share
    held &= bank.rank != NO_INDEX

    def part(mask):
        return CropBank(bank.patches[mask], bank.rank[mask], bank.suit[mask], bank.real[mask], bank.art[mask])

    return part(~held), part(held)


def rehearsal_crops(patches: np.ndarray) -> np.ndarray:
    """The classifier's crop of the index at the centre of each bank patch, as at run time."""
    from cribcam.teach.crop_bank import CONTEXT, PATCH

    side = PATCH * (1 + 2 * MARGIN) / CONTEXT
    return np.array([crop_square(p, (PATCH / 2, PATCH / 2), side, CROP_SIZE) for p in patches], np.uint8)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(prog="python -m cribcam.training.rehearsal",
                                     description="Make the rehearsal set that teaching a deck mixes in.")
    parser.add_argument("--synth", type=Path, required=True, help="a built synthetic set (cribcam data build)")
    parser.add_argument("--real", type=Path, default=None,
                        help="the real photos split by capture (cribcam data real); their training part")
    parser.add_argument("--out", type=Path, default=REHEARSAL)
    parser.add_argument("--seed", type=int, default=0)
    arguments = parser.parse_args()
    written = make_rehearsal(arguments.synth, arguments.out, real=arguments.real, seed=arguments.seed)
    print(f"{written}: {written.stat().st_size / 1e6:.2f} MB")
