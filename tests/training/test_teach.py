"""Teaching a deck: finding and naming the cards of layout photos, and the taught model itself.

The layout photos are rendered with the synthetic-scene code from a design held out of
training (``render_layout``), so the labels are exact and the design is one the bundled
classifier never saw.
"""

from types import SimpleNamespace

import numpy as np
import pytest

from cribcam.scoring.cards import CARD_CODES, RANKS
from cribcam.vision.decks import DATA_ENV, DeckError, list_decks
from cribcam.vision.detections import Detections

teach = pytest.importorskip("cribcam.training.teach")
pytest.importorskip("torch")

TINY = teach.Settings(minutes=0.25, batch=64, lr=1e-3)  # a lesson of seconds needs a faster rate


@pytest.fixture(scope="module")
def heldout_deck():
    from cribcam.datagen.decks import DeckArtError, load_decks

    try:
        return load_decks(split="heldout", progress=False)[0]
    except DeckArtError as exc:
        pytest.skip(f"deck art unavailable: {exc}")


@pytest.fixture(scope="module")
def layouts(heldout_deck):
    """One rendered photo of each suit laid out as the layout states, with its labels."""
    return {suit: teach.render_layout(heldout_deck, suit, seed=10 + k) for k, suit in enumerate("CDHS")}


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "data"))
    return tmp_path / "data"


def _named_by_order(image, labels, suit, drop=()):
    """A layout photo whose cards are the labelled boxes (minus ``drop``), grouped and named
    by the layout, as ``find_cards`` would with a finder that finds every index."""
    kept = [label for label in labels if label.code not in drop]
    boxes = np.array([label.box for label in kept], np.float32)
    groups = teach.group_corners(image, boxes)
    photo = teach.LayoutPhoto(f"{suit}.jpg", image,
                              teach.reading_order([teach.FoundCard(boxes[g].tolist()) for g in groups]))
    teach.name_in_order(photo, suit)
    truth = {tuple(np.float32(label.box)): label.code for label in kept}
    return photo, [truth[tuple(np.float32(card.boxes[0]))] for card in photo.cards]


def test_the_layout_names_every_card_ace_to_king_with_no_typing(layouts):
    for suit, (image, labels) in layouts.items():
        photo, truth = _named_by_order(image, labels, suit)
        assert photo.problems == []
        assert [card.name for card in photo.cards] == [f"{rank}{suit}" for rank in RANKS] == truth
        assert all(len(card.boxes) == 2 for card in photo.cards)


def test_a_four_corner_deck_groups_four_boxes_per_card():
    from cribcam.datagen.decks import DeckArtError, load_decks

    try:
        deck = next(d for d in load_decks(split="train", progress=False) if len(d.corners["AC"]) == 4)
    except (DeckArtError, StopIteration):
        pytest.skip("no four-corner deck in the deck cache")
    image, labels = teach.render_layout(deck, "H", seed=3)
    photo, truth = _named_by_order(image, labels, "H")
    assert [card.name for card in photo.cards] == truth == [f"{rank}H" for rank in RANKS]


def test_a_card_missing_from_its_row_is_named(layouts):
    image, labels = layouts["C"]
    photo, truth = _named_by_order(image, labels, "C", drop={"8C"})
    assert photo.problems == ["C.jpg: 8C of the clubs not found: it is not taught from this photo"]
    assert [card.name for card in photo.cards] == truth
    assert "8C" in teach.missing_cards([photo])


def test_when_the_cards_cannot_be_placed_nothing_is_named(layouts):
    image, labels = layouts["D"]
    photo, _ = _named_by_order(image, labels, "D", drop={"KD"})  # the last card: no gap shows it
    assert all(card.name is None for card in photo.cards)
    assert photo.problems == ["D.jpg: 12 of the 13 diamonds found and it cannot tell which is missing: show "
                              "both corners of every card and photograph them again, or name the cards on "
                              "the teach page"]


def test_labelled_cards_the_finder_does_not_see_are_named(layouts):
    image, labels = layouts["H"]
    unseen = {"7H", "QH"}
    found = np.array([label.box for label in labels if label.code not in unseen], np.float32)
    reader = SimpleNamespace(find=lambda image: Detections(found, np.ones((len(found), 1))))
    photo = teach.LayoutPhoto("hearts.jpg", image)
    teach.name_by_labels(photo, {"cards": [{"card": l.code, "box": list(l.box)} for l in labels]}, reader)
    assert photo.problems == ["hearts.jpg: the finder does not see the index of 7H and QH: taught all the same, "
                              "but photograph them more clearly to read them"]
    assert sorted(card.name for card in photo.cards) == sorted(f"{rank}H" for rank in RANKS)


def test_cards_the_reader_cannot_propose_a_name_for_are_said_by_place():
    image = np.zeros((300, 300, 3), np.uint8)
    cards = [teach.FoundCard([[10, 10, 30, 40]], proposal=None),
             teach.FoundCard([[200, 250, 220, 280]], proposal="5H", confidence=0.9)]
    photo = teach.LayoutPhoto("any.jpg", image, cards)
    teach.name_by_proposals(photo)
    assert [card.name for card in photo.cards] == [None, "5H"]
    assert photo.problems == ["any.jpg: the card at the top left could not be read: name it on the teach page "
                              "or in --labels"]


def test_names_must_be_cards_and_once_a_photo():
    image = np.zeros((10, 10, 3), np.uint8)
    twice = teach.LayoutPhoto("p.jpg", image, [teach.FoundCard([[0, 0, 1, 1]], "5H"),
                                               teach.FoundCard([[5, 5, 6, 6]], "5H")])
    with pytest.raises(ValueError, match="p.jpg: 5H named twice in one photo"):
        teach.check_names([twice])
    with pytest.raises(ValueError, match="'ZZ' is not a card"):
        teach.check_names([teach.LayoutPhoto("p.jpg", image, [teach.FoundCard([[0, 0, 1, 1]], "ZZ")])])


def test_suits_of_the_photos_are_checked():
    assert teach.suit_names(None, 2) == "CD"
    assert teach.suit_names("hs", 2) == "HS"
    for suits, photos, message in [("CC", 2, "once"), ("CX", 2, "once"), ("C", 2, "one suit per photo"),
                                   (None, 5, "four at most")]:
        with pytest.raises(ValueError, match=message):
            teach.suit_names(suits, photos)


def test_the_rehearsal_set_is_small_and_holds_every_kind_of_crop():
    assert teach.REHEARSAL.stat().st_size < 3e6
    bank = teach.load_rehearsal()
    groups = bank.groups()
    assert len(bank) >= 2000 and min(len(groups[k]) for k in ("synthetic", "art", "negative", "real")) >= 500
    assert set(bank.rank[groups["synthetic"]]) == set(range(len(RANKS)))


def test_a_lesson_mixes_the_players_crops_apart_from_the_rehearsals_real_ones(layouts, tmp_path):
    import cv2

    image, labels = layouts["H"]
    cv2.imwrite(str(tmp_path / "hearts.jpg"), image)
    entry = {"hearts.jpg": {"cards": [{"card": label.code, "box": list(label.box)} for label in labels]}}
    bank, groups, held, _ = teach._lesson(tmp_path, entry, teach.REHEARSAL, teach.Settings())
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
            photo = teach.LayoutPhoto(f"{suit}.jpg", image)
            teach.name_by_labels(photo, {"cards": [{"card": l.code, "box": list(l.box)} for l in labels]}, reader)
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
    unseen = [teach.render_layout(heldout_deck, suit, seed=50 + k) for k, suit in enumerate("CDHS")]
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
        teach.teach([teach.LayoutPhoto("p.jpg", image)], "../escape", reader_models, TINY)
    with pytest.raises(ValueError, match="no card is named"):
        teach.teach([teach.LayoutPhoto("p.jpg", image, [teach.FoundCard([[0, 0, 9, 9]])])], "empty",
                    reader_models, TINY)
    assert not (data / "decks").exists() or not any((data / "decks").iterdir())


def _index_under(box, labels) -> str | None:
    """The card whose labelled index the box covers most, or None if it covers none."""
    def overlap(label) -> float:
        (x1, y1, x2, y2), (u1, v1, u2, v2) = box, label.box
        return max(0.0, min(x2, u2) - max(x1, u1)) * max(0.0, min(y2, v2) - max(y1, v1))

    best = max(labels, key=overlap)
    return best.code if overlap(best) > 0 else None


def test_the_bundled_finder_names_layouts_with_no_wrong_name(shipped_models, layouts):
    """Names come from the finder's boxes and the layout alone: a photo whose cards cannot be
    placed names none (and says so), so every name given is right: each box of a named card
    lies on the printed index of that card more than on any other."""
    from cribcam.vision import CardReader

    reader = CardReader(shipped_models)
    named = 0
    for suit, (image, labels) in layouts.items():
        photo = teach.LayoutPhoto(f"{suit}.jpg", image, teach.find_cards(reader, image))
        teach.name_in_order(photo, suit)
        for card in (card for card in photo.cards if card.name):
            named += 1
            for box in card.boxes:
                assert _index_under(box, labels) == card.name, (suit, card, box)
        assert photo.problems or len(photo.cards) == 13
    assert named >= 26  # two photos of four at least (the finder misses some court cards' corners)
