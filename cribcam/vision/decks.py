"""Taught decks: the heads a player taught on their own deck (`cribcam teach`), kept by name.

A deck lives in its own folder of the user's data folder, never in the repository:
``$CRIBCAM_DATA/decks/NAME/`` when ``CRIBCAM_DATA`` is set, else
``$XDG_DATA_HOME/cribcam/decks/NAME/`` (by default ``~/.local/share/cribcam/decks/NAME/``).
It holds:

* ``heads.npz``: the taught rank and suit heads, read by ``CardReader(classifier=...)`` on
  the bundled classifier's features (``vision.classifier.DeckClassifier``; the finder is
  never taught: it finds indices of any design);
* ``deck.json``: when and how it was taught and what was measured after teaching;
* ``photos/`` and ``labels.json``: the teaching photos and their names, in the format of
  ``cribcam eval --labels`` (so a deck can be measured, or taught again, from its own folder).

A folder without ``heads.npz`` is not a deck (a teaching cut short leaves none); one with the
``classifier.onnx`` of an older cribcam instead is said to need teaching again.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from cribcam.scoring.cards import RANK_NAMES, RANK_TEXTS, RANKS
from cribcam.settings import data_dir
from cribcam.vision.models import CLASSIFIER_FILE

# How the photos of a deck lie for teaching without typing (`cribcam teach --order suits-in-rows`).
LAYOUT = ("one suit per photo, clubs, diamonds, hearts, spades (or the suits named); in each "
          "photo the thirteen cards face up and apart, ace to king in reading order: rows top "
          "to bottom, each row left to right, rows across the photo")
HEADS_FILE = "heads.npz"
RECORD_FILE = "deck.json"
PHOTOS_DIR = "photos"
LABELS_FILE = "labels.json"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,39}")
NAME_RULE = "1 to 40 letters, digits, '-' or '_', starting with a letter or digit"


class DeckError(ValueError):
    """A deck name that cannot be one, or a deck that is not there; the message says which."""


@dataclass(frozen=True)
class TaughtDeck:
    """A taught deck in the data folder.

    Attributes:
        name: the deck's name.
        folder: its folder.
        record: what ``deck.json`` says (empty when it is missing or unreadable).
    """

    name: str
    folder: Path
    record: dict

    @property
    def classifier(self) -> Path:
        """The deck's heads file, which ``CardReader(classifier=...)`` reads."""
        return self.folder / HEADS_FILE


def lettering(record: dict) -> str:
    """How a deck's ranks read where most decks' read otherwise, in words ("its indices read
    B for the jack, V for the queen, H for the king"), from the ``rank_texts`` teaching learnt
    (a deck's ``deck.json`` record): the player sees what was learnt, and that a letter shown
    on one suit is read on every suit. It is what the text recognizer reads, which is usually
    what the deck prints: an unusual Q may read as "0"."""
    texts = record.get("rank_texts") or {}
    own = [f"{texts[rank]} for the {RANK_NAMES[rank]}" for rank, standard in zip(RANKS, RANK_TEXTS)
           if texts.get(rank, standard) != standard]
    if not own:
        return "its indices read as most decks' do (A 2 3 4 5 6 7 8 9 10 J Q K)"
    return "its indices read " + ", ".join(own) + ": so read on every suit"


def decks_dir() -> Path:
    """The folder holding one folder per taught deck."""
    return data_dir() / "decks"


def check_name(name: str) -> str:
    """Returns ``name`` when it can name a deck: it becomes a folder name, so no path characters.

    Raises:
        DeckError: it cannot.
    """
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise DeckError(f"{name!r} cannot name a deck: use {NAME_RULE} (no '/', '.' or spaces)")
    return name


def deck_folder(name: str) -> Path:
    """Where the deck ``name`` is (or would be) kept."""
    return decks_dir() / check_name(name)


def list_decks() -> list[TaughtDeck]:
    """The taught decks, by name."""
    root = decks_dir()
    if not root.is_dir():
        return []
    decks = []
    for folder in sorted(root.iterdir()):
        if folder.is_dir() and _NAME.fullmatch(folder.name) and (folder / HEADS_FILE).is_file():
            decks.append(TaughtDeck(folder.name, folder, _read_record(folder)))
    return decks


def find_deck(name: str) -> TaughtDeck:
    """The taught deck ``name``.

    Raises:
        DeckError: the name is not a deck name, or no deck of that name was taught.
    """
    folder = deck_folder(name)
    if not (folder / HEADS_FILE).is_file() and (folder / CLASSIFIER_FILE).is_file():
        raise DeckError(f"the deck {name!r} was taught by an older cribcam: teach it again from its photos "
                        f"(cribcam teach {folder / PHOTOS_DIR}/*.jpg --labels {folder / LABELS_FILE} --name NEW-NAME)")
    if not (folder / HEADS_FILE).is_file():
        taught = ", ".join(d.name for d in list_decks()) or "none yet (teach one with `cribcam teach`)"
        raise DeckError(f"no taught deck named {name!r}; taught decks: {taught}")
    return TaughtDeck(name, folder, _read_record(folder))


def deck_classifier(name: str | None) -> Path | None:
    """The heads file of the deck ``name``, or None for the bundled classifier alone (no name).

    Raises:
        DeckError: as ``find_deck``.
    """
    return find_deck(name).classifier if name else None


def remove_deck(name: str) -> Path:
    """Deletes the deck ``name``: its folder and nothing else. Returns the folder removed.

    Raises:
        DeckError: as ``find_deck``.
    """
    deck = find_deck(name)
    shutil.rmtree(deck.folder)
    return deck.folder


def _read_record(folder: Path) -> dict:
    try:
        record = json.loads((folder / RECORD_FILE).read_text())
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}
