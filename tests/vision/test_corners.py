"""Corner-to-card decisions on hand-made detections (the detector is tested elsewhere)."""

import numpy as np
import pytest

from cribcam.scoring import CARD_CODES
from cribcam.vision.corners import cards_from_corners
from cribcam.vision.detections import Detections, suppress
from cribcam.vision.reading import DUPLICATE_CARD, MAYBE_ONE_CARD, MORE_IN_VIEW, Problem

BOX = 40  # index box size in pixels; a card's opposite corners lie ~6 boxes apart


def detections(*boxes):
    """Boxes given as (x, y, {card: score, ...}) with the box centred on x, y."""
    xyxy, scores = [], []
    for x, y, votes in boxes:
        xyxy.append([x - BOX / 2, y - BOX / 2, x + BOX / 2, y + BOX / 2])
        row = np.zeros(52, np.float32)
        for card, score in votes.items():
            row[CARD_CODES.index(card)] = score
        scores.append(row)
    return Detections(np.array(xyxy), np.array(scores))


def card(x, y, code, score=0.9, other=None):
    """The two opposite corners of one card whose top-left index is at (x, y)."""
    bottom = {other or code: score}
    return [(x, y, {code: score}), (x + 150, y + 220, bottom)]


def codes(found, **kwargs):
    return [seen.card for seen in cards_from_corners(found, **kwargs)[0]]


def test_two_corners_of_a_card_make_one_card():
    found = detections(*card(100, 100, "5H"), *card(400, 100, "JD"))
    assert codes(found) == ["5H", "JD"]
    assert [len(s.boxes) for s in cards_from_corners(found)[0]] == [2, 2]


def test_a_flipped_suit_on_the_far_corner_is_resolved_when_the_hand_is_full():
    hand = [*card(100, 100, "TD", 0.9, other="TS"), *card(400, 100, "5C"), *card(700, 100, "6C"),
            *card(1000, 100, "7C"), *card(1300, 100, "KH")]
    found = detections(*hand)
    assert sorted(codes(found, expected=5)) == sorted(["TD", "5C", "6C", "7C", "KH"])
    # Without knowing the hand size it cannot tell a flip from a real pair of tens.
    assert "TS" in codes(found)


def test_a_card_alone_whose_corners_disagree_on_the_suit_is_one_card():
    # Photographed alone, no count given: KS on one corner, KC (less sure) on the other.
    found = detections((100, 100, {"KS": 0.95}), (250, 320, {"KC": 0.6, "KS": 0.3}))
    assert codes(found) == ["KS"]
    # Of two colours they are two cards, and among other cards a pair is left alone.
    assert sorted(codes(detections(*card(100, 100, "KS", 0.95, other="KH")))) == ["KH", "KS"]
    assert "KC" in codes(detections(*card(100, 100, "KS", 0.95, other="KC"), *card(400, 100, "5H")))


def test_a_real_pair_of_same_rank_is_kept():
    found = detections(*card(100, 100, "TD"), *card(400, 100, "TS"), *card(700, 100, "5C"),
                       *card(1000, 100, "6C"), *card(1300, 100, "7C"))
    assert sorted(codes(found, expected=5)) == sorted(["TD", "TS", "5C", "6C", "7C"])


def test_a_spread_of_many_cards_keeps_same_rank_neighbours_when_no_count_is_given():
    # Overlapped cards showing one corner each, eight in a row; the two tens lie as far apart
    # as a card's opposite corners, which is no reason to merge them.
    spread = [(100 + 160 * i, 100 + (220 if code == "TS" else 0), {code: 0.9})
              for i, code in enumerate(["TD", "TS", "2C", "3C", "4C", "5H", "6H", "7H"])]
    assert sorted(codes(detections(*spread))) == sorted(["TD", "2C", "3C", "4C", "TS", "5H", "6H", "7H"])


def test_the_stronger_suit_wins_a_flip():
    hand = [(100, 100, {"TD": 0.6, "TS": 0.3}), (250, 320, {"TS": 0.5, "TD": 0.45}),
            *card(600, 100, "2C"), *card(900, 100, "3C"), *card(1200, 100, "4C"), *card(1500, 100, "9H")]
    assert "TD" in codes(detections(*hand), expected=5)


def test_the_same_card_twice_in_impossible_places_is_a_problem():
    # Two boxes say 7H but sit side by side like a fan: two cards, one of them misread.
    found = detections((100, 100, {"7H": 0.9}), (150, 100, {"7H": 0.8, "7D": 0.4}))
    cards, problems = cards_from_corners(found)
    assert [c.card for c in cards] == ["7H", "7D"]
    assert [c.unsure for c in cards] == [False, True]
    assert problems == [Problem(DUPLICATE_CARD, "two 7H seen: only one can be in a deck; check the 7D")]


def test_a_box_overlapping_a_read_index_is_that_index_again_not_another_card():
    # An index boxed twice (once with the pip beside it): its runner-up is no card at all.
    found = detections((100, 100, {"5S": 0.97}), (115, 110, {"5S": 0.6, "6S": 0.06}))
    cards, problems = cards_from_corners(found)
    assert [(c.card, c.unsure) for c in cards] == [("5S", False)] and problems == []


def test_a_box_holding_a_read_index_and_its_pips_is_no_card():
    # The 7 of a gold-on-black deck boxed alone (7H) and again with the pips beside it (TH).
    index = (100, 100, {"7H": 0.9})
    found = Detections(np.array([[80, 80, 120, 120], [78, 78, 260, 240]], float),
                       detections(index, (0, 0, {"TH": 0.82})).scores)
    assert codes(found) == ["7H"]


def test_a_second_reading_that_makes_no_card_is_no_problem():
    # The second 7H has no other card to be: one 7H is read, and nothing says two were seen.
    found = detections((100, 100, {"7H": 0.9}), (130, 100, {"7H": 0.8}))
    cards, problems = cards_from_corners(found)
    assert [c.card for c in cards] == ["7H"] and problems == []


def test_with_the_count_known_no_more_cards_are_read_than_expected():
    # Five cards, and two phantoms: a corner read as another rank beside its card, and a
    # weakly read pip far from every card.
    hand = [*card(100, 100, "5C"), *card(400, 100, "6C"), *card(700, 100, "7C"), *card(1000, 100, "8C"),
            *card(1300, 100, "KH"), (1250, 110, {"4D": 0.55}), (2000, 900, {"2S": 0.52})]
    found = detections(*hand)
    assert len(codes(found)) == 7
    assert sorted(codes(found, expected=5)) == ["5C", "6C", "7C", "8C", "KH"]


def test_a_card_read_surely_beyond_the_count_is_said_and_keeps_its_corners():
    # Six cards in view, five expected: the least sure goes, and the player is told which.
    hand = [*card(100, 100, "5C"), *card(400, 100, "6C"), *card(700, 100, "7C"), *card(1000, 100, "8C"),
            *card(1300, 100, "KH", 0.95), *card(1600, 100, "6S", 0.8)]
    cards, problems = cards_from_corners(detections(*hand), expected=5)
    assert [c.card for c in cards] == ["5C", "6C", "7C", "8C", "KH"]
    assert [len(c.boxes) for c in cards] == [2, 2, 2, 2, 2]
    assert problems == [Problem(MORE_IN_VIEW, "more cards in view than the 5 expected: the 6S was left out; "
                                              "take away the extra cards or fix the misread ones")]
    # A spread: past three cards they are counted, not named.
    spread = [box for i, code in enumerate(["2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D"])
              for box in card(100 + 300 * i, 100, code, 0.9 - 0.01 * i)]
    _, problems = cards_from_corners(detections(*spread), expected=4)
    assert problems == [Problem(MORE_IN_VIEW, "more cards in view than the 4 expected: 4 read surely were left "
                                              "out; photograph only the cards to count, or fix the misread ones")]


def test_two_cards_of_one_rank_and_colour_a_cards_corners_apart_are_asked_about():
    # A deal of five read with at most six: the KC's far corner read as a KS, each from one box.
    deal = [*card(100, 100, "5C"), *card(400, 100, "6C"), *card(700, 100, "7C"), *card(1000, 100, "8C"),
            (1300, 100, {"KC": 0.9}), (1450, 320, {"KS": 0.85})]
    cards, problems = cards_from_corners(detections(*deal), expected=6, at_most=True)
    assert [(c.card, c.unsure) for c in cards if c.card[0] == "K"] == [("KC", False), ("KS", True)]
    assert problems == [Problem(MAYBE_ONE_CARD, "the KC and the KS may be one card's two corners: check the KS")]
    # A count met exactly says they are two cards (a hand of six, each counted).
    assert cards_from_corners(detections(*deal), expected=6)[1] == []
    # Of two colours, or each read from both corners, they are two cards: nothing is asked.
    red_and_black = [*deal[:-1], (1450, 320, {"KH": 0.85})]
    assert cards_from_corners(detections(*red_and_black), expected=6, at_most=True)[1] == []
    both_whole = [*deal[:-2], *card(1300, 100, "KC"), *card(1600, 100, "KS")]
    assert cards_from_corners(detections(*both_whole), expected=6, at_most=True)[1] == []


def test_pips_and_unsure_readings_beyond_the_count_are_not_said():
    pip = (175, 210, {"4H": 0.9})  # on the 9H's face, between its corners
    unsure = (2000, 900, {"2S": 0.6})
    hand = [*card(100, 100, "9H"), *card(400, 100, "6C"), *card(700, 100, "7C"), pip, unsure]
    cards, problems = cards_from_corners(detections(*hand), expected=3)
    assert sorted(c.card for c in cards) == ["6C", "7C", "9H"] and problems == []


def test_a_phantom_that_can_be_another_corner_gives_its_corner_to_that_card():
    hand = [*card(100, 100, "5C"), *card(400, 100, "6C"), *card(700, 100, "7C"), (850, 100, {"9D": 0.6})]
    cards, _ = cards_from_corners(detections(*hand), expected=3)
    seven = next(c for c in cards if c.card == "7C")
    assert len(seven.boxes) == 3


def test_a_missing_card_is_filled_from_the_likeliest_unread_index_as_a_guess():
    hand = [*card(100, 100, "5C"), *card(400, 100, "6C"), *card(700, 100, "7C"), *card(1000, 100, "8C"),
            (1300, 100, {"KH": 0.3, "KD": 0.1}),  # read too weakly to count on its own
            (1600, 100, {"2S": 0.2})]  # no likely index: the finder was unsure of it
    found = detections(*hand)
    index_like = np.array([True] * 8 + [True, False])
    cards, _ = cards_from_corners(found, conf=0.5, expected=5, index_like=index_like)
    assert [c.card for c in cards] == ["5C", "6C", "7C", "8C", "KH"]
    assert [c.unsure for c in cards] == [False, False, False, False, True]
    assert [c.guessed for c in cards] == [False, False, False, False, True]  # a question, not a card


def test_two_blurred_corners_that_agree_read_a_missing_card_unsure_and_counted():
    # Each corner alone is under the line; together (0.4 x 0.35 against 0.25 x 0.3 for the
    # 8S) the 8C has 0.65 of their reading.
    hand = [*card(100, 100, "5C"), *card(400, 100, "6C"),
            (700, 100, {"8C": 0.4, "8S": 0.25}), (850, 320, {"8C": 0.35, "8S": 0.3})]
    cards, _ = cards_from_corners(detections(*hand), conf=0.5, expected=3, index_like=np.ones(6, bool))
    eight = cards[-1]
    assert (eight.card, len(eight.boxes), eight.unsure, eight.guessed) == ("8C", 2, True, False)


def test_two_blurred_corners_that_disagree_are_only_a_guess():
    # 0.12, 0.12 and 0.09 of their reading: no card has half of it.
    hand = [*card(100, 100, "5C"), (700, 100, {"8C": 0.4, "9C": 0.3, "7C": 0.3}),
            (850, 320, {"9C": 0.4, "8C": 0.3, "7C": 0.3})]
    cards, _ = cards_from_corners(detections(*hand), conf=0.5, expected=2, index_like=np.ones(4, bool))
    assert [(c.card, c.guessed) for c in cards] == [("5C", False), ("8C", True)]


@pytest.mark.parametrize("apart", [(30, 0), (900, 900)], ids=["the same index", "two cards apart"])
def test_weak_boxes_that_cannot_be_one_cards_corners_are_not_read_together(apart):
    dx, dy = apart
    hand = [(700, 100, {"8C": 0.4, "8S": 0.1}), (700 + dx, 100 + dy, {"8C": 0.4, "8S": 0.1})]
    cards, _ = cards_from_corners(detections(*hand), conf=0.5, expected=1, index_like=np.ones(2, bool))
    assert [(c.card, c.guessed) for c in cards] == [("8C", True)]


def test_without_a_count_two_blurred_corners_read_a_card_only_where_nothing_else_is_read():
    pair = [(700, 100, {"8C": 0.4, "8S": 0.25}), (850, 320, {"8C": 0.35, "8S": 0.3})]
    cards, _ = cards_from_corners(detections(*pair), conf=0.5, index_like=np.ones(2, bool))
    assert [(c.card, c.unsure, c.guessed) for c in cards] == [("8C", True, False)]
    # Beside a card read, with no count to say one is missing, they are left unread.
    cards, _ = cards_from_corners(detections(*card(100, 100, "5C"), *pair), conf=0.5, index_like=np.ones(4, bool))
    assert [c.card for c in cards] == ["5C"]


def test_corners_that_agree_on_a_card_already_read_read_no_other():
    # The 8C is read; two weak boxes reading it (and the 8S a little) are not an 8S.
    hand = [*card(100, 100, "8C"), (700, 100, {"8C": 0.45, "8S": 0.2}), (850, 320, {"8C": 0.45, "8S": 0.2})]
    cards, _ = cards_from_corners(detections(*hand), conf=0.5, expected=2, index_like=np.ones(4, bool))
    assert [c.card for c in cards if not c.guessed] == ["8C"]


def test_a_second_reading_of_a_card_seen_twice_is_unsure_but_no_guess():
    found = detections((100, 100, {"7H": 0.9}), (150, 100, {"7H": 0.8, "7D": 0.4}))
    cards, _ = cards_from_corners(found, expected=2)
    assert [(c.card, c.unsure, c.guessed) for c in cards] == [("7H", False, False), ("7D", True, False)]


def test_the_other_corner_of_a_card_read_does_not_fill_a_missing_card():
    hand = [*card(100, 100, "5C"), *card(400, 100, "6C"), (100 + 150, 100 + 220, {"5C": 0.3, "5S": 0.2})]
    found = detections(*card(100, 100, "5C")[:1], *card(400, 100, "6C"), hand[-1])
    cards, _ = cards_from_corners(found, conf=0.5, expected=3, index_like=np.ones(len(found), bool))
    assert [c.card for c in cards] == ["5C", "6C"]


def test_four_printed_corners_make_one_card():
    # Decks like bonded and dondorf print an index in all four corners.
    x, y = 100, 100
    corners = [(x, y), (x + 110, y), (x, y + 220), (x + 110, y + 220)]
    found = detections(*[(cx, cy, {"QS": 0.8}) for cx, cy in corners], *card(500, 100, "3H"))
    cards, problems = cards_from_corners(found, expected=2)
    assert [(c.card, len(c.boxes)) for c in cards] == [("QS", 4), ("3H", 2)] and problems == []


# A card 170 wide and 260 long, its top-left corner at (80, 70): the corners as
# ``pips.card_outline`` gives them (bottom-left, top-left, top-right, bottom-right).
OUTLINE = np.float32([[80, 330], [80, 70], [250, 70], [250, 330]])


def test_two_cards_read_in_one_cards_corners_are_that_card_read_twice():
    # A 6C whose far corner, upside down, reads 9C: in the corners of one card's outline, one card.
    found = detections((100, 100, {"6C": 0.9, "9C": 0.08}), (230, 300, {"9C": 0.85, "6C": 0.12}))
    cards, _ = cards_from_corners(found, outline=OUTLINE)
    assert [c.card for c in cards] == ["6C"] and cards[0].unsure and not cards[0].guessed
    assert len(cards[0].boxes) == 2
    # Without the outline they are two cards: nothing tells them from two laid corner to corner.
    assert sorted(codes(found)) == ["6C", "9C"]
    # A suit read two ways is one card too, the likelier suit kept.
    flipped = detections((100, 100, {"2H": 0.9, "2S": 0.05}), (230, 300, {"2S": 0.6, "2H": 0.3}))
    assert codes(flipped, outline=OUTLINE) == ["2H"] and sorted(codes(flipped)) == ["2H", "2S"]


def test_a_card_on_the_face_beyond_the_outline_or_beside_is_another_card():
    on_face = detections((100, 100, {"6C": 0.9}), (165, 200, {"9C": 0.9}))
    beyond = detections((100, 100, {"6C": 0.9}), (330, 300, {"9C": 0.9}))
    peeking = detections((230, 300, {"6C": 0.9}), (72, 100, {"9C": 0.9}))  # a card under it, fanned out
    same_corner = detections((100, 100, {"6C": 0.9}), (100, 160, {"9C": 0.9}))
    side_by_side = detections((100, 100, {"6C": 0.9}), (230, 100, {"9C": 0.9}))  # a pile's union as the outline
    for found in (on_face, beyond, peeking, same_corner, side_by_side):
        assert len(codes(found, outline=OUTLINE)) == 2


def test_an_unsure_reading_of_a_pip_on_a_card_alone_is_no_second_card():
    pip = (175, 210, {"4H": 0.6})  # the middle of the 9H's face, read unsurely as a 4H
    assert codes(detections(*card(100, 100, "9H"), pip)) == ["9H"]


def test_a_card_lying_on_another_cards_face_is_kept_when_sure_or_read_from_two_corners():
    sure = (175, 210, {"4S": 0.9})
    assert codes(detections(*card(100, 100, "9H"), sure)) == ["9H", "4S"]
    # the second card's two corners: one on the first card's face, one beyond it
    crossing = [(175, 210, {"4S": 0.6}), (325, 430, {"4S": 0.6})]
    assert sorted(codes(detections(*card(100, 100, "9H"), *crossing))) == ["4S", "9H"]


def test_with_the_count_known_a_reading_on_a_face_is_left_to_the_count():
    pip = (175, 210, {"4H": 0.6})
    assert sorted(codes(detections(*card(100, 100, "9H"), *card(400, 100, "2C"), pip), expected=3)) == \
        ["2C", "4H", "9H"]


def test_a_card_read_with_a_low_probability_is_unsure():
    found = detections(*card(100, 100, "5H", 0.6), *card(400, 100, "JD", 0.95))
    assert [c.unsure for c in cards_from_corners(found, conf=0.5)[0]] == [True, False]


def test_weak_boxes_do_not_make_cards():
    assert codes(detections((100, 100, {"7H": 0.1}))) == []


def test_suppress_keeps_one_box_per_place_and_the_runner_up_scores():
    found = detections((100, 100, {"8S": 0.8}), (102, 101, {"8C": 0.6}), (300, 300, {"AD": 0.7}))
    kept = suppress(found)
    assert len(kept) == 2
    first = kept.scores[0]
    assert first[CARD_CODES.index("8S")] == pytest.approx(0.8)
    assert first[CARD_CODES.index("8C")] == pytest.approx(0.6)


def test_detections_validate_their_shape():
    with pytest.raises(ValueError, match="3 boxes need a 2-D array of 3 score rows"):
        Detections(np.zeros((3, 4)), np.zeros((2, 52)))
    with pytest.raises(ValueError, match="not one of shape \\(3,\\)"):
        Detections(np.zeros((3, 4)), np.zeros(3))


def test_finder_detections_have_one_score_column_and_suppress_alike():
    found = Detections(np.array([[0, 0, 10, 10], [1, 1, 11, 11], [50, 50, 60, 60]]), np.array([[0.3], [0.9], [0.2]]))
    kept = suppress(found)
    assert len(kept) == 2 and kept.scores.shape == (2, 1)
    assert kept.confidence.tolist() == pytest.approx([0.9, 0.2])
