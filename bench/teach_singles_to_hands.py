"""Teaching from single cards, read in overlapping hands: does a lesson carry to a hand?

A player teaches a deck the easy way, one card a photo, and then photographs hands: fanned,
heaped, two cards of a trick lying across each other, turned any way, the indices at the
sizes a hand photo gives and some half hidden. Each split here is one lettered deck in one
look drawn for it (plain, ivory, faded, gold or light print on a dark face), as a player's real
deck is: a drawn one (``bench_teach.LETTERED``: Dutch, German, French, Scandinavian, Russian
letters, pinned to their font files), or a printed design lettered so (the card art's
``lettered`` decks, never trained on: ``tragy``, Polish W/D/K, and ``l-and-h``, Scandinavian
E/Kn/D/K, from GNOME Aisleriot; ``datasets/designs/aisleriot``):

1. taught with `cribcam teach --labels` from photos of single cards, the hearts and clubs
   (26 photos, each named by its card alone, ``{"card": "QH", "box": null}``), the letters a
   player who knows the deck gives where teaching asks (``--letters``);
2. read with `cribcam eval --count-given`, untaught and taught, on drawn photos of hands of
   its diamonds and spades: fanned, held, heaped, stacked, spread, and two-card tricks crossed.

Printed: each split's recall and precision untaught and taught, whether the lesson was kept,
its own check in the player's words, and the worst split. Run from the repository root (needs
the ``train`` extra's Pillow and fontTools, and the fonts `bin/install-training-fonts` installs):

    python bench/teach_singles_to_hands.py [--hands 42] [--per-suit 13] [--reference] [--model DIR] [--out FILE.json]

``--per-suit N`` photographs N cards of each taught suit only (drawn at random): how many a lesson
needs. ``--reference`` also reads, untaught, the same hands of each drawn deck printed with the
standard letters (A, J, Q, K) in the same fonts, style and look: what the reader makes of these
photos where the letters are no question, so the most a lesson of letters could bring them to.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np
from bench_teach import LETTERED, MODEL, cribcam, evaluate, figures, labels_file, load, timed_teach

SIZE = 640
TAUGHT_SUITS, READ_SUITS = "HC", "DS"
# Hands as the generator lays them (its fans and heaps), and a trick: not its desks of 5 to 22
# cards scattered far apart, whose indices are a few pixels tall (a reading matter, issue 49).
HAND_KINDS = ("fanned", "held", "heap", "stacked", "spread", "trick")


def _trick(rng: np.random.Generator, deal, aspect: float):
    """Two cards of a trick, the second laid across the first, both turned any way."""
    from cribcam.datagen.layouts import Item, Layout

    first, second = deal.take(2)
    angle = float(rng.uniform(-180, 180))
    turn = angle + float(rng.choice([-1, 1]) * rng.uniform(20, 90))
    shift = float(rng.uniform(0.3, 0.6))
    return Layout("trick", [Item("card", 0.0, 0.0, angle, first),
                            Item("card", shift * math.cos(math.radians(turn)), shift * math.sin(math.radians(turn)),
                                 turn, second)])


def _heap(rng: np.random.Generator, deal, aspect: float):
    """A hand dropped on a heap, as a crib is pushed across the table."""
    from cribcam.datagen.layouts import Item, Layout

    return Layout("heap", [Item("card", float(rng.normal(0, 0.35)), float(rng.normal(0, 0.35)),
                                float(rng.uniform(-30, 30)), code, "hand") for code in deal.take(int(rng.integers(4, 7)))])


def hand_layout(kind: str, rng: np.random.Generator, codes: list[str], aspect: float):
    """A layout of ``kind`` dealt from ``codes``, turned as a whole any way."""
    from cribcam.datagen.layouts import LAYOUTS, Deal, _group

    deal = Deal(rng, codes)
    makers = {"trick": _trick, "heap": _heap, **{k: LAYOUTS[k][1] for k in ("fanned", "held", "stacked", "spread")}}
    layout = makers[kind](rng, deal, aspect)
    layout.aspect = aspect
    layout.items = _group(layout.items, 0.0, 0.0, float(rng.uniform(0, 360)))
    return layout


def draw_hands(prepared, assets, look: dict, count: int, seed: int, folder: Path) -> dict:
    """``count`` hand photos of the read suits, each framing the whole hand as a player
    photographs it (not the generator's close-ups of one corner), as `cribcam eval --labels`
    takes them."""
    from cribcam.datagen.camera import look_at
    from cribcam.datagen.layouts import card_extent
    from cribcam.datagen.scenes import MIN_INDEX_PX, compose
    from cribcam.scoring.cards import CARD_CODES

    codes = [c for c in CARD_CODES if c[-1] in READ_SUITS]
    rng = np.random.default_rng([seed, 0x4A4D])
    labels = {}
    for k in range(count):
        kind = HAND_KINDS[k % len(HAND_KINDS)]
        layout = hand_layout(kind, rng, codes, prepared.height / prepared.width)
        x0, y0, x1, y1 = card_extent(layout)
        fit = SIZE / math.hypot(x1 - x0, y1 - y0)  # card widths in pixels that frame the whole hand
        card_px = max(fit * float(rng.uniform(0.7, 1.2)), MIN_INDEX_PX / prepared.index_height)
        camera = look_at(((x0 + x1) / 2, (y0 + y1) / 2), card_px, tilt=float(rng.uniform(0, 35)),
                         azimuth=float(rng.uniform(0, 360)), roll=float(rng.normal(0, 10)), size=SIZE)
        scene = compose(rng, layout, camera, prepared, assets, look)
        name = f"hand-{k:03d}-{kind}.jpg"
        cv2.imwrite(str(folder / name), scene.image, [cv2.IMWRITE_JPEG_QUALITY, scene.jpeg_quality])
        labels[name] = {"cards": [{"card": lab.code, "box": [round(v, 1) for v in lab.box]} for lab in scene.labels],
                        "subset": kind}
    return labels


def draw_singles(prepared, assets, look: dict, seed: int, folder: Path, per_suit: int = 13) -> dict:
    """A photo of ``per_suit`` cards of each taught suit (drawn by ``seed``) alone, near the
    middle of the frame, as a player holds a phone over it; each named by its card alone."""
    from cribcam.datagen.camera import look_at
    from cribcam.datagen.layouts import Item, Layout
    from cribcam.datagen.scenes import compose
    from cribcam.scoring.cards import CARD_CODES

    rng = np.random.default_rng([seed, 0x5146])
    shown = [code for suit in TAUGHT_SUITS
             for code in rng.permutation([c for c in CARD_CODES if c[-1] == suit])[:per_suit]]
    labels = {}
    for code in sorted(shown, key=CARD_CODES.index):
        layout = Layout("single", [Item("card", 0.0, 0.0, float(rng.normal(0, 8)), code)],
                        aspect=prepared.height / prepared.width)
        camera = look_at((float(rng.normal(0, 0.1)), float(rng.normal(0, 0.1))), SIZE * float(rng.uniform(0.35, 0.6)),
                         tilt=float(rng.uniform(0, 25)), azimuth=float(rng.uniform(0, 360)),
                         roll=float(rng.normal(0, 10)), size=SIZE)
        scene = compose(rng, layout, camera, prepared, assets, look)
        name = f"single-{code}.jpg"
        cv2.imwrite(str(folder / name), scene.image, [cv2.IMWRITE_JPEG_QUALITY, scene.jpeg_quality])
        labels[name] = {"cards": [{"card": code, "box": None}]}
    return labels


def lettered_decks() -> dict:
    """Every deck this bench can teach: name -> (how to make the deck, what it prints, style seed,
    how to make the same deck printed with the standard letters, or None for a printed design).

    The drawn decks are made from their pinned fonts only when asked for (fontTools, the fonts
    of `bin/install-training-fonts`); the printed designs render from the card art."""
    from cribcam.datagen.card_art import manifest_decks
    from cribcam.datagen.font_decks import ALPHABETS, named_deck

    def drawn(alphabet, rank_font, suit_font):  # the seed draws the deck's style, whatever its letters
        return lambda seed: named_deck(rank_font, suit_font, seed, alphabet)

    def printed(name):  # the art is as printed, whatever the seed
        from cribcam.datagen.card_art import load_decks

        return lambda seed: next(d for d in load_decks(split="lettered", progress=False) if d.name == name)

    decks = {alphabet: (drawn(alphabet, rank_font, suit_font), ALPHABETS[alphabet], seed, drawn(None, rank_font, suit_font))
             for alphabet, (rank_font, suit_font, seed) in LETTERED.items()}
    for k, entry in enumerate(manifest_decks("lettered")):
        decks[entry["name"].removeprefix("aisleriot-")] = (printed(entry["name"]), entry["letters"], 10 + k, None)
    return decks


def split(name: str, make_deck, letters: dict[str, str], seed: int, hands: int, work: Path, env: dict,
          per_suit: int = 13, make_reference=None) -> dict:
    """One deck: made (``make_deck(seed)``), taught from its singles, read in hands before and
    after; ``letters`` is what it prints for the ranks it letters, as a player answers. With
    ``make_reference``, the same hands of that deck (the standard letters) are read untaught too."""
    from cribcam.datagen.assets import make_assets
    from cribcam.datagen.augment import sample_look

    deck = make_deck(seed)
    assets = make_assets([deck], seed)
    look = sample_look(np.random.default_rng([seed, 0x100C]))
    folder = work / name
    (folder / "singles").mkdir(parents=True)
    (folder / "hands").mkdir()
    singles = draw_singles(assets.decks[0], assets, look, seed, folder / "singles", per_suit)
    hand_labels = labels_file(folder / "hands.json", draw_hands(assets.decks[0], assets, look, hands, seed, folder / "hands"))
    taught_from = [*(folder / "singles" / n for n in singles), "--labels", labels_file(folder / "singles.json", singles)]
    record, seconds, busy = timed_teach([*taught_from, "--name", name], env)
    asked = record["letters_unsure"]
    if asked:  # taught again as a player who knows the deck answers: what it prints
        cribcam("decks", "remove", name, env=env)
        answers = [f"{q['rank']}={letters.get(q['rank'], q['standard'])}" for q in asked]
        record, seconds, busy = timed_teach([*taught_from, "--name", name, "--letters", *answers], env)
    before = evaluate(folder / "hands", hand_labels, env)
    after = evaluate(folder / "hands", hand_labels, env, name)
    reference = None
    if make_reference is not None:  # the same draws: the style, look and scenes come from the seed alone
        plain = make_assets([make_reference(seed)], seed)
        (folder / "reference").mkdir()
        plain_labels = labels_file(folder / "reference.json",
                                   draw_hands(plain.decks[0], plain, look, hands, seed, folder / "reference"))
        reference = figures(evaluate(folder / "reference", plain_labels, env)["overall"])
    return {"reference": reference, "deck": deck.name, "look": look["name"], "taught_from": len(singles), "seconds": round(seconds, 1), "loadavg_before_teaching": busy,
            "letters_asked": [q["said"] for q in asked], "kept": record.get("kept"),
            "checks": record["checks"], "before": figures(before["overall"]), "after": figures(after["overall"]),
            "by_kind_before": {k: figures(v) for k, v in before["subsets"].items()},
            "by_kind_after": {k: figures(v) for k, v in after["subsets"].items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=42, help="hand photos read in each split")
    parser.add_argument("--model", type=Path, help="models to teach on and read with (default: the bundled ones)")
    parser.add_argument("--out", type=Path, help="a JSON file for the figures")
    parser.add_argument("--per-suit", type=int, default=13, choices=range(1, 14), metavar="1-13",
                        help="cards of each taught suit photographed (drawn at random; default all 13)")
    parser.add_argument("--seed-offset", type=int, default=0,
                        help="added to each deck's seed: the same fonts in other styles, looks, singles and hands "
                             "(a set to confirm on, apart from the one a rule was chosen on)")
    parser.add_argument("--reference", action="store_true",
                        help="read each drawn deck's hands printed with the standard letters too, untaught")
    decks = lettered_decks()
    parser.add_argument("--only", nargs="+", choices=list(decks), default=list(decks), help="the decks to run")
    args = parser.parse_args()
    if args.model:
        MODEL.extend(["--model", args.model])
    work = Path(tempfile.mkdtemp(prefix="bench-singles-"))
    env = {**os.environ, "CRIBCAM_DATA": str(work / "data")}
    results = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "loadavg_before": load(),
               "per_suit": args.per_suit, "seed_offset": args.seed_offset, "splits": {}}
    for name in args.only:
        make_deck, letters, seed, make_reference = decks[name]
        try:
            result = split(name, make_deck, letters, seed + args.seed_offset, args.hands, work, env, args.per_suit,
                           make_reference if args.reference else None)
        except FileNotFoundError as exc:
            sys.exit(f"teach_singles_to_hands: {exc}")
        results["splits"][name] = result
        b, a = result["before"], result["after"]
        print(f"{name} ({result['look']}): untaught {b['recall']:.3f} / {b['precision']:.3f}, taught "
              f"{a['recall']:.3f} / {a['precision']:.3f} (kept: {result['kept']}; {result['seconds']} s)", flush=True)
        if result["reference"]:
            r = result["reference"]
            print(f"{name} in the standard letters, untaught: {r['recall']:.3f} / {r['precision']:.3f}", flush=True)
    worst = min(results["splits"].items(), key=lambda item: min(item[1]["after"]["recall"], item[1]["after"]["precision"]))
    results["worst_split"] = {"deck": worst[0], **worst[1]["after"]}
    results["never_below_untaught"] = all(s["after"]["recall"] >= s["before"]["recall"]
                                          and s["after"]["precision"] >= s["before"]["precision"]
                                          for s in results["splits"].values())
    results["loadavg_after"] = load()
    if args.out:
        args.out.write_text(json.dumps(results, indent=1) + "\n")
    print(json.dumps({k: results[k] for k in ("worst_split", "never_below_untaught")}, indent=1))
    print(f"the taught decks are kept in {work / 'data'}: delete {work} when done", file=sys.stderr)


if __name__ == "__main__":
    main()
