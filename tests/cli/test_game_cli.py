"""`cribcam game`: a game kept from the command line, in a database of the test's own."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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
    status, out, err = run(capsys, "game", "new", "--players", "Ann", "Bob", "--muggins",
                           "--db", db)
    assert status == 0
    game_id = out.strip()  # the id alone on standard output, as ID=$(cribcam game new ...) takes it
    assert len(out.splitlines()) == 1 and err.startswith(f"Game {game_id}\n")
    assert "Ann v Bob (six-card, to 121, muggins)" in err
    # What comes next is hinted as the whole command, this game's id in it.
    assert f"Next: Ann deals (cribcam game add {game_id} deal STARTER)" in err

    _, out, _ = run(capsys, "game", "add", game_id, "deal", "5S", "--db", db)
    assert (f"Next: the play, Bob leads (cribcam game add {game_id} play TURN ...), or its pegs "
            f"as numbers (cribcam game add {game_id} peg PLAYER POINTS); then Bob's hand") in out
    status, out, _ = run(capsys, "game", "add", game_id, "play", "Bob:KS", "Ann:5H", "Bob:3H",
                         "Ann:5C", "Bob:2D", "Ann:5D", "Bob:AC", "Ann:JS", "--db", db)
    assert "  Ann    3  (back peg 2)\n  Bob    2  (back peg 0)" in out
    assert f"Next: Bob's hand (cribcam game add {game_id} show CARD ... --claim N)" in out
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
    (["show", "--claim=-1"], "a claim must be a whole number of points from 0 to 1000, not -1"),
    (["show", "--claim", "x"], "a claim must be a whole number of points from 0 to 1000, not x"),
    (["show", "--claim", "5000"], "a claim must be a whole number of points from 0 to 1000, "
                                  "not 5000"),
    (["peg", "Ann", "-3"], "points are never negative: -3"),
    (["play", "Bob:KS", "Ann:KS"], "the play of this deal is already entered"),
    (["peg", "Ann"], "peg takes a player and points"),
])
def test_bad_entries_are_one_line_errors_and_change_nothing(capsys, db, args, message):
    _, out, _ = run(capsys, "game", "new", "--players", "Ann", "Bob", "--db", db)
    game_id = out.strip()
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

    game_id = cribcam("new", "--players", "3", "--to", "61").stdout.strip()
    cribcam("add", game_id, "deal", "--heels")  # A deals a jack
    for points in ("15", "15", "15", "15", "1"):
        result = cribcam("add", game_id, "peg", "B", points)
    assert result.returncode == 0, result.stderr
    assert "Game over: B reached 61 with the play: B pegs 1" in result.stdout
    assert "B wins: 4 games (A 2: lurch; C 0: lurch)." in result.stdout
    assert "Match: A 0, B 4, C 0" in result.stdout
    result = cribcam("add", game_id, "show", "--claim", "4")
    assert result.returncode == 2
    assert result.stderr.startswith("cribcam game: error: the game is over")
    result = cribcam("next", game_id)
    assert "Next: C deals" in result.stdout  # the lowest score deals the next game
    second = result.stdout.splitlines()[0].removeprefix("Game ")
    assert cribcam("add", second, "deal", "7H").returncode == 0
    result = cribcam("undo", game_id)  # the next game began from this result: it stands
    assert (result.returncode, result.stderr) == (
        2, f"cribcam game: error: game {game_id}'s result stands: the match's next game "
           f"{second} has begun from it; undo in {second} instead\n")
    result = cribcam("show", game_id)
    assert "B wins: 4 games (A 2: lurch; C 0: lurch)." in result.stdout
    assert "Match: A 0, B 4, C 0" in result.stdout
    result = cribcam("show", "nope")
    assert (result.returncode, result.stderr) == (2, "cribcam game: error: no game 'nope'\n")


def test_the_games_kept_are_listed(capsys, db):
    from cribcam.game.store import GameStore

    GameStore(db)  # a database with no games yet
    status, out, _ = run(capsys, "game", "list", "--db", db)
    assert (status, out) == (0, "No games kept yet: start one with cribcam game new --players "
                                "Ann Bob\n")
    ids = []
    for players, variant in ((["Ann", "Bob"], "six-card"), (["Cy", "Di", "Ed"], "six-card"),
                             (["Fay", "Gus"], "five-card")):
        _, out, _ = run(capsys, "game", "new", "--players", *players, "--variant", variant,
                        "--to", "61", "--db", db)
        ids.append(out.strip())
    run(capsys, "game", "add", ids[0], "deal", "--db", db)  # Ann v Bob changed last
    run(capsys, "game", "add", ids[0], "peg", "b", "2", "--db", db)  # b: Bob
    status, out, _ = run(capsys, "game", "list", "--per-page", "2", "--db", db)
    lines = out.splitlines()
    assert lines[0].split() == ["ID", "PLAYERS", "SCORE", "GAME", "STATE", "LAST", "CHANGE",
                                "(UTC)"]
    assert lines[1].startswith(f"{ids[0]}  Ann v Bob") and "0-2" in lines[1]
    assert "deal 1: the play next" in lines[1]
    assert " to 61 " in lines[1] and "five-card" not in lines[1]  # six-card: the usual game
    assert lines[2].startswith(f"{ids[2]}  Fay v Gus") and " to 61, five-card " in lines[2]
    assert lines[-1] == ("Games 1-2 of 3 (page 1 of 2: --page 2 for more). Open one: cribcam "
                         "game show ID")
    status, out, _ = run(capsys, "game", "list", "--page", "2", "--per-page", "2", "--json",
                         "--db", db)
    listing = json.loads(out)
    assert [g["id"] for g in listing["games"]] == [ids[1]]
    assert (listing["page"], listing["pages"], listing["total"]) == (2, 2, 3)
    assert listing["games"][0]["sides"] == [{"name": "Cy", "score": 0}, {"name": "Di", "score": 0},
                                            {"name": "Ed", "score": 0}]
    status, _, err = run(capsys, "game", "list", "--page", "0", "--db", db)
    assert (status, err) == (2, "cribcam game list: error: argument --page: the pages are "
                                "numbered 1, 2, 3...: there is no page 0\n")
    status, _, err = run(capsys, "game", "list", "--per-page", "500", "--db", db)
    assert (status, err) == (2, "cribcam game list: error: argument --per-page: a page lists 1 "
                                "to 100 games, not 500\n")


def test_a_game_that_cannot_be_replayed_is_said_in_the_list_and_deleted(capsys, db):
    from cribcam.game.store import GameStore, entries

    store = GameStore(db)
    _, out, _ = run(capsys, "game", "new", "--players", "Ann", "Bob", "--db", db)
    whole = out.strip()
    _, out, _ = run(capsys, "game", "new", "--players", "Cy", "Di", "--db", db)
    broken = out.strip()
    for game_id, player in ((whole, "Ann"), (broken, "Cy")):
        run(capsys, "game", "add", game_id, "deal", "5S", "--db", db)
        assert run(capsys, "game", "add", game_id, "peg", player, "1", "--db", db)[0] == 0
    with store.engine.begin() as connection:  # its deal lost
        connection.execute(entries.delete().where(entries.c.game_id == broken,
                                                  entries.c.seq == 0))
    status, out, _ = run(capsys, "game", "list", "--db", db)
    lines = out.splitlines()
    assert status == 0 and lines[1].startswith(f"{whole}  Ann v Bob")
    assert lines[-1] == (f"Game {broken} cannot be opened: it cannot be replayed: start a deal "
                         f"first: next is Cy's deal (cribcam game delete {broken} removes it)")
    assert run(capsys, "game", "delete", broken, "--db", db)[:2] == (0, f"Game {broken} deleted.\n")
    status, _, err = run(capsys, "game", "delete", broken, "--db", db)
    assert (status, err) == (2, f"cribcam game: error: no game '{broken}'\n")
    status, out, _ = run(capsys, "game", "list", "--db", db)
    assert "cannot be opened" not in out and "Games 1-1 of 1" in out


def test_the_order_of_play_is_kept_in_a_game_and_by_cribcam_peg(capsys, db):
    status, _, err = run(capsys, "peg", "A:5", "B:5", "A:5", "A:5")  # the example
    assert status == 2
    assert err == ("cribcam peg: error: turn 4 (A:5): it is B's turn, not A's: A plays again "
                   "only after B says go (B:go)\n")
    status, out, _ = run(capsys, "peg", "A:K", "B:K", "A:5", "B:go", "A:5")
    assert status == 0 and "Pegged: A 3, B 2" in out  # after B's go A plays on: 30 for 2 + 1
    _, out, _ = run(capsys, "game", "new", "--players", "Ann", "Bob", "--db", db)
    game_id = out.strip()
    run(capsys, "game", "add", game_id, "deal", "5S", "--db", db)
    status, _, err = run(capsys, "game", "add", game_id, "play", "Bob:KS", "Ann:5H", "Ann:5C",
                         "--db", db)
    assert status == 2 and "turn 3 (Ann:5C): it is Bob's turn, not Ann's" in err
    # the new player's play (issue 45): Ann's KC on 25 means a go, but both held a card that fit
    status, _, err = run(capsys, "game", "add", game_id, "play", "Bob:5H", "Ann:TD", "Bob:JS",
                         "Ann:KC", "Bob:4S", "Ann:6H", "Bob:2C", "Ann:3D", "--db", db)
    assert status == 2 and err.endswith("nobody goes while a card fits: Bob's 4S (turn 5) makes "
                                        "29, Ann's 6H (turn 6) makes 31\n")
    status, _, err = run(capsys, "peg", "A:5", "B:T", "A:J", "B:K", "A:4", "B:6", "A:2", "B:3")
    assert status == 2 and "A's 4 (turn 5) makes 29, B's 6 (turn 6) makes 31" in err
    status, out, _ = run(capsys, "game", "add", game_id, "play", "B:KS", "A:5H", "B:3H", "A:5C",
                         "B:2D", "A:5D", "B:AC", "A:JS", "--db", db)
    assert status == 0 and out.startswith("The play: Bob:KS Ann:5H Bob:3H")


def test_the_winner_stops_in_the_game_hole(capsys, db):
    _, out, _ = run(capsys, "game", "new", "--players", "Ann", "Bob", "--to", "61", "--db", db)
    game_id = out.strip()
    run(capsys, "game", "add", game_id, "deal", "--db", db)
    for points in ("15", "15", "15", "14"):
        run(capsys, "game", "add", game_id, "peg", "Ann", points, "--db", db)
    status, out, _ = run(capsys, "game", "add", game_id, "peg", "Ann", "15", "--db", db)
    assert "  Not scored, the game was over: Ann 13 (the play: Ann pegs 15, past the game " \
           "hole)" in out
    assert "  Ann   61  (back peg 59)" in out
    _, out, _ = run(capsys, "game", "show", game_id, "--db", db)
    assert "not scored, the game was over: Ann 13" in out


def shell(script: str, tmp_path) -> subprocess.CompletedProcess:
    """``script`` run by bash as a user runs it after ``source .venv/bin/activate`` (this
    Python's ``cribcam`` on the PATH), stopping at the first command that fails; the games
    kept in a data folder of the test's own."""
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(tmp_path),
           "CRIBCAM_DATA": str(tmp_path / "data")}
    return subprocess.run(["bash", "-e", "-c", script], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=300)


def test_the_docs_game_runs_as_written(tmp_path):
    # The whole game's reference page (the README links it), its first shell example.
    page = (Path(__file__).resolve().parents[2] / "docs" / "games.md").read_text()
    assert page.startswith("# The whole game\n")
    block = page.split("```sh\n", 1)[1].split("```", 1)[0]
    result = shell(block, tmp_path)
    assert result.returncode == 0, result.stderr
    # The whole first deal: the play held every card, then the three shows.
    assert ("Bob's hand: AC 2D 3H KS — fifteen 2, fifteen 4 and a run of three is 7"
            in result.stdout)
    assert "Ann's crib: 7C 8D TH QC" in result.stdout
    assert "  Ann   23  (back peg 17)\n  Bob    5  (back peg 0)\nNext: Bob deals" in result.stdout
    assert "Ann v Bob  23-5" in result.stdout  # the list


def test_the_helps_example_runs_as_written(capsys, tmp_path):
    with pytest.raises(SystemExit):
        main(["game", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    example = said.split("example (Ann deals, Bob leads the play and shows first): ", 1)[1]
    result = shell(example, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Bob's hand: AC 2D 3H KS" in result.stdout and "Next: Ann's hand" in result.stdout


def test_an_overlong_name_is_not_repeated_whole(capsys, db):
    status, out, err = run(capsys, "game", "new", "--players", "Ann", "x" * 5000, "--db", db)
    assert (status, out) == (2, "")
    assert err == ("cribcam game: error: 'xxxxxxxxxxxxxxxxxxxx…' is not a usable name: 1 to 20 "
                   "printable characters, no spaces, ':' or '='\n")


@pytest.mark.parametrize("command", [["game", "new"], ["game", "list"], ["serve"]])
def test_the_database_help_says_where_the_games_are_kept(capsys, monkeypatch, command):
    """The folder as the program finds it, not a home folder XDG_DATA_HOME may replace."""
    monkeypatch.setenv("XDG_DATA_HOME", "/srv/data")
    with pytest.raises(SystemExit):
        main([*command, "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert ("(default: $CRIBCAM_DB, else games.sqlite3 in the data folder: $CRIBCAM_DATA, else "
            "$XDG_DATA_HOME/cribcam, by default ~/.local/share/cribcam)") in said


def test_a_database_that_cannot_be_used_is_a_one_line_error(capsys, tmp_path):
    garbage = tmp_path / "notadb.sqlite3"
    garbage.write_text("garbage\n")
    afile = tmp_path / "afile"  # where a new game would have to make a folder
    afile.write_text("")
    for url, args, why in [
        *[(f"sqlite:///{garbage}", args, "file is not a database")
          for args in (["list"], ["new", "--players", "Ann", "Bob"], ["show", "G1"])],
        (f"sqlite:///{afile}/x.db", ["new", "--players", "Ann", "Bob"], f"{afile}: File exists"),
    ]:
        status, out, err = run(capsys, "game", *args, "--db", url)
        assert (status, out, err) == (
            2, "", f"cribcam game: error: the games database {url} cannot be used: {why}\n")


def test_a_command_that_reads_makes_no_database(capsys, tmp_path):
    """A mistyped --db is said, and makes no folder and no file; a new game makes them."""
    path = tmp_path / "typo" / "games.sqlite3"
    db = f"sqlite:///{path}"
    for args in (["show", "G1"], ["export", "G1"], ["undo", "G1"], ["next", "G1"],
                 ["add", "G1", "deal", "5S"]):
        status, out, err = run(capsys, "game", *args, "--db", db)
        assert (status, out, err) == (2, "", f"cribcam game: error: no games database at "
                                             f"{path}\n"), args
    status, out, _ = run(capsys, "game", "list", "--db", db)
    assert (status, out) == (0, f"No games kept yet (no games database at {path}): start one "
                                f"with cribcam game new --players Ann Bob\n")
    status, out, _ = run(capsys, "game", "list", "--json", "--db", db)
    assert (status, json.loads(out)) == (0, {"games": [], "unreadable": [], "page": 1,
                                             "per_page": 20, "total": 0, "pages": 1})
    assert not path.parent.exists()
    status, out, _ = run(capsys, "game", "new", "--players", "Ann", "Bob", "--db", db)
    assert status == 0 and path.is_file()
    assert run(capsys, "game", "list", "--db", db)[1].startswith("ID  ")


def test_a_fresh_machine_lists_no_games_and_its_first_game_makes_the_database(
        capsys, monkeypatch, tmp_path):
    monkeypatch.delenv("CRIBCAM_DB", raising=False)
    monkeypatch.delenv("CRIBCAM_DATA", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    status, out, _ = run(capsys, "game", "list")
    assert status == 0 and out.startswith("No games kept yet")
    assert not (tmp_path / "cribcam").exists()
    status, out, _ = run(capsys, "game", "new", "--players", "Ann", "Bob")
    assert status == 0 and (tmp_path / "cribcam" / "games.sqlite3").is_file()
    assert run(capsys, "game", "list")[1].splitlines()[1].startswith(out.strip())
