"""`cribcam eval`: measure the card reader on labelled photos."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from cribcam.cli.decks import add_deck_option
from cribcam.cli.main import UsageError
from cribcam.cli.model import add_model_option, open_reader
from cribcam.cli.output import output_folder


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "eval", help="measure the reader on labelled photos",
        description="Per-card recall and precision, exact-hand rate, the share of index boxes "
                    "the finder alone found, per subset and overall, and the confusion pairs, on "
                    "photos labelled like shared/real-photos. Cards labelled without a box "
                    "(\"box\": null) are measured, but not in the share of boxes found.")
    parser.add_argument("--images", type=Path, required=True, help="folder of the images")
    parser.add_argument("--labels", type=Path, required=True, help="labels.json")
    parser.add_argument("--only", type=Path, metavar="LIST",
                        help="a text file of image names to evaluate (e.g. a validation split)")
    add_model_option(parser)
    add_deck_option(parser)
    parser.add_argument("--count-given", action="store_true",
                        help="read each photo of 3 to 6 cards in view (labelled, or \"cards_in_view\" where "
                             "cards show in part) with its number of cards, as the photo page reads a hand "
                             "and its starter")
    parser.add_argument("--sheet", type=Path, metavar="DIR",
                        help="write contact sheets of the misread photos to DIR (truth and reading side by side)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def run(args) -> int:
    from tqdm import tqdm

    from cribcam.vision.evaluate import evaluate, load_labels
    from cribcam.vision.sheet import SheetWriter

    if not args.images.is_dir():
        raise UsageError(f"no such folder: {args.images}")
    try:
        labels = load_labels(args.labels)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    for key, why in labels.skipped.items():
        print(f"cribcam eval: warning: {args.labels.name}: skipped {key!r}: {why}", file=sys.stderr)
    if args.only:
        try:
            wanted = set(args.only.read_text().split())
        except OSError as exc:
            raise UsageError(f"--only {args.only} cannot be read: {exc.strerror}") from None
        except UnicodeDecodeError:
            raise UsageError(f"--only {args.only} is not a text file of image names") from None
        labels = {name: entry for name, entry in labels.items() if name in wanted}
    if not labels:
        raise UsageError(f"{args.labels} labels no image{' of ' + str(args.only) if args.only else ''}: "
                         f"nothing to measure")
    reader = open_reader(args.model, args.deck)
    sheets = SheetWriter(output_folder(args.sheet, "--sheet")) if args.sheet else None
    result = evaluate(reader.read, args.images, labels,
                      progress=lambda names: tqdm(names, desc="reading", disable=args.json),
                      find=lambda image: reader.find(image).xyxy, count_given=args.count_given,
                      sheet=sheets.add if sheets else None)
    if len(result.unreadable) == len(labels):
        raise UsageError(f"no photo {args.labels} labels could be read in {args.images} "
                         f"({_names(result.unreadable)}): nothing to measure")
    if sheets:
        sheets.flush()
        print(f"{len(sheets.written)} contact sheets of misread photos in {args.sheet}", file=sys.stderr)
    report = result.as_dict()
    if args.json:
        print(json.dumps(report))
        return 0
    if result.unreadable:
        photos = "photo" if len(result.unreadable) == 1 else "photos"
        print(f"{len(result.unreadable)} labelled {photos} could not be read in {args.images}, left out of the "
              f"figures: {_names(result.unreadable)}")
    print(f"{'subset':<24} {'images':>6} {'recall':>7} {'precision':>9} {'exact':>6} {'found':>6}")
    for name, tally in [*report["subsets"].items(), ("overall", report["overall"])]:
        print(f"{name:<24} {tally['images']:>6} {_fmt(tally['recall']):>7} "
              f"{_fmt(tally['precision']):>9} {_fmt(tally['exact_hand_rate']):>6} "
              f"{_fmt(tally['index_boxes_found']):>6}")
    print("recall, precision: per card; exact: whole hands; found: index boxes the finder alone "
          "found (IoU 0.5)")
    overall = report["overall"]
    if overall["cards_without_box"] and not overall["index_boxes_labelled"]:
        print("found: not measured: the labels give no index boxes (every card is labelled "
              "without a box)")
    elif overall["cards_without_box"]:
        print(f"found: measured on the {overall['index_boxes_labelled']} labelled index boxes; "
              f"the {overall['cards_without_box']} cards labelled without a box are not in it")
    print(f"guesses (asked, never counted): {overall['guesses']}, "
          f"{overall['guesses_right']} of them right")
    print(f"\n{'kind of photo':<24} {'hands':>6} {'wrong':>6} {'warned':>7} {'right, warned':>14} "
          f"{'wrong, no warning':>18}")
    for name, tally in [*report["kinds"].items(), ("overall", overall)]:
        if not tally["hands"]:
            continue  # photos of no card: nothing to misread
        wrong = None if not tally["hands"] else 1 - (tally["exact_hand_rate"] or 0)
        print(f"{name:<24} {tally['hands']:>6} {_fmt(wrong):>6} {_fmt(tally['warned_wrong']):>7} "
              f"{_fmt(tally['warned_right']):>14} {_fmt(tally['wrong_unwarned']):>18}")
    print("warned: the share of misread hands whose reading warns (a card unsure or guessed, or a "
          "problem other than the starter); right, warned: the share of hands read right that warn "
          "all the same; wrong, no warning: the share of all hands")
    top = report["confusions"][:10]
    if top:
        print("most confused: " + ", ".join(f"{c['labelled']}->{c['read']} x{c['times']}" for c in top))
    return 0


NAMED = 5  # photos named in a line; the rest are counted (--json lists every unreadable photo)


def _names(names: list[str]) -> str:
    """The first ``NAMED`` names, and how many more."""
    return ", ".join(names[:NAMED]) + (f" and {len(names) - NAMED} more" if len(names) > NAMED else "")


def _fmt(value) -> str:
    return "-" if value is None else f"{value:.3f}"
