"""Words said of counts."""

from cribcam.scoring.spoken import counted


def test_a_count_of_one_is_singular_and_any_other_plural():
    assert [counted(n, "card") for n in (0, 1, 2)] == ["0 cards", "1 card", "2 cards"]
    assert counted(1, "player") == "1 player"
    assert [counted(n, "go", "goes") for n in (1, 2)] == ["1 go", "2 goes"]
