"""Real index crops of another deck from another camera: how many the reader reads (issue 49).

The crops: the repository zpigula/pp_2021 on GitHub (github.com/zpigula/pp_2021; Apache-2.0,
(c) the pp_2021 authors) holds, in ``pytorch/card_detection_data/cards_A``, 816 JPEG crops of
224 x 224 pixels from the camera of a card-feeding machine: each shows the top-left index
corner (rank above suit) of one card of a large-index deck, with part of the machine, some with
the card partly cut. They are filed in folders named for the card ("2C" ... "10S", "AC" ...
"KS"; "10C" is cribcam's "TC"), and NONE holds 21 crops with no card. (Jupyter's
``.ipynb_checkpoints`` folders hold 5 more, copies of crops beside them: left out.) Unpack them
from a clone or snapshot of the repository, e.g.

    git -C pp_2021 archive HEAD pytorch/card_detection_data/cards_A | tar -x -C /tmp/pp_crops

They are used to VALIDATE only, never to train, and never committed: they are one deck from one
camera (trained on, they would teach that deck and that camera and leave no independent
measure), and a real index read by a camera no training run has seen is the measure the project
lacked (its only real validation photos are 89 photos of one deck).

Every crop is read as a player's photo of one card is read (``CardReader.read(image,
expected=1)``, as ``bench/dim_webcam_singles.py`` reads its photos), the NONE crops too: the
reader is not told which crops hold a card. Per crop (``dim_webcam_singles.verdict``):
- right: the label's card, and only it, read;
- not read: no card read (the reader said a problem, or asked about a guess, not counted);
- wrong: a card other than the label read (with it or instead of it), sure or unsure: how many
  of them marked a card unsure, and how many warned at all (``Reading.warns``);
- a NONE crop: a false reading when any card is read.
Then per rank and per suit, the top confusions (the label's rank or suit read as another), and
the finder's part: the share of crops in which the finder boxed anything at its threshold, in
its whole look or its farther look (``CardReader.find``).

Run from the repository root:

    python bench/real_index_crops.py --crops /tmp/pp_crops/pytorch/card_detection_data/cards_A \\
        [--model DIR] [--out FILE.json] [--sheet FILE.png]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from cribcam.scoring.cards import CardError, parse_card
from cribcam.vision import CardReader
from cribcam.vision.annotate import draw_reading
from cribcam.vision.reading import Reading

if str(Path(__file__).resolve().parent) not in sys.path:  # imported, not run: the bench scripts beside it
    sys.path.append(str(Path(__file__).resolve().parent))
from dim_webcam_singles import verdict  # noqa: E402

NO_CARD = "NONE"  # the folder of crops with no card index
LAYOUT = ("pytorch/card_detection_data/cards_A", "card_detection_data/cards_A", "cards_A")  # below a parent
TOP = 10  # confusions listed
SHEET_TILE = 224  # pixels a side of one failure on the sheet
SHEET_COLUMNS = 8
SHEET_CAPTION = 38
_FONT = cv2.FONT_HERSHEY_SIMPLEX


def card_of(folder_name: str) -> str | None:
    """The card code a crop folder is named for ("10C" -> "TC", "QH" -> "QH"); None for NONE.

    Raises:
        CardError: the name is no card.
    """
    return None if folder_name == NO_CARD else parse_card(folder_name).code


def crop_folder(root: Path) -> Path:
    """The folder of card-named folders: ``root`` itself, or ``cards_A`` below it as the
    repository lays it out (``LAYOUT``)."""
    for folder in (root, *(root / below for below in LAYOUT)):
        if folder.is_dir() and any((folder / name).is_dir() for name in ("AC", "10C", "TC", NO_CARD)):
            return folder
    raise SystemExit(f"no crops in {root}: give the cards_A folder (its folders 2C ... KS and NONE), "
                     f"or a folder holding {' or '.join(LAYOUT)}")


def crops(root: Path) -> list[tuple[str | None, Path]]:
    """(label, path) of every crop: the card its folder is named for, None in NONE. Hidden
    folders (Jupyter's checkpoint copies) are left out; a folder named for no card is said."""
    found = []
    for folder in sorted(p for p in crop_folder(root).iterdir() if p.is_dir() and not p.name.startswith(".")):
        try:
            label = card_of(folder.name)
        except CardError:
            print(f"left out {folder}: not named for a card", file=sys.stderr)
            continue
        found += [(label, path) for path in sorted(folder.iterdir())
                  if path.suffix.lower() in (".jpg", ".jpeg", ".png") and not path.name.startswith(".")]
    return found


@dataclass(frozen=True)
class Outcome:
    """What the reader made of one crop."""

    name: str  # folder/file
    label: str | None  # the card, None for a crop with no card
    read: tuple[str, ...]  # the cards read (counted)
    said: str  # right, not read, wrong (a NONE crop: right when nothing is read)
    unsure: bool  # a card read marked unsure
    warns: bool  # the reading warns (``Reading.warns``)
    guesses: tuple[str, ...]  # cards asked about, not counted
    problems: tuple[str, ...]  # the reading's problem codes
    boxed: bool  # the finder boxed something (whole or farther look)


def outcome(name: str, label: str | None, reading: Reading, boxed: bool) -> Outcome:
    said = verdict(label, reading.codes) if label else "wrong" if reading.codes else "right"
    return Outcome(name, label, tuple(reading.codes), said, any(seen.unsure for seen in reading.cards),
                   reading.warns, tuple(seen.card for seen in reading.guesses),
                   tuple(problem.code for problem in reading.problems), boxed)


def _share(part: int, whole: int) -> float:
    return round(part / whole, 3) if whole else 0.0


def _confusions(pairs: Counter) -> list[list]:
    return [[truth, read, n] for (truth, read), n in pairs.most_common(TOP)]


def tally(outcomes: list[Outcome]) -> dict:
    """The figures of a run: counts exact, shares of the crops they are counted over."""
    cards = [o for o in outcomes if o.label]
    empty = [o for o in outcomes if not o.label]
    said = Counter(o.said for o in cards)
    wrong = [o for o in cards if o.said == "wrong"]
    by_rank, by_suit = {}, {}
    rank_pairs, suit_pairs, card_pairs = Counter(), Counter(), Counter()
    for o in cards:
        by_rank.setdefault(o.label[0], Counter())[o.said] += 1
        by_suit.setdefault(o.label[1], Counter())[o.said] += 1
        for code in o.read:
            if code == o.label:
                continue
            card_pairs[o.label, code] += 1
            if code[0] != o.label[0]:
                rank_pairs[o.label[0], code[0]] += 1
            if code[1] != o.label[1]:
                suit_pairs[o.label[1], code[1]] += 1
    false = [o for o in empty if o.read]
    return {
        "card_crops": len(cards),
        "right": said["right"], "not_read": said["not read"], "wrong": said["wrong"],
        "right_share": _share(said["right"], len(cards)),
        "right_warned": sum(o.warns for o in cards if o.said == "right"),
        "not_read_guessed": sum(bool(o.guesses) for o in cards if o.said == "not read"),
        "not_read_guess_right": sum(o.label in o.guesses for o in cards if o.said == "not read"),
        "wrong_with_its_card": sum(o.label in o.read for o in wrong),
        "wrong_unsure": sum(o.unsure for o in wrong),
        "wrong_warned": sum(o.warns for o in wrong),
        "wrong_rank": sum(any(c[0] != o.label[0] for c in o.read) for o in wrong),
        "wrong_suit": sum(any(c[1] != o.label[1] for c in o.read) for o in wrong),
        "problems": {kind: dict(Counter(code for o in cards if o.said == kind for code in o.problems))
                     for kind in ("right", "not read", "wrong")},
        "right_unsure": sum(o.unsure for o in cards if o.said == "right"),
        "no_card_crops": len(empty),
        "no_card_read_as_card": len(false),
        "no_card_read_as_card_warned": sum(o.warns for o in false),
        "finder_boxed": {"card_crops": _share(sum(o.boxed for o in cards), len(cards)),
                         "no_card_crops": _share(sum(o.boxed for o in empty), len(empty))},
        "by_rank": {rank: dict(c) for rank, c in sorted(by_rank.items(), key=lambda kv: "A23456789TJQK".index(kv[0]))},
        "by_suit": {suit: dict(c) for suit, c in sorted(by_suit.items())},
        "rank_confusions": _confusions(rank_pairs),
        "suit_confusions": _confusions(suit_pairs),
        "card_confusions": _confusions(card_pairs),
    }


def measure(reader: CardReader, found: list[tuple[str | None, Path]]) -> tuple[list[Outcome], list[Reading], float]:
    """Reads every crop as a photo of one card; the outcomes, the readings and the seconds the
    readings took (the finder's passes asked apart for ``boxed`` not counted)."""
    outcomes, readings, seconds = [], [], 0.0
    for label, path in found:
        image = cv2.imread(str(path))
        started = time.perf_counter()
        reading = reader.read(image, expected=1)
        seconds += time.perf_counter() - started
        boxed = image is not None and (len(reader.find(image)) > 0 or len(reader.find(image, farther=True)) > 0)
        outcomes.append(outcome(f"{path.parent.name}/{path.name}", label, reading, boxed))
        readings.append(reading)
    return outcomes, readings, seconds


def failure_sheet(path: Path, failures: list[tuple[np.ndarray, Outcome, Reading]]) -> None:
    """One PNG of the failed crops: each crop with its reading drawn on it (``draw_reading``),
    its label and what was read under it (``?``: marked unsure; ``!``: the reading warns)."""
    tiles = []
    for image, o, reading in failures:
        tile = np.full((SHEET_TILE, SHEET_TILE, 3), 255, np.uint8)
        drawn = draw_reading(image, reading, SHEET_TILE)
        tile[:drawn.shape[0], :drawn.shape[1]] = drawn[:SHEET_TILE, :SHEET_TILE]
        caption = np.full((SHEET_CAPTION, SHEET_TILE, 3), 255, np.uint8)
        read = " ".join(o.read) or " ".join(f"guess {code}" for code in o.guesses) or "nothing"
        colour = (0, 0, 200) if o.said == "wrong" else (0, 120, 200)
        cv2.putText(caption, f"{o.label or 'no card'} -> {read}{' ?' if o.unsure else ''}{' !' if o.warns else ''}",
                    (4, 15), _FONT, 0.45, colour, 1, cv2.LINE_AA)
        cv2.putText(caption, o.name[:34], (4, 32), _FONT, 0.35, (90, 90, 90), 1, cv2.LINE_AA)
        tiles.append(np.vstack([tile, caption]))
    if not tiles:
        tiles = [np.full((SHEET_TILE + SHEET_CAPTION, SHEET_TILE, 3), 255, np.uint8)]
    blank = np.full_like(tiles[0], 230)
    tiles += [blank] * (-len(tiles) % SHEET_COLUMNS)
    rows = [np.hstack(tiles[i:i + SHEET_COLUMNS]) for i in range(0, len(tiles), SHEET_COLUMNS)]
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), np.vstack(rows))


def table(figures: dict) -> str:
    """The short table printed."""
    f = figures
    said = "; ".join(f"{kind}: " + (", ".join(f"{code} {k}" for code, k in codes.items()) or "none")
                     for kind, codes in f["problems"].items())
    lines = [f"{f['card_crops']} card crops: right {f['right']} ({f['right_share']:.3f}; warned "
             f"{f['right_warned']}, marked unsure {f['right_unsure']})",
             f"  not read {f['not_read']} (a guess asked {f['not_read_guessed']}, the guess the right card "
             f"{f['not_read_guess_right']})",
             f"  wrong {f['wrong']} (marked unsure {f['wrong_unsure']}, warned {f['wrong_warned']}; "
             f"rank wrong {f['wrong_rank']}, suit wrong {f['wrong_suit']}, its card read too "
             f"{f['wrong_with_its_card']})",
             f"  problems said: {said}",
             f"{f['no_card_crops']} crops with no card: read as a card {f['no_card_read_as_card']} "
             f"(warned {f['no_card_read_as_card_warned']})",
             f"finder boxed something: {f['finder_boxed']['card_crops']:.3f} of the card crops, "
             f"{f['finder_boxed']['no_card_crops']:.3f} of the no-card crops",
             "",
             f"{'':6}{'crops':>6}{'right':>7}{'not read':>10}{'wrong':>7}"]
    for group in ("by_rank", "by_suit"):
        for key, counts in f[group].items():
            lines.append(f"{key:6}{sum(counts.values()):>6}{counts.get('right', 0):>7}"
                         f"{counts.get('not read', 0):>10}{counts.get('wrong', 0):>7}")
    for kind in ("rank", "suit", "card"):
        pairs = ", ".join(f"{truth}->{read} {k}" for truth, read, k in f[f"{kind}_confusions"]) or "none"
        lines.append(f"top {kind} confusions: {pairs}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="The crops (Apache-2.0, (c) the pp_2021 authors, github.com/zpigula/pp_2021) are never committed: "
               "unpack them with `git -C pp_2021 archive HEAD pytorch/card_detection_data/cards_A | "
               "tar -x -C /tmp/pp_crops`. They validate the reader, never train it.")
    parser.add_argument("--crops", type=Path, required=True, metavar="DIR",
                        help="the cards_A folder (its folders 2C ... 10S, AC ... KS and NONE), or a folder holding "
                             "pytorch/card_detection_data/cards_A as the repository lays it out")
    parser.add_argument("--model", type=Path, metavar="DIR", help="models to read with (default: the bundled ones)")
    parser.add_argument("--threads", type=int, default=1, help="onnxruntime threads (0: as many as it likes)")
    parser.add_argument("--out", type=Path, metavar="FILE.json", help="a JSON file for the figures and every crop's outcome")
    parser.add_argument("--sheet", type=Path, metavar="FILE.png", help="a PNG contact sheet of the crops not read right")
    args = parser.parse_args(argv)
    found = crops(args.crops)
    if not found:
        raise SystemExit(f"no .jpg crops in the card-named folders of {crop_folder(args.crops)}")
    reader = CardReader(args.model, threads=args.threads)
    outcomes, readings, seconds = measure(reader, found)
    figures = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "models": str(reader.folder),
               **tally(outcomes), "seconds_per_crop": round(seconds / len(found), 3)}
    print(table(figures))
    if args.out:
        args.out.write_text(json.dumps({**figures, "crops": [asdict(o) for o in outcomes]},
                                       indent=1) + "\n")
    if args.sheet:
        failed = [(cv2.imread(str(path)), o, reading) for (_, path), o, reading in zip(found, outcomes, readings)
                  if o.said != "right"]
        failure_sheet(args.sheet, failed)
        print(f"{len(failed)} crops not read right on {args.sheet}", file=sys.stderr)
    return figures


if __name__ == "__main__":
    main()
