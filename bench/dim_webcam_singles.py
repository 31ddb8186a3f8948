"""Single cards held up to a dim, blurred webcam: how many the reader reads (issue 49).

On the real photos of this kind the index corners are a few blurred pixels while the card's
pips are large and plain, and most say "the card could not be read". Drawn here: every card of
the held-out designs (``load_decks(split="heldout")``, never trained on), one a photo, near the
middle of a 640 x 480 frame cut from the generator's 640 square scene, turned any way and
tilted a little, ``CARD_PX`` pixels wide; then the webcam: darker (a gain and a gamma), blurred (defocus or a motion smear), sensor noise, a low JPEG quality. The seed is
fixed, so every run draws the same photos.

Each photo is read with one card expected, as a page that knows it shows one card reads it; with
``--no-count``, as `cribcam eval` reads a photo of one card (no count given, as a hand's is):
- right: the card, and only it, read; wrong: something else read (``wrong_unwarned``: of those,
  the readings that warned of nothing, no card unsure and no problem); not read: no card;
  ``read_by_face``: the same for the readings the face decided (problem ``read_by_face``);
- the face reading (``vision.pips.read_face``, the suit by the reader's classifier) on its own,
  on every 2 to 10: right, not counted, wrong; and on the aces and court cards, how many it
  counted (wrongly).

Measured 2026-11-28 (models/HISTORY.md, "A card read by its face"): 0.726 right before the face
reading, 0.875 with it.

Run from the repository root:

    python bench/dim_webcam_singles.py [--seed 49] [--split heldout] [--no-count] [--save DIR] [--out FILE.json]
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from cribcam.datagen.assets import make_assets
from cribcam.datagen.augment import motion_kernel
from cribcam.datagen.camera import look_at
from cribcam.datagen.card_art import load_decks
from cribcam.datagen.layouts import Item, Layout
from cribcam.datagen.scenes import compose
from cribcam.scoring.cards import CARD_CODES
from cribcam.vision import CardReader
from cribcam.vision.pips import read_face

SIZE = 640
HEIGHT = 480  # a webcam's 4:3 frame, cut from the square scene
CARD_PX = (110.0, 200.0)  # the card's width in the frame: held up, filling a third of it
GAIN = (0.3, 0.6)  # a dim room
GAMMA = (1.0, 1.6)
DEFOCUS = (2.0, 3.5)  # Gaussian sigma, pixels
SMEAR = (7, 15)  # motion smear length, pixels
NOISE = (4.0, 12.0)  # sensor noise sigma, grey levels
JPEG = (55, 85)


def webcam(rng: np.random.Generator, image: np.ndarray) -> np.ndarray:
    """A clean scene as a dim webcam takes it."""
    out = image.astype(np.float32) / 255.0
    out = (out ** float(rng.uniform(*GAMMA))) * float(rng.uniform(*GAIN))
    if rng.random() < 0.5:
        out = cv2.GaussianBlur(out, (0, 0), float(rng.uniform(*DEFOCUS)))
    else:
        out = cv2.filter2D(out, -1, motion_kernel(rng, int(rng.integers(*SMEAR)) | 1))
        out = cv2.GaussianBlur(out, (0, 0), 0.8)
    out = out * 255.0 + rng.normal(0, float(rng.uniform(*NOISE)), out.shape[:2])[..., None]
    out = np.clip(out, 0, 255).astype(np.uint8)
    top = (SIZE - HEIGHT) // 2
    out = np.ascontiguousarray(out[top:top + HEIGHT])
    ok, jpeg = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(*JPEG))])
    return cv2.imdecode(jpeg, cv2.IMREAD_COLOR)


def draw(seed: int, split: str = "heldout"):
    """(code, design, photo) for every card of the ``split`` designs (held-out: never trained on;
    train: to choose the face reading's thresholds on, never the held-out ones)."""
    decks = load_decks(split=split, progress=False)
    assets = make_assets(decks, seed, n_surfaces=8)
    rng = np.random.default_rng(seed)
    for prepared in assets.decks:
        for code in CARD_CODES:
            layout = Layout("single", [Item("card", 0.0, 0.0, float(rng.uniform(-180, 180)), code)],
                            aspect=prepared.height / prepared.width)
            card_px = float(rng.uniform(*CARD_PX))
            camera = look_at((float(rng.normal(0, 0.1)), float(rng.normal(0, 0.1))), card_px,
                             tilt=float(rng.uniform(0, 25)), azimuth=float(rng.uniform(0, 360)),
                             roll=0.0, size=SIZE)
            scene = compose(rng, layout, camera, prepared, assets, {"name": "plain"}, photographic=False)
            yield code, prepared.name, webcam(rng, scene.image)


def verdict(code: str, read: list[str]) -> str:
    if not read:
        return "not read"
    return "right" if read == [code] else "wrong"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=49)
    parser.add_argument("--split", choices=("heldout", "train"), default="heldout",
                        help="the designs drawn (train: to choose thresholds on)")
    parser.add_argument("--no-count", action="store_true",
                        help="read each photo without its count, as `cribcam eval` reads a photo of one card")
    parser.add_argument("--model", type=Path, help="models to read with (default: the bundled ones)")
    parser.add_argument("--save", type=Path, help="a folder to write the photos to, to look at")
    parser.add_argument("--out", type=Path, help="a JSON file for the figures")
    args = parser.parse_args()
    reader = CardReader(args.model, threads=1)
    tally, face, by_design, by_kind = Counter(), Counter(), {}, {}
    face_decided, wrong_unwarned = Counter(), 0
    started = time.monotonic()
    for n, (code, design, image) in enumerate(draw(args.seed, args.split)):
        if args.save:
            args.save.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(args.save / f"{n:03d}-{design}-{code}.jpg"), image)
        reading = reader.read(image, expected=None if args.no_count else 1)
        said = verdict(code, reading.codes)
        tally[said] += 1
        by_design.setdefault(design, Counter())[said] += 1
        by_kind.setdefault("2 to 10" if code[0] in "23456789T" else "ace or court", Counter())[said] += 1
        if said == "wrong" and not reading.warns:
            wrong_unwarned += 1
        if any(p.code == "read_by_face" for p in reading.problems):
            face_decided[said] += 1
        if code[0] in "23456789T":
            by_face = read_face(image, reader.classifier)
            face["not counted" if by_face is None else "right" if by_face[0] == code else "wrong"] += 1
        elif read_face(image, reader.classifier) is not None:
            face["ace or court counted"] += 1
    cards = sum(tally.values())
    figures = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "seed": args.seed, "split": args.split,
               "count_given": not args.no_count, "cards": cards,
               "right": round(tally["right"] / cards, 3), "reader": dict(tally), "wrong_unwarned": wrong_unwarned,
               "read_by_face": dict(face_decided), "face_alone": dict(face),
               "by_kind": {k: dict(v) for k, v in by_kind.items()},
               "by_design": {k: dict(v) for k, v in by_design.items()},
               "seconds_per_photo": round((time.monotonic() - started) / cards, 3)}
    print(json.dumps(figures, indent=1))
    if args.out:
        args.out.write_text(json.dumps(figures, indent=1) + "\n")


if __name__ == "__main__":
    main()
