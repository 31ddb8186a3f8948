"""Measuring a reader on labelled photos, in the format of the shared real-photo labels.

Labels (``load_labels``): ``{image_name: {"cards": [{"card": "TC", "box": [x1, y1, x2, y2]},
...], "subset": "..."}}``, one box per printed index corner, or ``"box": null`` for a card
labelled by its name alone (class-only labels: the cards of a photo without boxes). An entry
may also name, under ``"partly_shown"``, cards in view whose index shows only in part (a drawn
scene's cards under another or cut by the frame): a reader may name them or not, so a card so
named is left out of the reading's count (``cards_counted``), while a card read that is neither
labelled nor partly shown is a card read wrongly. An entry may give the number of cards the photo
shows, whole or in part, under ``"cards_in_view"`` (its labelled cards where it does not): the
count a player gives for the hand in front of them, and the count a photo is read with when the
count is given (``given_count``). A card counts as found when it is in the
reading; a hand is exact when the set read and counted equals the set labelled. The exact-hand
rate is taken over the images that show at least one readable card: a synthetic scene whose
cards are all hidden would otherwise count as a hand read right by a reader that sees nothing.
Cards read in such an image still count against precision. The share of index boxes the finder
found is measured on the cards labelled with a box only.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from cribcam.scoring.cards import CardError, parse_card
from cribcam.vision.detections import box_iou
from cribcam.vision.reading import Reading

FOUND_IOU = 0.5  # a labelled index counts as found by a box overlapping it this much
# A labels key naming a file with one of these endings is an image; any other key ("notes",
# "README") is left out with a warning.
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".bmp", ".tif", ".tiff")
_EXAMPLE = ('{"photo.jpg": {"cards": [{"card": "TC", "box": [x1, y1, x2, y2]}, '
            '{"card": "QH", "box": null}]}}')


@dataclass
class Tally:
    """Counts for one group of images."""

    images: int = 0
    hands: int = 0  # images with at least one labelled card
    exact: int = 0  # hands read exactly
    true_cards: int = 0  # labelled cards found
    labelled: int = 0
    read: int = 0
    boxes_labelled: int = 0  # index boxes, when the finder is measured too
    boxes_found: int = 0  # ... of them overlapped by a finder box at IoU >= FOUND_IOU
    unboxed: int = 0  # cards labelled without a box (class-only): not in boxes_labelled
    guesses: int = 0  # cards filled in as questions (``Reading.guesses``), not counted as read
    guesses_right: int = 0  # ... of them, cards in the photo and not read otherwise
    flagged_right: int = 0  # hands read exactly whose reading warns all the same (``Reading.warns``)
    flagged_wrong: int = 0  # hands misread whose reading warns

    def add(self, labelled: set[str], reading: Reading, partly_shown: set[str] = frozenset()) -> None:
        read = cards_counted(set(reading.codes), labelled, partly_shown)
        self.images += 1
        if labelled:
            self.hands += 1
            self.exact += labelled == read
            if labelled == read:
                self.flagged_right += reading.warns
            else:
                self.flagged_wrong += reading.warns
        self.true_cards += len(labelled & read)
        self.labelled += len(labelled)
        self.read += len(read)
        self.guesses += len(reading.guesses)
        self.guesses_right += len({seen.card for seen in reading.guesses} & (labelled - read))

    def as_dict(self) -> dict:
        return {"images": self.images, "hands": self.hands,
                "recall": _ratio(self.true_cards, self.labelled),
                "precision": _ratio(self.true_cards, self.read),
                "exact_hand_rate": _ratio(self.exact, self.hands),
                "cards_labelled": self.labelled, "cards_read": self.read,
                "index_boxes_found": _ratio(self.boxes_found, self.boxes_labelled),
                "index_boxes_labelled": self.boxes_labelled, "cards_without_box": self.unboxed,
                "guesses": self.guesses, "guesses_right": self.guesses_right,
                "warned_wrong": _ratio(self.flagged_wrong, self.hands - self.exact),
                "warned_right": _ratio(self.flagged_right, self.exact),
                "wrong_unwarned": _ratio(self.hands - self.exact - self.flagged_wrong, self.hands)}


@dataclass
class Evaluation:
    """Per-card recall and precision and exact-hand rate, overall and per subset."""

    overall: Tally = field(default_factory=Tally)
    subsets: dict[str, Tally] = field(default_factory=dict)
    kinds: dict[str, Tally] = field(default_factory=dict)  # by the number of cards (``photo_kind``)
    confusions: Counter = field(default_factory=Counter)
    unreadable: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"overall": self.overall.as_dict(),
                "subsets": {name: t.as_dict() for name, t in sorted(self.subsets.items())},
                "kinds": {name: self.kinds[name].as_dict() for name in KINDS if name in self.kinds},
                "confusions": [{"labelled": a, "read": b, "times": n}
                               for (a, b), n in self.confusions.most_common()],
                "unreadable_images": self.unreadable}


# Kinds of photo by the number of cards labelled, for the warnings' figures: a card alone, a
# pair, a hand (with or without its starter, or a deal), and more cards than a hand.
KINDS = ("no card", "one card", "two cards", "a hand (3 to 6)", "many (7 or more)")


def photo_kind(cards: int) -> str:
    """The kind (``KINDS``) of a photo of this many labelled cards."""
    return KINDS[0 if cards == 0 else 1 if cards == 1 else 2 if cards == 2 else 3 if cards <= 6 else 4]


# With the count given, photos of this many cards are read with their number of cards, as the
# photo page reads a hand, a crib and their starter (and the discard advisor a deal).
COUNT_GIVEN = range(3, 7)


def evaluate(read: Callable[..., Reading], images: Path, labels: dict,
             progress: Callable | None = None, find: Callable | None = None,
             count_given: bool = False, sheet: Callable | None = None) -> Evaluation:
    """Runs ``read`` (a BGR image to a ``Reading``) over labelled images and tallies.

    Args:
        read: typically ``CardReader(...).read``; called as ``read(image, expected=N)`` with
            ``count_given``.
        images: the folder holding the labelled images.
        labels: parsed labels (``load_labels``); a card's ``"box"`` may be None (class-only),
            and such a card is left out of the share of index boxes found.
        progress: wraps the iteration (e.g. ``tqdm``), optional.
        find: a BGR image to its (n, 4) finder boxes (``CardReader(...).find``), to measure
            the share of labelled index boxes found as well; optional.
        count_given: read a photo of ``COUNT_GIVEN`` cards in view with its number of cards
            (``given_count``).
        sheet: called as ``sheet(name, image, labels, reading)`` for every photo misread
            (``sheet.SheetWriter.add``), optional.
    """
    result = Evaluation()
    names = sorted(labels)
    for name in progress(names) if progress else names:
        entry = labels[name]
        path = images / name
        # Looked for first: OpenCV prints a warning of its own for a file it cannot open, and the
        # photos missing are said once, by name (``Evaluation.unreadable``).
        image = cv2.imread(str(path)) if path.is_file() else None
        if image is None:
            result.unreadable.append(name)
            continue
        labelled, partly_shown = {c["card"] for c in entry["cards"]}, set(entry.get("partly_shown", ()))
        expected = given_count(entry) if count_given else None
        reading = read(image) if expected is None else read(image, expected=expected)
        if sheet is not None and cards_counted(set(reading.codes), labelled, partly_shown) != labelled:
            sheet(name, image, entry["cards"], reading)
        tallies = (result.overall, result.subsets.setdefault(entry.get("subset", "all"), Tally()),
                   result.kinds.setdefault(photo_kind(len(labelled)), Tally()))
        for tally in tallies:
            tally.add(labelled, reading, partly_shown)
        boxed = [label for label in entry["cards"] if label.get("box") is not None]
        result.confusions.update(_confusions(boxed, reading))
        for tally in tallies:
            tally.unboxed += len(entry["cards"]) - len(boxed)
        if find is not None and boxed:
            found = boxes_found(boxed, np.asarray(find(image), np.float32).reshape(-1, 4))
            for tally in tallies:
                tally.boxes_labelled += len(boxed)
                tally.boxes_found += found
    return result


def boxes_found(labelled_boxes: list[dict], boxes: np.ndarray) -> int:
    """How many labelled index boxes some found box overlaps at IoU >= ``FOUND_IOU``."""
    if not labelled_boxes or not len(boxes):
        return 0
    labelled = np.array([label["box"] for label in labelled_boxes], np.float32)
    return int((box_iou(labelled, boxes) >= FOUND_IOU).any(axis=1).sum())


class Labels(dict):
    """What ``load_labels`` returns: a dict ``{image name: entry}`` (see there), and
    ``skipped``, ``{key: why}`` for the keys of the file left out (not image names)."""

    def __init__(self, entries=(), skipped: dict[str, str] | None = None):
        super().__init__(entries)
        self.skipped: dict[str, str] = dict(skipped or {})


def cards_counted(read: set[str], labelled: set[str], partly_shown: set[str]) -> set[str]:
    """The cards of a reading that count against its labels: all read but those whose index
    shows only in part (``"partly_shown"``), which a reader may name or not."""
    return read - (partly_shown - labelled)


def given_count(entry: dict) -> int | None:
    """The number of cards a photo of this labels entry is read with when the count is given:
    the cards it shows, whole or in part (``"cards_in_view"``; its labelled cards where the entry
    does not say), as a player counts the hand in front of them, when that is a hand with or
    without its starter (``COUNT_GIVEN``); else None. A card whose index shows only in part is
    counted: told fewer, a reader that reads it rightly must leave out a card it sees whole."""
    count = entry.get("cards_in_view", len({card["card"] for card in entry["cards"]}))
    return count if count in COUNT_GIVEN else None


def load_labels(path: str | Path) -> Labels:
    """Reads a labels file: the one reader of labels for ``cribcam eval``, ``cribcam teach
    --labels`` and training, so that they all take the same files.

    The file is a JSON object with a key per image, its file name under the images folder::

        {"photo.jpg": {"cards": [{"card": "TC", "box": [x1, y1, x2, y2]}, ...], "subset": "phone"},
         "one-card.jpg": {"cards": [{"card": "QH", "box": null}]}}

    A box is one printed corner index, in pixels (a card usually has two); ``"box": null``, no
    ``"box"``, or the code alone (``"cards": ["AC", "QH"]``) labels a card by its name alone
    (class-only). A key that does not name an
    image (``IMAGE_SUFFIXES``: "notes", "README") is skipped, whatever it holds, and listed in
    ``skipped``; an image's entry that is not a label is refused, naming the image.

    Returns:
        ``Labels``: a dict, in the file's order, of image name -> entry, where the entry is a
        new dict with

        - ``"cards"``: a list of ``{"card": code, "box": box}``, one per label in the file's
          order: ``code`` the card's canonical code (``"TC"``, ``"QH"``: rank
          ``A23456789TJQK``, suit ``CDHS``; "10h" in the file reads "TH") and ``box`` a list
          of four floats ``[x1, y1, x2, y2]``, or None for a card labelled without a box;
        - ``"subset"``: a string, only when the file gives one;
        - ``"partly_shown"``: canonical codes of cards whose index shows only in part, only
          when the file gives them (a drawn scene's labels; see the module's docs);
        - ``"cards_in_view"``: the number of cards the photo shows, whole or in part, only when
          the file gives it (at least its labelled cards);
        - every other key of the file's entry (``n_cards``, ``source``...), as it is there.

        ``.skipped`` maps each key left out to why, for a warning that names it.

    Raises:
        ValueError: the file cannot be read, is not JSON, is not an object of labels, or
            an image's entry is not a label (the message names the image and the entry).
    """
    try:
        raw = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read labels from {path}: {exc}") from None
    if not isinstance(raw, dict):
        raise ValueError(f"{path} is not a labels file: expected {_EXAMPLE}")
    labels = Labels()
    for name, entry in raw.items():
        if not name.lower().endswith(IMAGE_SUFFIXES):
            labels.skipped[name] = f"not an image name (images end {', '.join(IMAGE_SUFFIXES)})"
            continue
        labels[name] = _label_entry(path, name, entry)
    return labels


def _label_entry(path, name: str, entry) -> dict:
    """One image's entry in the form ``load_labels`` returns, or ValueError naming it."""
    where = f"{path} is not a labels file: {name!r}"
    if not isinstance(entry, dict) or not isinstance(entry.get("cards"), list):
        raise ValueError(f"{where} holds {_short(entry)}; expected {_EXAMPLE}")
    subset = entry.get("subset")
    if "subset" in entry and not isinstance(subset, str):
        raise ValueError(f'{where}: "subset" must be a name (a string), not {_short(subset)}')
    cards = []
    for label in entry["cards"]:
        if isinstance(label, str):  # a card named alone: "cards": ["AC", "QH"]
            label = {"card": label, "box": None}
        if not isinstance(label, dict) or not isinstance(label.get("card"), str):
            raise ValueError(f"{where} has the label {_short(label)}; expected "
                             '{"card": "TC", "box": [x1, y1, x2, y2]} or {"card": "TC", "box": null}')
        try:
            code = parse_card(label["card"]).code
        except CardError as exc:
            raise ValueError(f"{where}: {exc}") from None
        box = label.get("box")
        if box is not None:
            numbers = isinstance(box, list) and all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in box)
            if not (numbers and len(box) == 4):
                raise ValueError(f"{where}: the box of {code} is {_short(box)}; a box is four numbers "
                                 "[x1, y1, x2, y2] in pixels, or null for a card labelled without one")
            box = [float(v) for v in box]
        cards.append({"card": code, "box": box})
    labelled = len({card["card"] for card in cards})
    in_view = entry.get("cards_in_view", labelled)
    if not isinstance(in_view, int) or isinstance(in_view, bool) or in_view < labelled:
        raise ValueError(f'{where}: "cards_in_view" must be a whole number, at least its labelled cards, '
                         f'not {_short(in_view)}')
    if "partly_shown" not in entry:
        return {**entry, "cards": cards}
    partly_shown = entry["partly_shown"]
    if not isinstance(partly_shown, list) or not all(isinstance(code, str) for code in partly_shown):
        raise ValueError(f'{where}: "partly_shown" must be a list of card codes, not {_short(partly_shown)}')
    try:
        partly_shown = [parse_card(code).code for code in partly_shown]
    except CardError as exc:
        raise ValueError(f'{where}: "partly_shown": {exc}') from None
    return {**entry, "cards": cards, "partly_shown": partly_shown}


def _short(value) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _confusions(labelled_boxes: list[dict], reading: Reading) -> Counter:
    """(labelled, read) pairs where a read card sits on the corner of a different labelled one."""
    pairs = Counter()
    for seen in reading.cards:
        for box in seen.boxes:
            cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
            for label in labelled_boxes:
                x1, y1, x2, y2 = label["box"]
                if x1 <= cx <= x2 and y1 <= cy <= y2 and label["card"] != seen.card:
                    pairs[(label["card"], seen.card)] += 1
    return pairs


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None
