"""`cribcam decks`: the decks taught with `cribcam teach`, listed or removed."""

from __future__ import annotations

import json

from cribcam.cli.main import UsageError


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "decks", help="list or remove the decks taught with cribcam teach",
        description="List the taught decks (kept in the user's data folder, never in the "
                    "repository), or remove one: its folder and nothing else.",
        epilog="examples: cribcam decks; cribcam decks remove kitchen-deck")
    parser.add_argument("action", nargs="?", choices=["list", "remove"], default="list",
                        help="list (the default) or remove")
    parser.add_argument("name", nargs="?", help="the deck to remove")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def add_deck_option(parser) -> None:
    """The ``--deck NAME`` option of the commands that read photos."""
    parser.add_argument("--deck", metavar="NAME",
                        help="read with the classifier taught on your deck (cribcam teach; see cribcam decks)")


def run(args) -> int:
    from cribcam.vision.decks import DeckError, decks_dir, lettering, list_decks, remove_deck

    if args.action == "remove":
        if not args.name:
            raise UsageError("name the deck to remove: cribcam decks remove NAME")
        try:
            folder = remove_deck(args.name)
        except DeckError as exc:
            raise UsageError(str(exc)) from None
        print(json.dumps({"removed": args.name, "folder": str(folder)}) if args.json
              else f"removed the deck {args.name} ({folder})")
        return 0
    if args.name:
        raise UsageError(f"cribcam decks list takes no name (did you mean cribcam decks remove {args.name}?)")
    decks = list_decks()
    if args.json:
        print(json.dumps({"folder": str(decks_dir()), "decks": [
            {"name": d.name, "folder": str(d.folder), "taught": d.record.get("taught"),
             "cards": len(d.record.get("cards", [])), "checks": d.record.get("checks"),
             "rank_texts": d.record.get("rank_texts"), "lettering": lettering(d.record)}
            for d in decks]}))
        return 0
    if not decks:
        print(f"no taught decks in {decks_dir()}: teach one with cribcam teach PHOTO... --name NAME")
        return 0
    for deck in decks:
        cards = len(deck.record.get("cards", []))
        print(f"{deck.name:<24} taught {deck.record.get('taught', '?')}, {cards} of 52 cards  {deck.folder}")
        print(f"{'':<24} {lettering(deck.record)}")
    return 0
