"""Tests for the deck art: manifest, licence lookup, corner locator, and the rendered decks.

The rendered-deck tests build the deck cache on first use (apt-get download + rsvg-convert,
a few minutes on two cores); later runs read the cache in seconds. They skip only where
rsvg-convert or the Debian package tools are missing or apt cannot reach its mirror.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import cv2
import numpy as np
import pytest

from cribcam.datagen import corners
from cribcam.datagen.decks import (
    CARD_CODES,
    RANKS,
    SUITS,
    DeckArtError,
    element_id,
    load_decks,
    load_manifest,
    package_licence,
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


def test_manifest_is_consistent():
    manifest = load_manifest()
    decks = manifest["decks"]
    names = [d["name"] for d in decks]
    assert len(names) == len(set(names))
    for deck in decks:
        assert deck["split"] in ("train", "heldout")
        assert isinstance(deck["dark"], bool)
        assert deck["style"] in ("gnome", "kde")
        assert deck["licence"]
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


# --- fetching -------------------------------------------------------------------------

# A stand-in for `apt-get download`: slow, and failing when another download into the same
# folder is under way, as a real one racing it does (it clears the other's .deb).
FAKE_APT_GET = """#!/bin/sh
[ "$1" = download ] || exit 0
[ -e busy ] && { echo "another download is under way" >&2; exit 1; }
touch busy; echo once >> "$CALLS"; sleep 1
cp "$DEB" .; rm busy
"""


@pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="dpkg-deb missing")
def test_two_processes_filling_one_cache_take_turns(tmp_path):
    package = tmp_path / "pkg"
    (package / "DEBIAN").mkdir(parents=True)
    (package / "DEBIAN" / "control").write_text(
        "Package: fake-cards\nVersion: 1.0\nArchitecture: all\nMaintainer: x <x@example.org>\nDescription: x\n")
    (package / "usr" / "share").mkdir(parents=True)
    (package / "usr" / "share" / "card.svg").write_text("<svg/>")
    deb = tmp_path / "fake-cards_1.0_all.deb"
    subprocess.run(["dpkg-deb", "--build", str(package), str(deb)], check=True, capture_output=True)
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "apt-get").write_text(FAKE_APT_GET)
    (tools / "apt-get").chmod(0o755)
    env = {**os.environ, "PATH": f"{tools}:{os.environ['PATH']}", "DEB": str(deb), "CALLS": str(tmp_path / "calls")}
    fill = textwrap.dedent(f"""
        from pathlib import Path
        from cribcam.datagen.decks import _package_root
        print(_package_root("fake-cards", Path({str(tmp_path / "cache")!r})))
    """)
    runs = [subprocess.Popen([sys.executable, "-c", fill], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True) for _ in range(2)]
    outcomes = [run.communicate(timeout=60) + (run.returncode,) for run in runs]
    assert [code for _, _, code in outcomes] == [0, 0], [err for _, err, _ in outcomes]
    root = tmp_path / "cache" / "pkg" / "fake-cards"
    assert (root / "usr" / "share" / "card.svg").read_text() == "<svg/>"
    assert (root / ".unpacked").read_text() == "1.0"
    assert (tmp_path / "calls").read_text().split() == ["once"]  # the second found it unpacked


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


@pytest.fixture(scope="session")
def decks():
    if shutil.which("rsvg-convert") is None:
        pytest.skip("rsvg-convert missing: apt-get install librsvg2-bin")
    if shutil.which("apt-get") is None or shutil.which("dpkg") is None:
        pytest.skip("Debian package tools (apt-get, dpkg) missing")
    try:
        return load_decks(progress=False)
    except DeckArtError as err:
        pytest.skip(f"deck art unavailable: {err}")


def test_enough_decks_load(decks):
    assert len(decks) >= 20
    assert sum(d.split == "heldout" for d in decks) >= 3
    assert all(d.licence for d in decks)
    manifest = {d["name"]: d for d in load_manifest()["decks"]}
    for deck in decks:
        assert deck.split == manifest[deck.name]["split"]
        assert deck.licence == manifest[deck.name]["licence"]


def test_cards_are_bgra_and_one_size_per_deck(decks):
    for deck in decks:
        assert list(deck.cards) == CARD_CODES
        shape = deck.cards["AC"].shape
        assert shape[1] == 240 and shape[2] == 4 and 1.2 < shape[0] / shape[1] < 1.8
        for image in [*deck.cards.values(), deck.back]:
            if image is not None:
                assert image.shape == shape and image.dtype == np.uint8
        # Rounded or antialiased corners: the corner pixel is see-through, the centre opaque.
        assert deck.cards["AC"][0, 0, 3] < 255 and deck.cards["AC"][shape[0] // 2, shape[1] // 2, 3] == 255


def test_every_box_holds_index_ink_in_a_corner(decks):
    for deck in decks:
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


def test_bottom_right_box_mirrors_top_left(decks):
    for deck in decks:
        height, width = deck.cards["AC"].shape[:2]
        tolerance = max(3, 0.03 * width)
        for code, boxes in deck.corners.items():
            (x1, y1, x2, y2), (bx1, by1, bx2, by2) = boxes[:2]
            turned = (width - bx2, height - by2, width - bx1, height - by1)
            # The corner-side edges match closely; the far edges within the index size tolerance.
            assert abs(turned[0] - x1) <= tolerance and abs(turned[1] - y1) <= tolerance, (deck.name, code)
            assert abs((turned[2] - turned[0]) / (x2 - x1) - 1) <= corners.COPY_SIZE, (deck.name, code)
            assert abs((turned[3] - turned[1]) / (y2 - y1) - 1) <= corners.COPY_SIZE, (deck.name, code)


def test_split_filter(decks):
    heldout = load_decks(split="heldout", progress=False)
    assert {d.name for d in heldout} == {d.name for d in decks if d.split == "heldout"}
    with pytest.raises(ValueError):
        load_decks(split="test", progress=False)
