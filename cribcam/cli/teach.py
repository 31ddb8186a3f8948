"""`cribcam teach`: teach the reader your own deck from a few photos of it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from cribcam.cli.main import UsageError
from cribcam.cli.model import add_model_option
from cribcam.cli.output import output_file
from cribcam.scoring.spoken import counted

ORDERS = ["suits-in-rows"]


def add_parser(subparsers) -> None:
    from cribcam.vision.decks import LAYOUT

    parser = subparsers.add_parser(
        "teach", help="teach the reader your own deck from photos of it (under a minute)",
        description="Find the cards in photos of your deck, name them (by the stated layout, or "
                    "by a labels file), then teach the card reader their indices on this machine "
                    "(under a minute, no extra install) and keep it as a named deck in your data "
                    "folder. A deck that prints its own letters (B, V, H or D, K for the court "
                    "cards, 1 for the ace) learns them from the suits shown and reads them on "
                    f"every suit. The layout of --order suits-in-rows: {LAYOUT}.",
        epilog="examples: cribcam teach clubs.jpg diamonds.jpg hearts.jpg spades.jpg --name kitchen "
               "--order suits-in-rows; cribcam teach *.jpg --name kitchen --labels names.json "
               '(a photo of one card each: {"queen.jpg": {"cards": [{"card": "QH", "box": null}]}}); '
               "then cribcam read hand.jpg --deck kitchen")
    parser.add_argument("photos", nargs="+", type=Path, metavar="PHOTO", help="photos of the deck")
    parser.add_argument("--name", required=True, help="the deck's name (letters, digits, - and _)")
    parser.add_argument("--order", choices=ORDERS, help="the cards lie in the stated layout: named with no typing")
    parser.add_argument("--suits", metavar="CDHS",
                        help="with --order: the suit of each photo in turn (default: clubs, diamonds, hearts, spades)")
    parser.add_argument("--labels", type=Path, metavar="FILE",
                        help="the cards' names and index boxes, in the format of cribcam eval --labels; "
                             'a card with "box": null names every index found in its photo (one card a photo)')
    parser.add_argument("--write-labels", type=Path, metavar="FILE",
                        help="write the names found (by --order, or the reader's proposals) to FILE to "
                             "check or fix, and stop; teach from it with --labels FILE")
    parser.add_argument("--letters", nargs="+", metavar="RANK=TEXT", default=[],
                        help="what the deck prints for a rank, when teaching should not guess it: "
                             "--letters J=B Q=V K=H (asked at a terminal when teaching is unsure)")
    add_model_option(parser, help="folder of the models to teach on (default: the bundled models)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def run(args) -> int:
    from cribcam.teach import layout_photos, lesson
    from cribcam.vision.decks import DeckError, check_name, deck_folder

    try:
        check_name(args.name)
    except DeckError as exc:
        raise UsageError(str(exc)) from None
    if deck_folder(args.name).exists() and not args.write_labels:
        raise UsageError(f"a deck named {args.name!r} exists already: remove it first "
                         f"(cribcam decks remove {args.name}) or choose another name")
    if args.order and args.labels:
        raise UsageError("name the cards one way: --order or --labels, not both")
    if args.suits and not args.order:
        raise UsageError("--suits goes with --order suits-in-rows")
    letters = _stated_letters(args.letters)
    if not args.write_labels:
        why_not = lesson.teaching_unavailable(args.model)
        if why_not:
            raise UsageError(f"a deck cannot be taught here: {why_not}")
    photos = _named_photos(args)
    say = (lambda line: None) if args.json else print
    for photo in photos:  # a name the reader proposed unsurely shows how sure it is, to check
        names = " ".join(f"{card.name}? ({card.confidence:.2f})" if card.to_check else card.name or "?"
                         for card in photo.cards)
        say(f"{photo.name}: {counted(len(photo.cards), 'card')}: {names or 'none found'}")
    if not any(photo.cards for photo in photos):
        raise UsageError(f"no card was found in {', '.join(photo.name for photo in photos)}: photograph the "
                         f"cards face up on a plain table, their corners in sight, and teach from those photos")
    if any(card.to_check for photo in photos for card in photo.cards):
        say("Names followed by ? are the reader's proposals it is not sure of: check them before teaching")
    problems = [p for photo in photos for p in photo.problems]
    for problem in problems:
        say(f"Problem: {problem}")
    missing = layout_photos.missing_cards(photos)
    say(f"Still missing: {' '.join(missing)}" if missing else "All 52 cards are named.")
    if args.write_labels:
        with output_file(args.write_labels, "--write-labels") as out:
            out.write(json.dumps(layout_photos.as_labels(photos), indent=1) + "\n")
        say(f"Wrote the names to {args.write_labels}: check them, then teach with --labels {args.write_labels}")
        return 0
    if not (args.order or args.labels):
        raise UsageError("confirm the names before teaching: lay the cards out as --order suits-in-rows states, "
                         "or pass --labels FILE (--write-labels FILE writes the reader's proposals to fix), "
                         "or use the teach page of cribcam serve")
    unsure = lesson.letters_to_confirm(photos, args.model, letters)
    interactive = sys.stdin.isatty() and not args.json
    for question in unsure:
        answer = _ask(question) if interactive else None
        if answer is not None:
            letters[question.rank] = answer
        else:
            kept = question.text if question.learnt else question.standard
            otherwise = question.standard if question.learnt else question.text or "LETTER"
            say(f"Not sure: {question.said} Taught as {kept}; to say otherwise, teach with "
                f"--letters {question.standard}={otherwise}")
    try:
        deck = lesson.teach(photos, args.name, args.model, progress=_ProgressBar(quiet=args.json), letters=letters)
    except (DeckError, ValueError, FileNotFoundError) as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        print(json.dumps({"deck": deck.name, "folder": str(deck.folder), **deck.record, "problems": problems,
                          "letters_unsure": [q.as_json() for q in unsure]},
                         ensure_ascii=False))
        return 0
    for line in lesson.taught_sentences(deck.record):
        print(line[0].upper() + line[1:])
    if lesson.reads_better(deck.record):
        use = f"read with it: cribcam read PHOTO --deck {deck.name}"
    else:  # as the teach page then keeps the browser's deck as it was
        use = (f"it did not read the cards held back better than cribcam untaught, so reading "
               f"without --deck stays the better choice (to try it: cribcam read PHOTO --deck {deck.name})")
    print(f"Taught the deck {deck.name} in {deck.record['seconds']:.0f} s, kept in {deck.folder}; {use}")
    return 0


def _ask(question) -> str | None:
    """What the deck prints for the question's rank, as the player answers at the terminal: y
    (what it looks like), n (the standard letter) or the letter itself; for a letter that reads
    as none (``question.text`` None), y (the standard letter), the letter it read most like, or
    any letter. Asked again until answered: no letter is taught for a bare Enter. None at the
    end of the input."""
    from cribcam.teach.alphabet import printed_as_rank

    if question.text is not None:
        choices = "y/n, or the letter it prints"
    elif question.closest:
        choices = f"{question.closest}, {question.standard}, or the letter it prints"
    else:
        choices = "y, or the letter it prints"
    prompt = f"{question.said[0].upper()}{question.said[1:]} [{choices}] "
    while True:
        try:
            answer = input(prompt).strip()
        except EOFError:
            return None
        if question.text is None and not question.closest and answer.lower() in ("y", "yes"):
            return question.standard
        if question.text is not None and answer.lower() in ("y", "yes", "n", "no"):
            return question.text if answer.lower().startswith("y") else question.standard
        if answer and printed_as_rank(answer, question.rank):
            return answer
        prompt = f"Answer {choices}: "


def _stated_letters(given: list[str]) -> dict[str, str]:
    """``--letters J=B Q=V`` as ``{"J": "B", "Q": "V"}`` (``alphabet.check_stated``)."""
    from cribcam.teach.alphabet import check_stated

    letters = {}
    for item in given:
        rank, equals, text = item.partition("=")
        if not equals or not rank.strip() or not text.strip():
            raise UsageError(f"--letters takes RANK=TEXT, like Q=V, not {item!r}")
        letters[rank] = text
    try:
        return check_stated(letters)
    except ValueError as exc:
        raise UsageError(f"--letters: {exc}") from None


def _named_photos(args) -> list:
    """The photos read, their cards found and named as the options say."""
    from cribcam.cli.model import open_reader, read_photo
    from cribcam.teach import layout_photos
    from cribcam.vision.evaluate import load_labels

    for path in args.photos:
        if path.is_dir():
            raise UsageError(f"{path} is a folder: give its photos, e.g. {path}/*.jpg")
        if not path.is_file():
            raise UsageError(f"no such file: {path}")
    if len({path.name for path in args.photos}) != len(args.photos):
        raise UsageError("two photos have the same file name: rename one (the names key the labels)")
    labels = None
    if args.labels:
        try:
            labels = load_labels(args.labels)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        unlabelled = [path.name for path in args.photos if path.name not in labels]
        if unlabelled:
            raise UsageError(f"{args.labels} has no labels for {', '.join(unlabelled)}")
    suits = None
    if args.order:
        try:
            suits = layout_photos.suit_names(args.suits, len(args.photos))
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    reader = open_reader(args.model)
    photos = []
    for k, path in enumerate(args.photos):
        image = read_photo(path)
        photo = layout_photos.LayoutPhoto(path.name, image)
        try:
            if labels is not None:
                layout_photos.name_by_labels(photo, labels[path.name], reader)
            else:
                photo.cards = layout_photos.find_cards(reader, image)
                if suits:
                    layout_photos.name_in_order(photo, suits[k])
                else:
                    layout_photos.name_by_proposals(photo)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        photos.append(photo)
    return photos


class _ProgressBar:
    """Teaching's progress on standard error: the other stages a line each, training a tqdm
    bar of its seconds with the time left (off a terminal a line every 15 s at most; its
    first and last always show)."""

    STAGES = {"preparing": "teaching: cutting the crops", "checking": "teaching: checking the taught deck",
              "done": "teaching: done"}

    def __init__(self, quiet: bool = False):
        self.quiet = quiet
        self.bar = None

    def __call__(self, stage: str, done: float, total: float) -> None:
        from tqdm import tqdm

        if self.quiet:
            return
        if stage == "training" and total:
            if self.bar is None:
                self.bar = tqdm(total=total, desc="teaching", file=sys.stderr, dynamic_ncols=True,
                                mininterval=0.5 if sys.stderr.isatty() else 15.0,
                                bar_format="{desc} [{bar:30}] {percentage:3.0f}%  {remaining} left")
            self.bar.total = total  # the estimate of the seconds it takes is revised as it goes
            self.bar.update(done - self.bar.n)
            return
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        tqdm.write(self.STAGES.get(stage, stage), file=sys.stderr)
