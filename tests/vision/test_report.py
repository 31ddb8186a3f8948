from cribcam.vision.reading import Reading, SeenCard
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
    assert any("cannot count" in p and "3 cards given (the starter and 2 others)" in p for p in report["problems"])


def test_expected_cards():
    assert expected_cards() == 5
    assert expected_cards("five-card") == 4 and expected_cards("five-card", crib=True) == 5
