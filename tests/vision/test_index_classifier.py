"""The index classifier at run time, and a taught deck's heads read on its features."""

from pathlib import Path

import cv2
import numpy as np
import pytest

from cribcam.scoring.cards import CARD_CODES
from cribcam.vision.classifier import (
    KEEP_NONE,
    TILTED_BELOW,
    TILTED_UNLESS_NONE,
    TILTS,
    DeckClassifier,
    IndexClassifier,
    cards_from_heads,
    heads_from_cards,
    softmax,
)
from cribcam.vision.crops import tilted
from cribcam.vision.decks import DeckError
from cribcam.vision.models import model_files
from cribcam.vision.rank_reader import RANK_TEXTS


@pytest.fixture(scope="module")
def photo_and_boxes(shipped_models, real_photos):
    """A real photo and the bundled reader's index boxes in it."""
    from cribcam.vision import CardReader

    image = cv2.imread(str(real_photos / "images" / "CardCounterML__IMG_7835_JPG.jpg"))
    boxes = CardReader(shipped_models).find(image).xyxy
    assert len(boxes) >= 4
    return image, boxes


def test_a_photo_read_box_by_box_is_read_as_crops(shipped_models, photo_and_boxes):
    image, boxes = photo_and_boxes
    classifier = IndexClassifier(model_files(shipped_models)[1])
    crops = classifier.crops(image, boxes)
    assert crops.shape == (len(boxes), classifier.size, classifier.size, 3)
    probabilities = classifier(image, boxes)
    assert probabilities.shape == (len(boxes), 53)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, atol=1e-4)
    plain = classifier.read_crops(crops)
    sure = (plain[:, :52].max(axis=1) >= TILTED_BELOW) | (plain[:, 52] >= TILTED_UNLESS_NONE)
    np.testing.assert_allclose(probabilities[sure], plain[sure], atol=1e-6)
    assert classifier(image, np.zeros((0, 4), np.float32)).shape == (0, 53)


def test_the_crops_it_is_unsure_of_are_read_again_tilted(shipped_models, photo_and_boxes):
    image, boxes = photo_and_boxes
    classifier = IndexClassifier(model_files(shipped_models)[1])
    crops = classifier.crops(image, boxes)
    plain = classifier.read_crops(crops)
    unsure = (plain[:, :52].max(axis=1) < TILTED_BELOW) & (plain[:, 52] < TILTED_UNLESS_NONE)
    assert unsure.any() and not unsure.all()  # pips and court art, beside the indices
    assert (plain[:, 52] >= TILTED_UNLESS_NONE).any()  # ... some of them sure to be none, not read again
    looks = [classifier.read_crops(tilted(crops[unsure], angle)) for angle in TILTS]
    np.testing.assert_allclose(classifier(image, boxes)[unsure], (plain[unsure] + sum(looks)) / (1 + len(TILTS)),
                               atol=1e-6)


def _heads(path, classifier, rank_bias=None, **texts) -> Path:
    """A heads file: no correction but ``rank_bias`` added to the rank logits (and ``texts=``
    the deck's rank texts, when given), as wide as the classifier's features."""
    width = classifier.read_with_features(np.zeros((1, classifier.size, classifier.size, 3), np.uint8))[1].shape[-1]
    np.savez(path, mean=np.zeros(width), scale=np.ones(width), rank_weights=np.zeros((width, 14)),
             rank_bias=np.zeros(14) if rank_bias is None else rank_bias, suit_weights=np.zeros((width, 4)),
             suit_bias=np.zeros(4), classifier=classifier.fingerprint(), **texts)
    return path


def test_the_bundled_model_answers_the_features_its_heads_read(shipped_models, photo_and_boxes):
    image, boxes = photo_and_boxes
    classifier = IndexClassifier(model_files(shipped_models)[1])
    cards, features = classifier.read_with_features(classifier.crops(image, boxes))
    assert classifier.has_features and cards.shape == (2, len(boxes), 53) and features.shape[:2] == (2, len(boxes))
    np.testing.assert_allclose(cards.mean(axis=0), classifier.read_crops(classifier.crops(image, boxes)), atol=1e-6)


def test_heads_that_correct_nothing_read_as_the_bundled_model(shipped_models, photo_and_boxes, tmp_path):
    image, boxes = photo_and_boxes
    bundled = IndexClassifier(model_files(shipped_models)[1])
    deck = DeckClassifier(_heads(tmp_path / "heads.npz", bundled), bundled)
    crops = bundled.crops(image, boxes)
    # ... the unsure crops read tilted too, as the bundled model reads them (this photo has some).
    assert not np.allclose(bundled(image, boxes), bundled.read_crops(crops), atol=1e-5)
    np.testing.assert_allclose(deck(image, boxes), bundled(image, boxes), atol=1e-5)
    assert deck(image, np.zeros((0, 4), np.float32)).shape == (0, 53)  # a photo with no index found
    # A correction towards the kings makes kings of every box, but of those the bundled model
    # is sure hold no index: it keeps its answer there.
    bias = np.zeros(14)
    bias[12] = 30.0
    kings = DeckClassifier(_heads(tmp_path / "kings.npz", bundled, bias), bundled).read_crops(crops)
    kept = bundled.read_crops(crops)[:, 52] > KEEP_NONE
    assert kept.any() and not kept.all()
    np.testing.assert_allclose(kings[kept], bundled.read_crops(crops)[kept], atol=1e-6)
    assert all(CARD_CODES[int(row[:52].argmax())][0] == "K" and row[52] < 0.01 for row in kings[~kept])


def test_a_deck_reads_its_rank_texts_from_its_heads_file(shipped_models, tmp_path):
    bundled = IndexClassifier(model_files(shipped_models)[1])
    dutch = ("1", *RANK_TEXTS[1:10], "B", "V", "H")
    assert DeckClassifier(_heads(tmp_path / "dutch.npz", bundled, texts=np.array(dutch)), bundled).texts == dutch
    # A deck taught before decks learnt their texts, and the bundled model, read the standard ones.
    assert DeckClassifier(_heads(tmp_path / "older.npz", bundled), bundled).texts == RANK_TEXTS == bundled.texts


def test_heads_of_another_classifier_or_no_heads_file_are_refused(shipped_models, tmp_path):
    bundled = IndexClassifier(model_files(shipped_models)[1])
    heads = _heads(tmp_path / "heads.npz", bundled)
    with np.load(heads) as saved:
        np.savez(tmp_path / "other.npz", **{**saved, "classifier": "0" * 64})
    with pytest.raises(DeckError, match="taught on another card classifier"):
        DeckClassifier(tmp_path / "other.npz", bundled)
    (tmp_path / "broken.npz").write_bytes(b"not a heads file")
    with pytest.raises(ValueError, match="not a taught deck's heads file"):
        DeckClassifier(tmp_path / "broken.npz", bundled)


def test_heads_from_cards_undo_cards_from_heads():
    rng = np.random.default_rng(0)
    rank, suit = softmax(rng.normal(size=(5, 14))), softmax(rng.normal(size=(5, 4)))
    log_rank, log_suit = heads_from_cards(cards_from_heads(rank, suit))
    np.testing.assert_allclose(np.exp(log_rank), rank, atol=1e-6)
    np.testing.assert_allclose(np.exp(log_suit), suit, atol=1e-6)
