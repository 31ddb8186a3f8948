"""The card readers of a web process: loaded once, shared by all request threads.

One reader with the bundled models, and one per taught deck chosen (``cribcam teach``):
the same finder with the deck's classifier, loaded on first use.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from pathlib import Path

log = logging.getLogger(__name__)


class ModelUnavailable(RuntimeError):
    """No card-reading model can be used; the web API answers 503 with this message."""


class ReaderSlot:
    """Holds the process's ``CardReader``, loading it at most once at a time.

    A reader given up front is used as it is (tests inject one). Otherwise the model is
    loaded on the first ``get()`` (``create_app`` calls it at start-up); while no model is
    installed each ``get()`` looks again, so a model copied in later is picked up without a
    restart. Loading happens under a lock: concurrent requests never load it twice.

    Photos are read at most ``concurrent_reads`` at a time: each inference already uses
    every core, so more at once only slows them all, and request threads waiting here leave
    the others free to answer typed counts.

    Args:
        reader: a ready reader (anything with ``read(image, expected=..., starter=...)``), or None.
        model_path: the folder of the reader's two ONNX models; None for the bundled ones.
        threads: onnxruntime threads per inference (0: onnxruntime decides).
        concurrent_reads: photos read at once.
        deck_choice: returns the taught deck the current request reads with (None: the
            bundled classifier); by default every photo is read with the bundled one.
        decks_kept: readers of taught decks kept loaded, the last used kept. Each shares the
            bundled reader's models (``CardReader.with_deck``) and holds its heads alone: when
            each loaded its own models, 30 to 80 MB a deck stayed loaded, without bound.
    """

    def __init__(self, reader=None, model_path: str | Path | None = None, threads: int = 0,
                 concurrent_reads: int = 1, deck_choice=lambda: None, decks_kept: int = 2):
        self._reader = reader
        self._lock = threading.Lock()
        self._reads = threading.BoundedSemaphore(max(1, concurrent_reads))
        self._decks: OrderedDict[str, tuple[float, object]] = OrderedDict()
        self.decks_kept = max(1, decks_kept)
        self.model_path = model_path
        self.threads = threads
        self.deck_choice = deck_choice
        self.error: str | None = None
        # True when the last load found no model files (not a damaged model): the server still
        # counts typed cards and answers photos 503 until a model is copied in.
        self.missing = False

    def get(self):
        """The reader; raises ``ModelUnavailable`` with a message for the player if none."""
        reader = self._reader
        if reader is not None:
            return reader
        with self._lock:
            if self._reader is None:
                self._reader = self._load()
            return self._reader

    def chosen(self):
        """The reader of the deck chosen for this request (``deck_choice``); raises
        ``ModelUnavailable`` or ``DeckError`` with a message for the player."""
        deck = self.deck_choice()
        return self.get() if not deck else self.deck_reader(deck)

    def read(self, image, expected: int | None = None, starter: bool = True):
        """Reads with the deck chosen for this request, at most ``concurrent_reads`` at a time
        (``CardReader.read``'s arguments)."""
        reader = self.chosen()
        with self.at_most():
            return reader.read(image, expected=expected, starter=starter)

    def at_most(self) -> threading.BoundedSemaphore:
        """Held while a photo is decoded or read: ``concurrent_reads`` at a time, the memory
        and the cores of a photo's work bounded together."""
        return self._reads

    def deck_reader(self, name: str):
        """A reader with the classifier of the taught deck ``name``, loaded once (again when
        the deck is taught anew).

        Raises:
            DeckError: no taught deck of that name.
            ModelUnavailable: no finder to read with.
        """
        from cribcam.vision.decks import find_deck

        deck = find_deck(name)
        stamp = deck.classifier.stat().st_mtime
        bundled = self.get()  # whose models a deck's reader shares
        with self._lock:
            cached = self._decks.get(name)
            if cached is None or cached[0] != stamp:
                try:
                    reader = bundled.with_deck(deck.classifier)
                except Exception as exc:  # a damaged deck file
                    raise ModelUnavailable(f"photos cannot be read with the deck {name}: {exc}") from None
                self._decks[name] = cached = (stamp, reader)
            self._decks.move_to_end(name)
            while len(self._decks) > self.decks_kept:
                self._decks.popitem(last=False)  # freed once no read holds it
            return cached[1]

    def forget_deck(self, name: str) -> None:
        """Drops the reader of the deck ``name``, removed (freed once no read holds it)."""
        with self._lock:
            self._decks.pop(name, None)

    @property
    def available(self) -> bool:
        try:
            self.get()
        except ModelUnavailable:
            return False
        return True

    @property
    def description(self) -> str:
        """Which model the reader runs, for the start-up line."""
        folder = getattr(self._reader, "folder", None)
        return str(folder) if folder else type(self._reader).__name__

    def _load(self):
        from cribcam.vision import CardReader, ModelMissingError

        try:
            reader = CardReader(self.model_path, threads=self.threads)
        except ModelMissingError as exc:
            self.error, self.missing = str(exc), True
            raise ModelUnavailable(
                "photos cannot be read: no card-reading model is installed on this server "
                "(start it with: cribcam serve --model PATH); type the cards in instead") from None
        except Exception as exc:  # a damaged or incompatible .onnx file
            self.error, self.missing = f"{type(exc).__name__}: {exc}", False
            log.error("the card-reading model could not be loaded: %s", self.error)
            raise ModelUnavailable(
                "photos cannot be read: the card-reading model on this server could not be "
                "loaded; type the cards in instead") from None
        self.error, self.missing = None, False
        log.info("card reader loaded from %s", getattr(reader, "folder", self.model_path))
        return reader
