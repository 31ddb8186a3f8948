import pytest

from cribcam.scoring import CARD_CODES, Card, CardError, parse_card, parse_cards
from cribcam.scoring.cards import check_distinct


@pytest.mark.parametrize("text, code", [
    ("5H", "5H"), ("5h", "5H"), ("10H", "TH"), ("10h", "TH"), ("TH", "TH"), ("JD", "JD"),
    ("AS", "AS"), ("5♥", "5H"), ("A♠", "AS"), ("K♦", "KD"), ("Q♣", "QC"), (" qs ", "QS"),
])
def test_parses_what_people_type(text, code):
    assert parse_card(text).code == code


@pytest.mark.parametrize("text", ["5X", "1H", "11H", "H5", "", "5", "JOKER", "0S", "5HH"])
def test_bad_code_names_the_token_and_what_is_allowed(text):
    with pytest.raises(CardError) as err:
        parse_card(text)
    assert repr(text.strip()) in str(err.value)
    assert "C D H S" in str(err.value)


def test_card_values_and_indices():
    assert [Card.from_code(c).value for c in ["AC", "9D", "TH", "JS", "QC", "KD"]] == [1, 9, 10, 10, 10, 10]
    assert len(set(CARD_CODES)) == 52
    assert all(Card.from_code(code).index == i for i, code in enumerate(CARD_CODES))


def test_parse_cards_splits_strings():
    assert [c.code for c in parse_cards("5h, 10d QS")] == ["5H", "TD", "QS"]


def test_duplicate_is_an_error_that_names_the_card():
    with pytest.raises(CardError, match="5H appears twice; a deck has one 5H"):
        check_distinct(parse_cards("5H 6D 5h"))
