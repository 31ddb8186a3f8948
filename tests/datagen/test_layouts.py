"""Layouts: every kind builds, with distinct cards and its starter where it has one."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from cribcam.datagen.layouts import LAYOUTS, Deal, sample_layout

STARTER_KINDS = {"hand_starter", "crib_starter", "three_card_hand", "pack_starter"}


@pytest.mark.parametrize("kind", sorted(LAYOUTS))
def test_each_layout_deals_distinct_cards(kind):
    for seed in range(30):
        rng = np.random.default_rng(seed)
        layout = LAYOUTS[kind][1](rng, Deal(rng), 1.4)
        codes = [it.code for it in layout.items if it.kind == "card"]
        assert codes and len(set(codes)) == len(codes)
        assert all(it.code is None for it in layout.items if it.kind != "card")
        if kind in STARTER_KINDS:
            assert layout.starter in codes
            assert [it.code for it in layout.items if it.role == "starter"] == [layout.starter]
        else:
            assert layout.starter is None


def test_hand_counts():
    sizes = {"hand_starter": 5, "crib_starter": 5, "three_card_hand": 4, "six_card_hand": 6}
    for kind, n in sizes.items():
        rng = np.random.default_rng(0)
        layout = LAYOUTS[kind][1](rng, Deal(rng), 1.4)
        assert sum(it.kind == "card" for it in layout.items) == n


def test_the_four_card_hand_with_starter_is_the_most_common_layout():
    kinds = Counter(sample_layout(np.random.default_rng(seed)).kind for seed in range(600))
    assert set(kinds) == set(LAYOUTS)
    assert kinds.most_common(1)[0][0] == "hand_starter"


def test_distractors_appear():
    kinds = Counter(it.kind for seed in range(300) for it in sample_layout(np.random.default_rng(seed)).items)
    assert {"board", "chip", "coin", "phone", "finger", "palm", "thumb", "back"} <= set(kinds)
