"""Fixtures of the reader's tests: the reader on the shipped models."""

import pytest

from cribcam.vision import CardReader


@pytest.fixture(scope="module")
def reader(shipped_models):
    """A reader of the shipped models, one per test module: a module may wrap its methods."""
    return CardReader(shipped_models)


@pytest.fixture(scope="session")
def heldout_designs():
    """The deck designs held out of training, rendered (fetched on a first run)."""
    from cribcam.datagen.decks import DeckArtError, load_decks

    try:
        return load_decks(split="heldout", progress=False)
    except DeckArtError as exc:
        pytest.skip(f"deck art unavailable: {exc}")
