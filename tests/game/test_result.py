"""The end of a game: lurch, skunk and double skunk, and the tally of a match."""

import pytest

from cribcam.game import Setup, game_result, tally


@pytest.mark.parametrize("target, skunk, loser, kind, games", [
    (121, False, 61, "single game", 1),
    (121, False, 60, "lurch", 2),
    (61, False, 31, "single game", 1),
    (61, False, 30, "lurch", 2),
    (121, True, 91, "single game", 1),
    (121, True, 90, "skunk", 2),
    (121, True, 61, "skunk", 2),
    (121, True, 60, "double skunk", 4),
])
def test_how_a_loser_loses(target, skunk, loser, kind, games):
    result = game_result(Setup(("A", "B"), target=target, skunk=skunk), [target, loser], 0)
    assert [(loss.kind, loss.games) for loss in result.losses] == [(kind, games)]
    assert result.games == games


def test_three_handed_losers_are_judged_each_by_his_own_score():
    setup = Setup(("A", "B", "C"), target=61)
    result = game_result(setup, [40, 61, 20], winner=1)
    assert [(loss.side, loss.kind) for loss in result.losses] == [(0, "single game"),
                                                                  (2, "lurch")]
    assert result.as_dict(setup) == {
        "winner": "B", "games": 3, "said": "B wins: 3 games (A 40; C 20: lurch)",
        "losses": [{"side": "A", "score": 40, "kind": "single game", "games": 1},
                   {"side": "C", "score": 20, "kind": "lurch", "games": 2}]}


@pytest.mark.parametrize("target, skunk, loser, said", [
    (121, False, 95, "Ann wins: 1 game (Bob 95)"),
    (121, False, 59, "Ann wins: 2 games (Bob 59: lurch)"),
    (121, True, 80, "Ann wins: 2 games (Bob 80: skunk)"),
    (121, True, 50, "Ann wins: 4 games (Bob 50: double skunk)"),
])
def test_the_result_in_words(target, skunk, loser, said):
    setup = Setup(("Ann", "Bob"), target=target, skunk=skunk)
    assert game_result(setup, [target, loser], 0).said(setup) == said


def test_a_match_tally_adds_the_games_each_side_won():
    setup = Setup(("A", "B"))
    results = [game_result(setup, [121, 70], 0), game_result(setup, [50, 121], 1),
               game_result(setup, [121, 100], 0)]
    assert tally(setup, results) == [2, 2]
