"""Making the rehearsal set that every lesson mixes in (``cribcam.teach.rehearsal`` loads it).

It is made once per trained classifier, from the training data:

    python -m cribcam.training.rehearsal --synth datasets/build/synth --real datasets/build/real
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from cribcam.teach.rehearsal import MOSAIC_COLUMNS, REHEARSAL

REHEARSAL_SIDE = 64  # rehearsal patches are stored this large (scene indices are ~26 px)


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


def _mosaic(tiles: np.ndarray) -> np.ndarray:
    rows = -(-len(tiles) // MOSAIC_COLUMNS)
    side = tiles.shape[1]
    out = np.zeros((rows * side, MOSAIC_COLUMNS * side, 3), np.uint8)
    for i, tile in enumerate(tiles):
        r, c = divmod(i, MOSAIC_COLUMNS)
        out[r * side:(r + 1) * side, c * side:(c + 1) * side] = tile
    return out


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
