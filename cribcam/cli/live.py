"""`cribcam live`: watch the table through a webcam or a video file, one job at a time.

    cribcam live hands [--video FILE --headless --out FILE] ...   count each hand as it lies still
    cribcam live play --players Ann Bob --dealer Bob --out FILE ...   follow the play (pegging)

The jobs are named as a player says them: the *hands* laid under the camera are counted, and
*the play* is cribbage's own name for the pegging (the live page's "The play" too); "show"
would be `cribcam game show`'s word, and "count" `cribcam count`'s. Until this release the jobs
were spelled `cribcam live [...]` and `cribcam live --play [...]`: kept for this release, said
in today's words with a note on standard error (``today_spelling``).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import sys
from functools import partial
from pathlib import Path

from cribcam.cli.count import add_count_options, add_variant_option
from cribcam.cli.decks import add_deck_option
from cribcam.cli.game import add_db_option, game_call, open_store
from cribcam.cli.main import UsageError
from cribcam.cli.model import add_model_option, open_reader
from cribcam.cli.output import output_file
from cribcam.scoring import rules
from cribcam.scoring.cards import CardError
from cribcam.settings import DEFAULT_THREADS

FFMPEG_QUIET = -8  # FFmpeg's AV_LOG_QUIET: none of its log lines
# Each job, as its options' refusal names it.
JOBS = {"hands": "counting hands", "play": "following the play"}


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "live", help="count hands, or follow the play, from a webcam or a video",
        description="Watch the table through a camera (or a video file). cribcam live hands counts "
                    "each hand as it lies still; cribcam live play follows the play (pegging), card by "
                    "card. Each has its own options: cribcam live hands --help, cribcam live play --help. "
                    "The spellings of the last release, cribcam live [...] and cribcam live --play [...], "
                    "still work in this one, with a note.",
        epilog="examples: cribcam live hands; cribcam live play --video play.y4m --players Ann Bob "
               "--dealer Bob --out events.jsonl")
    jobs = parser.add_subparsers(dest="job", metavar="JOB", parser_class=type(parser))
    jobs.required = True

    hands = jobs.add_parser(
        "hands", help="count each hand as it lies still",
        description="Follow a camera (or a video file); when the same cards have been read in "
                    "most recent frames the hand locks and its count is shown: in a window when "
                    "OpenCV can open one (pip install opencv-python), otherwise (the base "
                    "install) on the live page of the web app, served here and opened in the "
                    "browser. With --headless and --out, write one JSON line per locked hand.",
        epilog="examples: cribcam live hands (the live page in the browser, or a window); cribcam live "
               "hands --video hands.y4m --headless --out -; cribcam live hands --crib --window 10 --agree 6")
    _add_shared_options(hands, out="write a JSON line per locked hand here ('-' for standard output)")
    hands.add_argument("--headless", action="store_true", help="no window")
    hands.add_argument("--browser", action="store_true",
                       help="show the live page in the web browser even where OpenCV could open "
                            "a window (the default when it cannot)")
    hands.add_argument("--port", type=int, default=8000,
                       help="the live page's port (default 8000; any free one when it is taken)")
    # No default here: HandLock's own stands unless one is given.
    hands.add_argument("--window", type=int, help="frames the lock looks back over (default 8)")
    hands.add_argument("--agree", type=int, help="frames that must agree to lock (default 5)")
    add_count_options(hands, starter_required=False)
    # None until given: the live page says it chooses the variant itself.
    hands.set_defaults(handler=run_hands, variant=None)

    play = jobs.add_parser(
        "play", help="follow the play (pegging): each card laid, each go, each peg",
        description="Watch the play instead of the show: each card laid face up and still for half "
                    "a second is the card of the player whose turn it is (the dealer's left leads); "
                    "one JSON line per card, go or refused move, then the totals. A video is followed "
                    "to its end, a camera until the play is over. With --game, the players, the dealer "
                    "and the variant are a kept game's, and a play seen to its end goes into it.",
        epilog="examples: cribcam live play --video play.y4m --players Ann Bob --dealer Bob --go "
               "120:Bob --out events.jsonl; cribcam live play --game ID --out - (the camera, into the "
               "game kept as ID)")
    _add_shared_options(play, out="write a JSON line per card, go or refused move here, then the totals "
                                  "('-' for standard output)", out_required=True)
    play.add_argument("--players", nargs="+", metavar="NAME", help="the players in seating order")
    play.add_argument("--dealer", metavar="NAME", help="who dealt: the player on his left leads")
    play.add_argument("--go", action="append", default=[], metavar="FRAME:NAME",
                      help="NAME says go just before frame FRAME (0 is the first); again for each go")
    play.add_argument("--game", metavar="ID",
                      help="a game kept by cribcam game (and the board): its players, dealer and variant "
                           "are the play's, and a play seen to its end goes into it as its play entry")
    add_db_option(play)
    add_variant_option(play, default=None)  # None until given: refused with --game, which names its own
    play.set_defaults(handler=run_play)

    parser.respell = partial(today_spelling, takes={job: _option_strings(jobs.choices[job]) for job in JOBS})


def _add_shared_options(parser, out: str, out_required: bool = False) -> None:
    """The options of both jobs: where the frames come from, where the JSON lines go, and the
    model and deck that read the cards.

    Args:
        out: ``--out``'s help: what its lines are.
    """
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--camera", type=int, default=None, metavar="N", help="camera index (default 0)")
    source.add_argument("--video", type=Path, metavar="FILE", help="a video file instead of a camera")
    parser.add_argument("--out", type=Path, metavar="FILE", required=out_required, help=out)
    add_model_option(parser)
    add_deck_option(parser)


def _option_strings(parser) -> set[str]:
    """The options ``parser`` takes (argparse keeps them in no public place)."""
    return set(parser._option_string_actions)


def today_spelling(words: list[str], takes: dict[str, set[str]]) -> list[str]:
    """The words after `cribcam live` as this release spells them: the last release's
    `cribcam live --play ...` is `cribcam live play ...` (without --play and --headless: the play
    shows nothing), and `cribcam live ...` without a job is `cribcam live hands ...`, each said
    on standard error; kept for this release only.

    Args:
        takes: each job's options.

    Raises:
        UsageError: an option of the other job, or the old --play beside a job named.
    """
    if words and words[0] in ("-h", "--help"):
        return words  # cribcam live's own help
    if not words or words[0].startswith("-"):
        old = "cribcam live --play ..." if "--play" in words else "cribcam live ..."
        job = "play" if "--play" in words else "hands"
        words = [job, *(w for w in words if job == "hands" or w not in ("--play", "--headless"))]
        print(f"cribcam live: note: {old} is spelled cribcam live {job} ... now"
              f"{' (no --play, no --headless)' if job == 'play' else ''}; the old spelling works in this "
              f"release only", file=sys.stderr)
    job, given = words[0], [w.partition("=")[0] for w in words[1:] if w.startswith("--")]
    if job not in takes:
        return words  # argparse names the jobs
    if "--play" in given:
        raise UsageError("--play was the play's old spelling: cribcam live play ... follows the play, "
                         "cribcam live hands ... counts hands")
    other = next(name for name in takes if name != job)
    theirs = list(dict.fromkeys(w for w in given if w in takes[other] and w not in takes[job]))
    if theirs:
        one = len(theirs) == 1
        raise UsageError(f"{', '.join(theirs)} {'is' if one else 'are'} for {JOBS[other]} (cribcam live "
                         f"{other}): leave {'it' if one else 'them'} out of cribcam live {job}")
    return words


def mode(args) -> str:
    """How `cribcam live hands` follows the hands: ``headless`` (JSON lines), ``window``
    (OpenCV's own) or ``browser`` (the web app's live page, for an OpenCV that opens no window:
    the base install's opencv-python-headless).

    Raises:
        UsageError: options that do not go together.
    """
    from cribcam.live import desktop

    if args.headless:
        if not args.out:
            raise UsageError("--headless needs --out FILE (or --out -) to write the locked hands to")
        if args.browser:
            raise UsageError("--browser shows the live page; --headless shows nothing: choose one")
        return "headless"
    if not args.browser and desktop.window_available():
        return "window"
    why = "--browser shows the live page" if args.browser else \
        "this OpenCV build cannot open a window (the live page in the browser follows the hands)"
    if args.video is not None:
        raise UsageError(f"--video plays in a window, and {why}, on the browser's camera: use "
                         f"--headless --out FILE, or pip install opencv-python")
    if args.out:
        raise UsageError(f"--out writes the hands a window or --headless follows, and {why}: "
                         f"add --headless")
    return "browser"


def _quiet_opencv() -> None:
    """OpenCV's own log lines ("[ WARN:0@0.5] global cap_v4l.cpp ... can't open camera by
    index") and FFmpeg's through it ("[mov,mp4,m4a,3gp,3g2,mj2 @ 0x...] moov atom not found")
    are for their developers: the player reads cribcam's message about the camera or video
    instead. FFmpeg's level is read from the environment when OpenCV first opens a video."""
    import cv2

    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
    os.environ["OPENCV_FFMPEG_LOGLEVEL"] = str(FFMPEG_QUIET)


def run_hands(args) -> int:
    """`cribcam live hands`: each hand locked, in a window, on the live page or as JSON lines."""
    import cv2

    from cribcam.live import desktop
    from cribcam.live.lock import HandLock
    from cribcam.vision.report import expected_cards

    _quiet_opencv()
    how = mode(args)
    _check_video(args.video)
    try:  # the settings first: a mistake there is said without waiting for the model
        lock = HandLock(**{name: value for name, value in (("window", args.window), ("agree", args.agree))
                           if value is not None})
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if how == "browser":
        return _live_page(args, lock)
    reader = open_reader(args.model, args.deck)
    capture, frames = _opened(args)

    variant = args.variant or rules.DEFAULT_VARIANT
    read = partial(reader.read, expected=expected_cards(variant, args.crib))
    options = {"starter": args.starter, "crib": args.crib, "claim": args.claim, "variant": variant}
    timer = desktop.FrameTimer()
    on_frame = None if args.headless else (
        lambda frame, reading, locked: desktop.show(frame, reading, locked, timer.tick()))
    fps = capture.get(cv2.CAP_PROP_FPS) or 30.0
    summary = desktop.FollowSummary()
    hands = desktop.follow(frames, read, lock, fps, options, on_frame, summary)
    try:
        if args.out is None:
            for hand in hands:
                print(hand.report["count"]["spoken"] if hand.report["count"] else
                      "locked: " + " ".join(c["card"] for c in hand.report["cards"]))
        else:
            with _lines_out(args.out) as out:
                desktop.write_lines(hands, out)
    finally:
        capture.release()
        if not args.headless:
            cv2.destroyAllWindows()
    _say_ended(args.video, summary.sentence())
    return 0


def run_play(args) -> int:
    """`cribcam live play`: the play's events as JSON lines (``live.play.follow_play``); with
    ``--game``, a play seen to its end goes into that game."""
    import cv2

    from cribcam.live.play import FRAME_SIZE, PlaySummary, follow_play, table_reader

    _quiet_opencv()
    _check_play_options(args)
    store = open_store(args) if args.game is not None else None
    table = _kept_table(store, args.game) if store is not None else _table(args)
    goes = _goes(args.go, table.players)
    _check_video(args.video)
    reader = open_reader(args.model, args.deck)
    # A webcam films 640x480 unless asked for more: too small for the play.
    capture, frames = _opened(args, FRAME_SIZE)
    summary = PlaySummary()
    # A camera has no end of its own: it is followed until the play is over.
    events = follow_play(frames, table_reader(reader.read, table), table,
                         capture.get(cv2.CAP_PROP_FPS) or 30.0, goes, summary, until_over=args.video is None)
    try:
        with _lines_out(args.out) as out:
            for event in events:
                print(json.dumps(event, ensure_ascii=False), file=out, flush=True)
    finally:
        capture.release()
    _say_ended(args.video, summary.sentence())
    if store is not None:
        _into_game(store, args.game, table)
    return 0


def _given(args, *options: str) -> list[str]:
    """Those of ``options`` ("--starter"...) given on the command line: each is None, or False,
    unless given (--camera 0 is given)."""
    values = {option: getattr(args, option[2:].replace("-", "_")) for option in options}
    return [option for option, value in values.items() if value is not None and value is not False]


def _check_play_options(args) -> None:
    """Says what `cribcam live play` cannot do with the options given, before anything is opened.

    Raises:
        UsageError: --db without --game, or --game with what it names itself.
    """
    if args.game is None:
        if args.db is not None:
            raise UsageError("--db is where the game of --game is kept: add --game ID")
        return
    named = _given(args, "--players", "--dealer", "--variant")
    if named:
        raise UsageError(f"--game {args.game} names the players, the dealer and the variant: "
                         f"leave out {', '.join(named)}")


def _table(args):
    """The play of ``--players``, ``--dealer`` and ``--variant`` (a ``TablePlay``).

    Raises:
        UsageError: no players or dealer, a name left empty, a dealer not among the players...
    """
    from cribcam.game.table_play import TablePlay

    if not args.players or not args.dealer:
        raise UsageError("the play needs the players in seating order and the dealer: --players Ann Bob --dealer Bob"
                         " (or a game kept: --game ID)")
    if any(not name.strip() for name in args.players):
        raise UsageError("--players: a player's name cannot be empty: --players Ann Bob")
    try:
        return TablePlay(args.players, args.dealer, rules.VARIANTS[args.variant or rules.DEFAULT_VARIANT].hand_size)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _kept_table(store, game_id: str):
    """The play of the kept game ``game_id``: its players in seating order, the dealer of its
    deal and its variant's hand size, as the live page takes them from a game of the board.

    Raises:
        UsageError: no such game, or one not at its play.
    """
    from cribcam.game.table_play import NotAtPlay, TablePlay

    game = game_call(lambda: store.game(game_id))
    try:
        return TablePlay.of_game(game)
    except NotAtPlay as exc:
        raise UsageError(f"game {game_id} is {exc}") from None


def _goes(said: list[str], players: list[str]) -> dict[int, list[str]]:
    """``--go FRAME:NAME`` as ``follow_play`` takes them: frame -> who says go before it.

    Raises:
        UsageError: one that is not a frame number and one of ``players``.
    """
    goes: dict[int, list[str]] = {}
    for go in said:
        frame, _, player = go.partition(":")
        if not frame.isdigit() or player not in players:
            raise UsageError(f"--go {go}: give FRAME:NAME, a frame number and one of the players "
                             f"({', '.join(players)})")
        goes.setdefault(int(frame), []).append(player)
    return goes


def _into_game(store, game_id: str, table) -> None:
    """The play seen, into the kept game as its play entry (``TablePlay.game_entry``, as the
    live page's play goes in), and the game's scores after it on standard error. A play not
    over goes in not at all: the game takes a whole play only.

    Raises:
        UsageError: the game does not take the play (its play was entered meanwhile...).
    """
    entry = table.game_entry()
    if table.turn is not None:
        print(f"cribcam live: the play is not over: nothing went into game {game_id} (its turns so far: "
              f"{' '.join(entry['turns']) or 'none'}; cribcam game add {game_id} play TURN ... enters the "
              f"whole play)", file=sys.stderr)
        return
    try:
        game = game_call(lambda: store.add(game_id, entry))
    except (UsageError, CardError) as exc:
        raise UsageError(f"game {game_id} did not take the play: {exc}") from None
    scores = ", ".join(f"{game.setup.side_name(side)} {score}" for side, score in enumerate(game.scores))
    ended = f"; game over: {game.ended}" if game.over else ""
    print(f"cribcam live: pegged in game {game_id}: {scores}{ended}", file=sys.stderr)


def _check_video(video: Path | None) -> None:
    """Says a ``--video`` that is no file before anything else is done (the model loaded).

    Raises:
        UsageError: no such file, or a folder.
    """
    if video is None:
        return
    if video.is_dir():
        raise UsageError(f"--video {video} is a folder: give a video in it (.y4m, .mp4, .avi...), "
                         f"e.g. {video / 'hands.y4m'}")
    if not video.is_file():
        raise UsageError(f"no such video: {video}")


def _opened(args, frame_size: tuple[int, int] | None = None):
    """The camera or video of ``args`` opened, and its frames from the first.

    Args:
        frame_size: the width and height to ask a camera for (a video's are its own).

    Returns:
        The ``cv2.VideoCapture`` (to release) and an iterator of its frames.

    Raises:
        UsageError: it cannot be opened, or not one frame can be read from it (a video cut
            short, or one OpenCV opens but cannot decode): said, not followed as an empty one.
    """
    import cv2

    from cribcam.live import desktop

    camera = 0 if args.camera is None else args.camera
    source = f"video {args.video}" if args.video is not None else f"camera {camera}"
    capture = cv2.VideoCapture(str(args.video) if args.video is not None else camera)
    if not capture.isOpened():
        raise UsageError(f"cannot open {source}" + (
            ": it is not a video OpenCV can read (.y4m, .mp4, .avi...)" if args.video is not None else
            ": no such camera, or another program is using it"))
    if frame_size and args.video is None:
        capture.set(cv2.CAP_PROP_FRAME_WIDTH, frame_size[0])
        capture.set(cv2.CAP_PROP_FRAME_HEIGHT, frame_size[1])
    ok, first = capture.read()
    if not ok:
        capture.release()
        raise UsageError(f"no frame could be read from {source}" + (
            ": the file is cut short or not a video OpenCV can read" if args.video is not None else ""))
    return capture, itertools.chain([first], desktop.frames(capture))


def _lines_out(out: Path):
    """Where the JSON lines go, to use in a ``with``: standard output for ``--out -`` (left
    open), else the file (its folder made when not there yet)."""
    return contextlib.nullcontext(sys.stdout) if str(out) == "-" else output_file(out, "--out")


def _say_ended(video: Path | None, summary: str) -> None:
    """A video ends, and says what it came to; a camera is stopped by the player."""
    if video is not None:
        print(f"cribcam live: {video.name} ended: {summary}", file=sys.stderr)


def _live_page(args, lock) -> int:
    """Serves the web app on this machine and opens its live page in the browser: the
    desktop's live counting where OpenCV opens no window. The browser's camera on
    http://127.0.0.1 is allowed (a page on this machine is a secure one)."""
    import argparse

    from cribcam.cli import serve
    from cribcam.live import desktop

    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port} is not a port number (0-65535)")
    chosen = _given(args, "--camera", "--starter", "--crib", "--claim", "--variant")
    if chosen:
        print(f"cribcam live: {', '.join(chosen)}: chosen on the live page itself (the camera, "
              f"the starter, hand or crib, the claim and the game are set there)", file=sys.stderr)
    options = argparse.Namespace(host="127.0.0.1", port=args.port, model=args.model, deck=args.deck,
                                 db=None, threads=DEFAULT_THREADS, https=False)

    def open_page(url: str) -> None:
        page = url + "live"
        opened = desktop.open_in_browser(page)
        print(f"cribcam live: the live page is {page}" + (": opening it in the browser" if opened else
              ": open it in a browser on this machine (none could be opened from here)"), flush=True)

    return serve.run(options, name="live", on_ready=open_page, any_port_if_taken=True,
                     config={"LIVE_LOCK_WINDOW": lock.window, "LIVE_LOCK_AGREE": lock.agree})
