"""Layout photos of a design held out of training, rendered with exact labels
(``cribcam.datagen.layout_photos.render_layout``): a deck the bundled classifier never saw."""

import pytest


@pytest.fixture(scope="session")
def heldout_deck(heldout_decks):
    return heldout_decks[0]


@pytest.fixture(scope="session")
def layouts(heldout_deck):
    """One rendered photo of each suit laid out as the layout states, with its labels."""
    from cribcam.datagen.layout_photos import render_layout

    return {suit: render_layout(heldout_deck, suit, seed=10 + k) for k, suit in enumerate("CDHS")}
