"""The play watched as it happens: scripted sequences of cards laid and goes said, no images."""

import pytest

from cribcam.game.table_play import PlayRefused, TablePlay
from cribcam.scoring.pegging import score_play


def play(*steps, players=("Ann", "Bob"), dealer="Bob", hand_size=4):
    """Plays ``steps`` ("Ann:5H", "Bob:go") in order; returns the table and each announcement."""
    table = TablePlay(list(players), dealer, hand_size)
    said = []
    for step in steps:
        player, card = step.split(":")
        said.append(table.go(player) if card == "go" else table.lay(player, card))
    return table, said


def test_the_pone_leads_and_each_card_says_the_count_and_its_pegs():
    table, said = play("Ann:5H", "Bob:TD", "Ann:5S", "Bob:5C")
    assert [s.said for s in said] == ["5", "15, fifteen for two", "20", "25, a pair for two"]
    assert [s.points for s in said] == [0, 2, 0, 2]
    assert [s.next_player for s in said] == ["Bob", "Ann", "Bob", "Ann"]
    assert table.totals == {"Ann": 0, "Bob": 4}


def test_thirty_one_pair_royal_and_a_run_are_said_as_a_player_says_them():
    _, said = play("Ann:7H", "Bob:7D", "Ann:7S", "Bob:KC", "Ann:QH")  # 7 14 21 31: then a new count
    assert said[2].said == "21, pair royal for six" and said[2].points == 6
    assert said[3].said == "31, thirty-one for two"
    assert said[4].said == "10" and said[4].player == "Ann"  # after a 31 the next player leads
    _, said = play("Ann:3H", "Bob:5D", "Ann:4S")
    assert said[2].said == "12, run of three for three"


def test_a_go_gives_the_last_card_one_for_the_go_and_the_last_card_pegs_one_for_last():
    # 29: both go, holding no card that fits, and Ann had the last card
    table, said = play("Ann:KH", "Bob:QD", "Ann:9S", "Bob:go", "Ann:go",
                       "Bob:3D", "Ann:5C", "Bob:4D", "Ann:6C", "Bob:KC")
    assert said[3].said == "go" and said[3].pegged == {}
    assert said[4].said == "go: one for the go to Ann" and said[4].pegged == {"Ann": 1}
    assert said[5].said == "3" and said[5].player == "Bob"  # Bob, on Ann's left, leads the next count
    assert said[7].said == "12, run of three for three"
    assert said[-1].said == "28, one for last" and said[-1].next_player is None
    written = score_play(["Ann:KH", "Bob:QD", "Ann:9S", "Bob:go", "Ann:go", "Bob:3D", "Ann:5C",
                          "Bob:4D", "Ann:6C", "Bob:KC"], ["Ann", "Bob"])
    assert table.totals == written.totals  # the same rules as a play written out
    # and the same words, but that a written play says the go with the card that earned it
    assert [e.said for e in written.events] == [
        "10", "20", "29, one for the go", "go", "go", "3", "8", "12, run of three for three",
        "18, run of four for four", "28, one for last"]
    assert [s.said for s in said][5:] == [e.said for e in written.events][5:]


@pytest.mark.parametrize("steps,words", [
    (["Bob:5H"], "it is Ann's turn, not Bob's: Ann leads"),
    (["Ann:5H", "Ann:6H"], "it is Bob's turn, not Ann's"),
    (["Ann:KH", "Bob:QD", "Ann:9S", "Bob:5C"], "that makes 34: Bob says go"),
    (["Ann:5H", "Bob:5H"], "it is on the table already: a deck has one"),  # the card goes beside it
    (["Ann:KH", "Bob:QD", "Ann:9S", "Ann:JC"],  # the card not named again in another form ("J♣: ... a JC")
     "it is Bob's turn, not Ann's: Ann plays again only after Bob says go (and on 29 it would pass 31)"),
    (["Ann:5H", "Bob:go"], "Bob cannot say go on 5: any card fits under 31, so Bob plays one"),
    (["Ann:ZZ"], "'ZZ' is not a card"),
    (["Cat:5H"], "'Cat' is not one of the players"),
])
def test_a_move_the_rules_refuse_is_explained_and_changes_nothing(steps, words):
    table = TablePlay(["Ann", "Bob"], "Bob")
    *before, last = steps
    for step in before:
        player, card = step.split(":")
        table.go(player) if card == "go" else table.lay(player, card)
    count, turn, steps_taken = table.count, table.turn, len(table.steps)
    player, card = last.split(":")
    with pytest.raises(PlayRefused, match="^" + words.replace("(", r"\(").replace(")", r"\)")):
        table.go(player) if card == "go" else table.lay(player, card)
    assert (table.count, table.turn, len(table.steps)) == (count, turn, steps_taken)


def test_three_players_play_in_seating_order_from_the_dealers_left():
    table, said = play("Cat:5H", "Ann:5D", "Bob:5S", players=("Ann", "Bob", "Cat"), dealer="Bob", hand_size=3)
    assert [s.said for s in said] == ["5", "10, a pair for two", "15, fifteen for two, pair royal for six"]
    assert said[-1].as_dict() == {"player": "Bob", "card": "5S", "count": 15, "points": 8,
                                  "said": "15, fifteen for two, pair royal for six", "pegged": {"Bob": 8},
                                  "next": "Cat"}
    assert table.lay("Cat", "KH").said == "25" and table.turn == "Ann"


def test_the_players_and_dealer_must_make_a_table():
    with pytest.raises(ValueError, match="two players or more"):
        TablePlay(["Ann"], "Ann")
    with pytest.raises(ValueError, match="each named once, not none$"):  # said, not cut off
        TablePlay([], "Ann")
    with pytest.raises(ValueError, match="the dealer 'Dan' is not one of the players"):
        TablePlay(["Ann", "Bob"], "Dan")


def test_a_card_misread_is_named_and_the_play_pegged_anew():
    table, _ = play("Ann:6H", "Bob:5D", "Ann:4S")  # the 6H was a 9H
    fixed = table.corrected("6H", "9h")
    assert [s.said for s in table.steps] == ["6", "11", "15, fifteen for two, run of three for three"]
    assert [s.said for s in fixed.steps] == ["9", "14", "18"] and fixed.turn == "Bob"
    assert fixed.totals == {"Ann": 0, "Bob": 0} and table.totals == {"Ann": 5, "Bob": 0}
    with pytest.raises(PlayRefused, match="the 7C was not laid"):
        table.corrected("7C", "8C")
    with pytest.raises(PlayRefused, match="the 6H cannot be the 5D: it is on the table already"):
        table.corrected("6H", "5D")
    thirty_one, _ = play("Ann:KH", "Bob:QD", "Ann:AS", "Bob:KC")
    with pytest.raises(PlayRefused, match="the AS cannot be the 2S: that makes 32: Bob says go"):
        thirty_one.corrected("AS", "2S")
