"""Finding and naming the cards of layout photos before a deck is taught.

The layout photos are rendered with the synthetic-scene code from a design held out of
training (``render_layout``, fixtures in ``conftest.py``), so the labels are exact and the
design is one the bundled classifier never saw.
"""

from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from cribcam.datagen.layout_photos import render_layout
from cribcam.scoring.cards import RANKS
from cribcam.teach import layout_photos
from cribcam.vision.detections import Detections


def _named_by_order(image, labels, suit, drop=()):
    """A layout photo whose cards are the labelled boxes (minus ``drop``), grouped and named
    by the layout, as ``find_cards`` would with a finder that finds every index."""
    kept = [label for label in labels if label.code not in drop]
    boxes = np.array([label.box for label in kept], np.float32)
    groups = layout_photos.group_corners(image, boxes)
    photo = layout_photos.LayoutPhoto(f"{suit}.jpg", image,
                              layout_photos.reading_order([layout_photos.FoundCard(boxes[g].tolist()) for g in groups]))
    layout_photos.name_in_order(photo, suit)
    truth = {tuple(np.float32(label.box)): label.code for label in kept}
    return photo, [truth[tuple(np.float32(card.boxes[0]))] for card in photo.cards]


def test_the_layout_names_every_card_ace_to_king_with_no_typing(layouts):
    for suit, (image, labels) in layouts.items():
        photo, truth = _named_by_order(image, labels, suit)
        assert photo.problems == []
        assert [card.name for card in photo.cards] == [f"{rank}{suit}" for rank in RANKS] == truth
        assert all(len(card.boxes) == 2 for card in photo.cards)


def test_a_four_corner_deck_groups_four_boxes_per_card(deck_designs):
    decks = [d for d in deck_designs if d.split == "train"]
    four_corner = [d for d in decks if len(d.corners["AC"]) == 4]
    assert four_corner, (f"none of the {len(decks)} training decks has four corner indices on its AC "
                         f"(corners per deck: {sorted({len(d.corners['AC']) for d in decks})}): the "
                         "four-corner decks are no longer found")
    deck = four_corner[0]
    image, labels = render_layout(deck, "H", seed=3)
    photo, truth = _named_by_order(image, labels, "H")
    assert [card.name for card in photo.cards] == truth == [f"{rank}H" for rank in RANKS]


def test_a_card_missing_from_its_row_is_named(layouts):
    image, labels = layouts["C"]
    photo, truth = _named_by_order(image, labels, "C", drop={"8C"})
    assert photo.problems == ["C.jpg: 8C of the clubs not found: it is not taught from this photo"]
    assert [card.name for card in photo.cards] == truth
    assert "8C" in layout_photos.missing_cards([photo])


def test_when_the_cards_cannot_be_placed_nothing_is_named(layouts):
    image, labels = layouts["D"]
    photo, _ = _named_by_order(image, labels, "D", drop={"KD"})  # the last card: no gap shows it
    assert all(card.name is None for card in photo.cards)
    assert photo.problems == ["D.jpg: 12 of the 13 diamonds found and it cannot tell which is missing: show "
                              "both corners of every card and photograph them again, or name its cards "
                              "yourself (on the teach page, or with --labels)"]


def test_labelled_cards_the_finder_does_not_see_are_named(layouts):
    image, labels = layouts["H"]
    unseen = {"7H", "QH"}
    found = np.array([label.box for label in labels if label.code not in unseen], np.float32)
    reader = SimpleNamespace(find=lambda image, closer=False: Detections(found, np.ones((len(found), 1))))
    photo = layout_photos.LayoutPhoto("hearts.jpg", image)
    layout_photos.name_by_labels(photo, {"cards": [{"card": label.code, "box": list(label.box)} for label in labels]}, reader)
    assert photo.problems == ["hearts.jpg: the finder does not see the index of 7H and QH: taught all the same, "
                              "but photograph them more clearly to read them"]
    assert sorted(card.name for card in photo.cards) == sorted(f"{rank}H" for rank in RANKS)


def test_cards_the_reader_cannot_propose_a_name_for_are_said_by_place():
    image = np.zeros((300, 300, 3), np.uint8)
    cards = [layout_photos.FoundCard([[10, 10, 30, 40]], proposal=None),
             layout_photos.FoundCard([[200, 250, 220, 280]], proposal="5H", confidence=0.9),
             layout_photos.FoundCard([[250, 10, 270, 40]], proposal="8C", confidence=0.6)]
    photo = layout_photos.LayoutPhoto("any.jpg", image, cards)
    layout_photos.name_by_proposals(photo)
    assert [card.name for card in photo.cards] == [None, "5H", "8C"]
    assert [card.to_check for card in photo.cards] == [False, False, True]  # proposed under SURE_PROPOSAL
    assert photo.problems == ["any.jpg: the card at the top left could not be read: name it"]


def test_names_must_be_cards_and_once_a_photo():
    image = np.zeros((10, 10, 3), np.uint8)
    twice = layout_photos.LayoutPhoto("p.jpg", image, [layout_photos.FoundCard([[0, 0, 1, 1]], "5H"),
                                               layout_photos.FoundCard([[5, 5, 6, 6]], "5H")])
    with pytest.raises(ValueError, match="p.jpg: 5H named twice in one photo"):
        layout_photos.check_names([twice])
    with pytest.raises(ValueError, match="'ZZ' is not a card"):
        layout_photos.check_names([layout_photos.LayoutPhoto("p.jpg", image, [layout_photos.FoundCard([[0, 0, 1, 1]], "ZZ")])])


def test_suits_of_the_photos_are_checked():
    assert layout_photos.suit_names(None, 2) == "CD"
    assert layout_photos.suit_names("hs", 2) == "HS"
    for suits, photos, message in [("CC", 2, "once"), ("CX", 2, "once"), ("C", 2, "one suit per photo"),
                                   (None, 5, "four at most")]:
        with pytest.raises(ValueError, match=message):
            layout_photos.suit_names(suits, photos)


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
        photo = layout_photos.LayoutPhoto(f"{suit}.jpg", image, layout_photos.find_cards(reader, image))
        layout_photos.name_in_order(photo, suit)
        for card in (card for card in photo.cards if card.name):
            named += 1
            for box in card.boxes:
                assert _index_under(box, labels) == card.name, (suit, card, box)
        assert photo.problems or len(photo.cards) == 13
    assert named >= 26  # two photos of four at least (the finder misses some court cards' corners)


def _one_card_photo(layouts, code: str):
    """The layout photo cut down to the one card ``code`` (with some table around it), and
    its labels moved into the cut."""
    image, labels = layouts[code[1]]
    boxes = np.array([label.box for label in labels if label.code == code])
    size = (boxes[:, 2:] - boxes[:, :2]).max()
    x1, y1 = (boxes[:, :2].min(axis=0) - size).astype(int).clip(0)
    x2, y2 = (boxes[:, 2:].max(axis=0) + size).astype(int)
    moved = [SimpleNamespace(code=label.code, box=np.subtract(label.box, [x1, y1, x1, y1])) for label in labels]
    return np.ascontiguousarray(image[y1:y2, x1:x2]), moved


def test_a_card_named_without_a_box_takes_every_index_found_in_its_photo(shipped_models, layouts):
    from cribcam.vision import CardReader

    image, labels = _one_card_photo(layouts, "5H")
    photo = layout_photos.LayoutPhoto("five.jpg", image)
    layout_photos.name_by_labels(photo, {"cards": [{"card": "5h", "box": None}]}, CardReader(shipped_models))
    (card,) = photo.cards
    assert card.name == "5H" and len(card.boxes) >= 1 and photo.problems == []
    for box in card.boxes:
        assert _index_under(box, labels) == "5H"
    assert list(layout_photos.as_labels([photo])["five.jpg"]["cards"][0]) == ["card", "box"]


def test_a_close_up_of_a_card_named_without_a_box_is_found_from_farther_away(shipped_models):
    from cribcam.vision import CardReader

    # A corner of a bundled real photo enlarged until its index (the ace of hearts) is about
    # 210 pixels high: larger than any the finder learnt, even in its closer look.
    photo = cv2.imread(str(Path(__file__).resolve().parents[1] / "data" / "photos" / "blackgold-3-cards.jpg"))
    close_up = cv2.resize(photo[420:620, 0:170], (544, 640), interpolation=cv2.INTER_CUBIC)
    reader = CardReader(shipped_models)
    closer_only = SimpleNamespace(detect=lambda image, closer=False, farther=False: reader.detect(image, closer),
                                  conf=reader.conf)
    assert all(card.confidence < 0.5 for card in layout_photos.find_cards(closer_only, close_up))  # specks, read as nothing
    taught = layout_photos.LayoutPhoto("ace.jpg", close_up)
    layout_photos.name_by_labels(taught, {"cards": [{"card": "AH", "box": None}]}, reader)
    (card,) = taught.cards
    assert card.name == "AH" and card.proposal == "AH" and len(card.boxes) == 1
    x1, y1, x2, y2 = card.boxes[0]
    assert x1 < 28.7 * 3.2 + 40 and y1 < 44.8 * 3.2 + 40 and x2 > 96.9 * 3.2 - 40 and y2 > 155.8 * 3.2 - 40


def test_a_card_without_a_box_must_be_its_photos_only_card(layouts):
    image, _ = layouts["H"]
    reader = SimpleNamespace(find=lambda image, closer=False: Detections(np.zeros((0, 4)), np.zeros((0, 1))))
    for cards, message in [([{"card": "5H", "box": None}, {"card": "6H", "box": None}], "the only card"),
                           ([{"card": "5H", "box": None}, {"card": "6H", "box": [1, 2, 3, 4]}], "the only card"),
                           ([{"card": "ZZ", "box": None}], "'ZZ' is not a card")]:
        with pytest.raises(ValueError, match=message):
            layout_photos.name_by_labels(layout_photos.LayoutPhoto("p.jpg", image), {"cards": cards}, reader)


def test_a_photo_with_no_index_found_names_no_card_and_says_so():
    reader = SimpleNamespace(detect=lambda image, closer=False, farther=False: (
        Detections(np.zeros((0, 4)), np.zeros((0, 52))), np.zeros(0), np.zeros(0)), conf=0.5)
    photo = layout_photos.LayoutPhoto("blank.jpg", np.zeros((200, 200, 3), np.uint8))
    layout_photos.name_one_card(photo, "QH", reader)
    assert photo.cards == [] and photo.problems == ["blank.jpg: no index found: photograph the card closer, "
                                                    "its corners in view"]
