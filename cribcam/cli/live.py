"""`cribcam live`: count from a webcam or a video file as hands settle."""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

from cribcam.cli.count import add_count_options
from cribcam.cli.decks import add_deck_option
from cribcam.cli.main import UsageError
from cribcam.cli.model import open_reader


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "live", help="count from a webcam or video as each hand lies still",
        description="Follow a camera (or a video file); when the same cards have been read in "
                    "most recent frames the hand locks and its count is shown. With --headless "
                    "and --out, write one JSON line per locked hand.")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--camera", type=int, default=0, help="camera index (default 0)")
    source.add_argument("--video", type=Path, help="a video file instead of a camera")
    parser.add_argument("--headless", action="store_true", help="no window")
    parser.add_argument("--out", type=Path, help="write a JSON line per locked hand here ('-' for stdout)")
    parser.add_argument("--window", type=int, default=8, help="frames the lock looks back over")
    parser.add_argument("--agree", type=int, default=5, help="frames that must agree to lock")
    parser.add_argument("--model", type=Path, metavar="DIR",
                        help="folder with finder.onnx and classifier.onnx (default: the bundled models)")
    add_deck_option(parser)
    add_count_options(parser, starter_required=False)
    parser.set_defaults(handler=run)


def run(args) -> int:
    import cv2

    from cribcam.live import desktop
    from cribcam.live.lock import HandLock
    from cribcam.vision.report import expected_cards

    if args.headless and not args.out:
        raise UsageError("--headless needs --out FILE (or --out -) to write the locked hands to")
    if not args.headless and not desktop.window_available():
        raise UsageError("this OpenCV build cannot open windows: use --headless --out FILE, "
                         "or pip install opencv-python")
    if args.video is not None and not args.video.is_file():
        raise UsageError(f"no such video: {args.video}")
    try:  # the settings first: a mistake there is said without waiting for the model
        lock = HandLock(args.window, args.agree)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    reader = open_reader(args.model, args.deck)
    capture = cv2.VideoCapture(str(args.video) if args.video else args.camera)
    if not capture.isOpened():
        raise UsageError(f"cannot open {'video ' + str(args.video) if args.video else f'camera {args.camera}'}")

    read = partial(reader.read, expected=expected_cards(args.variant, args.crib))
    options = {"starter": args.starter, "crib": args.crib, "claim": args.claim, "variant": args.variant}
    timer = desktop.FrameTimer()
    on_frame = None if args.headless else (
        lambda frame, reading, locked: desktop.show(frame, reading, locked, timer.tick()))
    fps = capture.get(cv2.CAP_PROP_FPS) or 30.0
    hands = desktop.follow(desktop.frames(capture), read, lock, fps, options, on_frame)
    try:
        if args.out is None:
            for hand in hands:
                print(hand.report["count"]["spoken"] if hand.report["count"] else
                      "locked: " + " ".join(c["card"] for c in hand.report["cards"]))
        elif str(args.out) == "-":
            desktop.write_lines(hands, sys.stdout)
        else:
            with args.out.open("w") as out:
                desktop.write_lines(hands, out)
    finally:
        capture.release()
        if not args.headless:
            cv2.destroyAllWindows()
    return 0
