"""`cribcam stats`: the distribution of show totals over every possible deal."""

from __future__ import annotations

import json

from cribcam.scoring.stats import distribution


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "stats", help="score all 12,994,800 hands and print the distribution",
        description="Score every (4-card hand, starter) deal and print how many make each total.")
    parser.add_argument("--crib", action="store_true", help="count them as cribs")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def run(args) -> int:
    result = distribution(crib=args.crib)
    if args.json:
        print(json.dumps(result.as_dict()))
        return 0
    print(f"{'total':>5}  {'hands':>10}  {'share':>8}")
    for total, hands in enumerate(result.counts):
        print(f"{total:>5}  {hands:>10,}  {hands / result.hands:>8.4%}")
    print(f"{result.hands:,} {'cribs' if args.crib else 'hands'}, mean {result.mean:.4f}, "
          f"scored in {result.seconds:.2f} s")
    return 0
