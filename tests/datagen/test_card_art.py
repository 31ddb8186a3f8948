"""Tests for the deck art: manifest, licence lookup, corner locator, and the rendered decks.

The rendered-deck tests build the deck cache on first use (rsvg-convert on the installed card
packages, a few minutes on two cores); later runs read the cache in seconds.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from cribcam.datagen import art_corners as corners
from cribcam.datagen import card_art as deck_art
from cribcam.datagen.card_art import (
    CARD_CODES,
    RANKS,
    SPLITS,
    SUITS,
    DeckArtError,
    element_id,
    load_decks,
    load_manifest,
    package_licence,
    svg_file,
)

# --- card codes and manifest ---------------------------------------------------------


def test_card_codes_are_suit_major_ace_first():
    assert len(CARD_CODES) == 52 == len(set(CARD_CODES))
    assert CARD_CODES[:3] == ["AC", "2C", "3C"]
    assert CARD_CODES[12:14] == ["KC", "AD"]
    assert CARD_CODES[-1] == "KS"
    assert RANKS == "A23456789TJQK" and SUITS == "CDHS"


def test_element_ids_follow_each_package():
    assert element_id("AC", "gnome") == "club_1"
    assert element_id("TH", "gnome") == "heart_10"
    assert element_id("QS", "kde") == "queen_spade"
    assert element_id("7D", "kde") == "7_diamond"
    assert element_id("TH", "files") == "TH"  # a deck of one file a card: TH.svgz


def test_manifest_is_consistent():
    manifest = load_manifest()
    decks = manifest["decks"]
    names = [d["name"] for d in decks]
    assert len(names) == len(set(names))
    for deck in decks:
        assert deck["split"] in SPLITS
        assert isinstance(deck["dark"], bool)
        assert deck["style"] in ("gnome", "kde", "files")
        assert deck["licence"]
        # Only a lettered deck prints other letters, and it says which.
        assert bool(deck.get("letters")) == (deck["split"] == "lettered"), deck["name"]
        # A deck kept here says where it comes from, and its file is here to render.
        assert deck["package"] or (deck["upstream"] and svg_file(deck).exists()), deck["name"]
        if deck["style"] == "files":  # a folder of one file a card
            assert all((svg_file(deck) / f"{code}.svgz").is_file() for code in CARD_CODES), deck["name"]
    # A family shares its index glyphs: splitting one would leak held-out designs into training.
    splits = {}
    for deck in decks:
        splits.setdefault(deck["family"], set()).add(deck["split"])
    assert all(len(s) == 1 for s in splits.values()), splits
    assert sum(d["split"] == "heldout" for d in decks) >= 3
    assert all(e["reason"] for e in manifest["excluded"])


def test_package_licence_takes_the_last_matching_stanza():
    text = (
        "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n\n"
        "Files: *\nCopyright: someone\nLicense: GPL-2+\n\n"
        "Files: carddecks/svg-a/*\n       carddecks/svg-b/*\nCopyright: other\nLicense: LGPL-2+\n text\n"
    )
    assert package_licence(text, "carddecks/svg-b/b.svgz") == "LGPL-2+"
    assert package_licence(text, "usr/share/carddecks/svg-a/a.svgz") == "LGPL-2+"
    assert package_licence(text, "carddecks/svg-c/c.svgz") == "GPL-2+"


# --- corner locator on synthetic cards --------------------------------------------------


def _synthetic_deck(bottom_right: bool = True) -> dict[str, np.ndarray]:
    """A plain deck: rank letter over a suit dot top-left, turned copy bottom-right, pips in the middle."""
    width, height = 240, 336
    blank = np.zeros((height, width, 4), np.uint8)
    # White face with rounded corners: transparent outside, as rendered cards are.
    cv2.rectangle(blank, (12, 0), (width - 13, height - 1), (255, 255, 255, 255), -1)
    cv2.rectangle(blank, (0, 12), (width - 1, height - 13), (255, 255, 255, 255), -1)
    for x, y in ((12, 12), (width - 13, 12), (12, height - 13), (width - 13, height - 13)):
        cv2.circle(blank, (x, y), 12, (255, 255, 255, 255), -1)
    cards = {}
    for code in CARD_CODES:
        card = blank.copy()
        colour = (0, 0, 200, 255) if code[1] in "DH" else (20, 20, 20, 255)
        index = np.zeros_like(card)
        rank = "10" if code[0] == "T" else code[0]
        cv2.putText(index, rank, (12, 48), cv2.FONT_HERSHEY_SIMPLEX, 1.2, colour, 3)
        cv2.circle(index, (26, 72), 11, colour, -1)
        card[index[:, :, 3] > 0] = index[index[:, :, 3] > 0]
        if bottom_right:
            turned = index[::-1, ::-1]
            card[turned[:, :, 3] > 0] = turned[turned[:, :, 3] > 0]
        cv2.circle(card, (width // 2, height // 2), 30, colour, -1)
        cards[code] = card
    return cards


def test_locator_finds_tight_boxes_on_a_synthetic_deck():
    found = corners.locate_corners(_synthetic_deck())
    for code, (top_left, bottom_right) in found.items():
        x1, y1, x2, y2 = top_left
        assert 8 <= x1 <= 16 and 14 <= y1 <= 24, (code, top_left)
        assert 80 <= y2 <= 86, (code, top_left)  # the suit dot ends at y = 83
        assert bottom_right == (240 - x2, 336 - y2, 240 - x1, 336 - y1)


def test_locator_rejects_a_deck_without_bottom_right_index():
    with pytest.raises(corners.CornerError):
        corners.locate_corners(_synthetic_deck(bottom_right=False))


# --- rendered decks ------------------------------------------------------------------


def test_enough_decks_load(deck_designs):
    assert len(deck_designs) >= 20
    assert sum(d.split == "heldout" for d in deck_designs) >= 3
    assert all(d.licence for d in deck_designs)
    manifest = {d["name"]: d for d in load_manifest()["decks"]}
    for deck in deck_designs:
        assert deck.split == manifest[deck.name]["split"]
        assert deck.licence == manifest[deck.name]["licence"]


def test_cards_are_bgra_and_one_size_per_deck(deck_designs):
    for deck in deck_designs:
        assert list(deck.cards) == CARD_CODES
        shape = deck.cards["AC"].shape
        assert shape[1] == 240 and shape[2] == 4 and 1.2 < shape[0] / shape[1] < 1.8
        for image in [*deck.cards.values(), deck.back]:
            if image is not None:
                assert image.shape == shape and image.dtype == np.uint8
        # Rounded or antialiased corners: the corner pixel is see-through, the centre opaque.
        assert deck.cards["AC"][0, 0, 3] < 255 and deck.cards["AC"][shape[0] // 2, shape[1] // 2, 3] == 255


def test_every_box_holds_index_ink_in_a_corner(deck_designs):
    for deck in deck_designs:
        face = corners.face_colour(deck.cards)
        for code, boxes in deck.corners.items():
            card = deck.cards[code]
            height, width = card.shape[:2]
            assert len(boxes) in (2, 4), (deck.name, code)
            ink = np.abs(card[:, :, :3].astype(float) - face).max(axis=2) > corners.INK_DISTANCE
            for x1, y1, x2, y2 in boxes:
                assert 0 <= x1 < x2 <= width and 0 <= y1 < y2 <= height
                # In a corner: within 45 % of the card from one of its corners.
                assert x2 <= 0.45 * width or x1 >= 0.55 * width, (deck.name, code, boxes)
                assert y2 <= 0.45 * height or y1 >= 0.55 * height, (deck.name, code, boxes)
                region = ink[int(y1) : int(y2), int(x1) : int(x2)]
                assert region.mean() > 0.1, (deck.name, code, (x1, y1, x2, y2))
                # Tight: ink within a pixel of every edge (a pixel of slack for antialiased glyph edges).
                edges = (region[:2], region[-2:], region[:, :2], region[:, -2:])
                assert all(edge.any() for edge in edges), (deck.name, code, (x1, y1, x2, y2))


def test_bottom_right_box_mirrors_top_left(deck_designs):
    for deck in deck_designs:
        height, width = deck.cards["AC"].shape[:2]
        tolerance = max(3, 0.03 * width)
        for code, boxes in deck.corners.items():
            (x1, y1, x2, y2), (bx1, by1, bx2, by2) = boxes[:2]
            turned = (width - bx2, height - by2, width - bx1, height - by1)
            # The corner-side edges match closely; the far edges within the index size tolerance.
            assert abs(turned[0] - x1) <= tolerance and abs(turned[1] - y1) <= tolerance, (deck.name, code)
            assert abs((turned[2] - turned[0]) / (x2 - x1) - 1) <= corners.COPY_SIZE, (deck.name, code)
            assert abs((turned[3] - turned[1]) / (y2 - y1) - 1) <= corners.COPY_SIZE, (deck.name, code)


def test_split_filter(deck_designs):
    heldout = load_decks(split="heldout", progress=False)
    assert {d.name for d in heldout} == {d.name for d in deck_designs if d.split == "heldout"}
    with pytest.raises(ValueError):
        load_decks(split="test", progress=False)
    # The data build draws train and held-out designs, never a lettered deck.
    assert {d.split for d in deck_designs} == {"train", "heldout"}


def test_lettered_decks_render_from_the_data_package_with_what_they_print():
    # Kept in datasets/designs/ (not in Debian 12): rendered with no card package at all.
    lettered = {d.name: d for d in load_decks(split="lettered", progress=False)}
    assert lettered["aisleriot-tragy"].letters == {"J": "W", "Q": "D", "K": "K"}
    assert lettered["aisleriot-l-and-h"].letters["A"] == "E"
    for deck in lettered.values():
        assert deck.split == "lettered" and deck.licence.startswith(("GPL-3+", "LGPL-3+"))
        assert all(len(deck.corners[code]) >= 2 for code in CARD_CODES)


def test_decks_of_one_file_a_card_render_from_the_data_package():
    # npm's decks are kept in datasets/designs/ a file a card: rendered with no card package.
    files = [d for d in load_decks(split="train", progress=False) if d.name.startswith(("kennard-", "aguilar-"))]
    assert {d.name for d in files} == {"kennard-2color", "kennard-2color-big-index", "aguilar-responsive"}
    for deck in files:
        assert deck.licence in ("CC0-1.0", "LGPL-3.0")
        assert all(len(deck.corners[code]) == 2 for code in CARD_CODES)
    kennard = {d.name: d for d in files}
    plain, jumbo = (kennard[name].corners["7H"][0] for name in ("kennard-2color", "kennard-2color-big-index"))
    # The same glyphs, the jumbo index about twice as tall.
    assert 1.7 < (jumbo[3] - jumbo[1]) / (plain[3] - plain[1]) < 2.5


def test_a_square_cornered_card_is_cut_round():
    card = np.full((338, 240, 4), 255, np.uint8)
    cut = deck_art.rounded(card, 0.05)  # a radius of 12 pixels
    assert cut[0, 0, 3] == cut[-1, -1, 3] == cut[0, -1, 3] == cut[-1, 0, 3] == 0
    assert cut[0, 120, 3] == cut[169, 0, 3] == cut[169, 120, 3] == 255  # edges and face untouched
    assert 0 < cut[3, 3, 3] < 255  # antialiased along the curve
    assert (cut[:, :, :3] == card[:, :, :3]).all()


# --- the installed card packages ------------------------------------------------------


def test_decks_to_render_without_their_packages_name_the_packages_to_install(tmp_path, monkeypatch):
    monkeypatch.setattr(deck_art, "PACKAGE_ROOT", tmp_path / "nothing-installed")
    with pytest.raises(DeckArtError) as raised:
        load_decks(cache_dir=tmp_path / "empty-cache", progress=False)
    assert str(raised.value) == (
        f"decks are not rendered yet in {tmp_path / 'empty-cache'}, and the card art comes from the "
        f"Debian packages gnome-cards-data and kdegames-card-data-kf5, not installed: "
        f"sudo apt-get install gnome-cards-data kdegames-card-data-kf5")
    assert not (tmp_path / "empty-cache").exists()  # refused before anything was written


def test_rendered_decks_load_from_the_cache_with_no_package_installed(deck_designs, tmp_path, monkeypatch):
    # As a lent machine's training run reads them: from a deck cache that travelled, no apt there.
    monkeypatch.setattr(deck_art, "PACKAGE_ROOT", tmp_path / "nothing-installed")
    heldout = load_decks(split="heldout", progress=False)
    assert [d.name for d in heldout] == [d.name for d in deck_designs if d.split == "heldout"]
