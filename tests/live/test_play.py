"""Watching the play: scripted frames through follow_play, and `cribcam live play` on a clip."""

import json
import subprocess
import sys

import numpy as np
import pytest

from cribcam.datagen.photo_play_clips import single_card_photos, write_photo_play_clip
from cribcam.datagen.play_clips import PlaySpec, write_play_clip
from cribcam.game.table_play import TablePlay
from cribcam.live.play import PlaySummary, follow_play
from cribcam.vision.reading import Reading, SeenCard

FPS = 10.0


def scripted(tables: list[list[str]], hold: int = 6):
    """Frames showing each table in turn (``hold`` frames each), and a reader that reads from a
    frame the cards its table shows, each in its own place."""
    frames = [np.full((48, 64, 3), 20 * k, np.uint8) for k, _ in enumerate(tables) for _ in range(hold)]

    def read(image) -> Reading:
        cards = tables[int(image[0, 0, 0]) // 20]
        return Reading(tuple(SeenCard(code, 0.9, ((100.0 * i, 0.0, 100.0 * i + 20, 30.0),))
                             for i, code in enumerate(cards)), width=64, height=48)

    return frames, read


def placed(tables: list[dict[str, tuple[float, float]]], hold: int = 6):
    """As ``scripted``, each card read where its table says (its top-left corner's index box,
    20 by 30 pixels, at that point)."""
    frames = [np.full((48, 64, 3), 20 * k, np.uint8) for k, _ in enumerate(tables) for _ in range(hold)]

    def read(image) -> Reading:
        cards = tables[int(image[0, 0, 0]) // 20]
        return Reading(tuple(SeenCard(code, 0.9, ((x, y, x + 20, y + 30),)) for code, (x, y) in cards.items()),
                       width=64, height=48)

    return frames, read


def test_each_card_laid_is_the_card_of_the_player_whose_turn_it_is():
    frames, read = scripted([[], ["5H"], ["5H", "TD"], ["5H", "TD", "5S"]])
    events = list(follow_play(frames, read, TablePlay(["Ann", "Bob"], "Bob"), FPS))
    assert [(e["player"], e["card"], e["said"]) for e in events[:-1]] == \
        [("Ann", "5H", "5"), ("Bob", "TD", "15, fifteen for two"), ("Ann", "5S", "20")]
    assert [e["frame"] for e in events[:-1]] == [6 + 5, 12 + 5, 18 + 5]  # half a second after it came
    assert events[-1] == {"totals": {"Ann": 0, "Bob": 2}}


def test_goes_are_said_at_their_frames_and_a_card_refused_is_said_so():
    tables = [["KH"], ["KH", "QD"], ["KH", "QD", "9S"], ["KH", "QD", "9S", "5C"], ["KH", "QD", "9S"],
              ["KH", "QD", "9S", "2C"]]
    frames, read = scripted(tables)
    summary = PlaySummary()
    events = list(follow_play(frames, read, TablePlay(["Ann", "Bob"], "Bob"), FPS, {24: ["Bob"], 30: ["Ann"]},
                              summary))
    refused = [e for e in events if "refused" in e]
    assert refused == [{"frame": 23, "seconds": 2.3, "player": "Bob", "card": "5C",
                        "refused": "that makes 34: Bob says go", "unsure": False}]
    goes = [e for e in events if e.get("go")]
    assert [(e["player"], e["said"], e["frame"]) for e in goes] == \
        [("Bob", "go", 24), ("Ann", "go: one for the go to Ann", 30)]
    last = [e for e in events if e.get("card") == "2C"]
    assert last and last[0]["player"] == "Bob" and last[0]["said"] == "2"  # Bob leads the next count
    # What `cribcam live play` says when the video ends: the play is not over, and the 2C came
    # at the last frame, so a go after it has no frame of this video to be given before.
    assert summary.sentence() == ("36 frames read, 4 cards laid, 2 goes, 1 move refused; pegged: Ann 1, Bob 0; "
                                  "the play is not over: Ann to play at 2 (if Ann said go there: --go FRAME:Ann)")


def test_a_video_ending_before_the_play_is_over_says_whose_turn_it_is_and_the_goes_it_never_reached():
    frames, read = scripted([[], ["KH"], ["KH", "QD"], ["KH", "QD", "9S"], ["KH", "QD", "9S"]])
    summary = PlaySummary()
    events = list(follow_play(frames, read, TablePlay(["Ann", "Bob"], "Bob"), FPS, {9999: ["Bob"], 7: ["Cy"]},
                              summary))
    assert [e["frame"] for e in events if "card" in e] == [11, 17, 23]
    assert (summary.turn, summary.count) == ("Bob", 29)
    # Cy's go was said (and refused: no such player); Bob's, past the last frame, never was.
    assert summary.sentence() == (
        "30 frames read, 3 cards laid, 0 goes, 1 move refused; pegged: Ann 0, Bob 0; the play is not over: "
        "Bob to play at 29 (if Bob said go there: --go 24:Bob); --go 9999:Bob not given: the video has 30 frames")


def test_a_play_not_over_at_a_count_of_0_hints_no_go_and_a_play_over_says_nothing_more():
    frames, read = scripted([[], ["KH"], ["KH", "QD"], ["KH", "QD", "JS"], ["KH", "QD", "JS", "AS"]])
    summary = PlaySummary()
    list(follow_play(frames, read, TablePlay(["Ann", "Bob"], "Bob"), FPS, summary=summary))
    assert summary.sentence().endswith("; the play is not over: Ann to play at 0")  # after 31 Ann leads: no go
    frames, read = scripted([[], ["KH"], ["KH", "QD"]])
    summary = PlaySummary()
    list(follow_play(frames, read, TablePlay(["Ann", "Bob"], "Bob", hand_size=1), FPS, summary=summary))
    assert summary.sentence() == "18 frames read, 2 cards laid, 0 goes, 0 moves refused; pegged: Ann 0, Bob 1"


def test_until_over_stops_reading_frames_once_the_play_is_over():
    tables = [[], ["KH"], ["KH", "QD"], ["KH", "QD"], ["KH", "QD", "5S"]]

    def followed(until_over: bool) -> tuple[list[dict], PlaySummary]:
        frames, read = scripted(tables)
        summary = PlaySummary()
        events = list(follow_play(frames, read, TablePlay(["Ann", "Bob"], "Bob", hand_size=1), FPS,
                                  summary=summary, until_over=until_over))
        return events, summary

    events, summary = followed(until_over=True)
    assert [e.get("card") for e in events] == ["KH", "QD", None] and summary.frames == 12 + 5 + 1
    assert events[-1] == {"totals": {"Ann": 0, "Bob": 1}}  # one for last
    events, summary = followed(until_over=False)  # a video is read to its end: the 5S comes, and is refused
    assert summary.frames == 30 and events[2]["refused"] == "the play is over: every card is played"


def test_a_card_laid_in_front_of_a_player_out_of_his_turn_is_refused_as_his():
    # Ann's cards in a row at the top, Bob's at the bottom, 200 pixels (more than 4 index
    # sizes) apart. After Ann's 5S it is Bob's turn; Ann lays her 4D beside her 5S.
    ann = lambda k: (120.0 * k, 0.0)  # noqa: E731 (a one-line stand-in, named for what it stands for)
    bob = lambda k: (120.0 * k, 200.0)  # noqa: E731 (a one-line stand-in, named for what it stands for)
    start = {"5H": ann(0), "TD": bob(0), "5S": ann(1)}
    frames, read = placed([{}, {"5H": ann(0)}, {"5H": ann(0), "TD": bob(0)}, start, {**start, "4D": ann(2)},
                           start, {**start, "2C": bob(1)}, {**start, "2C": bob(1), "4D": ann(2)}])
    events = list(follow_play(frames, read, TablePlay(["Ann", "Bob"], "Bob"), FPS))
    assert [(e["player"], e["card"], e.get("said") or e["refused"]) for e in events[:-1]] == [
        ("Ann", "5H", "5"), ("Bob", "TD", "15, fifteen for two"), ("Ann", "5S", "20"),
        ("Ann", "4D", "it is Bob's turn, not Ann's: Ann plays again only after Bob says go"),  # taken back
        ("Bob", "2C", "22"), ("Ann", "4D", "26")]


def test_cards_laid_in_one_pile_are_each_the_card_of_the_player_whose_turn_it_is():
    pile = [(0.0, 0.0), (8.0, 5.0), (3.0, 12.0), (12.0, 2.0)]
    cards = ["5H", "TD", "5S", "4D"]
    frames, read = placed([dict(zip(cards[:k], pile[:k])) for k in range(5)])
    events = list(follow_play(frames, read, TablePlay(["Ann", "Bob"], "Bob"), FPS))
    assert [(e["player"], e["card"]) for e in events[:-1]] == [("Ann", "5H"), ("Bob", "TD"), ("Ann", "5S"),
                                                               ("Bob", "4D")]


@pytest.fixture(scope="module")
def play_clip(heldout_decks, tmp_path_factory):
    path = tmp_path_factory.mktemp("play") / "play.y4m"
    return path, write_play_clip(path, PlaySpec(seed=1), heldout_decks)


@pytest.fixture(scope="module")
def photo_play_clip(real_photos, tmp_path_factory):
    """A play laid with real photos of single cards (``datagen.photo_play_clips``)."""
    photos = single_card_photos(real_photos / "images", json.loads((real_photos / "labels.json").read_text()))
    path = tmp_path_factory.mktemp("photo-play") / "play.y4m"
    return path, write_photo_play_clip(path, PlaySpec(seed=1), photos)


def live_play(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cribcam", "live", "play", *args], capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize("clip", ["play_clip", "photo_play_clip"])
def test_cribcam_live_play_pegs_a_clip_of_the_play_as_it_was_played(clip, shipped_models, request, tmp_path):
    path, record = request.getfixturevalue(clip)
    goes = [arg for said in record["goes"] for arg in ("--go", said)]
    out = tmp_path / "new" / "events.jsonl"  # its folder made, as `cribcam data build --out` makes its own
    result = live_play("--video", str(path), "--out", str(out), "--players", *record["players"],
                       "--dealer", record["dealer"], *goes, "--model", str(shipped_models))
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(e.get("card", "go"), e["said"], e["pegged"]) for e in events[:-1]] == \
        [(s.get("card", "go"), s["event"]["said"], s["event"]["pegged"]) for s in record["steps"]]
    for event, step in zip(events, record["steps"]):
        if "card" in step:  # said within half a second of the card lying still, at the clip's 10 frames a second
            assert 0 <= event["frame"] - step["frame"] <= 5
    assert events[-1] == {"totals": {player: sum(s["event"]["pegged"].get(player, 0) for s in record["steps"])
                                     for player in record["players"]}}
    pegged = ", ".join(f"{player} {points}" for player, points in events[-1]["totals"].items())
    ended = f"cribcam live: play.y4m ended: {record['frames']} frames read, "  # said as a video of hands is
    assert ended in result.stderr and f"; pegged: {pegged}\n" in result.stderr.split(ended)[1]


@pytest.mark.parametrize("args,words", [
    (["--video", "x.y4m", "--out", "-"], "the play needs the players in seating order"),
    (["--video", "x.y4m", "--out", "-", "--players", "Ann", "Bob", "--dealer", "Dan"],
     "the dealer 'Dan' is not one of the players"),
    (["--video", "x.y4m", "--out", "-", "--players", "Ann", "Bob", "--dealer", "Bob",
      "--go", "twelve:Ann"], "--go twelve:Ann: give FRAME:NAME"),
    (["--video", "x.y4m", "--out", "-", "--players", "Ann", "Bob", "--dealer", "Bob"],
     "no such video: x.y4m"),
])
def test_cribcam_live_play_says_what_is_wrong_with_its_options(args, words):
    result = live_play(*args)
    assert result.returncode == 2 and words in result.stderr and "Traceback" not in result.stderr


def test_cribcam_live_play_puts_a_clips_play_into_a_kept_game(play_clip, shipped_models, tmp_path):
    from cribcam.game import Setup
    from cribcam.game.store import GameStore

    path, record = play_clip
    db = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    store = GameStore(db)
    game_id = store.create(Setup(tuple(record["players"]), first_dealer=record["dealer"]))
    store.add(game_id, {"type": "deal", "starter": None})
    goes = [arg for said in record["goes"] for arg in ("--go", said)]
    # The players and the dealer are the game's.
    result = live_play("--video", str(path), "--out", "-", "--game", game_id, "--db", db, *goes,
                       "--model", str(shipped_models))
    assert result.returncode == 0, result.stderr
    game = GameStore(db, create=False).game(game_id)
    assert game.log[-1].entry["turns"] == [f"{s['player']}:{s.get('card', 'go')}" for s in record["steps"]]
    totals = json.loads(result.stdout.splitlines()[-1])["totals"]
    assert game.scores == [totals[player] for player in record["players"]]
    assert result.stderr.splitlines()[-1] == \
        f"cribcam live: pegged in game {game_id}: " + ", ".join(f"{p} {totals[p]}" for p in record["players"])


def test_a_play_keeps_its_last_refusals_only():
    from cribcam.live.play import REFUSED_KEPT, PlayWatch

    watch = PlayWatch(TablePlay(["Ann", "Bob"], "Bob"))
    for frame in range(3 * REFUSED_KEPT):  # Ann leads: her go on 0 is refused each time
        assert "refused" in watch.go("Ann", {"frame": frame})
    assert [event["frame"] for event in watch.events] == list(range(2 * REFUSED_KEPT, 3 * REFUSED_KEPT))
