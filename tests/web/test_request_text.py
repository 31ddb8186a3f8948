"""Text from requests that no page, terminal or database can keep: half a UTF-16 pair (a lone
``\\ud800`` escape), a NUL, a list or an object where an id belongs. Each is a 4xx at every
endpoint, and nothing of it is stored (issue 46: one such name stored a game that then took
the list of games down for everyone)."""

from __future__ import annotations

import io
import json
import os
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cribcam.web import create_app
from webtools import DATA, StubReader

# CRIBCAM_FUZZ_EXAMPLES=400 python3 -m pytest tests/web/test_request_text.py: over 5,000 requests.
EXAMPLES = int(os.environ.get("CRIBCAM_FUZZ_EXAMPLES", "150"))
LONE = "\ud800x"
PHOTO = (DATA / "webcam-5-cards.jpg").read_bytes()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The app (a stub reader), its games and decks in folders of this module's own, with a
    game dealt and a live play started to aim at."""
    folder = tmp_path_factory.mktemp("request-text")
    with mock.patch.dict(os.environ, {"CRIBCAM_DATA": str(folder / "data")}):
        app = create_app({"TESTING": True, "GAME_DB": f"sqlite:///{folder / 'games.sqlite3'}"},
                         reader=StubReader())
        client = app.test_client()
        game = client.post("/api/games", json={"players": ["Ann", "Bob"]}).get_json()["id"]
        client.post(f"/api/games/{game}/entries", json={"type": "deal", "starter": "5S"})
        session = client.post("/api/live/play", json={"players": ["Ann", "Bob"],
                                                      "dealer": "Bob"}).get_json()["session"]
        yield client, game, session


def post(client, path: str, body) -> tuple[int, dict]:
    response = client.post(path, data=json.dumps(body), content_type="application/json")
    assert response.mimetype == "application/json"
    return response.status_code, response.get_json()


@pytest.mark.parametrize("path, body", [
    ("/api/games", {"players": [LONE, "Bob"]}),
    ("/api/games/{game}/entries", {"type": "show", "claim": LONE}),
    ("/api/games/{game}/entries", {"type": "peg", "player": LONE, "points": 1}),
    ("/api/games/{game}/entries", {"type": "play", "turns": [f"{LONE}:5H"]}),
    ("/api/count", {"hand": ["5H", "5C", "5D", "JH"], "starter": "5S", "claim": "\x00"}),
    ("/api/live/play", {"players": [LONE, "Bob"], "dealer": "Bob"}),
    ("/api/live/play/go", {"session": "{session}", "player": LONE}),
])
def test_text_that_cannot_be_kept_is_refused_and_nothing_is_stored(served, path, body):
    client, game, session = served
    before = client.get("/api/games").get_json()
    body = json.loads(json.dumps(body).replace("{session}", session))
    status, answer = post(client, path.format(game=game), body)
    assert status == 400
    assert answer["error"].startswith("the body holds text that cannot be kept or shown")
    assert client.get("/api/games").get_json() == before
    assert client.get(f"/api/games/{game}").status_code == 200


@pytest.mark.parametrize("path", ["/api/live/play", "/api/live/play/go", "/api/live/play/fix"])
@pytest.mark.parametrize("session", [["x"], {"id": "x"}, 7])
def test_a_session_that_is_no_string_is_a_400(served, path, session):
    client, _, _ = served
    body = {"session": session, "players": ["Ann", "Bob"], "dealer": "Bob", "card": "5H",
            "named": "6H"}
    assert post(client, path, body) == (
        400, {"error": '"session" must be the id an earlier answer gave, as a string'})


def test_a_name_that_cannot_be_shown_is_refused_in_a_game_and_a_play(served):
    client, _, session = served
    for name in ("Ann\x07", "Bo\u200bb", "x" * 21):
        status, answer = post(client, "/api/games", {"players": [name, "Bob"]})
        assert status == 422 and "is not a usable name: 1 to 20 printable characters" in answer["error"]
        status, answer = post(client, "/api/live/play", {"players": [name, "Bob"], "dealer": "Bob"})
        assert status == 400 and "is not a usable name" in answer["error"]
    for player in ("y" * 30_000, ["Ann"], 3):  # refused at once, not echoed nor kept
        assert post(client, "/api/live/play/go", {"session": session, "player": player}) == (
            400, {"error": '"player" must be one of the players (Ann, Bob), or none for whose '
                           'turn it is'})


# --- every JSON endpoint, random bodies with such text ----------------------------------------

nasty_text = st.one_of(
    st.sampled_from([LONE, "\udfff", "\x00", "Ann", "Bob", "5H", "go", "", "{session}"]),
    st.text(alphabet=st.characters(exclude_categories=()), max_size=8),  # surrogates too
)
json_value = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-10, 200), nasty_text),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(nasty_text, inner, max_size=3)),
    max_leaves=10)
ENDPOINTS = {
    "/api/count": ["hand", "starter", "crib", "variant", "claim"],
    "/api/discard": ["hand", "variant", "dealer", "players"],
    "/api/games": ["players", "variant", "target", "muggins", "skunk", "first_dealer"],
    "/api/games/{game}/entries": ["type", "starter", "heels", "turns", "player", "points",
                                  "cards", "claim", "crib", "kind", "by", "source"],
    "/api/games/{game}/undo": ["entry"],
    "/api/games/{game}/next": [],
    "/api/live/play": ["session", "players", "dealer", "variant"],
    "/api/live/play/go": ["session", "player"],
    "/api/live/play/fix": ["session", "card", "named"],
    "/api/teach/train": ["session", "name", "photos"],
    "/api/teach/letters": ["session", "letters"],
}


@pytest.mark.parametrize("path", list(ENDPOINTS))
@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_no_body_fails_any_endpoint(served, path, data):
    client, game, session = served
    fields = ENDPOINTS[path] + ["session"]
    body = data.draw(st.one_of(
        st.dictionaries(st.sampled_from(fields), json_value, max_size=len(fields)),
        json_value))
    text = json.dumps(body).replace("{session}", session)
    response = client.post(path.format(game=game), data=text, content_type="application/json")
    assert response.status_code < 500, (response.status_code, response.get_data(as_text=True))
    assert response.mimetype == "application/json"
    assert client.get("/api/games").status_code == 200  # the list stands whatever was stored


@pytest.fixture(scope="module")
def teaching(shipped_models, tmp_path_factory):
    """The app on the bundled models, as teaching needs a finder, its decks in a folder of
    this module's own."""
    folder = tmp_path_factory.mktemp("request-text-teach")
    with mock.patch.dict(os.environ, {"CRIBCAM_DATA": str(folder)}):
        yield create_app({"TESTING": True, "MODEL_PATH": shipped_models}).test_client()


def no_surrogate(text: str) -> bool:
    return not any("\ud800" <= char <= "\udfff" for char in text)


@settings(max_examples=min(EXAMPLES, 40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=40),
       session=st.one_of(st.none(), nasty_text.filter(no_surrogate)))
def test_no_photo_name_or_session_fails_teaching(teaching, name, session):
    # a multipart form carries no lone surrogate: its text is UTF-8 on the wire
    form = {"image": (io.BytesIO(PHOTO), name)}
    if session is not None:
        form["session"] = session
    response = teaching.post("/api/teach/photos", data=form, content_type="multipart/form-data")
    assert response.status_code < 500, response.get_data(as_text=True)
    if response.status_code == 200:
        assert response.get_json()["photo"]["name"].isprintable()
