"""`cribcam count`: count a hand typed at the keyboard."""

from __future__ import annotations

import argparse
import json

from cribcam.scoring import rules, score_hand
from cribcam.scoring.muggins import claim_problem, typed_claim
from cribcam.scoring.report import count_report


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "count", help="count a hand or crib", description="Count a hand or crib, itemized.",
        epilog="example: cribcam count 5H 5C 5S JD --starter 5D --claim 28")
    parser.add_argument("cards", nargs="+", metavar="CARD",
                        help="the hand's cards: 5H 10d QS K♦ (4 cards; 3 in five-card cribbage)")
    add_count_options(parser, starter_required=True)
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def add_count_options(parser, starter_required: bool) -> None:
    """The options shared by every command that counts a hand (`count`, `read`)."""
    parser.add_argument("--starter", required=starter_required, metavar="CARD",
                        help="the starter (cut) card")
    parser.add_argument("--crib", action="store_true", help="count as the crib")
    add_variant_option(parser)
    parser.add_argument("--claim", type=typed_claim, metavar="N", action=_Claim,
                        help="the total the player claimed (0 to 1000; 19, said for a hand of "
                             "nothing, means 0): judged correct, muggins or over-claimed")


def add_variant_option(parser, default: str | None = rules.DEFAULT_VARIANT) -> None:
    """``--variant``: of the commands that count a hand, and of `cribcam live play` (its hand size).

    Args:
        default: None to tell a variant given from one left out.
    """
    parser.add_argument("--variant", choices=list(rules.VARIANTS), default=default,
                        help="six-card (the usual game) or five-card cribbage")


class _Claim(argparse.Action):
    """``--claim N``: refused, as the web API refuses it, unless the core can judge it."""

    def __call__(self, parser, namespace, value, option_string=None):
        problem = claim_problem(value)
        if problem:
            raise argparse.ArgumentError(self, f"{problem}, not {value}")
        setattr(namespace, self.dest, value)


def run(args) -> int:
    score = score_hand(args.cards, args.starter, crib=args.crib, variant=args.variant)
    report = count_report(score, args.claim)
    print(json.dumps(report, ensure_ascii=False) if args.json else format_report(report))
    return 0


def format_report(report: dict) -> str:
    """The count as a person reads it in a terminal."""
    what = "Crib" if report["crib"] else "Hand"
    lines = [f"{what} {' '.join(report['hand'])}, starter {report['starter']}"]
    for item in report["items"]:
        lines.append(f"  {item['kind']:<8} {' '.join(item['cards']):<16} {item['points']:>2}")
    lines.append(f"Total: {report['total']}")
    lines.append(f"Said: {report['spoken']}")
    if report["heels"]:
        lines.append(f"His heels: the starter is a jack, {report['heels']} to the dealer "
                     f"(not part of the {what.lower()})")
    if "verdict" in report:
        lines.append(report["message"])
    return "\n".join(lines)
