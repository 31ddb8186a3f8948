"""Players, sides and the choices a game is set up with."""

import pytest

from cribcam.game import GameError, Setup


def test_sides_for_each_number_of_players():
    assert Setup.for_count(2).sides == (("A",), ("B",))
    assert Setup.for_count(3).sides == (("A",), ("B",), ("C",))
    assert Setup.for_count(4).sides == (("A", "C"), ("B", "D"))  # partners sit opposite
    six = Setup.for_count(6)
    assert six.sides == (("A", "C", "E"), ("B", "D", "F"))  # teams sit alternately
    assert [six.side_name(i) for i in range(2)] == ["A & C & E", "B & D & F"]


def test_the_next_opponent_sits_to_the_left():
    assert Setup.for_count(3).next_opponent("C") == "A"
    assert Setup.for_count(4).next_opponent("D") == "A"
    assert Setup.for_count(2).left_of("B") == "A"


def test_a_setup_round_trips_through_its_dict():
    setup = Setup(("Ann", "Bob"), target=61, muggins=True, first_dealer="Bob")
    assert Setup.from_dict(setup.as_dict()) == setup
    assert Setup(("Ann", "Bob")).first_dealer == "Ann"


@pytest.mark.parametrize("players, options, message", [
    (("A",), {}, "1 player:"),
    (("A", "B", "C", "D", "E"), {}, "5 players"),
    (("A", "A"), {}, "the same name"),
    (("A", "B C"), {}, "'B C' is not a usable name"),
    (("A", "B:"), {}, "is not a usable name"),
    (("A", "B"), {"target": 100}, "121 or 61, not 100"),
    (("A", "B"), {"skunk": True, "target": 61}, "skunk variation is played to 121"),
    (("A", "B", "C"), {"variant": "five-card"}, "five-card cribbage is a game for two"),
    (("A", "B"), {"variant": "seven-card"}, "unknown variant"),
    (("A", "B"), {"first_dealer": "Z"}, "the first dealer 'Z' is not one of the players"),
])
def test_impossible_setups_are_refused(players, options, message):
    with pytest.raises(GameError, match=message):
        Setup(players, **options)


@pytest.mark.parametrize("count", [1, 5, 7])
def test_a_wrong_number_of_players_is_said_alike_for_names_and_for_a_count(count):
    with pytest.raises(GameError) as by_names:
        Setup(tuple("ABCDEFG"[:count]))
    with pytest.raises(GameError) as by_count:
        Setup.for_count(count)
    assert str(by_names.value) == str(by_count.value) == (
        f"{count} player{'s' if count > 1 else ''}: cribbage is played by 2, 3, 4 (two "
        f"partnerships) or 6 (two teams of three)")


def test_an_overlong_name_is_refused_without_repeating_it_all():
    pasted = "x" * 5000
    with pytest.raises(GameError) as refused:
        Setup(("Ann", pasted))
    assert str(refused.value) == ("'xxxxxxxxxxxxxxxxxxxx…' is not a usable name: 1 to 20 "
                                  "printable characters, no spaces, ':' or '='")
    with pytest.raises(GameError) as refused:
        Setup(("Ann", "Bob")).player(pasted)
    assert str(refused.value) == "'xxxxxxxxxxxxxxxxxxxx…' is not a player of this game (Ann, Bob)"
    with pytest.raises(GameError, match="^'Bo b' is not a usable name"):  # short: said whole
        Setup(("Ann", "Bo b"))


def test_the_usual_length_of_a_game():
    assert Setup(("A", "B")).target == 121
    assert Setup(("A", "B"), variant="five-card").target == 61
    assert Setup(("A", "B"), target=61).target == 61
