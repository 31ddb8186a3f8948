"""Plain decks drawn with the machine's fonts: every card, its two index corners on the face."""

import numpy as np
import pytest

pytest.importorskip("PIL")
pytest.importorskip("fontTools")

from cribcam.datagen.font_decks import find_fonts, font_decks  # noqa: E402 (after the importorskip above: without it the module is skipped, not failed)
from cribcam.scoring.cards import CARD_CODES  # noqa: E402 (after the importorskip above: without it the module is skipped, not failed)


@pytest.fixture(scope="module")
def deck():
    decks = font_decks(1, seed=3)
    if not decks:
        pytest.skip("no font with the rank glyphs and suit symbols is installed")
    return decks[0]


def test_only_fonts_with_every_rank_glyph_are_used():
    ranks, suits = find_fonts()
    assert set(suits) <= set(ranks)
    assert not any("Dingbats" in p.name or "Math" in p.name for p in ranks)


def test_a_font_deck_has_every_card_with_two_index_corners(deck):
    assert set(deck.cards) == set(CARD_CODES) and deck.split == "train"
    for code in ("AS", "TD", "QH"):
        face, corners = deck.cards[code], deck.corners[code]
        assert face.shape == (336, 240, 4) and len(corners) == 2
        (x1, y1, x2, y2), (u1, v1, u2, v2) = corners
        assert x2 < 120 and y2 < 168 and u1 > 120 and v1 > 168  # top-left, then bottom-right


def test_index_boxes_hold_the_ink_and_the_corners_are_rounded(deck):
    face = deck.cards["8C"]
    x1, y1, x2, y2 = (int(round(v)) for v in deck.corners["8C"][0])
    assert (face[y1:y2, x1:x2, :3] < 128).any()  # ink inside the box
    assert face[0, 0, 3] == 0 and face[168, 120, 3] == 255


def test_red_suits_print_red(deck):
    face = deck.cards["5H"]
    x1, y1, x2, y2 = (int(round(v)) for v in deck.corners["5H"][0])
    ink = face[y1:y2, x1:x2, :3].reshape(-1, 3)
    darkest = ink[ink.sum(axis=1).argmin()].astype(int)
    assert darkest[2] > darkest[0] + 80  # BGR: far more red than blue


def test_a_lettered_deck_prints_its_own_letters_for_the_ranks_it_letters():
    from cribcam.datagen.font_decks import ALPHABETS, font_deck

    letters = ALPHABETS["dutch"]
    ranks, suits = find_fonts(letters="".join(letters.values()))
    if not ranks or not suits:
        pytest.skip("no font with the letters is installed")
    plain = font_deck(ranks[0], suits[0], np.random.default_rng(0))
    dutch = font_deck(ranks[0], suits[0], np.random.default_rng(0), letters)  # the same style drawn
    assert dutch.name == plain.name + "-A1-JB-QV-KH"

    def index(deck, code):
        x1, y1, x2, y2 = (int(v) for v in deck.corners[code][0])
        return deck.cards[code][y1:y2, x1:x2]

    assert np.array_equal(index(plain, "5H"), index(dutch, "5H"))  # the ranks it does not letter
    for code in ("AH", "JS", "QC", "KD"):
        assert index(dutch, code).shape != index(plain, code).shape or \
            not np.array_equal(index(dutch, code), index(plain, code))


def test_a_deck_named_by_its_font_files_is_drawn_the_same_each_time_and_a_missing_font_is_named():
    from cribcam.datagen.font_decks import named_deck

    ranks, suits = find_fonts()
    if not suits:
        pytest.skip("no font with the rank glyphs and suit symbols is installed")
    first = named_deck(ranks[0].name, suits[0].name, seed=4, alphabet="german")
    again = named_deck(ranks[0].name, suits[0].name, seed=4, alphabet="german")
    assert first.name == again.name and first.name.endswith("-JB-QD-KK")
    assert all(np.array_equal(first.cards[c], again.cards[c]) for c in ("AS", "JH", "KD"))
    with pytest.raises(FileNotFoundError, match="NoSuchFont.ttf"):
        named_deck("NoSuchFont.ttf", suits[0].name, seed=4)


def test_jokers_print_the_letters_of_joker_stacked_in_two_opposite_corners():
    from cribcam.datagen.font_decks import HEIGHT, WIDTH, joker_faces

    jokers = joker_faces(3, seed=0)
    if not jokers:
        pytest.skip("no font with the letters of JOKER is installed")
    for face, corners in jokers:
        assert face.shape == (HEIGHT, WIDTH, 4) and len(corners) == 2
        (ax1, ay1, ax2, ay2), (bx1, by1, bx2, by2) = corners
        assert ay2 - ay1 > 2 * (ax2 - ax1)  # a column of letters
        assert ax2 < WIDTH / 2 and ay2 < HEIGHT / 2 and bx1 > WIDTH / 2 and by1 > HEIGHT / 2
        for x1, y1, x2, y2 in corners:
            assert face[int(y1):int(y2), int(x1):int(x2), :3].min() < 120  # ink in each
