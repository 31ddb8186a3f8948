"""Scenes: labels sit on the printed index, covered corners get none, records match labels."""

from __future__ import annotations

import numpy as np
import pytest

from cribcam.datagen import augment
from cribcam.datagen.assets import make_assets
from cribcam.datagen.camera import look_at
from cribcam.datagen.layouts import Item, Layout
from cribcam.datagen.scenes import READABLE, compose, render_scene

SEEDS = range(40)


@pytest.fixture(scope="module")
def assets(fake_decks):
    return make_assets(fake_decks, seed=3, n_surfaces=5)


def _blank_corners(deck):
    """The same deck with every index painted over in the paper colour."""
    cards = {}
    for code, img in deck.cards.items():
        img = img.copy()
        for x1, y1, x2, y2 in deck.corners[code]:
            img[int(y1):int(y2) + 1, int(x1):int(x2) + 1, :3] = 250
        cards[code] = img
    return type(deck)(**{**vars(deck), "cards": cards})


@pytest.mark.parametrize("photographic", [False, True])
def test_every_label_box_holds_its_index_ink(fake_decks, assets, photographic):
    # Render each scene twice from the same seed, once with the indices blanked out: inside
    # every label box the two images must differ, so the box covers rendered index ink.
    blank = make_assets([_blank_corners(d) for d in fake_decks], seed=3, n_surfaces=5)
    checked = 0
    for seed in SEEDS:
        scene = render_scene(np.random.default_rng([seed]), assets, 320, photographic)
        without = render_scene(np.random.default_rng([seed]), blank, 320, photographic)
        for label in scene.labels:
            x1, y1, x2, y2 = (int(round(v)) for v in label.box)
            a = scene.image[y1:y2, x1:x2].astype(int)
            b = without.image[y1:y2, x1:x2].astype(int)
            differs = (np.abs(a - b).max(axis=2) > 20).mean()
            assert differs > 0.03, f"seed {seed}: no index ink in the box of {label.code} {label.box}"
            checked += 1
    assert checked > 100


def _two_cards(top_x: float, top_y: float) -> Layout:
    """4H lying flat, and 9S on top of it at (top_x, top_y)."""
    return Layout("test", [Item("card", 0.0, 0.0, 0.0, "4H"), Item("card", top_x, top_y, 0.0, "9S")], aspect=1.4)


def _compose(assets, layout: Layout, card_px: float = 150.0):
    camera = look_at((0.0, 0.0), card_px, tilt=0.0, azimuth=0.0, roll=0.0, size=640)
    return compose(np.random.default_rng(0), layout, camera, assets.decks[0], assets, {"name": "plain"},
                   photographic=False)


def test_a_covered_corner_gets_no_label(assets):
    # 9S covers the top-left quarter of 4H, index included; 4H's bottom-right index is clear.
    scene = _compose(assets, _two_cards(-0.75, -0.95))
    four, nine = scene.record["cards"]
    assert [c["labelled"] for c in four["corners"]] == [False, True]
    assert four["corners"][0]["seen"] == 0.0
    assert all(c["labelled"] for c in nine["corners"])
    assert sorted(label.code for label in scene.labels) == ["4H", "9S", "9S"]


def test_a_half_covered_corner_gets_no_label(assets):
    # 9S's right edge runs through the middle of 4H's top-left index.
    deck = assets.decks[0]
    x1, _, x2, _ = deck.corners["4H"][0] / deck.width - [0.5, 0, 0.5, 0]
    scene = _compose(assets, _two_cards((x1 + x2) / 2 - 0.5, -0.6))
    corner = scene.record["cards"][0]["corners"][0]
    assert 0.2 < corner["seen"] < READABLE
    assert not corner["labelled"]


def _wide_boxes(deck):
    """The same deck with each top-left index box reaching half its width further right."""
    corners = {}
    for code, boxes in deck.corners.items():
        (x1, y1, x2, y2), *rest = boxes
        corners[code] = [(x1, y1, x2 + 0.5 * (x2 - x1), y2), *rest]
    return type(deck)(**{**vars(deck), "corners": corners})


def test_an_index_whose_blank_margin_is_covered_is_still_labelled(fake_decks):
    # 9S's left edge covers the paper in the right part of 4H's top-left index box and none
    # of its print: rank and suit are in full view, as in a fan, so the index is labelled.
    assets = make_assets([_wide_boxes(d) for d in fake_decks], seed=3, n_surfaces=5)
    deck = assets.decks[0]
    x1, _, x2, _ = deck.corners["4H"][0] / deck.width
    ink_right = deck.index_ink["4H"][0][:, 0].max() / deck.width
    scene = _compose(assets, _two_cards(ink_right + 0.02 + 0.5, -0.6), card_px=300.0)
    corner = scene.record["cards"][0]["corners"][0]
    assert x2 - ink_right > 0.04, "the box reaches well past the print"
    assert corner["labelled"] and corner["seen"] > 0.95


def test_a_finger_hides_the_corner_it_lies_on(assets):
    deck = assets.decks[0]
    x1, y1, x2, y2 = deck.corners["4H"][0] / deck.width - [0.5, 0.7, 0.5, 0.7]
    finger = Item("finger", (x1 + x2) / 2 - 0.4, (y1 + y2) / 2, 0.0, size=1.3)
    scene = _compose(assets, Layout("test", [Item("card", 0, 0, 0, "4H"), finger], aspect=1.4))
    assert [c["labelled"] for c in scene.record["cards"][0]["corners"]] == [False, True]


def test_cards_cut_by_the_frame_keep_only_the_indices_in_view(assets):
    # A close-up: the card is twice the frame's width, so at most one index can be in view.
    camera = look_at((0.45, 0.6), 1280.0, tilt=0.0, azimuth=0.0, roll=0.0, size=640)
    layout = Layout("test", [Item("card", 0, 0, 0, "4H")], aspect=1.4)
    scene = compose(np.random.default_rng(0), layout, camera, assets.decks[0], assets, {"name": "plain"}, False)
    assert [c["labelled"] for c in scene.record["cards"][0]["corners"]] == [False, True]
    (label,) = scene.labels
    assert all(0 <= v <= 640 for v in label.box)


def test_the_record_accounts_for_every_labelled_class_and_every_hidden_card(assets):
    hidden_cards = 0
    for seed in SEEDS:
        scene = render_scene(np.random.default_rng([seed, 1]), assets, 320)
        cards = scene.record["cards"]
        faces = [c for c in cards if c["face_up"]]
        labelled = {label.code for label in scene.labels}
        hidden = {c["code"] for c in faces if not any(corner["labelled"] for corner in c["corners"])}
        assert {c["code"] for c in faces} == labelled | hidden
        assert not labelled & hidden
        for card in faces:
            assert card["readable"] == (card["code"] in labelled)
            assert all(c["seen"] >= READABLE for c in card["corners"] if c["labelled"])
            assert card["polygon"] is None or len(card["polygon"]) == 4
        assert len(scene.labels) == sum(c["labelled"] for card in faces for c in card["corners"])
        assert len({c["code"] for c in faces}) == len(faces), "a deck holds each card once"
        assert all(c["code"] is None for c in cards if not c["face_up"])
        if scene.record["starter"]:
            assert scene.record["starter"] in {c["code"] for c in faces}
        hidden_cards += len(hidden)
    assert hidden_cards > 0, "no scene hid a card: the check above was not exercised"


def test_scenes_are_a_function_of_the_seed(assets):
    a = render_scene(np.random.default_rng([5, 5]), assets, 320)
    b = render_scene(np.random.default_rng([5, 5]), assets, 320)
    assert np.array_equal(a.image, b.image) and a.record == b.record


def test_photo_effects_all_occur():
    rng = np.random.default_rng(0)
    canvas = np.full((64, 64, 3), 200, np.uint8)
    mask = np.ones((64, 64), np.float32)
    noise = rng.standard_normal((96, 96, 3), dtype=np.float32)
    seen = set()
    for _ in range(400):
        image, effects = augment.photograph(rng, canvas.copy(), mask, noise)
        assert image.shape == canvas.shape and image.dtype == np.uint8
        seen.update(effects)
    assert seen >= {"uneven_light", "shadow", "glare", "colour_cast", "dim_colour", "defocus", "motion_blur",
                    "low_resolution", "noise", "salt_and_pepper", "grayscale"}


@pytest.mark.parametrize("name", ["ivory", "dark_gold", "dark_light_ink", "faded"])
def test_deck_looks_keep_the_print_readable(fake_decks, name):
    # Whatever the look, the index must stand out from the card face around it.
    rng = np.random.default_rng(1)
    look = augment.sample_look(rng)
    while look["name"] != name:
        look = augment.sample_look(rng)
    deck = fake_decks[0]
    for code in ("AH", "KS"):
        card = augment.restyle(deck.cards[code], look)
        x1, y1, x2, y2 = (int(v) for v in deck.corners[code][0])
        index = card[y1:y2, x1:x2, :3].astype(int).sum(axis=2)
        assert index.max() - index.min() > 90, f"{name}: {code} index faded into the face"
        assert np.array_equal(card[..., 3], deck.cards[code][..., 3])
