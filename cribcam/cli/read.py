"""`cribcam read`: read a hand from a photo and count it."""

from __future__ import annotations

import json
from pathlib import Path

from cribcam.cli.count import add_count_options, format_report
from cribcam.cli.decks import add_deck_option
from cribcam.cli.main import UsageError
from cribcam.cli.model import PHOTO_FORMATS, add_model_option, open_reader, read_photo
from cribcam.cli.output import output_folder
from cribcam.vision.reading import MORE_IN_VIEW


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "read", help="read a hand from a photo and count it",
        description="Read the cards in a photo, count the hand and judge a claim.",
        epilog="example: cribcam read hand.jpg --claim 12 --annotate hand-read.png")
    parser.add_argument("photo", type=Path, help=f"a photo of the hand and starter ({PHOTO_FORMATS})")
    add_count_options(parser, starter_required=False)
    parser.add_argument("--hand-only", action="store_true",
                        help="the photo holds the hand alone, its starter not in view: read as the "
                             "hand's cards (name the starter with --starter to count them)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--annotate", type=Path, metavar="OUT.png",
                        help="write a copy of the photo with the cards drawn on it, at most 1600 "
                             "pixels across: PNG, or JPEG for a .jpg or .jpeg name")
    add_model_option(parser)
    add_deck_option(parser)
    parser.set_defaults(handler=run)


def run(args) -> int:
    from cribcam.vision.annotate import write_annotated
    from cribcam.vision.report import read_to_count, reading_report

    image = read_photo(args.photo)
    if args.annotate and args.annotate.suffix.lower() not in (".png", ".jpg", ".jpeg"):
        raise UsageError(f"--annotate needs a .png or .jpg name, not {args.annotate.name}")
    reader = open_reader(args.model, args.deck)
    reading = read_to_count(reader, image, args.variant, args.crib, args.starter, args.hand_only)
    report = reading_report(reading, args.starter, args.crib, args.claim, args.variant, args.hand_only)
    if args.annotate:
        output_folder(args.annotate.parent, "--annotate")
        try:  # at most ANNOTATE_MAX_SIDE pixels across, JPEG or PNG as the name says
            write_annotated(args.annotate, image, reading)
        except OSError as exc:
            raise UsageError(f"could not write {args.annotate}: {exc.strerror or exc}") from None
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        print(format_reading(report))
    return 0


def format_reading(report: dict) -> str:
    cards = ", ".join(f"{c['card']} ({c['confidence']:.2f}{', unsure: check it' if c.get('unsure') else ''})"
                      for c in report["cards"]) or "none"
    lines = [f"Cards read: {cards}"]
    if report.get("guesses"):  # not counted: the player names them (cribcam count ... to count them)
        lines.append("Guessed, not counted: " + ", ".join(f"{c['card']}? ({c['confidence']:.2f})"
                                                          for c in report["guesses"]))
    lines += [f"Problem: {p['message']}" for p in report["problems"]]
    if report["count"]:
        lines.append(format_report(report["count"]))
    elif report.get("totals_by_starter"):
        lines.append("Which card is the starter? The count by choice of starter:")
        lines += [f"  starter {t['starter']}: {t['total']}" for t in report["totals_by_starter"]]
        lines.append("Name it with --starter to count it.")
    elif any(problem["code"] == MORE_IN_VIEW for problem in report["problems"]):
        lines.append("Not counted: which of the cards in view make the hand is a guess (count "
                     "them with cribcam count CARD ... --starter CARD)")
    elif report["starter"] is None and len(report["cards"]) == report["expected"]:  # --hand-only
        lines.append("The hand is read: name its starter with --starter to count it.")
    return "\n".join(lines)
