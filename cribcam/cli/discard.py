"""`cribcam discard`: which cards to lay away to the crib."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from cribcam.cli.decks import add_deck_option
from cribcam.cli.main import UsageError
from cribcam.cli.model import MODELS_HELP, add_model_option
from cribcam.scoring import CardError, rules
from cribcam.scoring.discard import advise
from cribcam.scoring.discard_report import advice_report


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "discard", help="which cards to lay away to the crib",
        description="Rank every way to lay away the cards dealt by the points it expects: the "
                    "kept hand over every starter, and the crib with the opponent's discards "
                    "drawn from the cards not seen.",
        epilog="examples: cribcam discard 5H 5C 6D JD QS KS --pone; cribcam discard --photo deal.jpg")
    parser.add_argument("cards", nargs="*", metavar="CARD",
                        help="the cards dealt: 6 (5 with three or four players; 5 in five-card "
                             "cribbage)")
    parser.add_argument("--photo", type=Path, metavar="FILE",
                        help="read the cards dealt from a photo of them instead")
    add_model_option(parser, help=f"with --photo: {MODELS_HELP}")
    add_deck_option(parser)
    whose = parser.add_mutually_exclusive_group()
    whose.add_argument("--dealer", dest="dealer", action="store_true", default=True,
                       help="you deal: the crib's points count for you (the default)")
    whose.add_argument("--pone", dest="dealer", action="store_false",
                       help="the opponent deals: the crib's points count against you")
    parser.add_argument("--variant", choices=list(rules.VARIANTS), default=rules.DEFAULT_VARIANT,
                        help="six-card (the usual game) or five-card cribbage")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def run(args) -> int:
    if args.cards and args.photo:
        raise UsageError("name the cards dealt or give --photo, not both")
    if not args.cards and not args.photo:
        raise UsageError("name the cards dealt (cribcam discard 5H 5C 6D JD QS KS) or give --photo FILE")
    if args.cards:
        advice = advise(args.cards, dealer=args.dealer, variant=args.variant)
    else:
        cards = _deal_from_photo(args.photo, args.variant, args.model, args.deck)
        try:
            advice = advise(cards, dealer=args.dealer, variant=args.variant)
        except CardError as exc:
            raise UsageError(f"read {' '.join(cards)} in {args.photo.name}: {exc}") from None
    report = advice_report(advice)  # the numbers /api/discard sends and the page shows
    print(json.dumps(report) if args.json else format_advice(report))
    return 0


def _deal_from_photo(photo: Path, variant: str, model: Path | None, deck: str | None) -> list[str]:
    """The cards dealt, read from a photo; what the reader noticed goes to standard error."""
    from cribcam.cli.model import open_reader, read_photo
    from cribcam.vision.report import read_deal

    image = read_photo(photo)  # a missing or too large photo is said before the model is loaded
    reading = read_deal(open_reader(model, deck), image, variant)
    for problem in reading.problems:
        print(f"cribcam discard: {photo.name}: {problem.message}", file=sys.stderr)
    if not reading.cards:
        raise UsageError(f"no cards read in {photo}")
    return list(reading.codes)


def format_advice(report: dict) -> str:
    """The options of an ``advice_report`` as a table a person reads in a terminal, best
    first: its numbers as they are (already rounded, as the page shows them)."""
    whose = "your crib: net = hand + crib" if report["dealer"] \
        else "the opponent's crib: net = hand - crib"
    lines = [f"Dealt {_codes(report['cards'])} ({whose})",
             f"  {'lay away':<9} {'keep':<12} {'hand':>6} {'crib':>6} {'net':>6}"]
    for option in report["options"]:
        lines.append(f"  {_codes(option['discard']):<9} {_codes(option['keep']):<12} "
                     f"{option['hand']:>6.2f} {option['crib']:>6.2f} {option['net']:>6.2f}")
    best, worst = report["options"][0], report["options"][-1]
    lines.append(f"Best: lay away {_codes(best['discard'])} ({best['net']:.2f}); worst: "
                 f"{_codes(worst['discard'])} ({worst['net']:.2f}); spread {report['spread']:.2f} points")
    return "\n".join(lines)


def _codes(codes) -> str:
    return " ".join(codes)
