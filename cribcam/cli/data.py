"""`cribcam data`: build synthetic training data, convert the real photos, draw a contact sheet."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

from cribcam.cli.main import UsageError
from cribcam.cli.output import output_folder
from cribcam.scoring.spoken import counted
from cribcam.settings import default_real_photos

# Where default_real_photos() looks, for help texts: the path it finds is only this checkout's.
REAL_PHOTOS_SAID = "$CRIBCAM_SHARED/real-photos, else real-photos in shared/ beside the checkout"
# A contact sheet's tile is captioned along its top and bottom edges: a smaller one has no room.
SMALLEST_TILE = 64


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "data", help="make training data: synthetic scenes, the real photos, contact sheets",
        description="Make the card reader's training data (ultralytics YOLO format).")
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True

    build = actions.add_parser(
        "build", help="render a synthetic data set",
        description="Render synthetic photos of cribbage hands with a label per readable corner "
                    "index. The same seed gives the same bytes, whatever the number of workers.")
    build.add_argument("--out", type=Path, required=True, help="output folder")
    build.add_argument("--images", type=int, required=True, help="number of images")
    build.add_argument("--seed", type=int, required=True, help="random seed")
    build.add_argument("--workers", type=int, default=None, help="processes (default: every core)")
    build.add_argument("--split", choices=["train", "heldout"], default="train",
                       help="train: training designs, parts train and val; heldout: the held-out "
                            "designs only, part test (default train)")
    build.add_argument("--val-fraction", type=float, default=None,
                       help="share of a train build put in val (default 0.1; a heldout build is all test)")
    build.add_argument("--decks", nargs="+", metavar="NAME",
                       help="only these designs of the split (names as datasets/decks.json gives them), "
                            "e.g. to draw the held-out designs of an earlier figure")
    build.add_argument("--imgsz", type=int, default=640, help="image size in pixels (default 640)")
    build.add_argument("--force", action="store_true", help="replace a data set already in --out")
    build.set_defaults(handler=run_build)

    preview = actions.add_parser(
        "preview", help="draw a contact sheet of a data set",
        description="Draw sample images of a data set with their label boxes and card names.")
    preview.add_argument("folder", type=Path, help="data set folder (with images/ and labels/)")
    preview.add_argument("--out", type=Path, required=True, help="PNG file to write")
    preview.add_argument("--n", type=int, default=16, help="number of images (default 16)")
    preview.add_argument("--part", default=None, help="only this part: train, val or test")
    preview.add_argument("--tile", type=int, default=400,
                         help=f"tile size in pixels, at least {SMALLEST_TILE} (default 400)")
    preview.set_defaults(handler=run_preview)

    real = actions.add_parser(
        "real", help="convert the real photos, split by capture",
        description="Convert the labelled real photos into the data set format, with train and "
                    "val split by capture (never by frame) and their CC BY 4.0 attribution.")
    real.add_argument("--out", type=Path, required=True, help="output folder")
    real.add_argument("--src", type=Path, default=None,
                      help=f"folder with labels.json and images/ (default {REAL_PHOTOS_SAID})")
    real.add_argument("--val-fraction", type=float, default=0.25, help="share put in val (default 0.25)")
    real.add_argument("--force", action="store_true", help="replace a data set already in --out")
    real.set_defaults(handler=run_real)

    clip = actions.add_parser(
        "clip", help="render a test clip for live counting",
        description="Render a Y4M clip of hands held still under a fixed camera, with blurred "
                    "frames between them, from the held-out card designs; its record (the "
                    "hands, their frames and counts) is written beside it as .json. Play it "
                    "with cribcam live hands --video, or as Chromium's fake camera.")
    clip.add_argument("--out", type=Path, required=True, help="the .y4m file to write")
    clip.add_argument("--hands", type=int, default=None,
                      help="hands, one after another (default 3; not with --play, which deals the players' cards)")
    clip.add_argument("--seconds", type=float, default=3.0,
                      help="seconds each hand (with --play: each card laid) lies still (default 3)")
    clip.add_argument("--transition-frames", type=int, default=4,
                      help="blurred frames between hands (default 4)")
    clip.add_argument("--fps", type=int, default=10, help="frames per second (default 10)")
    clip.add_argument("--size", help="frame size WIDTHxHEIGHT (default 640x480 for hands, 1280x960 for the play: "
                                     "as the live page sends them)")
    clip.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    clip.add_argument("--play", type=int, metavar="PLAYERS",
                      help="a clip of the play instead: 2 to 4 players lay their cards one at a time, each lying "
                           "still --seconds (follow it with cribcam live play: its record gives the goes)")
    clip.add_argument("--photos", type=Path, metavar="FOLDER",
                      help="with --play: lay real photos of single cards instead of drawn ones, from FOLDER "
                           "(its images/ and labels.json, as the shared real photos hold them)")
    clip.set_defaults(handler=run_clip)


def _usage_errors(handler):
    """Turns the data set's user-facing errors into one-line usage errors."""
    def run(args) -> int:
        from cribcam.datagen.yolo import DataSetError
        try:
            return handler(args)
        except DataSetError as exc:
            raise UsageError(str(exc)) from None
    return run


def _check_fraction(value: float) -> None:
    if not 0.0 <= value < 1.0:
        raise UsageError(f"--val-fraction must be at least 0 and below 1, not {value}")


@_usage_errors
def run_build(args) -> int:
    from cribcam.datagen.build import BuildSpec, build, default_workers

    if args.images < 1:
        raise UsageError("--images must be at least 1")
    if args.seed < 0:
        raise UsageError("--seed must be 0 or more")
    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers must be at least 1")
    if args.imgsz < 64 or args.imgsz % 32:
        raise UsageError("--imgsz must be a multiple of 32, at least 64")
    if args.val_fraction is not None and args.split == "heldout":
        raise UsageError("--val-fraction splits a train build: a heldout build is all test, so leave it out")
    val_fraction = BuildSpec.val_fraction if args.val_fraction is None else args.val_fraction
    _check_fraction(val_fraction)
    if args.decks:
        _check_designs(args.decks, args.split)
    output_folder(args.out, "--out")
    which = "training" if args.split == "train" else "held-out"
    decks = _decks(args.split, "data build", f"the scenes show the {which} deck designs")
    if args.decks:  # in the manifest's order, as a build of them all draws them
        decks = [deck for deck in decks if deck.name in args.decks]
    spec = BuildSpec(args.out, args.images, args.seed, args.split, val_fraction, args.imgsz)
    workers = args.workers or default_workers()
    try:
        summary = build(spec, decks, workers=workers, force=args.force)
    except KeyboardInterrupt:
        print(f"stopped: the set in {args.out} is unfinished; build it again with --force", file=sys.stderr)
        return 130
    print(f"{counted(summary['images'], 'image')}, {counted(summary['labels'], 'label')} from "
          f"{counted(len(decks), args.split + ' deck')} in {summary['seconds']:.1f} s "
          f"({summary['images_per_second']:.1f} images/s on {counted(workers, 'worker')}) -> {args.out / 'data.yaml'}")
    return 0


@_usage_errors
def run_preview(args) -> int:
    from cribcam.datagen.preview import contact_sheet

    if args.n < 1:
        raise UsageError("--n must be at least 1")
    if args.tile < SMALLEST_TILE:
        raise UsageError(f"--tile must be at least {SMALLEST_TILE} pixels, not {args.tile}")
    output_folder(args.out.parent, "--out")
    n = contact_sheet(args.folder, args.out, args.n, args.part, args.tile)
    print(f"{counted(n, 'image')} -> {args.out}")
    return 0


@_usage_errors
def run_real(args) -> int:
    from cribcam.datagen.real_photos import convert

    _check_fraction(args.val_fraction)
    src = args.src or default_real_photos()
    if not (src / "labels.json").is_file():
        raise UsageError(f"no real photos at {src} (labels.json missing); pass --src")
    counts = convert(src, output_folder(args.out, "--out"), args.val_fraction, force=args.force)
    print(f"{counts['train']} train and {counts['val']} val images -> {args.out / 'data.yaml'}")
    return 0


def run_clip(args) -> int:
    from cribcam.datagen.clips import ClipSpec, record_path, write_clip
    from cribcam.live.play import FRAME_SIZE

    if args.seed < 0:
        raise UsageError("--seed must be 0 or more")
    # Unless told, as the live page sends them: a hand's frames, or the play's larger ones.
    size = args.size or "x".join(map(str, FRAME_SIZE if args.play is not None else (ClipSpec.width, ClipSpec.height)))
    try:
        width, height = (int(v) for v in size.lower().split("x"))
    except ValueError:
        raise UsageError(f"--size must be WIDTHxHEIGHT, like 640x480, not {args.size!r}") from None
    if args.out.suffix.lower() != ".y4m":
        raise UsageError(f"--out must name a .y4m file, not {args.out.name}")
    output_folder(args.out.parent, "--out")
    if args.play is not None:
        return _play_clip(args, width, height)
    if args.photos is not None:
        raise UsageError("--photos lays the cards of a clip of the play: give --play PLAYERS too")
    hands = ClipSpec.hands if args.hands is None else args.hands
    spec = ClipSpec(hands, args.seconds, args.transition_frames, args.fps, width, height, args.seed)
    _check_spec(spec)
    record = write_clip(args.out, spec, _clip_decks())
    for hand in record["hands"]:
        print(f"frames {hand['first_frame']:>4}-{hand['last_frame']:<4} {' '.join(hand['hand'])}, "
              f"starter {hand['starter']}: {hand['total']}")
    print(f"{record['frames']} frames at {spec.fps} fps, {width}x{height}, deck {record['deck']} "
          f"-> {args.out} and {record_path(args.out)}")
    return 0


PLAYERS = ("Ann", "Bob", "Cat", "Dan")  # the players of a clip of the play, in seating order


def _play_clip(args, width: int, height: int) -> int:
    from cribcam.datagen.clips import record_path
    from cribcam.datagen.photo_play_clips import write_photo_play_clip
    from cribcam.datagen.play_clips import PlaySpec, write_play_clip

    players = PLAYERS[:args.play]
    # Each player holds 4 cards for the play, whatever their number (Hoyle: three or four players
    # are dealt 5 and lay 1 away): `cribcam live play` follows the six-card game's play.
    spec = PlaySpec(players, hold_seconds=args.seconds, transition_frames=args.transition_frames, fps=args.fps,
                    width=width, height=height, seed=args.seed)
    if not 2 <= args.play <= 4:
        raise UsageError(f"--play takes 2 to 4 players, not {args.play}")
    if args.hands is not None:
        raise UsageError(f"--hands is for a clip of hands: with --play each player is dealt {spec.hand_size} "
                         f"cards, so leave --hands out")
    _check_spec(spec)
    _check_hold(spec)
    if args.photos is None:
        record = write_play_clip(args.out, spec, _clip_decks())
    else:
        try:
            record = write_photo_play_clip(args.out, spec, _card_photos(args.photos))
        except ValueError as exc:
            raise UsageError(f"--photos {args.photos}: {exc}") from None
    for step in record["steps"]:
        said = step["event"]["said"]  # a go's words begin "go" already
        print(f"frame {step['frame']:>4} {step['player']}: " + (f"{step['card']}: {said}" if "card" in step else said))
    goes = " ".join(f"--go {said}" for said in record["goes"])
    shown = f"deck {record['deck']}" if "deck" in record else f"photos from {args.photos}"
    print(f"{record['frames']} frames at {spec.fps} fps, {width}x{height}, {shown} -> {args.out} "
          f"and {record_path(args.out)}; follow it with: cribcam live play --video {args.out} --out - "
          f"--players {' '.join(players)} --dealer {record['dealer']} {goes}".rstrip())
    return 0


def _check_hold(spec) -> None:
    """Refuses a clip of the play whose cards lie still too briefly for `cribcam live play` to
    see them laid: ``STILL_FOR`` seconds from a card's first still frame to its last. A card not
    seen laid in its own stillness is seen with the next, and the two are laid out of turn."""
    from cribcam.live.laid import STILL_FOR

    # Its first still frame, then STILL_FOR seconds of frames (less a rounding's worth, as
    # live.laid allows).
    frames = math.ceil(STILL_FOR * spec.fps - 1e-6) + 1
    if spec.hold_frames < frames:
        raise UsageError(f"--seconds must be at least {frames / spec.fps:g} at {spec.fps} fps, not "
                         f"{spec.hold_seconds:g}: cribcam live play counts a card laid once it has lain "
                         f"still {STILL_FOR:g} s")


def _card_photos(folder: Path) -> dict:
    """The photos of single cards in ``folder`` (``images/`` and ``labels.json``) by card."""
    from cribcam.datagen.photo_play_clips import single_card_photos

    labels_file = folder / "labels.json"
    if not labels_file.is_file():
        raise UsageError(f"--photos {folder}: no labels.json there (give a folder like the shared real "
                         f"photos: images/ and labels.json)")
    try:
        labels = json.loads(labels_file.read_text())
    except (OSError, ValueError) as exc:
        raise UsageError(f"--photos {folder}: labels.json cannot be read ({exc})") from None
    try:
        return single_card_photos(folder / "images", labels)
    except (AttributeError, KeyError, TypeError, ValueError):
        raise UsageError(f"--photos {folder}: labels.json does not say the cards of each photo as the shared "
                         f"real photos' does ({{name: {{\"cards\": [{{\"card\", \"box\"}}]}}}})") from None


def _check_spec(spec) -> None:
    """Refuses a clip's spec that no clip can follow, before any deck art or photo is read."""
    try:
        spec.check()
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _clip_decks() -> list:
    """The held-out decks a clip is drawn from."""
    return _decks("heldout", "data clip", "the clip shows cards of the held-out deck designs (never seen in training)")


def _check_designs(names: list[str], split: str) -> None:
    """Refuse a design the split does not have, naming those it has.

    Raises:
        UsageError: a name is not a design of the split in ``datasets/decks.json``.
    """
    from cribcam.datagen.card_art import manifest_decks

    designs = [entry["name"] for entry in manifest_decks(split)]
    unknown = sorted(set(names) - set(designs))
    if unknown:
        raise UsageError(f"no {split} design named {', '.join(unknown)}: the {split} designs are "
                         f"{', '.join(designs)}")


def _decks(split: str, command: str, purpose: str) -> list:
    """The rendered decks of ``split``; when they must be rendered first, `cribcam COMMAND`
    says so once, before it starts (``purpose`` says what they are for), or says which
    tool or card package it needs that is not installed.

    Raises:
        UsageError: a tool or card package is missing, or the deck art cannot be rendered.
    """
    try:
        from cribcam.datagen.assets import deck_art_plan
        from cribcam.datagen.card_art import DeckArtError, load_decks
    except ImportError as exc:
        raise UsageError(f"the deck art module is missing ({exc})") from None

    plan = deck_art_plan(split)
    if plan is not None and plan.missing:
        needed = ", ".join(thing for thing, _ in plan.missing)
        packages = " ".join(package for _, package in plan.missing)
        raise UsageError(f"{purpose}, rendered from Debian's card packages: "
                         f"{needed} {'is' if len(plan.missing) == 1 else 'are'} needed for "
                         f"that (sudo apt-get install {packages})")
    if plan is not None:
        print(f"cribcam {command}: {plan.sentence(purpose)}", file=sys.stderr, flush=True)
    try:
        return load_decks(split=split)
    except DeckArtError as exc:
        raise UsageError(f"the deck art could not be made: {exc}") from None
