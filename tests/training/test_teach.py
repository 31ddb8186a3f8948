"""Teaching a deck: the taught model, where it is kept, and what teaching refuses.

It is taught from layout photos of a design held out of training (fixtures in
``conftest.py``), which the bundled classifier never saw.
"""

from types import SimpleNamespace

import numpy as np
import pytest

from cribcam.scoring.cards import CARD_CODES
from cribcam.training import layout, rehearsal
from cribcam.vision.decks import DATA_ENV, DeckError, list_decks

teach = pytest.importorskip("cribcam.training.teach")
pytest.importorskip("torch")

TINY = teach.Settings(minutes=0.25, batch=64, lr=1e-3)  # a lesson of seconds needs a faster rate


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "data"))
    return tmp_path / "data"


def test_a_lesson_mixes_the_players_crops_apart_from_the_rehearsals_real_ones(layouts, tmp_path):
    import cv2

    image, labels = layouts["H"]
    cv2.imwrite(str(tmp_path / "hearts.jpg"), image)
    entry = {"hearts.jpg": {"cards": [{"card": label.code, "box": list(label.box)} for label in labels]}}
    bank, groups, held, _ = teach._lesson(tmp_path, entry, rehearsal.REHEARSAL, teach.Settings())
    player, rehearsed = groups["player"], groups["real"]
    assert len(player) == len(labels) - len(held["hearts.jpg"]["cards"])  # every corner but those held back
    assert bank.real[player].all() and len(rehearsed) >= 500 and not set(player) & set(rehearsed)


def _crop_accuracy(classifier_path, photos) -> float:
    """Share of labelled index boxes whose likeliest card is the labelled one."""
    from cribcam.vision.classifier import IndexClassifier

    classifier = IndexClassifier(classifier_path)
    right = total = 0
    for image, labels in photos:
        probabilities = classifier(image, np.array([label.box for label in labels], np.float32))
        right += sum(CARD_CODES[int(p[:52].argmax())] == label.code for p, label in zip(probabilities, labels))
        total += len(labels)
    return right / total


@pytest.fixture(scope="module")
def taught(reader_models, layouts, tmp_path_factory):
    """A deck taught from the four layout photos (tiny settings), its data folder and the
    progress reported on the way."""
    from cribcam.vision import CardReader

    data = tmp_path_factory.mktemp("data")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(DATA_ENV, str(data))
        reader = CardReader(reader_models)
        photos = []
        for suit, (image, labels) in layouts.items():
            photo = layout.LayoutPhoto(f"{suit}.jpg", image)
            layout.name_by_labels(photo, {"cards": [{"card": l.code, "box": list(l.box)} for l in labels]}, reader)
            photos.append(photo)
        stages = []
        deck = teach.teach(photos, "heldout-design", reader_models, TINY,
                           progress=lambda stage, done, total: stages.append((stage, done, total)))
        yield SimpleNamespace(deck=deck, data=data, stages=stages, photos=photos, listed=list_decks())


def test_a_taught_deck_is_kept_in_the_data_folder_and_listed(taught, reader_models):
    from cribcam.vision import CardReader

    deck = taught.deck
    assert [d.name for d in taught.listed] == ["heldout-design"]
    assert deck.folder == taught.data / "decks" / "heldout-design"
    assert sorted(p.name for p in deck.folder.iterdir()) == ["classifier.onnx", "deck.json", "labels.json", "photos"]
    assert deck.record["missing"] == [] and len(deck.record["cards"]) == 52
    training = [s for s in taught.stages if s[0] == "training"]
    assert training and training[-1][1] == training[-1][2] == TINY.minutes * 60
    assert taught.stages[-1][0] == "done"
    checks = deck.record["checks"]
    assert checks["deck"]["crops"] > 0 and checks["training_designs"]["crops"] > 100
    image = taught.photos[0].image
    assert CardReader(reader_models, classifier=deck.classifier).read(image).width == image.shape[1]


def test_a_taught_deck_reads_its_design_better_than_the_bundled_model(taught, shipped_models, heldout_deck):
    unseen = [layout.render_layout(heldout_deck, suit, seed=50 + k) for k, suit in enumerate("CDHS")]
    before = _crop_accuracy(shipped_models / "classifier.onnx", unseen)
    after = _crop_accuracy(taught.deck.classifier, unseen)
    # The bundled classifier already reads this design's clean layout crops well (0.94 with
    # run 3's models): teaching must take away at least half of what it misreads.
    assert after > before and 1 - after <= (1 - before) / 2, (before, after)


def test_a_deck_name_is_taught_once(taught, reader_models, monkeypatch):
    monkeypatch.setenv(DATA_ENV, str(taught.data))
    with pytest.raises(DeckError, match="exists already"):
        teach.teach(taught.photos, "heldout-design", reader_models, TINY)


def test_teaching_refuses_a_bad_name_and_photos_with_no_names(reader_models, data):
    image = np.zeros((50, 50, 3), np.uint8)
    with pytest.raises(DeckError, match="cannot name a deck"):
        teach.teach([layout.LayoutPhoto("p.jpg", image)], "../escape", reader_models, TINY)
    with pytest.raises(ValueError, match="no card is named"):
        teach.teach([layout.LayoutPhoto("p.jpg", image, [layout.FoundCard([[0, 0, 9, 9]])])], "empty",
                    reader_models, TINY)
    assert not (data / "decks").exists() or not any((data / "decks").iterdir())
