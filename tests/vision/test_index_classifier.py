"""The index classifier at run time, and a taught deck's classifier read beside the bundled one."""

from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from cribcam.vision.classifier import DeckClassifier, IndexClassifier
from cribcam.vision.models import model_files


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
    np.testing.assert_allclose(classifier.read_crops(crops), probabilities, atol=1e-6)
    assert classifier(image, np.zeros((0, 4), np.float32)).shape == (0, 53)


def test_each_box_takes_the_surer_of_the_two_classifiers(shipped_models, tiny_models, photo_and_boxes):
    image, boxes = photo_and_boxes
    bundled = IndexClassifier(model_files(shipped_models)[1])
    other = IndexClassifier(model_files(tiny_models)[1])  # a different model, so the two disagree
    mine, theirs = other(image, boxes), bundled(image, boxes)
    combined = DeckClassifier(other, bundled)(image, boxes)
    for row, a, b in zip(combined, mine, theirs):
        np.testing.assert_array_equal(row, a if a[:52].max() > b[:52].max() else b)
    assert not np.array_equal(mine, theirs)


def test_a_taught_classifier_of_another_crop_size_is_refused(shipped_models):
    bundled = IndexClassifier(model_files(shipped_models)[1])
    with pytest.raises(ValueError, match="teach the deck again"):
        DeckClassifier(SimpleNamespace(size=bundled.size + 16, path=None), bundled)
