"""The `cribcam` console command: one entry point, a subcommand per job.

Each subcommand lives in its own module exposing ``add_parser(subparsers)``, which
registers its options and sets ``handler`` to a function ``(args) -> exit status``.
A user mistake raises ``UsageError`` (or ``CardError`` from the core) and is printed as
one line with exit status 2: never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from cribcam.scoring.cards import CardError

# Subcommand modules, in the order `cribcam --help` lists them.
COMMANDS = ["count", "peg", "stats", "data", "train", "read", "eval", "serve", "live"]


class UsageError(Exception):
    """A mistake in how the command was called; printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse's default prints usage; keep it to one line
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="cribcam", description="Cribbage hand-counting assistant.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    subparsers.required = True
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"cribcam.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"cribcam.cli.{name}":
                continue  # a subcommand not built yet
            raise
        module.add_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except (UsageError, CardError) as exc:
        print(f"cribcam {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    # Run through the module's real name, so subcommands raise the same UsageError class.
    from cribcam.cli.main import main as _main

    sys.exit(_main())
