"""The `cribcam` console command: one entry point, a subcommand per job.

Each subcommand lives in its own module exposing ``add_parser(subparsers)``, which
registers its options and sets ``handler`` to a function ``(args) -> exit status``.
A user mistake raises ``UsageError`` (or ``CardError`` from the core) and is printed as
one line with exit status 2: never a traceback. With ``--json`` the line is JSON too,
``{"error": "..."}`` on standard output, where the answer would have been. A command whose
words are looked at before argparse parses them (a spelling kept for a release, as
`cribcam live`'s) sets its parser's ``respell``.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import json
import os
import sys

from cribcam.scoring.cards import CardError

# Subcommand modules, in the order `cribcam --help` lists them.
COMMANDS = ["count", "peg", "stats", "discard", "game", "data", "train", "read", "eval", "serve", "live", "teach", "decks"]


class UsageError(Exception):
    """A mistake in how the command was called; printed as one line, exit status 2."""


class _ParseError(UsageError):
    """A command line argparse could not parse; ``prog`` names the (sub)command."""

    def __init__(self, prog: str, message: str):
        super().__init__(message)
        self.prog = prog


class _Parser(argparse.ArgumentParser):
    # None, or a function from the words after the command's name to the words parsed: an old
    # spelling in today's words. It raises UsageError for a mistake it says better than argparse.
    respell = None

    def parse_known_args(self, args=None, namespace=None):
        if self.respell is not None and args is not None:
            try:
                args = self.respell(list(args))
            except UsageError as exc:
                self.error(str(exc))
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> None:
        # Raised rather than printed (argparse's default prints the usage too): main() says
        # it as one line, or as JSON.
        raise _ParseError(self.prog, message)


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
    argv = sys.argv[1:] if argv is None else argv
    try:
        args = build_parser().parse_args(argv)
    except _ParseError as exc:
        # No parsed options to ask: a --json anywhere on the line asked for JSON.
        return report_error(exc.prog, str(exc), as_json="--json" in argv)
    try:
        status = int(args.handler(args) or 0)
        sys.stdout.flush()  # standard output on a full disk is said here, not at exit
        return status
    except (UsageError, CardError) as exc:
        return report_error(f"cribcam {args.command}", str(exc), getattr(args, "json", False))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:
        if exc.errno not in DISK_FULL:
            raise
        # What was left to write goes nowhere, so that exiting does not try it again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return report_error(f"cribcam {args.command}", f"could not write {exc.filename or 'the output'}: "
                            f"{exc.strerror} (make room, then run it again)", False)


# A disk (or a quota) with no room left: said in one line by every command.
DISK_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def report_error(prog: str, message: str, as_json: bool) -> int:
    """Says a user's mistake, as JSON on standard output or as one line on standard error.

    Returns:
        The exit status of a usage error, 2.
    """
    if as_json:
        print(json.dumps({"error": message}, ensure_ascii=False))
    else:
        print(f"{prog}: error: {message}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    # Run through the module's real name, so subcommands raise the same UsageError class.
    from cribcam.cli.main import main as _main

    sys.exit(_main())
