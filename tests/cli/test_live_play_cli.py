"""`cribcam live play` from the command line: its options, the last release's spelling of it
(`cribcam live --play`), and a play into a kept game (`--game ID --db URL`), on a small video of
plain frames read by a scripted reader."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cribcam.cli import live as live_cli
from cribcam.cli.main import main
from cribcam.datagen.clips import write_y4m
from cribcam.game import Setup
from cribcam.game.store import GameStore
from cribcam.live import desktop
from cribcam.vision.reading import Reading, SeenCard

HOLD = 6  # frames each table lies still: more than the half second (5 frames) a card must lie still
FPS = 10
# A whole play of two hands of four, Bob dealing: Ann leads; the count never passes 31, so no go.
PLAY = ["AH", "2H", "3H", "4H", "AS", "2S", "3S", "4S"]
TURNS = [f"{player}:{card}" for player, card in zip(["Ann", "Bob"] * 4, PLAY)]


def run(capsys, *args: str) -> tuple[int, str, str]:
    """`cribcam live ARGS...`: its exit status, standard output and standard error."""
    status = main(["live", *args])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def db(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'games.sqlite3'}"


def kept_game(db: str, *entries: dict) -> str:
    """A game of Ann and Bob kept in ``db``, Bob dealing first, with ``entries`` entered."""
    store = GameStore(db)
    game_id = store.create(Setup(("Ann", "Bob"), first_dealer="Bob"))
    for entry in entries:
        store.add(game_id, entry)
    return game_id


DEAL = {"type": "deal", "starter": "9D"}


def table_video(path, cards_laid: int) -> None:
    """A video of the table with none, then 1, 2... ``cards_laid`` of ``PLAY`` on it, each table
    ``HOLD`` frames of its own plain grey (the scripted reader reads it by its grey)."""
    frames = [np.full((48, 64, 3), 20 + 25 * k, np.uint8) for k in range(cards_laid + 1) for _ in range(HOLD)]
    write_y4m(path, frames, FPS)


class TableReader:
    """Reads from a frame of ``table_video`` the cards its table shows, each in its own place."""

    def read(self, image, expected=None, starter=None) -> Reading:
        shown = PLAY[:round((int(image[0, 0, 0]) - 20) / 25)]
        return Reading(tuple(SeenCard(code, 0.9, ((100.0 * i, 0.0, 100.0 * i + 20, 30.0),))
                             for i, code in enumerate(shown)), width=64, height=48)


@pytest.fixture
def scripted_reader(monkeypatch):
    monkeypatch.setattr(live_cli, "open_reader", lambda model, deck: TableReader())


# --- the options -----------------------------------------------------------------------------

PLAYERS = ["--players", "Ann", "Bob", "--dealer", "Bob"]


def test_the_play_without_out_is_told_to_give_it_not_about_windows(capsys, monkeypatch):
    # The play writes its events and shows nothing: the base install's OpenCV has no say.
    monkeypatch.setattr(desktop, "window_available", lambda: False)
    status, _, err = run(capsys, "play", "--video", "play.y4m", *PLAYERS)
    assert status == 2
    assert err == "cribcam live play: error: the following arguments are required: --out\n"


def test_the_play_with_headless_is_told_it_shows_nothing_anyway(capsys):
    status, _, err = run(capsys, "play", "--video", "play.y4m", "--headless", "--out", "-", *PLAYERS)
    assert status == 2
    assert err == ("cribcam live: error: --headless is for counting hands (cribcam live hands): leave it out of "
                   "cribcam live play\n")


@pytest.mark.parametrize("given,said", [
    (["--starter", "5H"], "--starter is for counting hands (cribcam live hands): leave it out of cribcam live play"),
    (["--claim", "12"], "--claim is for counting hands"),
    (["--crib"], "--crib is for counting hands"),
    (["--window", "8"], "--window is for counting hands"),  # given as its default is: given all the same
    (["--agree", "5"], "--agree is for counting hands"),
    (["--crib", "--starter=5H", "--agree", "3"], "--crib, --starter, --agree are for counting hands (cribcam live "
                                                  "hands): leave them out of cribcam live play"),
    (["--port", "8001", "--browser"], "--port, --browser are for counting hands"),
])
def test_the_hands_options_are_refused_by_the_play(capsys, given, said):
    status, _, err = run(capsys, "play", "--video", "play.y4m", "--out", "-", *PLAYERS, *given)
    assert status == 2 and err.startswith("cribcam live: error: ") and said in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("players", [["", "Bob"], ["Ann", "  "]])
def test_an_empty_player_name_is_refused(capsys, players):
    status, _, err = run(capsys, "play", "--video", "play.y4m", "--out", "-", "--players", *players, "--dealer", "Bob")
    assert status == 2
    assert err == "cribcam live: error: --players: a player's name cannot be empty: --players Ann Bob\n"


def test_a_go_past_the_videos_last_frame_is_said_at_its_end(capsys, tmp_path, scripted_reader):
    video = tmp_path / "play.y4m"
    table_video(video, 3)  # 24 frames
    status, out, err = run(capsys, "play", "--video", str(video), "--out", "-", *PLAYERS, "--go", "9999:Bob",
                           "--model", str(tmp_path))
    assert status == 0 and out.splitlines()[-1] == '{"totals": {"Ann": 3, "Bob": 0}}'
    assert err == ("cribcam live: play.y4m ended: 24 frames read, 3 cards laid, 0 goes, 0 moves refused; "
                   "pegged: Ann 3, Bob 0; the play is not over: Bob to play at 6 (if Bob said go there: --go "
                   "FRAME:Bob); --go 9999:Bob not given: "
                   "the video has 24 frames\n")


def test_the_last_releases_spelling_follows_the_play_as_todays_with_a_note(capsys, tmp_path, scripted_reader):
    video = tmp_path / "play.y4m"
    table_video(video, 3)
    today = run(capsys, "play", "--video", str(video), "--out", "-", *PLAYERS, "--model", str(tmp_path))
    status, out, err = run(capsys, "--play", "--video", str(video), "--headless", "--out", "-", *PLAYERS,
                           "--model", str(tmp_path))
    assert (status, out) == today[:2] and today[0] == 0
    note, *rest = err.splitlines(keepends=True)
    assert note == ("cribcam live: note: cribcam live --play ... is spelled cribcam live play ... now (no --play, "
                    "no --headless); the old spelling works in this release only\n")
    assert "".join(rest) == today[2]


# --- into a kept game ------------------------------------------------------------------------


@pytest.mark.parametrize("args,left_out", [
    (["--players", "Ann", "Bob"], "--players"),
    (["--dealer", "Bob", "--variant", "six-card"], "--dealer, --variant"),  # the variant's default, given
])
def test_game_names_the_players_the_dealer_and_the_variant_itself(capsys, db, args, left_out):
    game_id = kept_game(db, DEAL)
    status, _, err = run(capsys, "play", "--video", "play.y4m", "--out", "-", "--game", game_id, "--db", db, *args)
    assert status == 2
    assert err == (f"cribcam live: error: --game {game_id} names the players, the dealer and the variant: "
                   f"leave out {left_out}\n")


def test_a_game_not_there_or_not_at_its_play_or_a_database_unusable_is_one_line(capsys, db, tmp_path):
    def refused(game_id: str, database: str) -> str:
        status, _, err = run(capsys, "play", "--video", "play.y4m", "--out", "-", "--game", game_id, "--db", database)
        assert status == 2 and len(err.splitlines()) == 1
        return err.removeprefix("cribcam live: error: ").strip()

    dealt = kept_game(db, DEAL)
    assert refused("nope", db) == "no game 'nope'"
    undealt = kept_game(db)
    assert refused(undealt, db) == f"game {undealt} is not at a play: enter its deal first"
    played = kept_game(db, DEAL, {"type": "play", "turns": TURNS})
    assert refused(played, db) == f"game {played} is not at a play: its play is entered already"
    assert refused(dealt, db) == "no such video: play.y4m"  # at its play: the video is looked for next
    missing = tmp_path / "none" / "games.sqlite3"
    assert refused(dealt, f"sqlite:///{missing}") == f"no games database at {missing}"
    text = tmp_path / "notes.txt"
    text.write_text("not a database\n")
    assert refused(dealt, f"sqlite:///{text}") == \
        f"the games database sqlite:///{text} cannot be used: file is not a database"


@pytest.mark.parametrize("option", [["--game", "abc"], ["--db", "sqlite:///games.sqlite3"]])
def test_game_and_db_are_refused_by_the_hands(capsys, option):
    status, _, err = run(capsys, "hands", "--video", "hands.y4m", "--headless", "--out", "-", *option)
    assert status == 2
    assert err == (f"cribcam live: error: {option[0]} is for following the play (cribcam live play): leave it out "
                   f"of cribcam live hands\n")


def test_db_without_game_is_refused(capsys, db):
    status, _, err = run(capsys, "play", "--video", "play.y4m", "--out", "-", *PLAYERS, "--db", db)
    assert status == 2 and err == "cribcam live: error: --db is where the game of --game is kept: add --game ID\n"


def test_a_play_seen_to_its_end_goes_into_the_game_as_the_page_puts_it(capsys, db, tmp_path, scripted_reader):
    game_id = kept_game(db, DEAL)
    video = tmp_path / "play.y4m"
    table_video(video, len(PLAY))
    status, out, err = run(capsys, "play", "--video", str(video), "--out", "-", "--game", game_id, "--db", db,
                           "--model", str(tmp_path))
    assert status == 0
    events = [json.loads(line) for line in out.splitlines()]
    assert [e.get("card") for e in events] == [*PLAY, None] and events[-1]["totals"]["Bob"] > 0
    game = GameStore(db, create=False).game(game_id)
    assert game.log[-1].entry["turns"] == TURNS  # each turn as typed ones are, and no claims
    assert game.expecting() == {"step": "show", "player": "Ann", "crib": False}
    ended, entered = err.splitlines()
    assert ended.startswith("cribcam live: play.y4m ended: 54 frames read, 8 cards laid, 0 goes") and \
        "not over" not in ended
    # The game pegs the play as the play's own totals said (the 9D starter pegs nothing).
    totals = events[-1]["totals"]
    assert game.scores == [totals["Ann"], totals["Bob"]]
    assert entered == f"cribcam live: pegged in game {game_id}: Ann {totals['Ann']}, Bob {totals['Bob']}"


def test_a_play_not_over_at_the_videos_end_goes_not_into_the_game(capsys, db, tmp_path, scripted_reader):
    game_id = kept_game(db, DEAL)
    video = tmp_path / "play.y4m"
    table_video(video, 3)
    status, _, err = run(capsys, "play", "--video", str(video), "--out", "-", "--game", game_id, "--db", db,
                         "--model", str(tmp_path))
    assert status == 0
    assert err.splitlines()[1] == (f"cribcam live: the play is not over: nothing went into game {game_id} (its "
                                   f"turns so far: Ann:AH Bob:2H Ann:3H; cribcam game add {game_id} play TURN ... "
                                   f"enters the whole play)")
    game = GameStore(db, create=False).game(game_id)
    assert len(game.log) == 1 and game.expecting()["step"] == "play"
