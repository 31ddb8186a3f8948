"""The reader on bad input and on real photos, through real ONNX models."""

import cv2
import numpy as np
import pytest

from cribcam.vision import CardReader, ModelMissingError
from cribcam.vision.reading import (
    CARDS_MISSING,
    GUESSED,
    IMAGE_TOO_SMALL,
    IMAGE_UNREADABLE,
    NO_CARDS,
    PARTLY_IN_PHOTO,
    READ_BY_FACE,
    STARTER_UNKNOWN,
    Problem,
    SeenCard,
)
from image_tools import blurred_card

NO_CARDS_FOUND = Problem(NO_CARDS, "no cards found: lay the cards face up with their corners in view")


@pytest.mark.parametrize("image", [None, np.zeros((0, 0, 3), np.uint8), "not an image"])
def test_unreadable_input_is_a_problem_not_an_exception(reader, image):
    reading = reader.read(image)
    assert reading.cards == () and reading.problems == (
        Problem(IMAGE_UNREADABLE, "the image could not be read: send a JPEG or PNG photo"),)


def test_tiny_image(reader):
    reading = reader.read(np.zeros((1, 1, 3), np.uint8))
    assert reading.cards == () and reading.problems == (
        Problem(IMAGE_TOO_SMALL, "the image is only 1x1 pixels: take a photo with the cards filling more of it"),)


def test_blank_table_has_no_cards(reader):
    table = np.full((480, 640, 3), (40, 110, 40), np.uint8)  # green felt, nothing on it
    reading = reader.read(table, expected=5)
    assert reading.cards == ()
    assert NO_CARDS_FOUND in reading.problems


def test_only_card_backs_is_a_problem_not_a_hand(reader):
    from cribcam.datagen.textures import card_back

    table = np.full((640, 640, 3), (40, 110, 40), np.uint8)
    rng = np.random.default_rng(5)
    for i, x in enumerate(range(40, 600, 120)):  # five face-down cards in a row, one turned
        back = card_back(rng, 100, 150)[..., :3]
        if i == 2:
            back = cv2.rotate(back, cv2.ROTATE_90_CLOCKWISE)
        h, w = back.shape[:2]
        table[200:200 + h, x:x + w] = back
    reading = reader.read(table, expected=5)
    assert reading.cards == ()
    assert NO_CARDS_FOUND in reading.problems


def test_grayscale_and_alpha_images_are_accepted(reader, real_photos):
    photo = cv2.imread(str(sorted((real_photos / "images").glob("*.jpg"))[0]))
    for image in (cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY), cv2.cvtColor(photo, cv2.COLOR_BGR2BGRA)):
        reading = reader.read(image)
        assert (reading.width, reading.height) == (640, 640)


def test_huge_photo_is_scaled_and_boxes_come_back_in_its_pixels(reader, real_photos):
    photo = cv2.imread(str(sorted((real_photos / "images").glob("*.jpg"))[0]))
    big = cv2.resize(photo, (4000, 3000))
    reading = reader.read(big)
    assert (reading.width, reading.height) == (4000, 3000)
    for seen in reading.cards:
        for x1, y1, x2, y2 in seen.boxes:
            assert -50 <= x1 < x2 <= 4050 and -50 <= y1 < y2 <= 3050


def test_every_look_is_shown_to_its_observer(shipped_models, real_photos):
    looks = []
    reader = CardReader(shipped_models, on_look=lambda *look: looks.append(look))
    photo = cv2.imread(str(sorted((real_photos / "images").glob("*.jpg"))[0]))
    found, index_score, no_index = reader.detect(photo)
    assert len(looks) == 1
    assert (looks[0][0].xyxy == found.xyxy).all() and (looks[0][1] == index_score).all()
    assert (looks[0][2] == no_index).all()
    looks.clear()
    reading = reader.read(photo)
    assert reading.cards and looks
    seen = np.concatenate([found.xyxy for found, _, _ in looks])
    for card in reading.cards:  # every card read comes from a box some look showed
        for box in card.boxes:
            assert (np.abs(seen - np.asarray(box)) < 0.01).all(axis=1).any(), card.card


def test_missing_models_are_a_clear_error(tmp_path):
    with pytest.raises(ModelMissingError, match="finder.onnx and classifier.onnx missing"):
        CardReader(tmp_path)


def test_a_folder_missing_one_model_names_it(tmp_path, shipped_models):
    (tmp_path / "finder.onnx").write_bytes((shipped_models / "finder.onnx").read_bytes())
    with pytest.raises(ModelMissingError, match=r"\(classifier.onnx missing\)"):
        CardReader(tmp_path)


def test_a_deal_has_no_starter_and_fewer_cards_is_no_problem(reader):
    from pathlib import Path

    photo = cv2.imread(str(Path(__file__).parents[1] / "data" / "photos" / "webcam-5-cards.jpg"))
    deal = reader.read(photo, expected=6, starter=False)
    assert deal.starter is None
    assert not {p.code for p in deal.problems} & {STARTER_UNKNOWN, CARDS_MISSING}, deal.problems
    # The same photo as a hand with its starter: one card short, and a starter to tell.
    hand = reader.read(photo, expected=len(deal.cards) + 1)
    assert any(p.code == CARDS_MISSING and p.message.startswith(f"{len(hand.cards)} cards read but "
                                                                 f"{len(deal.cards) + 1} expected")
               for p in hand.problems)


def test_one_card_read_of_five_is_said_in_the_singular():
    from cribcam.vision.reader import _count_problems
    from cribcam.vision.reading import SeenCard

    problems = _count_problems([SeenCard("3C", 0.9, ((0, 0, 10, 20),))], 5, None)
    assert problems == [Problem(CARDS_MISSING, "1 card read but 5 expected: 4 are missing or hidden; "
                                               "make sure a corner of every card shows")]


def test_a_guess_is_named_as_a_question_beside_the_cards_missing():
    from cribcam.vision.reader import _count_problems
    from cribcam.vision.reading import SeenCard

    four = [SeenCard(code, 0.9, ((40 * i, 0, 40 * i + 10, 20),)) for i, code in enumerate(["3C", "4C", "5C", "6C"])]
    guess = SeenCard("JS", 0.44, ((400, 0, 410, 20),), unsure=True, guessed=True)
    problems = _count_problems(four, 5, "6C", guesses=[guess])
    assert [p.code for p in problems] == [CARDS_MISSING, GUESSED]
    assert problems[0].message.startswith("4 cards read but 5 expected")
    assert problems[1].message == "a card could only be guessed: the JS? Name it to count it"


def test_a_card_the_photo_cuts_off_beside_a_card_alone_is_unsure_and_said(shipped_models, real_photos):
    # A real photo of the 4C, an ace of spades cut off by its bottom edge.
    reader = CardReader(shipped_models)
    photo = cv2.imread(str(real_photos / "images" / "CardCounterML__IMG_20220921_195322_jpg.jpg"))
    reading = reader.read(photo)
    by_card = {seen.card: seen for seen in reading.cards}
    assert set(by_card) == {"4C", "AS"}
    assert not by_card["4C"].unsure and by_card["AS"].unsure
    assert Problem(PARTLY_IN_PHOTO, "the AS at the bottom edge is only partly in the photo: check that it is "
                                    "one of the cards, or leave it out") in reading.problems
    # The photo without the strip the ace shows in: the 4C alone, nothing said.
    alone = reader.read(np.ascontiguousarray(photo[:int(min(by_card["AS"].boxes[0][1], photo.shape[0]) - 5)]))
    assert [seen.card for seen in alone.cards] == ["4C"] and not alone.warns


def test_cards_at_the_edge_of_a_hand_are_not_said_to_be_cut_off():
    from cribcam.vision.reader import _cut_off
    from cribcam.vision.reading import SeenCard

    at_edge = SeenCard("5H", 0.9, ((0, 100, 30, 140),))
    inside = SeenCard("JD", 0.9, ((200, 100, 230, 140), (400, 300, 430, 340)))
    cards, cut = _cut_off([at_edge, inside], 640, 480)
    assert [seen.card for seen in cut] == ["5H"] and cards[0].unsure and not cards[1].unsure
    hand = [at_edge, inside, SeenCard("6C", 0.9, ((300, 100, 330, 140),))]
    assert _cut_off(hand, 640, 480) == (hand, [])


def test_a_mark_on_the_face_of_a_card_read_is_its_art_not_a_card():
    from cribcam.vision.detections import Detections
    from cribcam.vision.reader import _marks
    from cribcam.vision.reading import SeenCard

    # A jack read from both corners; unread index-like boxes in its court art, and one beyond it.
    jack = SeenCard("JS", 0.95, ((100, 100, 130, 150), (300, 400, 330, 450)))
    art = [(250, 160, 280, 210), (150, 330, 180, 380)]
    beyond = (600, 100, 630, 150)
    weak = Detections(np.array([*art, beyond], np.float32), np.full((3, 1), 0.5, np.float32))
    assert _marks(weak, [jack]).tolist() == [list(beyond)]
    # A card read from one corner has no face to tell: the same boxes are marks.
    one_corner = SeenCard("JS", 0.95, ((100, 100, 130, 150),))
    assert len(_marks(weak, [one_corner])) == 3


def _bellot(heldout_decks):
    return next(deck for deck in heldout_decks if deck.name == "gnome-bellot")


def test_a_card_whose_corners_blur_away_is_read_by_its_face_and_asked(reader, heldout_decks):
    image, _ = blurred_card(_bellot(heldout_decks), "8D")
    reading = reader.read(image, expected=1)
    assert reading.codes == ["8D"]
    assert reading.cards[0].unsure and reading.warns
    assert [p.code for p in reading.problems] == [READ_BY_FACE]
    assert "8D" in reading.problems[0].message


def test_the_face_never_overrides_a_sure_corner(reader, heldout_decks, monkeypatch):
    _, sharp = blurred_card(_bellot(heldout_decks), "7H")
    monkeypatch.setattr("cribcam.vision.reader.read_face", lambda image, classifier, outline: ("2C", (0.0, 0.0, 10.0, 10.0)))
    reading = reader.read(sharp, expected=1)
    assert reading.codes == ["7H"] and not reading.cards[0].unsure
    assert READ_BY_FACE not in [p.code for p in reading.problems]


@pytest.mark.parametrize(("corner", "face", "read"), [
    (SeenCard("4C", 0.71, ((0, 0, 9, 9),)), "TC", "TC"),  # a sure corner its face counts otherwise
    (SeenCard("4C", 0.84, ((0, 0, 9, 9),)), "TS", "TS"),
    (SeenCard("4C", 0.85, ((0, 0, 9, 9),)), "TC", None),  # sure enough: the face is not read
    (SeenCard("4C", 0.71, ((0, 0, 9, 9),)), "4S", None),  # the same rank: the corner's suit stands
    (SeenCard("4C", 0.55, ((0, 0, 9, 9),), unsure=True), "4S", "4S"),  # an unsure corner: any other card
    (SeenCard("4C", 0.55, ((0, 0, 9, 9),), unsure=True), "4C", None),
    (None, "7H", "7H"),  # no corner read
])
def test_the_face_is_asked_where_the_corner_is_unsure_or_less_sure_than_its_check(corner, face, read, monkeypatch):
    from cribcam.vision.reader import FACE_CHECKS_BELOW, _by_face

    assert corner is None or corner.confidence < FACE_CHECKS_BELOW or read is None
    looked = []
    monkeypatch.setattr("cribcam.vision.reader.read_face",
                        lambda image, classifier, outline: looked.append(1) or (face, (0.0, 0.0, 50.0, 70.0)))
    by_face = _by_face(np.zeros((80, 80, 3), np.uint8), [corner] if corner else [], 1, None)
    assert (by_face and by_face.card) == read
    assert by_face is None or (by_face.unsure and by_face.confidence == 0.0)
    assert bool(looked) == (corner is None or corner.unsure or corner.confidence < FACE_CHECKS_BELOW)


def test_a_corner_its_face_contradicts_is_said_so(reader, heldout_decks, monkeypatch):
    _, sharp = blurred_card(_bellot(heldout_decks), "7H")
    read = reader.read(sharp, expected=1).cards[0]
    monkeypatch.setattr("cribcam.vision.reader.FACE_CHECKS_BELOW", read.confidence + 0.01)
    monkeypatch.setattr("cribcam.vision.reader.read_face", lambda image, classifier, outline: ("2H", (0.0, 0.0, 10.0, 10.0)))
    reading = reader.read(sharp, expected=1)
    assert reading.codes == ["2H"] and reading.cards[0].unsure
    assert [p.message for p in reading.problems if p.code == READ_BY_FACE] == [
        "the 2H was read from its pips, not the 7H its corner reads: check it, or tap it to fix it"]


@pytest.mark.parametrize("code", ["6C", "8H"])
def test_one_cards_corners_read_as_two_cards_are_that_card_unsure(reader, heldout_decks, monkeypatch, code):
    # This design prints its lower index upright: that corner reads a 6 as a 9, and a heart as a spade.
    egyptians = next(deck for deck in heldout_decks if deck.name == "kde-svg-ancient-egyptians")
    image, _ = blurred_card(egyptians, code, sigma=2.5)
    reading = reader.read(image)
    assert reading.codes == [code] and reading.cards[0].unsure and len(reading.cards[0].boxes) == 2
    # Where its face counts another card, the face's card is asked, said against both corners; the
    # face is read within the outline found for the corners, not looked for again.
    outlines = []
    with monkeypatch.context() as patched:
        patched.setattr("cribcam.vision.reader.read_face",
                        lambda image, classifier, outline: outlines.append(outline) or ("2H", (0.0, 0.0, 9.0, 9.0)))
        assert [p.message for p in reader.read(image).problems if p.code == READ_BY_FACE] == [
            f"the 2H was read from its pips, not the {code} its corners read unsurely: check it, or tap it to fix it"]
    assert len(outlines) == 1 and outlines[0].shape == (4, 2)
    # Read without the card's outline, they are two cards: nothing else tells one from two.
    monkeypatch.setattr("cribcam.vision.reader.card_outline", lambda image: None)
    assert len(reader.read(image).codes) == 2


def test_the_face_is_not_read_in_a_photo_of_a_hand(reader, heldout_decks, monkeypatch):
    image, _ = blurred_card(_bellot(heldout_decks), "8D")
    monkeypatch.setattr("cribcam.vision.reader.read_face", lambda image, classifier, outline: pytest.fail("a hand's face read"))
    assert READ_BY_FACE not in [p.code for p in reader.read(image, expected=5).problems]
