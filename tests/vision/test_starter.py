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
