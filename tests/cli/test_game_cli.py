"""`cribcam game`: a game kept from the command line, in a database of the test's own."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cribcam.cli.main import main


@pytest.fixture
def db(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'games.sqlite3'}"


def run(capsys, *args) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def test_a_deal_from_the_command_line(capsys, db):
    status, out, _ = run(capsys, "game", "new", "--players", "Ann", "Bob", "--muggins",
                         "--db", db)
    assert status == 0
    game_id = out.split()[1]
    assert "Ann v Bob (six-card, to 121, muggins)" in out
    assert "Next: Ann deals" in out

    run(capsys, "game", "add", game_id, "deal", "5S", "--db", db)
    status, out, _ = run(capsys, "game", "add", game_id, "play", "Bob:KS", "Ann:5H", "Bob:3H",
                         "Ann:5C", "Bob:2D", "Ann:5D", "Bob:AC", "Ann:JS", "--db", db)
    assert "  Ann    3  (back peg 2)\n  Bob    2  (back peg 0)" in out
    status, out, _ = run(capsys, "game", "add", game_id, "show", "AC", "2D", "3H", "KS",
                         "--claim", "5", "--db", db)
    assert status == 0
    assert "Bob: Muggins: 2 points overlooked" in out
    assert "  Ann    5" in out and "  Bob    7" in out

    status, out, _ = run(capsys, "game", "undo", game_id, "--db", db)
    assert "  Bob    2  (back peg 0)" in out and "Next: Bob's hand" in out
    status, _, err = run(capsys, "game", "undo", game_id, "--entry", "1", "--db", db)
    assert status == 2 and "entry 1 cannot be undone on its own" in err
    status, out, _ = run(capsys, "game", "show", game_id, "--json", "--db", db)
    state = json.loads(out)
    assert [side["score"] for side in state["sides"]] == [3, 2] and len(state["log"]) == 2

    status, out, _ = run(capsys, "game", "export", game_id, "--db", db)
    assert json.loads(out)["entries"][0] == {"type": "deal", "starter": "5S", "heels": False}


@pytest.mark.parametrize("args, message", [
    (["show", "AC", "2D", "3H", "5D"], "5D was played by Ann; it cannot be in Bob's hand"),
    (["show", "--claim=-1"], '"claim" is -1: points are never negative'),
    (["show", "--claim", "x"], "\"claim\" must be a whole number of points, not 'x'"),
    (["play", "Bob:KS", "Ann:KS"], "the play of this deal is already entered"),
    (["peg", "Ann"], "peg takes a player and points"),
])
def test_bad_entries_are_one_line_errors_and_change_nothing(capsys, db, args, message):
    _, out, _ = run(capsys, "game", "new", "--players", "Ann", "Bob", "--db", db)
    game_id = out.split()[1]
    run(capsys, "game", "add", game_id, "deal", "5S", "--db", db)
    run(capsys, "game", "add", game_id, "play", "Bob:KS", "Ann:5H", "Bob:3H", "Ann:5C",
        "Bob:2D", "Ann:5D", "Bob:AC", "Ann:JS", "--db", db)
    _, before, _ = run(capsys, "game", "export", game_id, "--db", db)
    status, _, err = run(capsys, "game", "add", game_id, *args, "--db", db)
    assert status == 2
    assert err.startswith(f"cribcam game: error: {message}") and err.count("\n") == 1
    assert run(capsys, "game", "export", game_id, "--db", db)[1] == before


def test_a_game_to_the_end_and_the_next_game_in_a_real_process(tmp_path, db):
    def cribcam(*args):
        return subprocess.run([sys.executable, "-m", "cribcam", "game", *args, "--db", db],
                              capture_output=True, text=True, timeout=120)

    game_id = cribcam("new", "--players", "3", "--to", "61").stdout.split()[1]
    cribcam("add", game_id, "deal", "--heels")  # A deals a jack
    for points in ("15", "15", "15", "15", "1"):
        result = cribcam("add", game_id, "peg", "B", points)
    assert result.returncode == 0, result.stderr
    assert "Game over: B reached 61 with the play: B pegs 1" in result.stdout
    assert "B wins (A lurch; C lurch: 4 games)" in result.stdout
    assert "Match: A 0, B 4, C 0" in result.stdout
    result = cribcam("add", game_id, "show", "--claim", "4")
    assert result.returncode == 2
    assert result.stderr.startswith("cribcam game: error: the game is over")
    result = cribcam("next", game_id)
    assert "Next: C deals" in result.stdout  # the lowest score deals the next game
    result = cribcam("show", "nope")
    assert (result.returncode, result.stderr) == (2, "cribcam game: error: no game 'nope'\n")
