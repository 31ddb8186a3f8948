"""Saved games, on a SQLite file and on a real PostgreSQL server."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from datetime import datetime, timezone

import pytest
from sqlalchemy import insert, text, update

from cribcam.game import GameError, Setup, replay
from cribcam.game.store import (
    SCHEMA_VERSION,
    GameConflict,
    GameNotFound,
    GameStore,
    NoDatabase,
    StoreError,
    entries,
    schema_version,
)
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

    # The next game has begun from the first's result: that result stands.
    store.add(second, {"type": "deal", "starter": "7H"})
    before = store.export(first)
    for number in (None, 2):
        with pytest.raises(GameError, match=f"^game {first}'s result stands: the match's next "
                                            f"game {second} has begun from it; undo in "
                                            f"{second} instead$"):
            store.undo(first, number)
    assert store.export(first) == before
    assert store.state(second)["match"]["tally"] == [{"side": "A", "games": 2},
                                                     {"side": "B", "games": 0}]
    assert store.undo(second).log == []  # the game in play undoes as ever
    with pytest.raises(GameError, match=f"has begun from it; delete {second} first$"):
        store.delete(first)
    store.delete(second)
    assert store.state(first)["match"]["games"] == [first]
    store.delete(first)  # the match's only game: the match goes with it
    assert store.games()["total"] == 0
    with pytest.raises(GameNotFound):
        store.delete(first)


def test_a_killed_writer_leaves_every_game_whole(database_url):
    store = GameStore(database_url)
    game_id = store.create(Setup(("A", "B")))
    store.add(game_id, DEAL)
    writer = subprocess.Popen([sys.executable, "-c", f"""
from cribcam.game.store import GameStore
store = GameStore({database_url!r})
while True:
    for player in "AB":
        store.add({game_id!r}, {{"type": "peg", "player": player, "points": 1}})
        print("added", flush=True)
"""], stdout=subprocess.PIPE, text=True)
    acknowledged = 0
    while acknowledged < 20:  # a score of entries saved, said one by one
        assert writer.stdout.readline() == "added\n", "the writer ended before 20 entries were saved"
        acknowledged += 1
    writer.kill()  # SIGKILL, while it writes the next ones: mid-write more often than not
    acknowledged += writer.stdout.read().count("added\n")  # said before the kill, not yet read
    writer.wait()
    game = GameStore(database_url).game(game_id)
    pegs = len(game.log) - 1
    # Every entry said to be saved is kept; one more at most, saved but killed before it was said.
    assert acknowledged <= pegs <= acknowledged + 1, (acknowledged, pegs)
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


def test_the_default_database_is_made_in_the_users_data_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("CRIBCAM_DB", raising=False)
    monkeypatch.delenv("CRIBCAM_DATA", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    GameStore()
    assert (tmp_path / "cribcam" / "games.sqlite3").is_file()


@pytest.mark.parametrize("url, message", [
    ("not a url", "is not a database URL"),
    ("oracle://scott@host/db", "no driver for oracle"),
])
def test_a_bad_database_url(url, message):
    with pytest.raises(StoreError, match=message):
        GameStore(url)


def test_a_database_that_cannot_be_used_is_a_store_error(tmp_path):
    garbage = tmp_path / "notadb.sqlite3"
    garbage.write_text("garbage\n")
    with pytest.raises(StoreError) as raised:
        GameStore(f"sqlite:///{garbage}")
    assert str(raised.value) == (f"the games database sqlite:///{garbage} cannot be used: "
                                 f"file is not a database")
    assert garbage.read_text() == "garbage\n"
    afile = tmp_path / "afile"  # where the database's folder would be made
    afile.write_text("")
    with pytest.raises(StoreError, match=f"^the games database sqlite:///{afile}/x.db cannot "
                                         f"be used: {afile}: File exists$"):
        GameStore(f"sqlite:///{afile}/x.db")


def test_only_a_store_that_may_create_makes_the_database(tmp_path):
    path = tmp_path / "typo" / "games.sqlite3"
    with pytest.raises(NoDatabase, match=f"^no games database at {path}$"):
        GameStore(f"sqlite:///{path}", create=False)
    assert not path.parent.exists()
    game_id = GameStore(f"sqlite:///{path}").create(Setup(("A", "B")))
    assert GameStore(f"sqlite:///{path}", create=False).game(game_id).setup.players == ("A", "B")


def test_the_games_kept_are_listed_the_last_changed_first(database_url):
    store = GameStore(database_url)
    assert store.games() == {"games": [], "unreadable": [], "total": 0}
    first = store.create(Setup(("Ann", "Bob"), target=61))
    second = store.create(Setup(("A", "B", "C")))
    store.add(first, DEAL)  # the first game changes last: it comes first
    store.add(first, {"type": "peg", "player": "B", "points": 3})
    listed = store.games()
    assert listed["total"] == 2 and [g["id"] for g in listed["games"]] == [first, second]
    ann_bob = listed["games"][0]
    assert {key: ann_bob[key] for key in ("players", "sides", "target", "over", "winner",
                                          "entries", "status", "number")} == {
        "players": ["Ann", "Bob"], "sides": [{"name": "Ann", "score": 0},
                                             {"name": "Bob", "score": 3}],
        "target": 61, "over": False, "winner": None, "entries": 2,
        "status": "deal 1: the play next", "number": 1}
    assert ann_bob["changed"] >= ann_bob["created"]
    assert ann_bob["changed"].endswith("+00:00")
    assert listed["games"][1]["status"] == "not started"

    store.add(second, DEAL)
    assert [g["id"] for g in store.games()["games"]] == [second, first]
    assert [g["id"] for g in store.games(limit=1, offset=1)["games"]] == [first]
    assert store.games(limit=5, offset=9) == {"games": [], "unreadable": [], "total": 2}
    store.undo(first)  # an undo is a change too
    assert [g["id"] for g in store.games()["games"]] == [first, second]
    store.add(first, {"type": "peg", "player": "B", "points": 3})

    for points in (15, 15, 15, 15, 1):
        store.add(first, {"type": "peg", "player": "Ann", "points": points})
    over = store.games(limit=1)["games"][0]
    assert (over["id"], over["over"], over["winner"], over["status"]) == (
        first, True, "Ann", "Ann won (lurch)")
    assert over["sides"][0]["score"] == 61


def test_a_database_of_schema_1_gets_the_time_each_game_last_changed(database_url):
    """Games kept before the list of games (schema 1) are listed by their last entry."""
    from datetime import datetime, timezone
    from pathlib import Path

    from sqlalchemy import JSON, Column, DateTime, Integer, MetaData, String, Table, create_engine, insert

    url = database_url
    old = MetaData()
    Table("schema_version", old, Column("version", Integer, nullable=False))
    Table("matches", old, Column("id", String(16), primary_key=True),
          Column("created", DateTime(timezone=True), nullable=False))
    Table("games", old, Column("id", String(16), primary_key=True),
          Column("match_id", String(16), nullable=False), Column("number", Integer),
          Column("setup", JSON, nullable=False),
          Column("created", DateTime(timezone=True), nullable=False))
    Table("entries", old, Column("game_id", String(16), primary_key=True),
          Column("seq", Integer, primary_key=True), Column("entry", JSON, nullable=False),
          Column("created", DateTime(timezone=True), nullable=False))
    if url.startswith("sqlite:///"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    day = [datetime(2026, 11, d, 12, tzinfo=timezone.utc) for d in (1, 2, 3, 4)]
    setup = Setup(("Ann", "Bob")).as_dict()
    with engine.begin() as connection:
        old.create_all(connection)
        connection.execute(insert(old.tables["schema_version"]).values(version=1))
        connection.execute(insert(old.tables["matches"]).values(id="m", created=day[0]))
        connection.execute(insert(old.tables["games"]), [
            {"id": "played", "match_id": "m", "number": 1, "setup": setup, "created": day[0]},
            {"id": "untouched", "match_id": "m", "number": 2, "setup": setup,
             "created": day[2]}])
        connection.execute(insert(old.tables["entries"]), [
            {"game_id": "played", "seq": 0, "entry": DEAL, "created": day[1]},
            {"game_id": "played", "seq": 1, "entry": {"type": "peg", "player": "Bob",
                                                      "points": 2}, "created": day[3]}])
    engine.dispose()

    store = GameStore(url)
    listed = store.games()["games"]
    assert [(g["id"], g["changed"]) for g in listed] == [
        ("played", "2026-11-04T12:00:00+00:00"), ("untouched", "2026-11-03T12:00:00+00:00")]
    assert listed[0]["sides"][1]["score"] == 2
    with store.engine.connect() as connection:
        assert connection.execute(schema_version.select()).scalar_one() == SCHEMA_VERSION == 3
        assert connection.execute(text("SELECT version FROM games ORDER BY id")).scalars().all() == [0, 0]


def test_adds_racing_undos_lose_no_acknowledged_entry(database_url):
    """Two servers on one database: one adds pegs while the other presses undo. Every entry
    answered and not undone is kept, in every round (SQLite read the log outside the undo's
    transaction and deleted from a stale copy: entries answered 200 were lost)."""
    adder, undoer = GameStore(database_url), GameStore(database_url)
    for round_ in range(20):
        game_id = adder.create(Setup(("A", "B")))
        adder.add(game_id, DEAL)
        for _ in range(20):  # more pegs than undos: the deal is never undone
            adder.add(game_id, {"type": "peg", "player": "A", "points": 1})
        start = threading.Barrier(2)
        acknowledged = {"added": 0, "undone": 0}
        failed: list[BaseException] = []

        def add_pegs():
            start.wait()
            for _ in range(40):
                try:
                    adder.add(game_id, {"type": "peg", "player": "B", "points": 1})
                except GameConflict:
                    continue  # answered 409: not acknowledged
                acknowledged["added"] += 1

        def press_undo():
            start.wait()
            for _ in range(15):
                undoer.undo(game_id)
                acknowledged["undone"] += 1

        def recorded(work):
            def run():
                try:
                    work()
                except BaseException as exc:  # said by the assertion below, not lost in a thread
                    failed.append(exc)
            return run

        threads = [threading.Thread(target=recorded(add_pegs)),
                   threading.Thread(target=recorded(press_undo))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failed == [], round_
        log = GameStore(database_url).game(game_id).log
        assert len(log) == 1 + 20 + acknowledged["added"] - acknowledged["undone"], round_
        assert adder.add(game_id, {"type": "peg", "player": "A", "points": 1})  # still takes entries


def test_a_game_that_cannot_be_replayed_is_said_beside_the_list_and_can_be_deleted(database_url):
    store = GameStore(database_url)
    whole, broken = (store.create(Setup(("A", "B"))) for _ in range(2))
    for game_id in (whole, broken):
        store.add(game_id, DEAL)
        store.add(game_id, {"type": "peg", "player": "A", "points": 2})
    with store.engine.begin() as connection:  # the deal lost, as a race once lost it
        connection.execute(entries.delete().where(entries.c.game_id == broken,
                                                  entries.c.seq == 0))
    store = GameStore(database_url)  # a server started on the damaged database
    listed = store.games()
    assert [game["id"] for game in listed["games"]] == [whole]
    assert listed["unreadable"] == [{"id": broken, "error": "it cannot be replayed: start a "
                                     "deal first: next is A's deal"}]
    assert listed["total"] == 2
    store.delete(broken)
    assert store.games() == {"games": listed["games"], "unreadable": [], "total": 1}


def test_a_log_with_a_gap_in_its_numbers_still_takes_entries(database_url):
    store = GameStore(database_url)
    game_id = store.create(Setup(("A", "B")))
    store.add(game_id, DEAL)
    for _ in range(3):
        store.add(game_id, {"type": "peg", "player": "A", "points": 1})
    with store.engine.begin() as connection:  # entry 2 lost: seq 0, 2, 3 left
        connection.execute(entries.delete().where(entries.c.game_id == game_id,
                                                  entries.c.seq == 1))
    store = GameStore(database_url)  # a server started on the damaged database
    assert store.add(game_id, {"type": "peg", "player": "B", "points": 1}).scores == [2, 1]
    assert store.undo(game_id, 2).scores == [1, 1]  # the entries after it move down
    assert store.add(game_id, {"type": "peg", "player": "B", "points": 1}).scores == [1, 2]


def test_a_play_kept_before_a_go_was_checked_against_the_cards_still_replays(database_url):
    """A game saved by an earlier cribcam with a go taken while a card fitted (issue 45) opens
    as it was scored then; the same play entered now is refused."""
    store = GameStore(database_url)
    game_id = store.create(Setup(("Ann", "Bob")))
    store.add(game_id, {"type": "deal", "starter": "9C"})
    wrong_go = {"type": "play", "turns": ["Bob:5H", "Ann:TD", "Bob:JS", "Ann:KC", "Bob:4S",
                                          "Ann:6H", "Bob:2C", "Ann:3D"]}
    with pytest.raises(CardError, match="nobody goes while a card fits"):
        store.add(game_id, wrong_go)
    with store.engine.begin() as connection:
        connection.execute(insert(entries).values(game_id=game_id, seq=1, entry=wrong_go,
                                                  created=datetime.now(timezone.utc)))
    store = GameStore(database_url)  # a newer cribcam opening the game kept by an older
    assert store.game(game_id).scores == [3, 1]  # Ann 3, Bob 1 for the go, as then
    assert store.add(game_id, {"type": "show", "claim": 0}).log[-1].entry["type"] == "show"


def test_a_game_replayed_at_its_version_is_not_replayed_again_and_one_changed_elsewhere_is(
        database_url, monkeypatch):
    """Adding entry 1,000 costs what entry 10 does: the store goes on from the game it replayed
    (it replayed the whole log at every entry: a second at entry 500). A change made by
    another server bumps the version, and the game is read and replayed again."""
    from cribcam.game import store as store_module

    replays = []
    real_replay = store_module.replay
    monkeypatch.setattr(store_module, "replay", lambda setup, log: replays.append(len(log)) or real_replay(setup, log))
    store, other = GameStore(database_url), GameStore(database_url)
    game_id = store.create(Setup(("A", "B")))
    store.add(game_id, DEAL)
    for _ in range(30):
        store.add(game_id, {"type": "peg", "player": "A", "points": 1})
    assert replays == [0]  # the empty log, once
    assert store.game(game_id).scores == [30, 0] and replays == [0]
    other.add(game_id, {"type": "peg", "player": "B", "points": 2})  # another server
    assert store.add(game_id, {"type": "peg", "player": "A", "points": 1}).scores == [31, 2]
    assert replays == [0, 31, 32]  # the other server's first sight, then this one's again
    assert store.undo(game_id).scores == [30, 2] and other.game(game_id).scores == [30, 2]
