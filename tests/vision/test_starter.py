from cribcam.vision.reading import SeenCard
from cribcam.vision.starter import find_starter


def seen(code, x, y, size=40):
    return SeenCard(code, 0.9, ((x, y, x + size, y + size), (x + 150, y + 220, x + 150 + size, y + 220 + size)))


def test_the_card_set_apart_is_the_starter():
    hand = [seen("5H", 0, 0), seen("6H", 60, 0), seen("7H", 120, 0), seen("8H", 180, 0)]
    assert find_starter(hand + [seen("JD", 900, 0)]) == "JD"


def test_no_starter_when_the_cards_are_evenly_spread():
    row = [seen(code, 300 * i, 0) for i, code in enumerate(["5H", "6H", "7H", "8H", "JD"])]
    assert find_starter(row) is None


def test_too_few_cards_to_tell():
    assert find_starter([seen("5H", 0, 0), seen("JD", 900, 0)]) is None


def laid(code, left, width=66, height=92, index=14):
    """A card lying square, both its index corners showing."""
    return SeenCard(code, 0.9, ((left, 0, left + index, index),
                                (left + width - index, height - index, left + width, height)))


def test_a_starter_beyond_a_neat_row_of_cards_is_told_apart():
    # Four cards side by side, 1.1 card widths from centre to centre, and the starter 2.6 card
    # widths beyond the last: its nearest corner lies under twice as far as the row's do from
    # each other, its centre well over twice.
    row = [laid(code, 73 * i) for i, code in enumerate(["5H", "6H", "7H", "8H"])]
    assert find_starter(row + [laid("JD", 3 * 73 + int(2.6 * 66))]) == "JD"
    assert find_starter(row + [laid("JD", 4 * 73)]) is None  # the same row of five: none apart
