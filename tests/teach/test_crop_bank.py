"""The crop bank that lessons and the training recipe cut, and the crops augmented from it.

numpy and OpenCV alone: these run without torch, as teaching does.
"""

import json

import cv2
import numpy as np
import pytest

from cribcam.teach.crop_bank import (
    NO_INDEX,
    PATCH,
    RESHAPE_MOST_BEND,
    CropBank,
    augment,
    bank_from_finder_mistakes,
    reshape_print,
    turned_any_way,
)
from cribcam.vision.crops import CROP_SIZE


def _bank(n=12) -> CropBank:
    rng = np.random.default_rng(0)
    patches = rng.integers(0, 255, (n, PATCH, PATCH, 3), dtype=np.uint8)
    rank = np.array([i % 14 for i in range(n)])
    return CropBank(patches, rank, np.array([i % 4 for i in range(n)]), np.arange(n) % 3 == 0)


def test_a_bank_needs_one_label_per_patch():
    with pytest.raises(ValueError, match="one entry per patch"):
        CropBank(np.zeros((2, PATCH, PATCH, 3), np.uint8), np.zeros(3), np.zeros(2), np.zeros(2, bool))


def test_banks_merged_keep_every_patch_in_order_and_are_let_go_of():
    first, second = _bank(5), _bank(7)
    second.art[:] = True
    banks = [first, second]
    merged = CropBank.merge(banks)
    assert banks == []  # no piece held beside the whole
    assert len(merged) == 12 and merged.patches.dtype == np.uint8
    for field in ("patches", "rank", "suit", "real", "art"):
        assert np.array_equal(getattr(merged, field), np.concatenate([getattr(first, field), getattr(second, field)]))


def test_bank_groups_split_indices_real_and_synthetic_from_negatives():
    groups = _bank().groups()
    assert sorted(np.concatenate(list(groups.values())).tolist()) == list(range(12))
    bank = _bank()
    assert (bank.rank[groups["negative"]] == NO_INDEX).all()
    assert bank.real[groups["real"]].all() and not bank.real[groups["synthetic"]].any()


def test_augmented_crops_have_the_classifier_input_size():
    crops = augment(np.random.default_rng(0), _bank().patches)
    assert crops.shape == (12, CROP_SIZE, CROP_SIZE, 3) and crops.dtype == np.uint8


def _seven() -> np.ndarray:
    crop = np.full((CROP_SIZE, CROP_SIZE, 3), 235, np.uint8)
    cv2.putText(crop, "7", (14, 36), cv2.FONT_HERSHEY_SIMPLEX, 1.1, (20, 20, 20), 3)
    return crop


def _ink(crop: np.ndarray) -> np.ndarray:
    return crop.mean(axis=2) < 128


def test_reshaped_print_is_the_same_numeral_bent_and_its_strokes_changed():
    seven = _seven()
    rng = np.random.default_rng(0)
    for _ in range(20):
        reshaped = reshape_print(rng, seven)
        assert reshaped.shape == seven.shape and reshaped.dtype == np.uint8
        assert not np.array_equal(reshaped, seven)
        ink, ink_before = _ink(reshaped), _ink(seven)
        assert 0.5 < ink.sum() / ink_before.sum() < 1.8  # a pixel thinner or thicker, not gone nor a blot
        centre, centre_before = (np.argwhere(mask).mean(axis=0) for mask in (ink, ink_before))
        assert np.abs(centre - centre_before).max() <= RESHAPE_MOST_BEND + 1  # bent in place, not moved off
    blank = np.full_like(seven, 200)
    assert np.array_equal(reshape_print(rng, blank), blank)  # nothing drawn where nothing was


def test_augmented_crops_are_reshaped_only_when_asked():
    patches = _bank().patches
    plain = augment(np.random.default_rng(4), patches)
    assert np.array_equal(augment(np.random.default_rng(4), patches, reshape=0.0), plain)  # teaching's draws unchanged
    assert not np.array_equal(augment(np.random.default_rng(4), patches, reshape=1.0), plain)


def test_finder_mistakes_clear_of_every_corner_become_negatives(tmp_path):
    for kind in ("images", "meta"):
        (tmp_path / kind / "train").mkdir(parents=True)
    cv2.imwrite(str(tmp_path / "images" / "train" / "0.jpg"), np.full((200, 200, 3), 90, np.uint8))
    corner = {"quad": [[10, 10], [30, 10], [30, 40], [10, 40]]}  # an index whose ink is half hidden
    (tmp_path / "meta" / "train" / "0.json").write_text(json.dumps(
        {"image": "0.jpg", "cards": [{"corners": [corner], "polygon": None}]}))
    found = np.array([[12, 12, 32, 42],      # on the printed corner: an index, not a mistake
                      [120, 120, 145, 150]],  # far from it: a mistake
                     np.float32)
    bank = bank_from_finder_mistakes(lambda image: found, tmp_path, "train")
    assert len(bank) == 1 and (bank.rank == NO_INDEX).all() and not bank.real.any()


def test_a_real_photo_gives_negatives_only_where_its_labels_name_every_card(tmp_path):
    """Far from its labelled corners a photo's finder boxes are mistakes, unless its labels name
    cards shown only in part: those have no box, and a box found may be one of them."""
    for name in ("whole.jpg", "in-part.jpg"):
        cv2.imwrite(str(tmp_path / name), np.full((200, 200, 3), 90, np.uint8))
    labels = {"whole.jpg": {"cards": [{"card": "5C", "box": [10, 10, 30, 40]}]},
              "in-part.jpg": {"cards": [{"card": "5C", "box": [10, 10, 30, 40]}], "partly_shown": ["TD", "TH"]}}
    found = np.array([[12, 12, 32, 42], [120, 120, 145, 150]], np.float32)
    bank = bank_from_finder_mistakes(lambda image: found, None, "", tmp_path, labels)
    assert len(bank) == 1 and (bank.rank == NO_INDEX).all() and bank.real.all()


def test_a_patch_turned_any_way_keeps_its_index_whole_and_its_size():
    patch = np.full((PATCH, PATCH, 3), 235, np.uint8)
    half = PATCH // 4
    patch[PATCH // 2 - half // 2:PATCH // 2 + half // 2, PATCH // 2 - half // 4:PATCH // 2 + half // 4] = 20  # an index
    turned = turned_any_way(np.random.default_rng(1), np.stack([patch] * 8))
    assert turned.shape == (8, PATCH, PATCH, 3) and turned.dtype == np.uint8
    ink = (turned.mean(axis=3) < 128).sum(axis=(1, 2))
    assert (np.abs(ink / (patch.mean(axis=2) < 128).sum() - 1) < 0.15).all()  # nothing of it turned out of the patch
    assert len({t.tobytes() for t in turned}) == 8  # each to an angle of its own
