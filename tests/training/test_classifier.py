"""The classifier's training: the recipe's crops of card art, the network, its export to what the runtime reads.

The crop bank and its augmentation, which teaching shares, are tested in tests/teach/test_crop_bank.py.
"""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from cribcam.scoring.cards import CARD_CODES  # noqa: E402 (after the importorskip above: without it the module is skipped, not failed)
from cribcam.teach.crop_bank import NO_INDEX, PATCH, CropBank  # noqa: E402 (after the importorskip above: without it the module is skipped, not failed)
from cribcam.training.classifier import (  # noqa: E402 (after the importorskip above: without it the module is skipped, not failed)
    bank_from_decks,
    bank_from_jokers,
    build_model,
    card_probabilities,
    export_classifier,
    train_classifier,
)
from cribcam.training.crop_draw import CropDraw  # noqa: E402 (after the importorskip above: without it the module is skipped, not failed)
from cribcam.vision.classifier import IndexClassifier  # noqa: E402 (after the importorskip above: without it the module is skipped, not failed)
from cribcam.vision.crops import CROP_SIZE  # noqa: E402 (after the importorskip above: without it the module is skipped, not failed)


def _bank(n=12) -> CropBank:
    rng = np.random.default_rng(0)
    patches = rng.integers(0, 255, (n, PATCH, PATCH, 3), dtype=np.uint8)
    rank = np.array([i % 14 for i in range(n)])
    return CropBank(patches, rank, np.array([i % 4 for i in range(n)]), np.arange(n) % 3 == 0)


def test_art_patches_centre_the_index_of_the_named_card(monkeypatch):
    from types import SimpleNamespace

    import cribcam.datagen.augment

    monkeypatch.setattr(cribcam.datagen.augment, "sample_look", lambda rng: {"name": "plain"})  # black print
    face = np.zeros((120, 80, 4), np.uint8)
    face[..., :3], face[..., 3] = 255, 255
    face[10:30, 8:20, :3] = 0  # the "index": a black block in the top-left corner
    deck = SimpleNamespace(cards={code: face for code in CARD_CODES},
                           corners={code: [(8, 10, 20, 30)] for code in CARD_CODES})
    backgrounds = [np.full((200, 200, 3), 128, np.uint8)]
    bank = bank_from_decks([deck], 20, seed=0, backgrounds=backgrounds)
    assert bank.art.all() and not bank.real.any() and len(bank.groups()["art"]) == 20
    assert ((bank.rank >= 0) & (bank.rank < NO_INDEX)).all() and ((bank.suit >= 0) & (bank.suit < 4)).all()
    middle = bank.patches[:, PATCH // 2 - 3:PATCH // 2 + 3, PATCH // 2 - 3:PATCH // 2 + 3]
    assert (middle < 60).all()  # the index, whatever the angle, sits in the middle of its patch


def _lettered_face(print_value: int, face_value: int) -> np.ndarray:
    face = np.zeros((120, 80, 4), np.uint8)
    face[..., :3], face[..., 3] = face_value, 255
    face[10:30, 8:20, :3] = print_value  # the "index" in the top-left corner
    face[90:110, 60:72, :3] = print_value  # and turned in the bottom-right
    return face


@pytest.mark.parametrize("dark", [False, True])
def test_print_beside_an_index_lies_on_the_card_side_in_ink(dark):
    from cribcam.training.classifier import _beside

    ink, paper = (230, 20) if dark else (0, 255)
    face, other = _lettered_face(ink, paper), _lettered_face(ink, paper)
    for seed in range(20):
        rng = np.random.default_rng(seed)
        top = _beside(rng, face, (8, 10, 20, 30), other, (8, 10, 20, 30), dark)
        added = (top[..., :3] != face[..., :3]).any(axis=2)
        assert added.any() and not added[:, :20].any()  # right of the top-left index, toward the middle
        assert (top[added][:, :3] == ink).all()  # ink laid on the face, not the other face's paper
        bottom = _beside(rng, face, (60, 90, 72, 110), other, (8, 10, 20, 30), dark)
        added = (bottom[..., :3] != face[..., :3]).any(axis=2)
        assert added.any() and not added[:, 60:].any()  # left of the bottom-right index
    assert (face == _lettered_face(ink, paper)).all()  # the deck's own art is left as it was


def test_a_share_of_art_patches_get_print_beside_the_index(monkeypatch):
    from types import SimpleNamespace

    import cribcam.datagen.augment

    monkeypatch.setattr(cribcam.datagen.augment, "sample_look", lambda rng: {"name": "plain"})
    face = _lettered_face(0, 255)
    deck = SimpleNamespace(cards={code: face for code in CARD_CODES},
                           corners={code: [(8, 10, 20, 30)] for code in CARD_CODES}, dark=False)
    backgrounds = [np.full((200, 200, 3), 128, np.uint8)]

    def dark_pixels(share: float) -> np.ndarray:
        bank = bank_from_decks([deck], 40, seed=0, backgrounds=backgrounds, neighbour_share=share)
        return (bank.patches.max(axis=3) < 60).reshape(40, -1).sum(axis=1)

    alone, beside = dark_pixels(0.0), dark_pixels(1.0)
    # a patch's index is sized on its turned box, so print's area varies with the angle
    assert np.median(beside) > 1.5 * np.median(alone)


def test_joker_corners_are_negatives_cut_around_the_corner():
    face = np.full((120, 80, 4), 255, np.uint8)
    face[10:50, 8:16, :3] = 0  # the letters of JOKER stacked: a tall, narrow block
    backgrounds = [np.full((200, 200, 3), 128, np.uint8)]
    bank = bank_from_jokers([(face, [(8, 10, 16, 50)])], 10, seed=0, backgrounds=backgrounds)
    assert len(bank) == 10 and (bank.rank == NO_INDEX).all() and bank.art.all() and not bank.real.any()
    assert len(bank.groups()["negative"]) == 10
    assert (bank.patches.reshape(10, -1, 3).min(axis=1) < 100).all()  # the print is in every patch


def test_card_probabilities_follow_card_codes_and_sum_to_one():
    model = build_model().eval()
    with torch.no_grad():
        probabilities = card_probabilities(model, torch.rand(3, 3, CROP_SIZE, CROP_SIZE))
    assert probabilities.shape == (3, len(CARD_CODES) + 1)
    assert torch.allclose(probabilities.sum(dim=1), torch.ones(3), atol=1e-5)


def test_card_columns_are_suit_major_like_card_codes():
    class Fixed(torch.nn.Module):  # rank 5 (index 4) and suit D (index 1), sure of both
        def forward(self, x):
            rank = torch.full((len(x), NO_INDEX + 1), -30.0)
            suit = torch.full((len(x), 4), -30.0)
            rank[:, 4], suit[:, 1] = 30.0, 30.0
            return rank, suit

    probabilities = card_probabilities(Fixed(), torch.zeros(1, 3, 8, 8))
    assert CARD_CODES[int(probabilities[0, :52].argmax())] == "5D"


def test_training_resumes_and_exports_a_model_the_runtime_reads(tmp_path):
    checkpoint = tmp_path / "c.pt"
    train_classifier(_bank(), checkpoint, minutes=0.02, batch=8, lr=1e-3, seed=0, log=lambda m: None)
    state = torch.load(checkpoint, weights_only=False)["state"]
    more = state["seconds"] / 60 + 0.02  # the time spent so far (a loaded machine is slow) and more
    train_classifier(_bank(), checkpoint, minutes=more, batch=8, lr=1e-3, seed=0, log=lambda m: None)
    assert torch.load(checkpoint, weights_only=False)["state"]["steps"] > state["steps"]
    onnx = export_classifier(checkpoint, tmp_path / "classifier.onnx")
    image = np.random.default_rng(0).integers(0, 255, (200, 300, 3), dtype=np.uint8)
    out = IndexClassifier(onnx)(image, np.array([[10, 10, 40, 50], [250, 150, 320, 230]], np.float32))
    assert out.shape == (2, 53) and np.allclose(out.sum(axis=1), 1, atol=1e-4)


@pytest.mark.parametrize("share", [0.0, 1.0])
def test_a_run_reshapes_the_print_of_the_share_of_crops_it_is_given(tmp_path, monkeypatch, share):
    from cribcam.teach import crop_bank
    from cribcam.training.classifier import _Batches
    from cribcam.training.recipe import Recipe, classifier_job

    reshaped = []
    monkeypatch.setattr(crop_bank, "reshape_print", lambda rng, crop: reshaped.append(1) or crop)
    train_classifier(_bank(), tmp_path / "c.pt", minutes=0.01, batch=8, lr=1e-3, seed=0, log=lambda m: None,
                     draw=CropDraw(reshape=share))
    steps = torch.load(tmp_path / "c.pt", weights_only=False)["state"]["steps"]
    crops_a_step = sum(_Batches(_bank(), 8, np.random.default_rng(0)).counts.values())
    assert len(reshaped) == (crops_a_step * steps if share else 0)
    assert classifier_job(Recipe(work=tmp_path, real=None, reshape_share=share)).draw.reshape == share


@pytest.mark.parametrize("share", [0.0, 1.0])
def test_a_run_turns_the_share_of_real_crops_it_is_given_and_no_other(tmp_path, monkeypatch, share):
    from cribcam.training import classifier
    from cribcam.training.classifier import _Batches
    from cribcam.training.recipe import Recipe, classifier_job

    bank = _bank(30)
    bank.real[bank.rank == NO_INDEX] = False  # so the real group's draws are every real crop drawn
    turned = []
    monkeypatch.setattr(classifier, "turned_any_way", lambda rng, patches: turned.append(patches.copy()) or patches)
    batches = _Batches(bank, 30, np.random.default_rng(0), CropDraw(turn_real=share))
    batches.next()
    turned = np.concatenate(turned) if turned else np.empty((0,) + bank.patches.shape[1:], np.uint8)
    real_patches = {patch.tobytes() for patch in bank.patches[bank.real]}
    assert all(patch.tobytes() in real_patches for patch in turned)  # only the real photos' crops
    assert len(turned) == (batches.counts["real"] if share else 0) and batches.counts["real"] > 0
    assert classifier_job(Recipe(work=tmp_path, real=None, turn_real_share=share)).draw.turn_real == share


def test_the_exported_features_are_what_the_heads_read(tmp_path):
    """The "features" output through the checkpoint's own heads, in numpy, gives its "cards"."""
    from cribcam.vision.classifier import cards_from_heads, softmax

    checkpoint = train_classifier(_bank(), tmp_path / "c.pt", minutes=0.01, batch=8, lr=1e-3, seed=0,
                                  log=lambda m: None)
    classifier = IndexClassifier(export_classifier(checkpoint, tmp_path / "classifier.onnx"))
    weights = torch.load(checkpoint, weights_only=False)["model"]
    crops = np.random.default_rng(1).integers(0, 255, (5, CROP_SIZE, CROP_SIZE, 3), dtype=np.uint8)
    cards, features = classifier.read_with_features(crops)
    assert features.shape == (2, 5, 160)
    rank, suit = (softmax(features @ weights[f"{head}.weight"].numpy().T + weights[f"{head}.bias"].numpy())
                  for head in ("rank", "suit"))
    np.testing.assert_allclose(cards_from_heads(rank, suit), cards, atol=1e-5)


def test_the_weights_kept_for_a_later_run_are_half_and_read_as_the_full_ones(tmp_path):
    """What a run commits (``stages.weights_only``) is half precision, to travel to a lent GPU in
    the checkout; exported or widened, it reads as the checkpoint it came from."""
    from cribcam.training.classifier import widened, widths_for
    from cribcam.training.stages import weights_only

    checkpoint = train_classifier(_bank(), tmp_path / "c.pt", minutes=0.01, batch=8, lr=1e-3, seed=0,
                                  log=lambda m: None)
    weights_only(checkpoint, tmp_path / "kept.pt")
    kept = torch.load(tmp_path / "kept.pt", weights_only=False)["model"]
    assert {t.dtype for t in kept.values() if t.is_floating_point()} == {torch.float16}
    crops = np.random.default_rng(1).integers(0, 255, (16, CROP_SIZE, CROP_SIZE, 3), dtype=np.uint8)
    full, half = (IndexClassifier(export_classifier(c, tmp_path / f"{c.stem}.onnx")).read_with_features(crops)[0]
                  for c in (checkpoint, tmp_path / "kept.pt"))
    np.testing.assert_allclose(half, full, atol=5e-3)
    assert {t.dtype for t in widened(kept, widths_for(1.5)).values() if t.is_floating_point()} == {torch.float32}


def test_a_widened_network_reads_as_the_narrower_one_did():
    from cribcam.training.classifier import widened, widths_for, widths_of

    torch.manual_seed(0)
    narrow = build_model().eval()
    with torch.no_grad():  # running statistics of a trained network, not the fresh 0 and 1
        for layer in narrow.features:
            if isinstance(layer, torch.nn.BatchNorm2d):
                layer.running_mean.uniform_(-0.2, 0.2), layer.running_var.uniform_(0.5, 2.0)
    widths = widths_for(1.5)
    weights = widened(narrow.state_dict(), widths)
    assert widths_of(weights) == widths and widths[-1] == 240
    wide = build_model(widths).eval()
    wide.load_state_dict(weights)
    crops = torch.rand(8, 3, CROP_SIZE, CROP_SIZE)
    with torch.no_grad():
        before, after, bare = (torch.cat(net(crops), dim=1) for net in (narrow, wide, build_model(widths).eval()))
    scale = before.abs().max()
    assert (after - before).abs().max() < 0.05 * scale  # the same logits, less the copies' little noise
    assert (bare - before).abs().max() > 0.3 * scale  # where a fresh network of that width reads otherwise
    with pytest.raises(ValueError, match="narrow"):
        widened(weights, widths_for(1.0))


def test_training_from_a_narrower_network_widens_it(tmp_path):
    from cribcam.training.classifier import widths_for, widths_of

    narrow = train_classifier(_bank(), tmp_path / "narrow.pt", minutes=0.01, batch=8, lr=1e-3, seed=0,
                              log=lambda m: None)
    said = []
    wide = train_classifier(_bank(), tmp_path / "wide.pt", minutes=0.01, batch=8, lr=1e-3, seed=0,
                            start_from=narrow, widths=widths_for(1.5), log=said.append)
    assert widths_of(torch.load(wide, weights_only=False)["model"]) == widths_for(1.5)
    assert any("widened" in line for line in said)
    cards, features = IndexClassifier(export_classifier(wide, tmp_path / "wide.onnx")).read_with_features(
        np.zeros((2, CROP_SIZE, CROP_SIZE, 3), np.uint8))
    assert cards.shape == (2, 2, 53) and features.shape == (2, 2, 240)
    again = train_classifier(_bank(), tmp_path / "again.pt", minutes=0.01, batch=8, lr=1e-3, seed=0,
                             start_from=wide, log=lambda m: None)  # no widths: the start's kept
    assert widths_of(torch.load(again, weights_only=False)["model"]) == widths_for(1.5)


def test_batches_drawn_by_worker_processes_are_batches_of_the_bank_and_follow_the_seed():
    from cribcam.training.classifier import _batch_stream

    bank = _bank(40)
    first, again, other = (_batch_stream(bank, 16, seed, 0, workers=2) for seed in (3, 3, 4))
    try:
        crops, rank, suit = next(first)
        assert crops.shape == (16, CROP_SIZE, CROP_SIZE, 3) and crops.dtype == np.uint8
        assert rank.shape == suit.shape == (16,) and set(rank) <= set(bank.rank)
        np.testing.assert_array_equal(next(again)[0], crops)  # batch 0 of seed 3, whichever process drew it
        assert not np.array_equal(next(first)[0], crops)  # batch 1 is drawn afresh
        assert not np.array_equal(next(other)[0], crops)
    finally:
        for stream in (first, again, other):
            stream.close()


def test_training_with_augmenting_workers_saves_and_calls_back(tmp_path):
    saved = []
    checkpoint = train_classifier(_bank(), tmp_path / "c.pt", minutes=0.02, batch=8, lr=1e-3, seed=0,
                                  log=lambda m: None, workers=2, on_save=lambda: saved.append(1))
    assert torch.load(checkpoint, weights_only=False)["state"]["steps"] > 0 and saved


def test_scene_shards_split_a_set_between_them(tmp_path):
    import json

    import cv2

    from cribcam.training.classifier import bank_from_scenes

    for kind in ("images", "meta", "labels"):
        (tmp_path / kind / "train").mkdir(parents=True)
    for i in range(5):
        cv2.imwrite(str(tmp_path / "images" / "train" / f"{i}.jpg"), np.full((120, 160, 3), 90 + i, np.uint8))
        (tmp_path / "labels" / "train" / f"{i}.txt").write_text("0 0.5 0.5 0.1 0.2\n" * (i + 1))
        (tmp_path / "meta" / "train" / f"{i}.json").write_text(json.dumps({"image": f"{i}.jpg", "cards": []}))
    indices = [int((bank_from_scenes(tmp_path, "train", 0, negatives_per_index=0, shard=(k, 2)).rank != NO_INDEX).sum())
               for k in (0, 1)]
    assert indices == [1 + 3 + 5, 2 + 4]  # scenes 0, 2, 4 and 1, 3: every one once
    assert int((bank_from_scenes(tmp_path, "train", 0, negatives_per_index=0, scenes=2).rank != NO_INDEX).sum()) == 3


def test_a_run_that_turns_nothing_draws_the_crops_it_drew_before_turning_was_an_option():
    from cribcam.teach.crop_bank import augment
    from cribcam.training.classifier import _Batches

    bank = _bank(30)
    crops, ranks, _ = _Batches(bank, 30, np.random.default_rng(5)).next()
    rng = np.random.default_rng(5)  # the draw as it was: the groups' picks, then the augmentation
    batches = _Batches(bank, 30, np.random.default_rng(0))
    chosen = np.concatenate([rng.choice(batches.groups[k], n) for k, n in batches.counts.items()])
    assert np.array_equal(crops, augment(rng, bank.patches[chosen])) and np.array_equal(ranks, bank.rank[chosen])
