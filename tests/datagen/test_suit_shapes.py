"""Suit symbols drawn in a random geometry: each suit's shape, and one stem to a deck."""

import numpy as np
import pytest

from cribcam.datagen.suit_shapes import STEMS, suit_geometry, suit_mask

HEIGHT = 60


def _geometries(count: int = 40):
    rng = np.random.default_rng(5)
    return [suit_geometry(rng) for _ in range(count)]


def _widths(mask: np.ndarray) -> np.ndarray:
    """The ink's width on each row."""
    return (mask > 127).sum(axis=1)


@pytest.mark.parametrize("suit", "CDHS")
def test_a_drawn_suit_is_a_tight_mask_of_the_height_asked(suit):
    for geometry in _geometries(10):
        mask = suit_mask(suit, HEIGHT, geometry)
        assert mask.dtype == np.uint8 and mask.shape[0] == HEIGHT
        ink = mask > 0  # a point's tip is a faint pixel, but ink
        assert ink[0].any() and ink[-1].any() and ink[:, 0].any() and ink[:, -1].any()
        assert 0.3 < (mask > 127).mean() < 0.9  # a filled symbol, neither a speck nor a block
        assert np.array_equal(mask, suit_mask(suit, HEIGHT, geometry))


def test_hearts_point_down_spades_up_and_diamonds_at_both_ends():
    for geometry in _geometries():
        heart, spade, diamond = (_widths(suit_mask(s, HEIGHT, geometry)) for s in "HSD")
        assert heart.argmax() < 0.45 * HEIGHT and heart[-2] < heart.max() / 3  # lobes on top, the point below
        assert spade.argmax() > 0.35 * HEIGHT and spade[1] < spade.max() / 3  # the point on top
        assert 0.4 * HEIGHT < diamond.argmax() < 0.6 * HEIGHT
        assert diamond[HEIGHT // 2] > 3 * max(diamond[1], diamond[-2])


@pytest.mark.parametrize("suit", "CDHS")
def test_drawn_suits_are_symmetric_left_to_right(suit):
    for geometry in _geometries(10):
        ink = (suit_mask(suit, HEIGHT, geometry) > 127).astype(float)
        assert np.abs(ink - ink[:, ::-1]).mean() < 0.05


def test_a_decks_club_and_spade_share_their_stem_and_differ_above_it():
    """The two black suits are told apart by what stands on the stem, never by the stem."""
    stems = set()
    for geometry in _geometries():
        stems.add(geometry["stem"])
        club, spade = (suit_mask(s, HEIGHT, geometry) > 127 for s in "CS")
        if club.shape != spade.shape:
            continue  # a club drawn wider than its spade: its stem is compared as widths
        foot = slice(HEIGHT - 4, HEIGHT - 1)
        assert abs(int(_widths(club)[foot].sum()) - int(_widths(spade)[foot].sum())) <= 3 * 3
        top = slice(0, HEIGHT // 4)
        assert (club[top] != spade[top]).mean() > 0.1
    assert stems == set(STEMS)


def test_club_and_spade_feet_match_in_width_on_every_deck():
    for geometry in _geometries():
        club, spade = (_widths(suit_mask(s, HEIGHT, geometry))[-2] for s in "CS")
        assert abs(int(club) - int(spade)) <= 2 + 0.1 * max(club, spade)
