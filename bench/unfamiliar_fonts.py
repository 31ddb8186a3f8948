"""How the index classifier reads typefaces it never trained on: crops of font decks.

A player's deck may print its indices in any typeface, and the held-out designs read far worse
than the training designs. This draws plain decks (``datagen.font_decks``) in the fonts under
``--fonts``, a folder of font files that training never saw (for run 9: 15 Debian font
packages unpacked with ``dpkg -x`` and never installed; models/HISTORY.md, "Run 9"), cuts
``--crops`` index crops from them exactly as training cuts its art crops (any angle, the scenes'
looks, table backgrounds) and through the training augmentation, from ``--seed``, so every model
reads the same crops. Prints the share read right (card, rank, suit) and the share read right
and sure (probability at least the reader's ``CARD_CONF``).

``--fonts /usr/share/fonts`` draws the same bench in the training typefaces: what the
augmentation alone leaves unread, about the most the unfamiliar ones can be expected to reach
(run 16: 0.876 there against 0.818; models/HISTORY.md, "Run 18").

The 15 packages of run 9's choice, unpacked apart (``apt-get download`` each, then
``dpkg -x FILE.deb DIR``): fonts-firacode fonts-sil-charis fonts-anonymous-pro fonts-tuffy
fonts-goudybookletter fonts-adf-berenis fonts-adf-tribun fonts-adf-verana fonts-averia-serif-gwf
fonts-prociono fonts-linex fonts-oflb-euterpe fonts-agave fonts-mononoki fonts-gfs-artemisia. A
machine that installs them leaks them into training (``bin/install-training-fonts`` does not).

Needs the ``train`` extra (Pillow, fontTools) and a built synthetic set for the backgrounds.

Run: python bench/unfamiliar_fonts.py --fonts DIR [--model FILE ...] [--crops 4000]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np

from cribcam.datagen.font_decks import font_decks
from cribcam.scoring.cards import CARD_CODES
from cribcam.teach.crop_bank import augment
from cribcam.training.classifier import bank_from_decks
from cribcam.vision.classifier import IndexClassifier
from cribcam.vision.models import MODELS_DIR
from cribcam.vision.reader import CARD_CONF

SCENES = MODELS_DIR.parent / "datasets" / "build" / "synth-choose" / "images" / "train"


def crops_and_truth(fonts: Path, decks: int, count: int, seed: int, scenes: Path) -> tuple[np.ndarray, np.ndarray]:
    """(n, 48, 48, 3) crops of font-deck indices and their (n,) card numbers in ``CARD_CODES``."""
    backgrounds = [cv2.imread(str(path)) for path in sorted(scenes.glob("*.jpg"))[:100]]
    if not backgrounds:
        raise SystemExit(f"no scenes for backgrounds under {scenes}: build them with cribcam data build")
    drawn = font_decks(decks, seed, root=fonts)
    if not drawn:
        raise SystemExit(f"no usable fonts under {fonts}")
    bank = bank_from_decks(drawn, count, seed, backgrounds)
    crops = augment(np.random.default_rng(seed), bank.patches)
    return crops, bank.suit * 13 + bank.rank  # CARD_CODES is suit-major


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fonts", type=Path, required=True, help="a folder of fonts training never saw")
    parser.add_argument("--model", nargs="+", default=[str(MODELS_DIR / "classifier.onnx")],
                        help="classifier ONNX files (default: the bundled one)")
    parser.add_argument("--decks", type=int, default=60)
    parser.add_argument("--crops", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scenes", type=Path, default=SCENES, help="scene images to lay the cards on")
    args = parser.parse_args(argv)

    crops, truth = crops_and_truth(args.fonts, args.decks, args.crops, args.seed, args.scenes)
    print(f"{len(crops)} crops of {args.decks} decks in the fonts of {args.fonts}")
    print(f"{'model':40s} {'card':>6} {'rank':>6} {'suit':>6} {'sure':>6}")
    for path in args.model:
        cards = IndexClassifier(Path(path), threads=2).read_crops(crops)[:, :len(CARD_CODES)]
        best = cards.argmax(axis=1)
        right = best == truth
        sure = right & (cards[np.arange(len(best)), best] >= CARD_CONF)
        print(f"{path:40s} {right.mean():>6.3f} {(best % 13 == truth % 13).mean():>6.3f} "
              f"{(best // 13 == truth // 13).mean():>6.3f} {sure.mean():>6.3f}")


if __name__ == "__main__":
    main()
