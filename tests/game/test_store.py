"""Saved games, on a SQLite file and on a real PostgreSQL server."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
from sqlalchemy import text, update

from cribcam.game import GameError, Setup, replay
from cribcam.game.store import (SCHEMA_VERSION, GameNotFound, GameStore, StoreError,
                                default_url, schema_version)
from cribcam.scoring import CardError

DEAL = {"type": "deal", "starter": "5S"}
PLAY = {"type": "play", "turns": "B:KS A:5H B:3H A:5C B:2D A:5D B:AC A:JS"}


def test_a_game_is_saved_entry_by_entry_and_survives_a_restart(database_url):
    store = GameStore(database_url)
    game_id = store.create(Setup(("A", "B"), muggins=True))
    store.add(game_id, DEAL)
    assert store.add(game_id, PLAY).scores == [3, 2]
    store.engine.dispose()

    restarted = GameStore(database_url)  # a new server on the same database
    game = restarted.add(game_id, {"type": "show", "cards": ["AC", "2D", "3H", "KS"], "claim": 5})
    assert game.scores == [5, 7]  # 2 overlooked: muggins to A
    assert restarted.state(game_id)["next"] == {"step": "show", "player": "A", "crib": False}
    assert restarted.undo(game_id).scores == [3, 2]
    assert restarted.game(game_id).scores == [3, 2]


def test_an_entry_in_the_middle_is_undone_and_the_log_renumbered(database_url):
    store = GameStore(database_url)
    game_id = store.create(Setup(("A", "B")))
    for entry in (DEAL, {"type": "irregularity", "player": "B", "kind": "peg"}, PLAY):
        store.add(game_id, entry)
    assert store.game(game_id).scores == [5, 2]
    with pytest.raises(GameError, match="entry 1 cannot be undone on its own"):
        store.undo(game_id, 1)
    assert store.undo(game_id, 2).scores == [3, 2]
    assert store.add(game_id, {"type": "show", "claim": 7}).scores == [3, 9]
    assert [entry["type"] for entry in store.export(game_id)["entries"]] == ["deal", "play",
                                                                             "show"]


def test_a_refused_entry_leaves_the_saved_game_unchanged(database_url):
    store = GameStore(database_url)
    game_id = store.create(Setup(("A", "B")))
    store.add(game_id, DEAL)
    store.add(game_id, PLAY)
    before = store.export(game_id)
    for entry, error in [
        ({"type": "play", "turns": "B:KS A:KS"}, GameError),  # the play is already entered
        ({"type": "show", "cards": ["AC", "2D", "3H", "5H"]}, GameError),  # A played 5H
        ({"type": "show", "claim": -1}, GameError),
        ({"type": "show", "claim": "lots"}, GameError),
        ({"type": "show", "cards": ["AC", "2D", "3H", "XX"]}, CardError),
    ]:
        with pytest.raises(error):
            store.add(game_id, entry)
    assert store.export(game_id) == before


def test_export_is_the_setup_and_log_that_replay_to_the_state(database_url):
    store = GameStore(database_url)
    game_id = store.create(Setup(("A", "B"), target=61))
    store.add(game_id, DEAL)
    store.add(game_id, PLAY)
    exported = json.loads(json.dumps(store.export(game_id)))
    assert exported["format"] == "cribcam game" and exported["schema"] == SCHEMA_VERSION
    assert exported["entries"] == [{"type": "deal", "starter": "5S", "heels": False},
                                   {"type": "play", "turns": PLAY["turns"].split()}]
    game = replay(Setup.from_dict(exported["setup"]), exported["entries"])
    assert game.as_dict() == exported["state"]


def test_a_match_tallies_its_games_and_the_loser_deals_the_next(database_url):
    store = GameStore(database_url)
    first = store.create(Setup(("A", "B"), target=61))
    with pytest.raises(GameError, match="not over yet"):
        store.next_game(first)
    store.add(first, DEAL)
    for _ in range(4):
        store.add(first, {"type": "peg", "player": "A", "points": 15})
    store.add(first, {"type": "peg", "player": "B", "points": 12})
    assert store.add(first, {"type": "peg", "player": "A", "points": 1}).scores == [61, 12]
    second = store.next_game(first)
    state = store.state(second)
    assert state["setup"]["first_dealer"] == "B"
    assert state["match"]["games"] == [first, second]
    assert state["match"]["tally"] == [{"side": "A", "games": 2}, {"side": "B", "games": 0}]
    assert store.next_game(first) == second  # pressed twice: still one next game
    assert store.state(second)["match"]["games"] == [first, second]


def test_a_killed_writer_leaves_every_game_whole(database_url):
    store = GameStore(database_url)
    game_id = store.create(Setup(("A", "B")))
    store.add(game_id, DEAL)
    writer = subprocess.Popen([sys.executable, "-c", f"""
from cribcam.game.store import GameStore
store = GameStore({database_url!r})
print("ready", flush=True)
while True:
    for player in "AB":
        store.add({game_id!r}, {{"type": "peg", "player": player, "points": 1}})
"""], stdout=subprocess.PIPE, text=True)
    assert writer.stdout.readline() == "ready\n"
    time.sleep(0.5)
    writer.kill()  # SIGKILL, mid-write more often than not
    writer.wait()
    game = GameStore(database_url).game(game_id)
    pegs = len(game.log) - 1
    assert pegs > 0
    assert sum(game.scores) == pegs
    if database_url.startswith("sqlite"):
        with store.engine.connect() as connection:
            assert connection.execute(text("PRAGMA integrity_check")).scalar() == "ok"


def test_the_schema_is_versioned(database_url):
    store = GameStore(database_url)
    with store.engine.begin() as connection:
        assert connection.execute(schema_version.select()).scalar_one() == SCHEMA_VERSION
        connection.execute(update(schema_version).values(version=SCHEMA_VERSION + 1))
    store.engine.dispose()
    with pytest.raises(StoreError, match="newer than this cribcam's"):
        GameStore(database_url)


def test_an_unknown_game(database_url):
    store = GameStore(database_url)
    for call in (store.game, store.undo, store.export, store.state):
        with pytest.raises(GameNotFound, match="no game 'nope'"):
            call("nope")


def test_the_default_database_is_in_the_users_data_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("CRIBCAM_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_url() == f"sqlite:///{tmp_path}/cribcam/games.sqlite3"
    GameStore()
    assert (tmp_path / "cribcam" / "games.sqlite3").is_file()
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_url() == f"sqlite:///{tmp_path}/.local/share/cribcam/games.sqlite3"
    monkeypatch.setenv("CRIBCAM_DB", "sqlite:///elsewhere.sqlite3")
    assert default_url() == "sqlite:///elsewhere.sqlite3"


@pytest.mark.parametrize("url, message", [
    ("not a url", "is not a database URL"),
    ("oracle://scott@host/db", "cannot use|no driver"),
])
def test_a_bad_database_url(url, message):
    with pytest.raises(StoreError, match=message):
        GameStore(url)
