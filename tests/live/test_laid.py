"""Seeing cards laid in the play, from readings frame by frame (no images)."""

from cribcam.live.laid import MISSED, LaidCards
from cribcam.vision.reading import Reading, SeenCard
from image_tools import NINE, SIX, drawn_card

FPS = 10.0  # frames a second: a card first read on frame k is laid on frame k + 5 (half a second on)


def card(code: str, x: float, y: float = 100.0, corners: int = 2) -> SeenCard:
    """A card read from its top-left corner at (x, y), and its opposite corner when ``corners`` is 2."""
    boxes = [(x, y, x + 20, y + 30), (x + 120, y + 170, x + 140, y + 200)][:corners]
    return SeenCard(code, 0.95, tuple(boxes))


def frames(*cards: SeenCard, times: int = 1) -> list[Reading]:
    return [Reading(tuple(cards), width=640, height=480)] * times


def follow(readings: list[Reading]) -> list[tuple[int, str]]:
    laid = LaidCards()
    return [(k, seen.card) for k, reading in enumerate(readings) for seen in laid.update(reading, k / FPS)]


def test_a_card_counts_as_laid_once_it_has_lain_still_half_a_second():
    five = card("5H", 100)
    assert follow(frames(five, times=4)) == []
    assert follow(frames(five, times=12)) == [(5, "5H")]  # once, half a second after it was first read


def test_cards_are_laid_one_after_another_and_each_counts_once():
    five, ten = card("5H", 100), card("TD", 300)
    readings = frames(five, times=8) + frames(five, ten, times=8) + frames(ten, times=3)  # 5H turned down
    assert follow(readings) == [(5, "5H"), (13, "TD")]


def test_a_card_passing_in_a_blur_or_read_wrong_for_a_frame_or_two_is_not_laid():
    five = card("5H", 100)
    misread = card("6H", 100)  # the same card, read wrong while a hand moves over it
    readings = frames(misread, times=2) + frames(five, times=6)
    assert follow(readings) == [(7, "5H")]
    sliding = [Reading((card("9C", 50 + 60 * k),), width=640, height=480) for k in range(8)]  # carried across
    assert follow(sliding) == []


def test_a_hand_over_a_card_for_a_frame_or_two_does_not_start_it_again():
    five = card("5H", 100)
    readings = frames(five, times=3) + frames(times=MISSED) + frames(five, times=2)
    assert follow(readings) == [(3 + MISSED, "5H")]  # still since frame 0: laid when read again


def test_a_card_read_from_one_corner_then_from_both_has_not_moved():
    readings = frames(card("5H", 100, corners=1), times=2) + frames(card("5H", 100, corners=2), times=4)
    assert follow(readings) == [(5, "5H")]


def test_a_card_nudged_after_it_was_laid_is_not_laid_again():
    readings = frames(card("5H", 100), times=6) + frames(card("5H", 110), times=6) + frames(card("5H", 400), times=6)
    assert follow(readings) == [(5, "5H")]


def test_a_card_refused_is_laid_again_only_after_it_has_left_the_table():
    laid, clock = LaidCards(), iter(k / FPS for k in range(1000))

    def seen(readings):
        return [s.card for reading in readings for s in laid.update(reading, next(clock))]

    nine = card("9S", 100)
    assert seen(frames(nine, times=6)) == ["9S"]
    laid.refused("9S")  # it passed 31: its player takes it back
    assert seen(frames(nine, times=10)) == []  # still there: not laid again
    assert seen(frames(times=MISSED + 1) + frames(nine, times=6)) == []  # unread a moment: still there
    assert seen(frames(times=5)) == []  # gone half a second: taken back
    assert seen(frames(nine, times=6)) == ["9S"]  # laid when its turn came


def test_one_card_read_two_ways_at_once_is_laid_once_as_its_surest_reading_to_check():
    nine = SeenCard("9D", 0.79, ((153, 95, 201, 206),))  # a 9 whose lower corner, printed upright,
    six = SeenCard("6D", 0.81, ((298, 324, 345, 430),))  # reads as a 6 turned over
    laid = LaidCards()
    seen = [s for k in range(8) for s in laid.update(Reading((nine, six), width=1280, height=960), k / FPS)]
    assert [(s.card, s.unsure) for s in seen] == [("6D", True)]  # the player is asked to check it
    assert laid.update(Reading((nine, six), width=1280, height=960), 1.0) == []  # not laid later either


def test_one_card_read_as_a_6_and_a_9_at_once_is_the_one_its_pips_count():
    for pips, surer, other in ((NINE, "6D", "9D"), (SIX, "9D", "6D"), (NINE, "9D", "6D")):
        image, (upper, lower) = drawn_card(pips, angle=8)
        readings = Reading((SeenCard(surer, 0.81, (lower,)), SeenCard(other, 0.79, (upper,))), width=640, height=640)
        laid = LaidCards()
        seen = [s for k in range(8) for s in laid.update(readings, k / FPS, image)]
        assert [(s.card, s.unsure) for s in seen] == [(f"{len(pips)}D", True)]  # still to check: its corners disagree
        assert laid.update(readings, 1.0, image) == []
    image, (upper, lower) = drawn_card(NINE, angle=45)  # pips that cannot be counted: the surer reading
    readings = Reading((SeenCard("6D", 0.81, (lower,)), SeenCard("9D", 0.79, (upper,))), width=640, height=640)
    laid = LaidCards()
    assert [s.card for k in range(8) for s in laid.update(readings, k / FPS, image)] == ["6D"]


def test_a_card_read_unsure_on_a_card_laid_before_is_its_back_not_a_card_laid():
    five = card("5H", 100)  # corners (110, 115) and (230, 285)
    on_its_back = SeenCard("QS", 0.55, ((150, 180, 170, 200),), unsure=True)  # the back's art, after the count
    assert follow(frames(five, times=8) + frames(on_its_back, times=10)) == [(5, "5H")]
    on_two_backs = SeenCard("QS", 0.6, ((150, 180, 170, 200), (910, 180, 930, 200)), unsure=True)
    six = card("6H", 800)
    assert follow(frames(five, times=8) + frames(five, six, times=8) + frames(on_two_backs, times=10)) == [
        (5, "5H"), (13, "6H")]
    pile = SeenCard("QS", 0.95, ((112, 110, 132, 140), (232, 280, 252, 310)))  # read surely: laid on the pile
    assert follow(frames(five, times=8) + frames(pile, times=8)) == [(5, "5H"), (13, "QS")]
    beside = SeenCard("QS", 0.55, ((400, 100, 420, 130), (520, 270, 540, 300)), unsure=True)  # where no card was
    assert follow(frames(five, times=8) + frames(beside, times=8)) == [(5, "5H"), (13, "QS")]


def test_cards_laid_at_once_far_apart_are_each_laid():
    apart = follow(frames(card("5H", 100), card("6H", 100, y=1000), times=6))
    assert sorted(code for _, code in apart) == ["5H", "6H"]


def test_a_corner_read_as_another_card_at_once_or_a_frame_later_is_the_same_card():
    six, phantom = card("6S", 100, corners=1), SeenCard("9H", 0.6, ((220, 270, 240, 300),))  # its lower corner
    assert follow(frames(six, phantom, times=6)) == [(5, "6S")]
    assert follow(frames(six) + frames(six, phantom, times=6)) == [(5, "6S")]  # the phantom from the next frame
    later = frames(six, times=8) + frames(six, phantom, times=6)  # a card laid there later is laid
    assert follow(later) == [(5, "6S"), (13, "9H")]
    elsewhere = frames(six, phantom, times=8) + frames(six, phantom, card("9H", 400), times=6)
    assert follow(elsewhere) == [(5, "6S"), (13, "9H")]  # the card it was read as, laid elsewhere


def test_the_card_a_corner_was_read_as_is_laid_when_read_later_from_a_corner_of_its_own_too():
    six, phantom = card("6S", 100, corners=1), SeenCard("9H", 0.6, ((220, 270, 240, 300),))  # its lower corner
    # The 9H laid below, read from its own corner and the 6S's lower one: a card's corners apart.
    nine = SeenCard("9H", 0.9, ((400, 600, 420, 630), (220, 270, 240, 300)))
    assert follow(frames(six, phantom, times=8) + frames(six, nine, times=6)) == [(5, "6S"), (13, "9H")]
    # Read from the 6S's corners alone, it is still the 6S read otherwise.
    both = SeenCard("9H", 0.9, ((100, 100, 120, 130), (220, 270, 240, 300)))
    assert follow(frames(six, phantom, times=8) + frames(six, both, times=6)) == [(5, "6S")]
