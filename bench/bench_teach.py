"""Teaching a deck, measured as a player would run it: `cribcam teach`, then `cribcam eval`.

1. The dark gold-on-black deck of the shared real photos, in thirteen splits (``SPLITS``):
   taught with `--labels` from 20 or 8 of its 50 training-part photos, or from 8 of its 20
   validation photos, drawn by a seed; each measured before and after on the rest of its
   part (and, taught from the training part, on the validation photos); each split's
   figures, the mean and the worst split.
2. Two held-out synthetic designs: taught from four rendered layout photos each (one suit a
   photo, `--order suits-in-rows`, no names typed), measured on the held-out scenes of the
   same designs (`cribcam data build --split heldout`).
3. Decks lettered differently (`cribcam.datagen.font_decks.ALPHABETS`: Dutch, German, French,
   Scandinavian and Russian, each drawn in two pinned font files, ``LETTERED``): taught with
   `--labels` from rendered layouts of the clubs and diamonds, measured on rendered layouts of
   the hearts and spades: their court cards and aces (lettered) and all their cards. Where
   teaching asks about a letter, it is taught again with the answers a player who knows the
   deck gives (`--letters`), and both alphabets are said.
4. For every taught deck, the real validation photos as a whole, against the bundled reader.
   Every `cribcam eval` runs with `--count-given`, as the photo page reads a hand.
5. Time: each teaching (with the machine's load), and reading the real validation photos
   with each taught deck against the bundled reader, in one process.

Every deck goes to a data folder of its own (``CRIBCAM_DATA``), never the player's. Run from
the repository root after `cribcam data real` and the held-out build:

    python bench/bench_teach.py [--model DIR] [--out FILE.json] [--only PART ...]

``--only`` runs some parts alone (``blackgold``, ``designs``, ``lettered``, ``speed``: with
every deck the run taught).
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
import numpy as np

REAL = Path("datasets/build/real")
HELDOUT = Path("datasets/build/heldout")
BLACKGOLD = "phone_blackgold_deck"
# Each split of the deck's photos: (the part of the capture split, 50 training photos or 20
# validation photos; how many of them are taught from; the seed that draws them).
SPLITS = [("train", 20, 0), ("train", 20, 1), ("train", 20, 2), ("train", 20, 3), ("train", 20, 4),
          ("train", 8, 5), ("train", 8, 6), ("train", 8, 7),
          ("val", 8, 10), ("val", 8, 11), ("val", 8, 12), ("val", 8, 13), ("val", 8, 14)]
DESIGNS = ["gnome-bellot", "kde-svg-penguins"]
# The lettered decks, pinned to font files (bin/install-training-fonts installs them) and a
# style seed, so that every machine draws the same two decks.
LETTERED = {"dutch": ("Manrope-ExtraBold.ttf", "DejaVuSansCondensed-Oblique.ttf", 0),
            "german": ("AccanthisADFStdNo2-BoldItalic.otf", "Arimo-Regular.ttf", 1),
            "french": ("LiberationSansNarrow-BoldItalic.ttf", "NimbusMonoPS-BoldItalic.otf", 2),
            "scandinavian": ("Lato-MediumItalic.ttf", "Go-Smallcaps-Italic.ttf", 3),
            "russian": ("Lato-MediumItalic.ttf", "LiberationSansNarrow-Regular.ttf", 4)}
PARTS = ["blackgold", "designs", "lettered", "speed"]
MODEL: list = []  # ["--model", DIR] when the models to teach on are not the bundled ones


def cribcam(*args, env: dict) -> str:
    """Runs `cribcam ARGS` (standard output back; a failure stops the bench with its message)."""
    command = [sys.executable, "-m", "cribcam", *map(str, args)]
    print("$ cribcam " + " ".join(map(str, args)), flush=True)
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    if result.returncode:
        sys.exit(f"cribcam {args[0]} failed: {result.stderr.strip()}")
    return result.stdout


def load() -> list[str]:
    return Path("/proc/loadavg").read_text().split()[:3]


def timed_teach(args: list, env: dict) -> tuple[dict, float, list]:
    """The deck's record, the wall-clock seconds of `cribcam teach` and the load before it."""
    before = load()
    started = time.monotonic()
    record = json.loads(cribcam("teach", *args, "--json", *MODEL, env=env))
    return record, time.monotonic() - started, before


def evaluate(images: Path, labels: Path, env: dict, deck: str | None = None, only: Path | None = None) -> dict:
    return json.loads(cribcam("eval", "--images", images, "--labels", labels, "--json", "--count-given", *MODEL,
                              *(["--deck", deck] if deck else []), *(["--only", only] if only else []), env=env))


def figures(tally: dict) -> dict:
    return {k: tally[k] for k in ("images", "recall", "precision", "exact_hand_rate")}


def labels_file(path: Path, labels: dict) -> Path:
    path.write_text(json.dumps(labels))
    return path


def rendered(deck, suits: str, seeds: list[int], folder: Path, size: int = 1024) -> dict:
    """Rendered layout photos of ``suits`` written to ``folder`` (``size`` pixels a side); their labels."""
    from cribcam.datagen.layout_photos import render_layout

    folder.mkdir(parents=True, exist_ok=True)
    labels = {}
    for seed in seeds:
        for suit in suits:
            image, boxes = render_layout(deck, suit, seed=seed, size=size)
            name = f"{suit}-{seed}.jpg"
            cv2.imwrite(str(folder / name), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
            labels[name] = {"cards": [{"card": b.code, "box": [round(v, 1) for v in b.box]} for b in boxes],
                            "subset": deck.name}
    return labels


def printed_texts(letters: dict[str, str]) -> tuple[str, ...]:
    """The 13 rank texts (``RANKS`` order) a deck lettered so prints, as the recognizer reads
    them (Cyrillic capitals as their Latin lookalikes, ``rank_reader.LOOKALIKES``): what teaching
    should learn."""
    from cribcam.scoring.cards import RANK_TEXTS, RANKS
    from cribcam.vision.rank_reader import LOOKALIKES

    return tuple(letters.get(rank, standard).translate(LOOKALIKES) for rank, standard in zip(RANKS, RANK_TEXTS))


def alphabet_said(learnt: dict[str, str], printed: dict[str, str]) -> str:
    """Whether the alphabet learnt (rank to text) is the one printed, as the recognizer reads both."""
    from cribcam.vision.rank_reader import LOOKALIKES

    differ = [f"{learnt[rank]} for {printed[rank]}" for rank in printed
              if learnt[rank].translate(LOOKALIKES) != printed[rank]]
    return "as printed" if not differ else "not as printed: " + ", ".join(differ)


def lettered_cards(folder: Path, labels: dict, deck: str | None) -> dict:
    """Recall and precision of the reader on the court cards and aces of rendered layouts:
    a card read on the index of a lettered card counts right or wrong."""
    from cribcam.vision import CardReader
    from cribcam.vision.decks import deck_classifier

    reader = CardReader(MODEL[1] if MODEL else None, classifier=deck_classifier(deck))
    right = wrong = total = 0
    for name, entry in labels.items():
        reading = reader.read(cv2.imread(str(folder / name)))
        targets = [c for c in entry["cards"] if c["card"][0] in "JQKA"]
        total += len({c["card"] for c in targets})
        right += len({c["card"] for c in targets} & set(reading.codes))
        for card in reading.cards:
            centres = [((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for b in card.boxes]
            under = {c["card"] for c in targets for x, y in centres
                     if c["box"][0] <= x <= c["box"][2] and c["box"][1] <= y <= c["box"][3]}
            wrong += bool(under) and card.card not in under
    return {"cards": total, "recall": round(right / total, 4), "precision": round(right / max(right + wrong, 1), 4)}


def reading_speed(images: Path, deck: str | None, repeats: int = 2) -> float:
    """Milliseconds a photo, reading every real validation photo ``repeats`` times."""
    from cribcam.vision import CardReader
    from cribcam.vision.decks import deck_classifier

    reader = CardReader(MODEL[1] if MODEL else None, classifier=deck_classifier(deck))
    photos = [cv2.imread(str(p)) for p in sorted(images.glob("*.jpg"))]
    reader.read(photos[0])  # warm
    started = time.monotonic()
    for _ in range(repeats):
        for photo in photos:
            reader.read(photo)
    return round((time.monotonic() - started) * 1000 / (repeats * len(photos)), 1)


def blackgold_splits(work: Path, env: dict) -> dict:
    """The gold-on-black deck taught in each of ``SPLITS`` (so many photos of one part of the
    capture split, drawn with a seed), measured before and after on the rest of that part, and,
    taught from the training part, on the validation part too: a taught deck is judged by its
    worst split, not its best. The bundled models were trained on the training part's photos
    (they read them nearly all right untaught); the validation part's they never saw."""
    parts = {part: json.loads((REAL / f"labels-{part}.json").read_text()) for part in ("train", "val")}
    ours = {part: sorted(n for n, e in labels.items() if e["subset"] == BLACKGOLD) for part, labels in parts.items()}
    val_ours = labels_file(work / "blackgold-val.json", {n: parts["val"][n] for n in ours["val"]})
    splits = []
    for part, photos, seed in SPLITS:
        labels, images = parts[part], REAL / "images" / part
        taught_from = sorted(np.random.default_rng(seed).choice(ours[part], photos, replace=False))
        name = f"blackgold-{part}-{photos}-{seed}"
        rest = labels_file(work / f"{name}-rest.json", {n: labels[n] for n in ours[part] if n not in taught_from})
        taught = labels_file(work / f"{name}-taught.json", {n: labels[n] for n in taught_from})
        record, seconds, busy = timed_teach([*(images / n for n in taught_from), "--name", name,
                                             "--labels", taught], env)
        split = {"part": part, "taught_from": photos, "seed": seed, "seconds": round(seconds),
                 "loadavg_before_teaching": busy, "kept": record.get("kept"), "checks": record["checks"],
                 "rest_before": figures(evaluate(images, rest, env)["overall"]),
                 "rest_after": figures(evaluate(images, rest, env, name)["overall"])}
        if part == "train":
            split["val_before"] = figures(evaluate(REAL / "images" / "val", val_ours, env)["overall"])
            split["val_after"] = figures(evaluate(REAL / "images" / "val", val_ours, env, name)["overall"])
        splits.append(split)
    return {"splits": splits}


def split_lines(result: dict) -> list[str]:
    """Each split's before and after, then the mean and the worst, in lines."""
    lines = ["gold-on-black deck: recall / precision on the rest of the part taught from (rest) and, taught "
             "from the training part, on the validation part (val); untaught -> taught"]
    for s in result["splits"]:
        where = [w for w in ("rest", "val") if f"{w}_after" in s]
        said = "; ".join(f"{w} {s[f'{w}_before']['recall']:.3f} / {s[f'{w}_before']['precision']:.3f} -> "
                         f"{s[f'{w}_after']['recall']:.3f} / {s[f'{w}_after']['precision']:.3f}" for w in where)
        worse = any(s[f"{w}_after"][f] < s[f"{w}_before"][f] for w in where for f in ("recall", "precision"))
        lines.append(f"  from {s['taught_from']:>2} {s['part']} photos, seed {s['seed']}: {said}; {s['seconds']} s; "
                     f"kept {s['kept']}{'; WORSE than untaught' if worse else ''}")
    for part in ("train", "val"):
        afters = [s["rest_after"] for s in result["splits"] if s["part"] == part]
        befores = [s["rest_before"] for s in result["splits"] if s["part"] == part]
        if afters:
            lines.append(f"  taught from the {part} part, on the rest of it: mean recall / precision "
                         f"{np.mean([b['recall'] for b in befores]):.3f} / {np.mean([b['precision'] for b in befores]):.3f}"
                         f" -> {np.mean([a['recall'] for a in afters]):.3f} / "
                         f"{np.mean([a['precision'] for a in afters]):.3f}; worst split after "
                         f"{min(a['recall'] for a in afters):.3f} / {min(a['precision'] for a in afters):.3f}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="a JSON file for the figures")
    parser.add_argument("--model", type=Path, help="models to teach on and read with (default: the bundled ones)")
    parser.add_argument("--only", nargs="+", choices=PARTS, default=PARTS, help="the parts to run")
    parser.add_argument("--splits", type=int, help="the first this many of the gold deck's splits only")
    args = parser.parse_args()
    if args.model:
        MODEL.extend(["--model", args.model])
    if args.splits:
        del SPLITS[args.splits:]
    work = Path(tempfile.mkdtemp(prefix="bench-teach-"))
    env = {**os.environ, "CRIBCAM_DATA": str(work / "data")}
    os.environ["CRIBCAM_DATA"] = env["CRIBCAM_DATA"]  # the in-process measurements read the same decks
    val_images, val_labels = REAL / "images" / "val", REAL / "labels-val.json"
    results = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "loadavg_before": load(), "decks": {}}
    default_real = evaluate(val_images, val_labels, env)

    # 1. the gold-on-black deck, in several splits of its training-part photos
    if "blackgold" in args.only:
        results["blackgold_splits"] = blackgold_splits(work, env)
        for line in split_lines(results["blackgold_splits"]):
            print(line, flush=True)

    # 2. held-out designs, from rendered layouts named by the layout alone
    if "designs" in args.only:
        from cribcam.datagen.card_art import load_decks

        designs = {d.name: d for d in load_decks(split="heldout", progress=False)}
        heldout_labels = json.loads((HELDOUT / "labels-test.json").read_text())
        for k, name in enumerate(DESIGNS):
            folder = work / name
            rendered(designs[name], "CDHS", [100 + k], folder)
            record, seconds, busy = timed_teach([*(folder / f"{suit}-{100 + k}.jpg" for suit in "CDHS"), "--name", name,
                                                 "--order", "suits-in-rows"], env)
            scenes = folder / "scenes.txt"  # the held-out scenes of this design
            scenes.write_text("\n".join(n for n, entry in heldout_labels.items() if entry["subset"] == name))
            before = evaluate(HELDOUT / "images" / "test", HELDOUT / "labels-test.json", env, only=scenes)
            heldout = evaluate(HELDOUT / "images" / "test", HELDOUT / "labels-test.json", env, name, only=scenes)
            real = evaluate(val_images, val_labels, env, name)
            results["decks"][name] = {
                "taught_from": f"4 rendered layouts, {len(record['cards'])} cards named by the layout",
                "seconds": round(seconds), "loadavg_before_teaching": busy, "kept": record.get("kept"),
                "checks": record["checks"],
                "deck_before": figures(before["subsets"][name]), "deck_after": figures(heldout["subsets"][name]),
                "real_val_before": figures(default_real["overall"]), "real_val_after": figures(real["overall"])}

    # 3. decks lettered differently, taught from two suits, read on the other two
    if "lettered" in args.only:
        from cribcam.datagen.font_decks import ALPHABETS, named_deck
        from cribcam.scoring.cards import RANKS

        for alphabet, (rank_font, suit_font, seed) in LETTERED.items():
            try:
                deck = named_deck(rank_font, suit_font, seed, alphabet)
            except FileNotFoundError as exc:
                sys.exit(f"bench_teach: {exc}")
            folder = work / alphabet
            shown = rendered(deck, "CD", [0], folder)
            taught_from = [*(folder / n for n in shown), "--labels", labels_file(folder / "taught.json", shown)]
            record, seconds, busy = timed_teach([*taught_from, "--name", alphabet], env)
            asked = record["letters_unsure"]
            printed = dict(zip(RANKS, printed_texts(ALPHABETS[alphabet])))
            unasked = alphabet_said(record["rank_texts"], printed)
            if asked:  # taught again as a player who knows the deck answers: what it prints
                cribcam("decks", "remove", alphabet, env=env)
                answers = [f"{q['rank']}={ALPHABETS[alphabet].get(q['rank'], q['standard'])}" for q in asked]
                record, seconds, busy = timed_teach([*taught_from, "--name", alphabet, "--letters", *answers], env)
            unseen = rendered(deck, "HS", [100, 101, 102], folder)
            unseen_labels = labels_file(folder / "unseen.json", unseen)
            real = evaluate(val_images, val_labels, env, alphabet)
            learnt = record["rank_texts"]
            answered = f"; asked {', '.join(q['said'] for q in asked)}: answered, {alphabet_said(learnt, printed)}"
            print(f"{alphabet}: the alphabet learnt is {unasked}{answered if asked else ''}", flush=True)
            results["decks"][alphabet] = {
                "deck": deck.name, "taught_from": "rendered layouts of the clubs and diamonds, --labels",
                "rank_texts_learnt": learnt, "letters_asked": [q["said"] for q in asked],
                "learnt_as_printed": alphabet_said(learnt, printed) == "as printed",
                "seconds": round(seconds), "loadavg_before_teaching": busy, "kept": record.get("kept"),
                "checks": record["checks"],
                "lettered_of_hearts_and_spades_before": lettered_cards(folder, unseen, None),
                "lettered_of_hearts_and_spades_after": lettered_cards(folder, unseen, alphabet),
                "hearts_and_spades_before": figures(evaluate(folder, unseen_labels, env)["overall"]),
                "hearts_and_spades_after": figures(evaluate(folder, unseen_labels, env, alphabet)["overall"]),
                "real_val_before": figures(default_real["overall"]), "real_val_after": figures(real["overall"])}

    # 5. reading speed, bundled against a taught deck
    if "speed" in args.only:
        results["reading_ms_per_photo"] = {"loadavg_before": load(), "bundled": reading_speed(val_images, None),
                                           **{f"taught ({name})": reading_speed(val_images, name)
                                              for name in results["decks"]}}
    results["loadavg_after"] = load()
    if args.out:
        args.out.write_text(json.dumps(results, indent=1) + "\n")
    print(json.dumps(results, indent=1))
    # Kept on purpose: the taught decks can be read again (CRIBCAM_DATA=... cribcam read --deck).
    print(f"the taught decks are kept in {work / 'data'}: delete {work} when done", file=sys.stderr)


if __name__ == "__main__":
    main()
