from cribcam.scoring import judge_show, score_hand


def test_correct_claim():
    verdict = judge_show(14, score_hand("9S 6D 5H 4C", "4D"))
    assert (verdict.verdict, verdict.difference, verdict.overlooked) == ("correct", 0, ())


def test_muggins_names_the_overlooked_nobs():
    verdict = judge_show(28, score_hand("5H 5C 5S JD", "5D"))
    assert verdict.verdict == "muggins" and verdict.difference == 1
    assert [(i.kind, [c.code for c in i.cards]) for i in verdict.overlooked] == [("nobs", ["JD", "5D"])]


def test_muggins_overlooked_items_add_up_to_the_shortfall():
    score = score_hand("5H 5C 5S JD", "5D")
    verdict = judge_show(12, score)
    assert verdict.difference == 17
    assert sum(i.points for i in verdict.overlooked) == 17
    assert all(i in score.items for i in verdict.overlooked)
    # The double pair royal (12) was counted; the fifteens and nobs were missed.
    assert {i.kind for i in verdict.overlooked} == {"fifteen", "nobs"}


def test_overclaim_by_how_much():
    verdict = judge_show(16, score_hand("9S 6D 5H 4C", "4D"))
    assert verdict.verdict == "overclaim" and verdict.difference == -2
    assert "Over-claimed by 2" in verdict.message


def test_impossible_claims_are_called_out():
    score = score_hand("9S 6D 5H 4C", "4D")
    for claim in (19, 25, 26, 27, 30, 35):
        verdict = judge_show(claim, score)
        assert verdict.impossible and f"{claim} is not a possible hand count" in verdict.message
    assert not judge_show(12, score).impossible


def test_crib_claim_mentions_crib():
    verdict = judge_show(10, score_hand("2H 4H 8H QH", "KS", crib=True))
    assert verdict.verdict == "overclaim" and "crib" in verdict.message


def test_a_shortfall_no_items_add_up_to_names_none():
    # A pair of fours and nothing else is 2; claimed as 1, one point is overlooked, and no
    # item is worth one: nothing is named, and no empty brackets are shown.
    verdict = judge_show(1, score_hand("2H 4C 4D 6S", "KH"))
    assert verdict.verdict == "muggins" and verdict.difference == 1 and verdict.overlooked == ()
    assert verdict.message == "Muggins: 1 point overlooked; the hand is 2 and the opponent may peg 1."


def test_nineteen_claimed_for_a_show_of_nothing_is_correct_and_says_why():
    # "Nineteen" is how players say zero: the spoken count of such a hand says it too.
    hand = score_hand("2H 4C 8D QS", "KS")
    assert hand.total == 0 and hand.spoken.startswith("nineteen")
    verdict = judge_show(19, hand)
    assert (verdict.verdict, verdict.claimed, verdict.difference, verdict.impossible) == \
        ("correct", 19, 0, False)
    assert '"nineteen" is how a hand of nothing is said' in verdict.message
    crib = judge_show(19, score_hand("2H 4C 8D QS", "KS", crib=True))
    assert crib.verdict == "correct" and "a crib of nothing" in crib.message
    assert judge_show(0, hand).verdict == "correct"
    # On a hand that scores, 19 is still no possible count.
    other = judge_show(19, score_hand("2H 4C 8D QS", "3S"))
    assert other.verdict == "overclaim" and other.impossible


def test_a_claim_is_judged_from_0_to_max_claim():
    from cribcam.scoring.muggins import MAX_CLAIM, claim_problem

    assert MAX_CLAIM == 1000
    for good in (0, 19, 29, MAX_CLAIM):
        assert claim_problem(good) is None
    for bad in (-1, -3, MAX_CLAIM + 1, 10**23, True, 12.0, "12", None):
        assert claim_problem(bad) == "must be a whole number of points from 0 to 1000"


def test_a_typed_claim_is_its_number_or_the_text_to_refuse():
    from cribcam.scoring.muggins import typed_claim

    assert [typed_claim(text) for text in ("12", " 0 ", "-3", "1001")] == [12, 0, -3, 1001]
    for text in ("lots", "", "1.5", "9" * 5000):  # thousands of digits: no int() to fail
        assert typed_claim(text) == text


def test_a_show_claimed_as_nineteen_stands_for_nothing():
    from cribcam.scoring.muggins import claimed_show_total

    assert [claimed_show_total(claim) for claim in (19, 0, 12, 29)] == [0, 0, 12, 29]
