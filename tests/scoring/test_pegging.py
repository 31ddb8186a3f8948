import pytest

from cribcam.scoring import CardError, score_play


def test_the_worked_example_comes_out_exactly():
    play = score_play("A:K B:6 A:K B:go A:2 A:2 B:8 B:7 B:9")
    said = [(e.play.player, e.said, e.points) for e in play.events]
    assert said == [
        ("A", "10", 0), ("B", "16", 0), ("A", "26", 0), ("B", "go", 0), ("A", "28", 0),
        ("A", "30 for 3", 3), ("B", "8", 0), ("B", "fifteen two", 2),
        ("B", "24 for 3 and 1 for last", 4),
    ]
    assert play.totals == {"A": 3, "B": 6}


def test_thirty_one_for_two_and_no_go_point():
    play = score_play("A:K B:Q A:A B:K")  # 10, 20, 21, 31
    assert [e.points for e in play.events] == [0, 0, 0, 2]
    assert play.events[-1].said == "31 for 2"  # no extra point for last with 31


def test_pairs_by_rank_only():
    play = score_play("A:7H B:7S A:7C B:7D")
    assert [e.points for e in play.events] == [0, 2, 6, 12 + 1]  # 28 and last


def test_runs_in_any_order_and_broken_runs():
    play = score_play("A:3 B:5 A:4 B:6 A:A")
    # 3,5,4 -> run of 3; 3,5,4,6 -> run of 4 (18); ace breaks it; last card 1
    assert [e.points for e in play.events] == [0, 0, 3, 4, 1]
    play = score_play("A:3 B:3 A:4 B:5")
    # 3-4-5 among the last three (the first 3 breaks nothing), and the count is 15
    assert [e.points for e in play.events] == [0, 2, 0, 3 + 2 + 1]
    play = score_play("A:3 B:4 A:3 B:5")
    assert [e.points for e in play.events] == [0, 0, 0, 3 + 2 + 1]  # 4-3-5 is a run, 3-4-3 not


def test_fifteen_with_a_pair():
    play = score_play("A:5 B:5 A:5")
    assert play.events[1].said == "10 for 2"
    assert play.events[2].said == "fifteen eight and 1 for last"  # 15 for 2, pair royal 6


def test_three_players():
    play = score_play("A:9 B:8 C:7 A:6 B:go C:go A:A")
    # 9,17 ; 24 run 7-8-9 (3); 30 run 6-9 (4); B and C go; A plays the ace: 31 for 2
    assert [e.points for e in play.events] == [0, 0, 3, 4, 0, 0, 2]
    assert play.totals == {"A": 6, "B": 0, "C": 3}


def test_claims_are_judged():
    play = score_play("A:K B:6 A:K B:go A:2 A:2=2 B:8 B:7=2 B:9=5")
    verdicts = [e.verdict.verdict for e in play.events if e.verdict]
    assert verdicts == ["muggins", "correct", "overclaim"]
    assert [i.kind for i in play.events[5].verdict.overlooked] == ["go"]


@pytest.mark.parametrize("turns, message", [
    ("A:K B:X", "'X' is not a card"),
    ("A K", "is not a turn"),
    ("A:5H B:5H", "5H is played 2 times"),
    ("A:5 B:5 A:5 B:5 A:5", "5 cards of rank 5"),
])
def test_bad_turns(turns, message):
    with pytest.raises(CardError, match=message):
        score_play(turns)
