"""`cribcam game`: keep the score of a whole game, as the scoreboard page and API do.

    cribcam game new --players Ann Bob [--to 61] [--muggins] [--skunk]   (prints the game id; the board on stderr)
    cribcam game add ID deal [STARTER] [--heels]
    cribcam game add ID play B:K A:6 B:K A:go ...
    cribcam game add ID peg PLAYER POINTS
    cribcam game add ID show [CARD ...] [--claim N] [--player P] [--crib]
    cribcam game add ID irregularity PLAYER hand|crib|peg [--by P]
    cribcam game show ID [--json] | undo ID [--entry N] | next ID | export ID [--out FILE]
    cribcam game delete ID   (a game and its log, the last game of its match)
    cribcam game list [--page N] [--per-page N] [--json]   (the games kept, last changed first)

Games are kept in the database of ``--db URL``, else ``CRIBCAM_DB``, else the SQLite file in
the user's data folder: the same games the web app shows. Only ``new`` makes that database
when it is not there yet; the other actions say so (``list``: no games kept yet).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cribcam.cli.main import UsageError
from cribcam.cli.output import output_file
from cribcam.game.entries import ENTRY_TYPES


def add_db_option(parser) -> None:
    """``--db URL``: where games are kept (``cribcam game`` and ``cribcam serve``)."""
    parser.add_argument("--db", metavar="URL",
                        help="the games' database: sqlite:///PATH or postgresql://USER@HOST/NAME "
                             "(default: $CRIBCAM_DB, else games.sqlite3 in the data folder: "
                             "$CRIBCAM_DATA, else $XDG_DATA_HOME/cribcam, by default ~/.local/share/cribcam)")


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "game", help="keep the score of a whole game",
        description="Keep the score of a game: deals, the play, the shows, muggins, "
                    "irregularities, to 121 or 61; saved in a database.",
        epilog="example (Ann deals, Bob leads the play and shows first): ID=$(cribcam game "
               "new --players Ann Bob --muggins); cribcam game add $ID deal 5S; cribcam game "
               "add $ID play Bob:K Ann:5 Bob:3 Ann:5 Bob:2 Ann:6 Bob:A Ann:9; cribcam game add "
               "$ID show AC 2D 3H KS --claim 5")
    database = argparse.ArgumentParser(add_help=False)
    add_db_option(database)
    commands = parser.add_subparsers(dest="game_command", metavar="ACTION",
                                     parser_class=type(parser))
    commands.required = True

    new = commands.add_parser("new", parents=[database], help="start a game")
    new.add_argument("--players", nargs="+", default=["2"], metavar="NAME",
                     help="the names in seating order, or how many (2, 3, 4, 6; default 2)")
    new.add_argument("--variant", choices=["six-card", "five-card"], default="six-card")
    new.add_argument("--to", type=int, dest="target", default=0, metavar="POINTS",
                     help="121 or 61 (default 121; 61 in five-card cribbage)")
    new.add_argument("--muggins", action="store_true", help="overlooked points go to an opponent")
    new.add_argument("--skunk", action="store_true", help="the skunk variation (121 only)")
    new.add_argument("--first-dealer", default="", metavar="NAME", help="default: the first player")
    new.set_defaults(handler=run_new)

    add = commands.add_parser("add", parents=[database], help="enter what happened at the table")
    add.add_argument("game_id", metavar="ID")
    add.add_argument("type", choices=ENTRY_TYPES)
    add.add_argument("values", nargs="*", metavar="VALUE",
                     help="deal: [STARTER]; play: TURN ...; peg: PLAYER POINTS; show: [CARD ...]; "
                          "irregularity: PLAYER hand|crib|peg")
    add.add_argument("--heels", action="store_true", help="deal: a jack turned (no starter typed)")
    add.add_argument("--claim", metavar="N", help="show: the number claimed")
    add.add_argument("--player", help="show: whose hand (checked against the order)")
    add.add_argument("--crib", action="store_true", default=None, help="show: this is the crib")
    add.add_argument("--by", metavar="PLAYER", help="irregularity: the opponent who takes the 2")
    add.set_defaults(handler=run_add)

    delete = commands.add_parser("delete", parents=[database],
                                 help="delete a game and its log (the last game of its match)")
    delete.add_argument("game_id", metavar="ID")
    delete.set_defaults(handler=run_delete)

    for name, handler, helptext in [("show", run_show, "the board, the log and what is next"),
                                    ("undo", run_undo, "drop the last entry (or --entry N)"),
                                    ("next", run_next, "start the next game of the match")]:
        command = commands.add_parser(name, parents=[database], help=helptext)
        command.add_argument("game_id", metavar="ID")
        command.add_argument("--json", action="store_true", help="print the state as JSON")
        command.set_defaults(handler=handler)
    commands.choices["undo"].add_argument(
        "--entry", type=int, metavar="N", help="the entry to drop, numbered as `show` lists "
                                               "them (the entries after it must still fit)")

    listing = commands.add_parser("list", parents=[database],
                                  help="the games kept, the last changed first")
    listing.add_argument("--page", type=_page, default=1, metavar="N",
                         help="which page of the list (default 1)")
    listing.add_argument("--per-page", type=_games_a_page, metavar="N",
                         help="games a page (default 20, at most 100)")
    listing.add_argument("--json", action="store_true", help="print the page as JSON")
    listing.set_defaults(handler=run_list)

    export = commands.add_parser("export", parents=[database], help="the game as JSON")
    export.add_argument("game_id", metavar="ID")
    export.add_argument("--out", type=Path, metavar="FILE", help="write it here (default: print)")
    export.set_defaults(handler=run_export)


def run_new(args) -> int:
    from cribcam.game import Setup

    options = dict(variant=args.variant, target=args.target, muggins=args.muggins,
                   skunk=args.skunk, first_dealer=args.first_dealer)
    players = args.players
    setup = game_call(lambda: Setup.for_count(int(players[0]), **options)
                       if len(players) == 1 and players[0].isdigit()
                       else Setup(tuple(players), **options))
    store = open_store(args, create=True)
    game_id = store.create(setup)
    print(game_id)  # alone on standard output: ID=$(cribcam game new ...) keeps it
    print(f"Game {game_id}\n{format_state(store.state(game_id))}", file=sys.stderr)
    return 0


def run_add(args) -> int:
    entry = entry_from_args(args)
    store = open_store(args)
    game = game_call(lambda: store.add(args.game_id, entry))
    line = game.log[-1]
    print(line.text)
    for note in line.notes:
        print(f"  {note}")
    if line.unscored:
        print("  Not scored, the game was over: " + "; ".join(
            f"{game.setup.side_name(c.side)} {c.points} ({c.reason})" for c in line.unscored))
    print(format_state(store.state(args.game_id), log=False))
    return 0


def run_show(args) -> int:
    store = open_store(args)
    return _print_state(args, game_call(lambda: store.state(args.game_id)))


def run_undo(args) -> int:
    store = open_store(args)
    game_call(lambda: store.undo(args.game_id, args.entry))
    return _print_state(args, store.state(args.game_id))


def run_delete(args) -> int:
    store = open_store(args)
    game_call(lambda: store.delete(args.game_id))
    print(f"Game {args.game_id} deleted.")
    return 0


def run_next(args) -> int:
    store = open_store(args)
    game_id = game_call(lambda: store.next_game(args.game_id))
    print(f"Game {game_id}")
    return _print_state(args, store.state(game_id))


def run_list(args) -> int:
    listing, missing = game_call(lambda: _list_page(args))
    if args.json:
        print(json.dumps(listing, ensure_ascii=False))
    else:
        print(format_list(listing, missing))
    return 0


def _list_page(args) -> tuple[dict, str | None]:
    """The page of the list asked for, and why it is empty when there is no database yet."""
    from cribcam.game.store import PER_PAGE, GameStore, NoDatabase, list_page

    per_page = args.per_page or PER_PAGE
    try:
        return GameStore(args.db, create=False).page(args.page, per_page), None
    except NoDatabase as missing:
        # No game kept yet on this machine, or a mistyped --db: listing makes nothing.
        return list_page({"games": [], "total": 0}, args.page, per_page), str(missing)


def format_list(listing: dict, missing: str | None = None) -> str:
    """The games as a table: id, sides and scores, where the game stands, last change;
    ``missing``: why there are none (no database at the path), said when the list is empty."""
    unreadable = [f"Game {game['id']} cannot be opened: {game['error']} (cribcam game delete "
                  f"{game['id']} removes it)" for game in listing.get("unreadable", [])]
    if not listing["games"]:
        if unreadable:
            return "\n".join(unreadable)
        if listing["total"]:
            return (f"No games on page {listing['page']}: the {listing['total']} games kept "
                    f"fill {listing['pages']} page{'s' if listing['pages'] != 1 else ''}.")
        where = f" ({missing})" if missing else ""
        return f"No games kept yet{where}: start one with cribcam game new --players Ann Bob"
    rows = [("ID", "PLAYERS", "SCORE", "GAME", "STATE", "LAST CHANGE (UTC)")]
    for game in listing["games"]:
        # Six-card cribbage is the usual game; a five-card one is marked, as on the page.
        five_card = ", five-card" if game["variant"] == "five-card" else ""
        rows.append((game["id"], " v ".join(side["name"] for side in game["sides"]),
                     "-".join(str(side["score"]) for side in game["sides"]),
                     f"to {game['target']}{five_card}", game["status"],
                     game["changed"][:16].replace("T", " ")))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip()
             for row in rows]
    first = (listing["page"] - 1) * listing["per_page"] + 1
    lines.append(f"Games {first}-{first + len(listing['games']) - 1} of {listing['total']}"
                 + (f" (page {listing['page']} of {listing['pages']}: --page "
                    f"{listing['page'] + 1} for more)" if listing["page"] < listing["pages"]
                    else "") + ". Open one: cribcam game show ID")
    return "\n".join(lines + unreadable)


def _page(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        raise argparse.ArgumentTypeError(f"the pages are numbered 1, 2, 3...: there is no page "
                                         f"{text}")
    return int(text)


def _games_a_page(text: str) -> int:
    from cribcam.game.store import MAX_PER_PAGE

    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= MAX_PER_PAGE:
        raise argparse.ArgumentTypeError(f"a page lists 1 to {MAX_PER_PAGE} games, not {text}")
    return int(text)


def run_export(args) -> int:
    store = open_store(args)
    text = json.dumps(game_call(lambda: store.export(args.game_id)), ensure_ascii=False,
                      indent=2)
    if args.out:
        with output_file(args.out, "--out") as out:
            out.write(text + "\n")
    else:
        print(text)
    return 0


def entry_from_args(args) -> dict:
    """The entry, as the API takes it, from ``cribcam game add`` arguments."""
    values = args.values
    if args.type == "deal":
        if len(values) > 1:
            raise UsageError("deal takes the starter only: cribcam game add ID deal 5S")
        return {"type": "deal", "starter": values[0] if values else None, "heels": args.heels}
    if args.type == "play":
        return {"type": "play", "turns": values}
    if args.type == "peg":
        if len(values) != 2:
            raise UsageError("peg takes a player and points: cribcam game add ID peg Ann 2")
        return {"type": "peg", "player": values[0], "points": values[1]}
    if args.type == "show":
        return {"type": "show", "cards": values, "claim": args.claim, "player": args.player,
                "crib": args.crib}
    if len(values) != 2:
        raise UsageError("irregularity takes the offender and hand, crib or peg: "
                         "cribcam game add ID irregularity Bob hand")
    return {"type": "irregularity", "player": values[0], "kind": values[1], "by": args.by}


def format_state(state: dict, log: bool = True) -> str:
    """The game as a person reads it in a terminal: the log, the scores, what is next."""
    setup = state["setup"]
    rules = [setup["variant"], f"to {setup['target']}"]
    rules += [name for name in ("muggins", "skunk") if setup[name]]
    lines = [" v ".join(side["name"] for side in state["sides"]) + f" ({', '.join(rules)})"]
    if log:
        for number, line in enumerate(state["log"], 1):
            points = ", ".join(f"{c['side']} {c['points']}" for c in line["scored"])
            lines.append(f"  {number:>3}. {line['text']}" + (f"  [{points}]" if points else ""))
            if line["unscored"]:
                lines.append("       not scored, the game was over: " + "; ".join(
                    f"{c['side']} {c['points']} ({c['reason']})" for c in line["unscored"]))
    width = max(len(side["name"]) for side in state["sides"])
    for side in state["sides"]:
        lines.append(f"  {side['name']:<{width}}  {side['score']:>3}  (back peg {side['back']})")
    if state["over"]:
        lines.append(f"Game over: {state['ended']}. {state['result']['said']}.")
    else:
        lines.append(f"Next: {describe_next(state['next'], state['id'])}")
    tally = state["match"]["tally"]
    if len(state["match"]["games"]) > 1 or state["over"]:
        lines.append("Match: " + ", ".join(f"{t['side']} {t['games']}" for t in tally))
    return "\n".join(lines)


def describe_next(step: dict, game_id: str) -> str:
    """What comes next, with the command that enters it, for this very game."""
    add = f"cribcam game add {game_id}"
    if step["step"] == "deal":
        return f"{step['player']} deals ({add} deal STARTER)"
    if step["step"] == "play":
        return (f"the play, {step['player']} leads ({add} play TURN ...), or its pegs as "
                f"numbers ({add} peg PLAYER POINTS); then {step['player']}'s hand")
    what = "crib" if step["crib"] else "hand"
    return f"{step['player']}'s {what} ({add} show CARD ... --claim N)"


def _print_state(args, state: dict) -> int:
    print(json.dumps(state, ensure_ascii=False) if args.json else format_state(state))
    return 0


def open_store(args, create: bool = False):
    """The games of ``--db``. Only a new game (``create``) makes the database when it is not
    there yet: any other command says so, so that a mistyped --db makes nothing."""
    from cribcam.game.store import GameStore

    return game_call(lambda: GameStore(args.db, create))


def game_call(call):
    """Runs ``call``; a game rule's refusal becomes a one-line usage error (exit status 2)."""
    from cribcam.game import GameError

    try:
        return call()
    except GameError as exc:
        raise UsageError(str(exc)) from None
