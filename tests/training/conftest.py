"""Layout photos of a design held out of training, rendered with exact labels (``render_layout``)."""

import pytest


@pytest.fixture(scope="session")
def heldout_deck():
    from cribcam.datagen.decks import DeckArtError, load_decks

    try:
        return load_decks(split="heldout", progress=False)[0]
    except DeckArtError as exc:
        pytest.skip(f"deck art unavailable: {exc}")


@pytest.fixture(scope="session")
def layouts(heldout_deck):
    """One rendered photo of each suit laid out as the layout states, with its labels."""
    from cribcam.training.layout import render_layout

    return {suit: render_layout(heldout_deck, suit, seed=10 + k) for k, suit in enumerate("CDHS")}
