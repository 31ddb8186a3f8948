"""Words said of counts."""

from cribcam.scoring.pegging import Played
from cribcam.scoring.show import Item
from cribcam.scoring.spoken import counted, say_peg


def test_a_count_of_one_is_singular_and_any_other_plural():
    assert [counted(n, "card") for n in (0, 1, 2)] == ["0 cards", "1 card", "2 cards"]
    assert counted(1, "player") == "1 player"
    assert [counted(n, "go", "goes") for n in (1, 2)] == ["1 go", "2 goes"]


def test_a_card_of_the_play_is_said_as_its_count_then_each_score_apart():
    fives = (Played(5), Played(5), Played(5))
    assert say_peg(15, [Item("fifteen", 2, fives), Item("pair", 6, fives), Item("go", 1, ())]) \
        == "15, fifteen for two, pair royal for six, one for the go"
    run = tuple(Played(rank) for rank in (4, 2, 3, 1))
    assert say_peg(31, [Item("thirty-one", 2, run), Item("run", 4, run), Item("last", 1, ())]) \
        == "31, thirty-one for two, run of four for four, one for last"
    assert say_peg(9, []) == "9"
