import pytest

from cribcam.scoring import score_hand
from cribcam.vision.reading import CANNOT_COUNT, HAND_ONLY_HINT, MORE_IN_VIEW, Problem, Reading, SeenCard
from cribcam.vision.report import expected_cards, reading_report


def reading(codes, starter=None):
    cards = tuple(SeenCard(code, 0.9, ((10.0 * i, 0.0, 10.0 * i + 5, 5.0),)) for i, code in enumerate(codes))
    return Reading(cards, starter, (), 640, 480)


def test_counts_with_the_starter_the_reader_found():
    report = reading_report(reading(["5H", "5C", "5S", "JD", "5D"], starter="5D"))
    assert report["count"]["total"] == 29 and report["starter"] == "5D"


def test_player_named_starter_wins_and_claim_is_judged():
    report = reading_report(reading(["9S", "6D", "5H", "4C", "4D"], starter="9S"), starter="4d", claim=12)
    assert report["starter"] == "4D"
    assert report["count"]["total"] == 14 and report["count"]["verdict"] == "muggins"


def test_unknown_starter_lists_totals_by_choice():
    report = reading_report(reading(["5H", "5C", "5S", "JD", "5D"]))
    assert report["count"] is None
    totals = {t["starter"]: t["total"] for t in report["totals_by_starter"]}
    assert totals["5D"] == 29 and totals["JD"] == 28  # four 5s: 16 in fifteens + 12


def test_cards_that_make_no_hand_are_a_problem_not_an_error():
    report = reading_report(reading(["5H", "5C"]), starter="5D")
    assert report["count"] is None
    said = {"code": CANNOT_COUNT, "message": "cannot count: a six-card cribbage hand needs 4 cards and a starter; "
                                             "3 cards given (the starter and 2 others)"}
    assert report["problems"] == [said] and report["problem_messages"] == [said["message"]]


def test_expected_cards():
    assert expected_cards() == 5
    assert expected_cards("five-card") == 4 and expected_cards("five-card", crib=True) == 5


def test_a_guess_is_asked_about_never_counted_nor_taken_for_the_starter():
    guess = SeenCard("JS", 0.44, ((100.0, 0.0, 105.0, 5.0),), unsure=True, guessed=True)
    read = reading(["5H", "5C", "5S", "5D"])
    report = reading_report(Reading(read.cards, "5D", (), 640, 480, guesses=(guess,)))
    assert [c["card"] for c in report["guesses"]] == ["JS"] and report["guesses"][0]["guessed"]
    assert report["expected"] == 5 and report["starter"] == "5D"
    assert report["count"] is None  # three cards and the starter make no six-card hand
    assert CANNOT_COUNT in [p["code"] for p in report["problems"]]
    # A five-card game's hand is three cards: the four read are counted, the guess is not.
    report = reading_report(Reading(read.cards, "5D", (), 640, 480, guesses=(guess,)), variant="five-card")
    assert report["count"]["total"] == score_hand(["5H", "5C", "5S"], "5D", variant="five-card").total
    assert not any("JS" in p["message"] for p in report["problems"])  # no "check the JS": it is not counted


def test_without_the_starter_a_guess_makes_no_totals_by_starter():
    read = reading(["5H", "5C", "5S", "5D"])
    guess = SeenCard("JS", 0.44, ((100.0, 0.0, 105.0, 5.0),), unsure=True, guessed=True)
    report = reading_report(Reading(read.cards, None, (), 640, 480, guesses=(guess,)))
    assert report["count"] is None and "totals_by_starter" not in report


def test_cards_read_surely_beyond_a_hand_leave_the_hand_uncounted():
    # Five of thirteen cards read surely were counted as the hand, which five a guess (issue 45).
    from dataclasses import replace

    left_out = Problem(MORE_IN_VIEW, "more cards in view than the 5 expected: 8 read surely were left out; "
                                     "photograph only the cards to count")
    seen = replace(reading(["5H", "5C", "5S", "JD", "5D"], starter="5D"), problems=(left_out,))
    for named in (None, "5D"):
        report = reading_report(seen, starter=named)
        assert report["count"] is None and "totals_by_starter" not in report
        assert report["problems"] == [left_out.as_dict()]


def test_a_photo_one_card_short_says_how_to_read_the_hand_alone():
    said = [p for p in reading_report(reading(["5H", "5C", "5S", "JD"]))["problems"] if p["code"] == HAND_ONLY_HINT]
    assert said == [{"code": HAND_ONLY_HINT,
                     "message": "if the photo holds the hand alone, its starter to come: tick “The hand only” on "
                                "the photo page, or read it with --hand-only, and name the starter"}]
    for quiet in (reading_report(reading(["5H", "5C", "5S", "JD"]), hand_only=True),
                  reading_report(reading(["5H", "5C", "5S", "JD"]), starter="5D"),
                  reading_report(reading(["5H", "5C", "5S"]))):
        assert HAND_ONLY_HINT not in [p["code"] for p in quiet["problems"]]


def test_a_problem_has_one_of_the_codes():
    with pytest.raises(ValueError, match="no such problem code"):
        Problem("starter unknown", "could not tell which card is the starter")


def test_the_answer_keeps_the_messages_alone_for_the_scripts_of_0_1():
    # "problem_messages" is deprecated (web/static/api.txt): the messages in order, nothing else.
    report = reading_report(reading(["5H", "5C", "5S", "JD"]))
    assert report["problem_messages"] == [p["message"] for p in report["problems"]] != []
    assert all(set(p) == {"code", "message"} for p in report["problems"])
