"""Shared fixtures: the shared files beside the checkout, and real card-reading models."""

import signal
from pathlib import Path

import pytest

from cribcam.settings import shared_dir as shared_files

# Run in the background (nohup ... &), pytest ignores Ctrl-C, and so would the servers the
# tests start and stop with Ctrl-C (webtools.serving): give them a terminal's Ctrl-C.
signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    shared = shared_files()
    if not shared.is_dir():
        pytest.fail(f"the shared files are missing: expected them at {shared} "
                    f"(set CRIBCAM_SHARED to their folder)")
    return shared


@pytest.fixture(scope="session")
def real_photos(shared_dir) -> Path:
    return shared_dir / "real-photos"


@pytest.fixture(scope="session")
def shipped_models() -> Path:
    """The bundled models' folder (models/, committed): every test that reads cards reads
    them with these, so no test trains a model to have one."""
    from cribcam.vision.models import MODELS_DIR, ModelMissingError, model_files

    try:
        model_files(MODELS_DIR)
    except ModelMissingError as exc:
        pytest.fail(f"the shipped models are missing from this checkout: {exc}")
    return MODELS_DIR


@pytest.fixture(scope="session")
def deck_designs() -> list:
    """Every deck design of the manifest, rendered from the installed card packages (once,
    into the deck cache; later runs read it from there)."""
    from cribcam.datagen.card_art import DeckArtError, load_decks

    try:
        return load_decks(progress=False)
    except DeckArtError as exc:
        # Failed, not skipped: CI installs the packages (.ci/install-system-packages), so a
        # test going without them is a broken machine, and a skip would hide it.
        pytest.fail(f"the deck art the test draws cards from is missing: {exc} "
                    f"(bash .ci/install-system-packages installs everything the tests need)")


@pytest.fixture(scope="session")
def heldout_decks(deck_designs) -> list:
    """The designs held out of training, as a reader meets a deck it has never seen."""
    return [deck for deck in deck_designs if deck.split == "heldout"]
