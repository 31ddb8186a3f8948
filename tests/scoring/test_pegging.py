import pytest

from cribcam.scoring import CardError, score_play
from cribcam.scoring.pegging import TurnError


def test_the_worked_example_comes_out_exactly():
    play = score_play("A:K B:6 A:K B:go A:2 A:2 B:8 B:7 B:9")
    said = [(e.play.player, e.said, e.points) for e in play.events]
    assert said == [
        ("A", "10", 0), ("B", "16", 0), ("A", "26", 0), ("B", "go", 0), ("A", "28", 0),
        ("A", "30, a pair for two, one for the go", 3), ("B", "8", 0),
        ("B", "15, fifteen for two", 2), ("B", "24, run of three for three, one for last", 4),
    ]
    assert play.totals == {"A": 3, "B": 6}


def test_thirty_one_for_two_and_no_go_point():
    play = score_play("A:K B:Q A:A B:K")  # 10, 20, 21, 31
    assert [e.points for e in play.events] == [0, 0, 0, 2]
    assert play.events[-1].said == "31, thirty-one for two"  # no extra point for last with 31


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
    assert play.events[1].said == "10, a pair for two"
    assert play.events[2].said == "15, fifteen for two, pair royal for six, one for last"


def test_each_score_of_a_card_is_said_apart_the_go_too():
    # The run of three and the go it earns were said "30 for 4", and a fifteen with a run of
    # three "fifteen 5", as no player says them.
    play = score_play("A:K B:Q A:J B:go A:go")
    assert play.events[2].said == "30, run of three for three, one for the go"
    assert play.events[2].points == 4
    play = score_play("A:4 B:5 A:6")
    assert play.events[2].said == "15, fifteen for two, run of three for three, one for last"


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
    ("A:5=-3", "'A:5=-3': a claim must be a whole number of points from 0 to 1000, not -3"),
    ("A:5=1001", "'A:5=1001': a claim must be a whole number of points from 0 to 1000, not 1001"),
    ("A:5=99999999999999999999", "a claim must be a whole number of points from 0 to 1000"),
    ("A:5=two", "'A:5=two': a claim must be a whole number of points from 0 to 1000, not two"),
    ("A:5H B:5H", "5H is played 2 times"),
    ("A:5 B:5 A:5 B:5 A:5", "5 cards of rank 5"),
])
def test_bad_turns(turns, message):
    with pytest.raises(CardError, match=message):
        score_play(turns)


# ---- the order of play ---------------------------------------------------------------------

@pytest.mark.parametrize("turns, message", [
    # the case: A plays twice without B's go
    ("A:5 B:5 A:5 A:5", "turn 4 (A:5): it is B's turn, not A's: A plays again only after B "
                        "says go (B:go)"),
    ("A:K B:K C:5 A:go B:go C:2 B:9", "turn 7 (B:9): it is C's turn, not B's: B said go, and plays "
                             "again only when the count starts afresh"),
    ("A:K B:K A:K A:go", "turn 4 (A:go): it is B's turn, not A's: A says go only on his own "
                         "turn"),
    ("A:K B:K C:K A:go B:5", "turn 5 (B:5): B cannot play a 5 on 30, it would pass 31: B says "
                             "go (B:go)"),
    ("A:K B:K A:K A:5", "turn 4 (A:5): it is B's turn, not A's"),
    ("A:K B:K A:9 A:J", "turn 4 (A:J): it is B's turn, not A's: A plays again only after B says go (B:go) "
                        "(and on 29 it would pass 31)"),  # the card named once, in the turn
    ("A:K B:go", "turn 2 (B:go): B cannot say go on 10: any card fits under 31"),
    ("A:A B:2 A:3 B:4 A:5 B:6 A:7 B:go A:8", "turn 9 (A:8): A has played all 4 of his cards"),
    ("A:K B:6 A:K B:go A:2 A:2 B:8 B:7 B:9 A:3", "the play is over, every card is played"),
    ("A:5 A:5", "every turn is A's: the players take turns"),
    # a go while holding a card that fits, said or meant by a card that would pass 31
    ("A:K B:K A:5 B:go A:5 A:go B:A", "turn 4 (B:go): B cannot say go on 25 while a card fits: "
                                      "B's A (turn 7) makes 26"),
    # the new player's play (issue 45): at 25 Ann's KC passes 31, but she and Bob held cards
    # that fit, so neither went go and Bob pegs no go point
    ("Bob:5H Ann:TD Bob:JS Ann:KC Bob:4S Ann:6H Bob:2C Ann:3D",
     "turn 4 (Ann:KC): on 25 it would pass 31, so it would lead after everybody went go; but "
     "nobody goes while a card fits: Bob's 4S (turn 5) makes 29, Ann's 6H (turn 6) makes 31"),
    ("A:5 B:T A:J B:K A:4 B:6 A:2 B:3", "turn 4 (B:K): on 25 it would pass 31"),
])
def test_a_turn_out_of_order_is_refused_naming_whose_turn_it_is(turns, message):
    with pytest.raises(TurnError) as caught:
        score_play(turns)
    assert message in str(caught.value)


def test_after_a_go_the_other_plays_on_and_the_next_count_starts_after_him():
    play = score_play("A:K B:K A:5 B:go A:5 A:go B:7 A:J B:8 B:9")
    # 10, 20, 25; B go (his 7, 8 and 9 pass 31); A 30 (a pair); A cannot play on: 1 for the
    # go; B, on his left, leads; A's hand is played out after his jack, so B plays on alone:
    # his 9 would pass 31 on 25, so he goes, pegs 1 for it, leads the 9 and pegs 1 for last
    assert [(e.play.player, e.count, e.points) for e in play.events] == [
        ("A", 10, 0), ("B", 20, 2), ("A", 25, 0), ("B", 25, 0), ("A", 30, 3), ("A", 30, 0),
        ("B", 7, 0), ("A", 17, 0), ("B", 25, 1), ("B", 9, 1)]


def test_a_card_that_would_pass_31_leads_the_next_count_when_nobody_could_play():
    # 30, then B's 5: B went go and A could not play, so A pegs the go and B leads
    play = score_play("A:K B:K A:K B:5 A:5")
    assert [(e.play.player, e.count, e.points) for e in play.events] == [
        ("A", 10, 0), ("B", 20, 2), ("A", 30, 7), ("B", 5, 0), ("A", 10, 3)]


def test_after_31_the_player_on_the_left_of_the_last_leads():
    play = score_play("A:K B:K C:A D:K A:5", players=["A", "B", "C", "D"])  # D's 31: A leads
    assert [(e.count, e.points) for e in play.events][-2:] == [(31, 2), (5, 1)]
    with pytest.raises(TurnError, match="turn 5 \\(B:5\\): it is A's turn, not B's"):
        score_play("A:K B:K C:A D:K B:5", players=["A", "B", "C", "D"])


def test_the_seating_and_the_leader_can_be_given():
    with pytest.raises(TurnError, match="turn 1 \\(A:5\\): it is B's turn, not A's: B leads"):
        score_play("A:5 B:5", players=["B", "A"])
    with pytest.raises(TurnError, match="'C' is not one of the players \\(A, B\\)"):
        score_play("A:5 C:5", players=["A", "B"])
    # three players in seating order A, B, C: B went go and is passed over
    play = score_play("A:9 B:8 C:7 A:6 B:go C:go A:A", players=["A", "B", "C"])
    assert play.totals == {"A": 6, "B": 0, "C": 3}


def test_a_player_with_no_card_left_is_passed_over():
    # five-card cribbage, three cards each: B's last card pegs the go, as A went go and B's
    # hand is played out; A leads the next count and plays on alone
    play = score_play("B:K A:K B:5 A:go B:A A:9 A:8", hand_size=3)
    assert [e.points for e in play.events] == [0, 2, 0, 0, 1, 0, 1]
    assert [i.kind for i in play.events[4].items] == ["go"]
    assert play.events[-1].said == "17, one for last"
    with pytest.raises(TurnError, match="turn 7 \\(B:2\\): B has played all 3 of his cards"):
        score_play("B:K A:K B:5 A:go B:A A:9 B:2", hand_size=3)
