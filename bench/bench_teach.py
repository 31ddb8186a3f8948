"""Teaching a deck, measured as a player would run it: `cribcam teach`, then `cribcam eval`.

1. The dark gold-on-black deck of the shared real photos: taught with `--labels` from the
   seven photos of its cards laid out (IMG_7835 to IMG_7841, the training part of the capture
   split), measured on that deck's photos of the validation part before and after.
2. Two held-out synthetic designs: taught from four rendered layout photos each (one suit a
   photo, `--order suits-in-rows`, no names typed), measured on the held-out scenes of the
   same designs (`cribcam data build --split heldout`).
3. For every taught deck, the real validation photos as a whole, against the default.

Every deck goes to a data folder of its own (``CRIBCAM_DATA``), never the player's. Run from
the repository root after `cribcam data real` and the held-out build:

    python bench/bench_teach.py [--model DIR] [--minutes 4] [--out bench-teach.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2

REAL = Path("datasets/build/real")
HELDOUT = Path("datasets/build/heldout")
BLACKGOLD = "phone_blackgold_deck"
BLACKGOLD_LAYOUTS = [f"CardCounterML__IMG_{n}_JPG.jpg" for n in range(7835, 7842)]
DESIGNS = ["gnome-bellot", "kde-svg-penguins"]
MODEL: list = []  # ["--model", DIR] when the models to start from are not the bundled ones


def cribcam(*args, env: dict) -> str:
    """Runs `cribcam ARGS` (standard output back; a failure stops the bench with its message)."""
    command = [sys.executable, "-m", "cribcam", *map(str, args)]
    print("$ cribcam " + " ".join(map(str, args)), flush=True)
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    if result.returncode:
        sys.exit(f"cribcam {args[0]} failed: {result.stderr.strip()}")
    return result.stdout


def timed_teach(args: list, env: dict) -> tuple[dict, float]:
    started = time.monotonic()
    record = json.loads(cribcam("teach", *args, "--json", *MODEL, env=env))
    return record, time.monotonic() - started


def evaluate(images: Path, labels: Path, env: dict, deck: str | None = None, only: Path | None = None) -> dict:
    return json.loads(cribcam("eval", "--images", images, "--labels", labels, "--json", *MODEL,
                              *(["--deck", deck] if deck else []), *(["--only", only] if only else []), env=env))


def figures(tally: dict) -> dict:
    return {k: tally[k] for k in ("images", "recall", "precision", "exact_hand_rate")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=None, help="training time (default: cribcam teach's)")
    parser.add_argument("--out", type=Path, default=Path("bench-teach.json"))
    parser.add_argument("--model", type=Path, help="models to start from and read with (default: the bundled ones)")
    args = parser.parse_args()
    if args.model:
        MODEL.extend(["--model", args.model])
    minutes = ["--minutes", args.minutes] if args.minutes else []
    work = Path(tempfile.mkdtemp(prefix="bench-teach-"))
    env = {**os.environ, "CRIBCAM_DATA": str(work / "data")}
    val_images, val_labels = REAL / "images" / "val", REAL / "labels-val.json"
    results = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
               "loadavg_before": Path("/proc/loadavg").read_text().split()[:3], "decks": {}}
    default_real = evaluate(val_images, val_labels, env)
    heldout_labels = json.loads((HELDOUT / "labels-test.json").read_text())

    # 1. the gold-on-black deck, from the photos of its cards laid out
    train_labels = json.loads((REAL / "labels-train.json").read_text())
    subset = work / "blackgold-labels.json"
    subset.write_text(json.dumps({name: train_labels[name] for name in BLACKGOLD_LAYOUTS}))
    record, seconds = timed_teach([*(REAL / "images" / "train" / n for n in BLACKGOLD_LAYOUTS),
                                   "--name", "blackgold", "--labels", subset, *minutes], env)
    taught = evaluate(val_images, val_labels, env, "blackgold")
    results["decks"]["blackgold"] = {
        "taught_from": f"{len(BLACKGOLD_LAYOUTS)} photos, {len(record['cards'])} cards", "seconds": round(seconds),
        "checks": record["checks"],
        "deck_before": figures(default_real["subsets"][BLACKGOLD]), "deck_after": figures(taught["subsets"][BLACKGOLD]),
        "real_val_before": figures(default_real["overall"]), "real_val_after": figures(taught["overall"])}

    # 2. held-out designs, from rendered layouts named by the layout alone
    from cribcam.datagen.decks import load_decks
    from cribcam.training.layout import render_layout

    designs = {d.name: d for d in load_decks(split="heldout", progress=False)}
    for k, name in enumerate(DESIGNS):
        folder = work / name
        folder.mkdir()
        paths = []
        for suit in "CDHS":
            image, _ = render_layout(designs[name], suit, seed=100 + k)
            paths.append(folder / f"{suit}.jpg")
            cv2.imwrite(str(paths[-1]), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        record, seconds = timed_teach([*paths, "--name", name, "--order", "suits-in-rows", *minutes], env)
        scenes = folder / "scenes.txt"  # the held-out scenes of this design
        scenes.write_text("\n".join(n for n, entry in heldout_labels.items() if entry["subset"] == name))
        before = evaluate(HELDOUT / "images" / "test", HELDOUT / "labels-test.json", env, only=scenes)
        heldout = evaluate(HELDOUT / "images" / "test", HELDOUT / "labels-test.json", env, name, only=scenes)
        real = evaluate(val_images, val_labels, env, name)
        results["decks"][name] = {
            "taught_from": f"4 rendered layouts, {len(record['cards'])} cards named by the layout",
            "seconds": round(seconds), "checks": record["checks"],
            "deck_before": figures(before["subsets"][name]), "deck_after": figures(heldout["subsets"][name]),
            "real_val_before": figures(default_real["overall"]), "real_val_after": figures(real["overall"])}
    results["loadavg_after"] = Path("/proc/loadavg").read_text().split()[:3]
    args.out.write_text(json.dumps(results, indent=1) + "\n")
    print(json.dumps(results, indent=1))
    # Kept on purpose: the taught decks can be read again (CRIBCAM_DATA=... cribcam read --deck).
    print(f"the taught decks are kept in {work / 'data'}: delete {work} when done", file=sys.stderr)


if __name__ == "__main__":
    main()
