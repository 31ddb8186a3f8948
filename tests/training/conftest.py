"""Layout photos of a design held out of training, rendered with exact labels (``render_layout``),
and the tiny models of the training smoke tests."""

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def heldout_deck(heldout_decks):
    return heldout_decks[0]


@pytest.fixture(scope="session")
def layouts(heldout_deck):
    """One rendered photo of each suit laid out as the layout states, with its labels."""
    from cribcam.training.layout_photos import render_layout

    return {suit: render_layout(heldout_deck, suit, seed=10 + k) for k, suit in enumerate("CDHS")}


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory, real_photos) -> Path:
    """Models made by the real training recipe cut down to a toy size (one finder epoch).

    They read next to nothing, but they are real ONNX models from the real recipe, so the
    recipe never rots. Training them takes about half a minute on two cores, and the tests that
    use them train more: only tests marked slow use them.
    """
    pytest.importorskip("ultralytics", reason="training needs the train extra: pip install -e '.[train]'")
    from training_tools import train_tiny_models

    return train_tiny_models(real_photos, tmp_path_factory.mktemp("tiny-models"))
