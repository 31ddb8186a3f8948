"""The live page and POST /api/live/frame through Flask's test client."""

from __future__ import annotations

import io
import re
import threading

import numpy as np
import pytest

from cribcam.scoring import score_hand
from cribcam.web import create_app
from webtools import StubReader, encode

FRAME = encode(np.full((480, 640, 3), 90, np.uint8))
OTHER_FRAME = encode(np.full((480, 640, 3), 150, np.uint8))  # other cards in view
HAND = ["AS", "QH", "KC", "AC", "QS"]


def post_frame(client, data: bytes = FRAME, session: str | None = None, **fields):
    form = {"image": (io.BytesIO(data), "frame.jpg"), **{k: str(v) for k, v in fields.items()}}
    if session:
        form["session"] = session
    return client.post("/api/live/frame", data=form, content_type="multipart/form-data")


def follow(client, frames: int, session: str | None = None, data: bytes = FRAME, **fields) -> list[dict]:
    """Sends ``frames`` frames (each ``data``) in one session; returns the answers."""
    answers = []
    for _ in range(frames):
        response = post_frame(client, data, session=session, **fields)
        assert response.status_code == 200, response.json
        answers.append(response.json)
        session = response.json["session"]
    return answers


@pytest.fixture
def reader():
    return StubReader(cards=HAND, starter="QS")


@pytest.fixture
def live_client(reader):
    clock = iter(range(10**6))  # a tenth of a second each time it is asked: the play's cards lie still
    return create_app({"TESTING": True, "LIVE_CLOCK": lambda: next(clock) / 10}, reader=reader).test_client()


# --- the page ------------------------------------------------------------------------------


def test_live_page_has_the_camera_view_and_the_photo_pages_controls(client):
    response = client.get("/live")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    for element in ('id="video"', 'id="overlay"', 'id="lock-status"', 'id="fps"', 'id="sound"',
                    'id="camera-button"', 'id="history"', 'id="typed-cards"', 'id="hand-chips"',
                    'id="starter-chips"', 'name="what"', 'name="variant"', 'id="claim"',
                    'id="picker"', 'id="starter-choices"'):
        assert element in html, element
    assert '<script type="module" src="/static/live.js">' in html
    assert "http://" not in html and "https://" not in html
    assert response.headers["Content-Security-Policy"].startswith("default-src 'self'")


def test_the_photo_and_live_pages_link_to_each_other(client):
    assert 'href="/live"' in client.get("/").get_data(as_text=True)
    assert 'href="/"' in client.get("/live").get_data(as_text=True)


def test_live_scripts_are_served_and_load_nothing_from_elsewhere(client):
    for asset in ("live.js", "play.js", "counting.js", "app.js"):
        response = client.get(f"/static/{asset}")
        assert response.status_code == 200 and "javascript" in response.mimetype
        text = response.get_data(as_text=True)
        # Addresses only in a message: "open this page at an https:// address ... or at
        # http://localhost."
        assert set(re.findall(r"https?://[^\s\"'`]*", text)) <= {"https://", "http://localhost."}, asset
        assert "//cdn" not in text and "import(" not in text
    assert 'from "./counting.js"' in client.get("/static/live.js").get_data(as_text=True)


# --- following frames ----------------------------------------------------------------------


def test_a_hand_locks_on_the_fifth_agreeing_frame_with_its_count(live_client, reader):
    answers = follow(live_client, 6)
    assert [a["locked"] for a in answers] == [False] * 4 + [True] * 2
    assert [a["new_hand"] for a in answers] == [False] * 4 + [True, False]
    assert [a["frame"] for a in answers] == [1, 2, 3, 4, 5, 6]
    assert len({a["session"] for a in answers}) == 1
    assert answers[3]["report"] is None and answers[3]["hand"] == 0
    locked = answers[4]
    assert locked["hand"] == 1
    assert [c["card"] for c in locked["reading"]["cards"]] == HAND
    assert locked["reading"]["width"] == 640 and locked["reading"]["cards"][0]["boxes"]
    assert locked["report"]["count"]["total"] == score_hand(HAND[:4], "QS").total
    # The frame is still: read on the first, read again once settled, then its reading stands.
    assert reader.calls == [((480, 640, 3), 5)] * 2


def test_a_frame_that_changed_is_read_and_one_that_did_not_is_not(live_client, reader):
    session = follow(live_client, 4)[-1]["session"]
    follow(live_client, 3, session, data=OTHER_FRAME)
    assert len(reader.calls) == 4  # two on each picture: on its first frame, and once settled
    follow(live_client, 1, session, data=OTHER_FRAME, variant="five-card")  # four cards asked: read again
    assert len(reader.calls) == 5 and reader.calls[-1][1] == 4


def test_the_locked_report_is_what_api_read_answers(live_client):
    report = follow(live_client, 5, crib="true")[-1]["report"]
    read = live_client.post("/api/read", data={"image": (io.BytesIO(FRAME), "f.jpg"), "crib": "true"},
                            content_type="multipart/form-data").json
    assert report == read and report["count"]["crib"] is True


def test_frames_without_a_session_never_lock(live_client):
    answers = [post_frame(live_client).json for _ in range(6)]
    assert len({a["session"] for a in answers}) == 6
    assert not any(a["locked"] for a in answers) and {a["frame"] for a in answers} == {1}


def test_new_cards_unlock_and_lock_the_next_hand(live_client, reader):
    session = follow(live_client, 8)[-1]["session"]
    reader.cards = ["2C", "3D", "4S", "9H", "KD"]
    reader.starter = "KD"
    answers = follow(live_client, 5, session, data=OTHER_FRAME)
    assert [a["hand"] for a in answers] == [1, 1, 1, 1, 2]
    assert [a["report"]["count"]["total"] for a in answers[:4]] == [score_hand(HAND[:4], "QS").total] * 4
    assert answers[-1]["new_hand"]
    assert answers[-1]["report"]["count"]["total"] == score_hand(["2C", "3D", "4S", "9H"], "KD").total


def test_variant_and_crib_decide_how_many_cards_are_expected(live_client, reader):
    follow(live_client, 1, variant="five-card")
    follow(live_client, 1, variant="five-card", crib="true")
    follow(live_client, 1)
    assert [expected for _, expected in reader.calls] == [4, 5, 5]


# --- bad input and limits ------------------------------------------------------------------


@pytest.mark.parametrize("send,status,words", [
    (lambda c: c.post("/api/live/frame", json={"image": "x"}), 400, "multipart/form-data"),
    (lambda c: c.post("/api/live/frame", data={"session": "x"}, content_type="multipart/form-data"),
     400, 'field "image"'),
    (lambda c: post_frame(c, b"not an image at all"), 415, "not an image"),
    (lambda c: post_frame(c, b""), 400, "empty"),
    (lambda c: post_frame(c, variant="seven-card"), 400, '"variant" must be one of'),
    (lambda c: post_frame(c, crib="maybe"), 400, '"crib" must be true or false'),
    (lambda c: c.get("/api/live/frame"), 405, "does not answer that method"),
])
def test_bad_frames_get_clear_json_errors(live_client, send, status, words):
    response = send(live_client)
    assert response.status_code == status
    assert words in response.json["error"]


def test_without_a_model_frames_answer_503_and_open_no_session(app, client):
    response = post_frame(client)
    assert response.status_code == 503
    assert "no card-reading model is installed" in response.json["error"]
    assert len(app.extensions["cribcam.live"]) == 0


def test_a_deck_not_taught_answers_404_and_opens_no_session(reader, tmp_path, monkeypatch):
    from cribcam.settings import DATA_ENV

    monkeypatch.setenv(DATA_ENV, str(tmp_path))  # no decks taught here
    app = create_app({"TESTING": True}, reader=reader)
    response = post_frame(app.test_client(), deck="nosuch")
    assert response.status_code == 404 and "nosuch" in response.json["error"]
    assert len(app.extensions["cribcam.live"]) == 0


def test_a_deck_name_no_deck_can_have_answers_400_and_opens_no_session(reader):
    app = create_app({"TESTING": True}, reader=reader)
    response = post_frame(app.test_client(), deck="../models")
    assert response.status_code == 400 and "cannot name a deck" in response.json["error"]
    assert len(app.extensions["cribcam.live"]) == 0


def test_a_second_frame_while_the_first_is_read_is_refused_not_queued():
    entered, release = threading.Event(), threading.Event()

    class SlowReader(StubReader):
        def read(self, image, expected=None, starter=True):
            if len(self.calls) == 1:  # the second frame waits inside the reader
                entered.set()
                release.wait(10)
            return super().read(image, expected)

    reader = SlowReader(cards=HAND)
    client = create_app({"TESTING": True}, reader=reader).test_client()
    session = follow(client, 1)[0]["session"]
    answers = {}
    worker = threading.Thread(target=lambda: answers.setdefault("slow", post_frame(client, session=session)))
    worker.start()
    try:
        assert entered.wait(10)
        refused = post_frame(client, session=session)
    finally:
        release.set()
        worker.join(10)
    assert refused.status_code == 429 and "still being read" in refused.json["error"]
    assert answers["slow"].status_code == 200 and answers["slow"].json["frame"] == 2
    assert len(reader.calls) == 2  # the refused frame was never read


def test_sessions_are_bounded(reader):
    app = create_app({"TESTING": True, "LIVE_MAX_SESSIONS": 2}, reader=reader)
    client = app.test_client()
    first, second, third = (follow(client, 1)[0]["session"] for _ in range(3))
    assert len(app.extensions["cribcam.live"]) == 2
    assert follow(client, 1, second)[0]["session"] == second
    assert follow(client, 1, first)[0]["session"] != first  # dropped to make room


# --- the play (pegging) --------------------------------------------------------------------


def start_play(client, **body):
    return client.post("/api/live/play", json={"players": ["Ann", "Bob"], "dealer": "Bob", **body})


def test_the_play_is_watched_frame_by_frame_its_cards_pegged_in_turn(live_client, reader):
    started = start_play(live_client)
    assert started.status_code == 200, started.json
    session = started.json["session"]
    assert started.json["play"]["turn"] == "Ann" and started.json["play"]["count"] == 0
    reader.cards, reader.starter = ["5H"], None
    answers = follow(live_client, 6, session)
    new = [e for a in answers for e in a["play"]["new"]]
    assert [(e["player"], e["card"], e["said"]) for e in new] == [("Ann", "5H", "5")]
    assert "locked" not in answers[-1] and answers[-1]["reading"]["cards"][0]["card"] == "5H"
    reader.cards = ["5H", "TD"]
    answers = follow(live_client, 6, session, data=OTHER_FRAME)
    play = answers[-1]["play"]
    assert [(e["player"], e["said"], e["pegged"]) for e in play["events"]] == \
        [("Ann", "5", {}), ("Bob", "15, fifteen for two", {"Bob": 2})]
    assert play["series"] == [{"player": "Ann", "card": "5H"}, {"player": "Bob", "card": "TD"}]
    assert play["totals"] == {"Ann": 0, "Bob": 2} and play["turn"] == "Ann"
    assert reader.starters[-1] is False and reader.calls[-1][1] == 8  # read as the cards of a deal


def test_the_plays_frames_are_asked_larger_and_read_at_most_that_large(live_client, reader):
    started = start_play(live_client)
    assert started.json["frame_side"] == 1280  # four players' cards across a table: a hand's 640 is too few
    reader.cards = ["5H"]
    large = encode(np.full((1920, 2560, 3), 90, np.uint8))  # a camera that films larger still
    assert post_frame(live_client, large, session=started.json["session"]).status_code == 200
    assert reader.calls[-1][0] == (960, 1280, 3)


class HeldReader(StubReader):
    """Reads only once ``release`` is set, saying when it has begun (``reading``)."""

    def __init__(self, cards):
        super().__init__(cards=cards)
        self.reading, self.release = threading.Event(), threading.Event()

    def read(self, image, expected=None, starter=True):
        self.reading.set()
        self.release.wait(10)
        return super().read(image, expected, starter)


def test_a_frame_read_while_the_play_is_stopped_is_answered(tmp_path):
    reader = HeldReader(["5H"])
    client = create_app({"TESTING": True}, reader=reader).test_client()
    session = start_play(client).json["session"]
    answers = []
    sending = threading.Thread(target=lambda: answers.append(post_frame(client, session=session)))
    sending.start()
    assert reader.reading.wait(10)
    assert client.delete(f"/api/live/play?session={session}").status_code == 200
    reader.release.set()
    sending.join(10)
    assert answers[0].status_code == 200, answers[0].json  # the page's camera goes on
    assert "play" in answers[0].json
    assert "play" not in post_frame(client, session=session).json  # then hands again


def test_a_go_is_said_by_the_player_whose_turn_it_is_and_a_bad_one_refused(live_client):
    session = start_play(live_client).json["session"]
    refused = live_client.post("/api/live/play/go", json={"session": session})
    assert refused.status_code == 200
    assert refused.json["event"]["refused"].startswith("Ann cannot say go on 0")
    assert live_client.post("/api/live/play/go", json={"session": "nope"}).status_code == 404
    stopped = live_client.delete(f"/api/live/play?session={session}")
    assert stopped.status_code == 200 and stopped.json["stopped"]
    assert live_client.post("/api/live/play/go", json={"session": session}).status_code == 404


@pytest.mark.parametrize("body,words", [
    ({"players": ["Ann"], "dealer": "Ann"}, "two players or more"),
    ({"players": ["Ann", "Bob"], "dealer": "Dan"}, "the dealer 'Dan' is not one of the players"),
    ({"players": 7, "dealer": "Bob"}, '"players" must name the players'),
    ({"players": "Ann Bob", "dealer": "Bob", "variant": "seven-card"}, '"variant" must be one of'),
])
def test_a_play_that_cannot_be_is_refused_with_its_reason(live_client, body, words):
    answer = live_client.post("/api/live/play", json=body)
    assert answer.status_code == 400 and words in answer.json["error"]


def test_a_card_misread_in_the_play_is_named_and_pegged_anew(live_client, reader):
    session = start_play(live_client).json["session"]
    reader.cards, reader.starter = ["6H"], None
    follow(live_client, 6, session)
    reader.cards = ["6H", "5D"]
    follow(live_client, 6, session, data=OTHER_FRAME)
    fixed = live_client.post("/api/live/play/fix", json={"session": session, "card": "6H", "named": "9H"})
    assert fixed.status_code == 200, fixed.json
    assert [(e["card"], e["said"]) for e in fixed.json["play"]["events"]] == [("9H", "9"), ("5D", "14")]
    assert fixed.json["play"]["count"] == 14
    refused = live_client.post("/api/live/play/fix", json={"session": session, "card": "7C", "named": "8C"})
    assert refused.status_code == 400 and "the 7C was not laid" in refused.json["error"]


def test_a_kept_games_play_is_named_by_the_game_and_goes_into_it_on_the_server(reader, tmp_path):
    # The page and the command line each built the play entry and posted it (issue 47): now the
    # server takes the play's players, dealer and variant from the game and enters the play itself.
    clock = iter(range(10**6))
    app = create_app({"TESTING": True, "LIVE_CLOCK": lambda: next(clock) / 10,
                      "GAME_DB": f"sqlite:///{tmp_path / 'games.sqlite3'}"}, reader=reader)
    client = app.test_client()
    game = client.post("/api/games", json={"players": ["Ann", "Bob"], "first_dealer": "Bob",
                                           "variant": "five-card"}).json["id"]
    assert client.post("/api/live/play", json={"game": "nope"}).status_code == 404
    assert client.post("/api/live/play", json={"game": ["x"]}).status_code == 400
    undealt = client.post("/api/live/play", json={"game": game})
    assert (undealt.status_code, undealt.json) == (409, {"error": f"game {game} is not at a play: enter its deal first"})
    dealt = client.post(f"/api/games/{game}/entries", json={"type": "deal", "starter": "2H"}).json
    before = [side["score"] for side in dealt["sides"]]  # five-card: Ann's 3 for last, already
    started = client.post("/api/live/play", json={"game": game, "players": ["Zed"], "variant": "six-card"})
    play = started.json["play"]
    assert (play["players"], play["dealer"], play["turn"], play["game"]) == (["Ann", "Bob"], "Bob", "Ann", {"id": game})
    session, laid, frames = started.json["session"], [], [FRAME, OTHER_FRAME]
    reader.starter = None
    for k, card in enumerate(["5H", "TD", "2S", "3C", "4D", "AC"]):  # three each (five-card): 25 in all
        laid.append(card)
        reader.cards = list(laid)
        play = follow(client, 6, session, data=frames[k % 2])[-1]["play"]
        assert play["game"] == {"id": game} if k < 5 else play["over"]
    state = client.get(f"/api/games/{game}").json
    assert state["next"]["step"] == "show"
    assert play["game"] == {"id": game, "sides": state["sides"]}
    assert [side["score"] for side in state["sides"]] == [before[0] + play["totals"]["Ann"],
                                                          before[1] + play["totals"]["Bob"]]
    assert follow(client, 2, session)[-1]["play"]["game"] == play["game"]  # entered once: no error after
    assert len(client.get(f"/api/games/{game}").json["log"]) == len(state["log"])
