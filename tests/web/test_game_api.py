"""The scoreboard API: games created, entries added and undone, errors that change nothing."""

from __future__ import annotations

import json

import pytest

DEAL = {"type": "deal", "starter": "5S"}
PLAY = {"type": "play", "turns": ["B:KS", "A:5H", "B:3H", "A:5C", "B:2D", "A:5D", "B:AC", "A:JS"]}


@pytest.fixture(autouse=True)
def game_database(monkeypatch, tmp_path):
    """Games go to a file of this test, never to the user's data folder."""
    monkeypatch.setenv("CRIBCAM_DB", f"sqlite:///{tmp_path / 'games.sqlite3'}")


def new_game(client, **setup) -> str:
    response = client.post("/api/games", json=setup)
    assert response.status_code == 201, response.get_json()
    return response.get_json()["id"]


def add(client, game_id, entry, status=200) -> dict:
    response = client.post(f"/api/games/{game_id}/entries", json=entry)
    assert response.status_code == status, response.get_json()
    return response.get_json()


def scores(state) -> list[int]:
    return [side["score"] for side in state["sides"]]


def test_a_deal_entered_and_undone(client):
    game_id = new_game(client, players=["Ann", "Bob"], muggins=True)
    state = client.get(f"/api/games/{game_id}").get_json()
    assert state["setup"] == {"players": ["Ann", "Bob"], "variant": "six-card", "target": 121,
                              "muggins": True, "skunk": False, "first_dealer": "Ann"}
    assert state["next"] == {"step": "deal", "player": "Ann", "crib": False}
    add(client, game_id, DEAL)
    turns = [t.replace("A:", "Ann:").replace("B:", "Bob:") for t in PLAY["turns"]]
    state = add(client, game_id, {"type": "play", "turns": turns})
    assert scores(state) == [3, 2]
    state = add(client, game_id, {"type": "show", "cards": "AC 2D 3H KS", "claim": "5"})
    assert scores(state) == [5, 7]  # Bob's run overlooked: Ann takes 2
    assert state["log"][-1]["scored"] == [
        {"side": "Bob", "points": 5, "reason": "Bob's hand (claimed 5)"},
        {"side": "Ann", "points": 2, "reason": "muggins: Ann takes 2 overlooked in Bob's hand"}]
    state = client.post(f"/api/games/{game_id}/undo").get_json()
    assert scores(state) == [3, 2] and len(state["log"]) == 2
    assert state["next"] == {"step": "show", "player": "Bob", "crib": False}


CLAIM = "a claim must be a whole number of points from 0 to 1000, not "  # as `cribcam count`
BAD = [
    ({"type": "play", "turns": ["B:KS", "A:5S"]}, 422, "5S is the starter"),
    ({"type": "play", "turns": ["B:KS", "A:KS"] + PLAY["turns"][2:]}, 422, "KS is played 2 times"),
    ({"type": "play", "turns": ["B:KS", "A:5H"]}, 422, "the play must hold every card"),
    ({"type": "play", "turns": "B:KS A:5H=three"}, 422, f"'A:5H=three': {CLAIM}three"),
    ({"type": "play", "turns": "B:KS A:5H=-3"}, 422, f"'A:5H=-3': {CLAIM}-3"),
    ({"type": "peg", "player": "B", "points": 40}, 400, "one card pegs 1 to 15"),
    ({"type": "peg", "player": "B", "points": -3}, 400, "points are never negative: -3"),
    ({"type": "peg", "player": "B", "points": ""}, 400, "say how many points were pegged"),
    ({"type": "show", "claim": -3}, 400, f"{CLAIM}-3"),
    ({"type": "show", "claim": "seven"}, 400, f"{CLAIM}seven"),
    ({"type": "show", "cards": ["AC", "2D", "3H", "KS"], "claim": 5000}, 400, f"{CLAIM}5000"),
    ({"type": "show", "claim": 27}, 422, "no hand or crib scores 27"),
    ({"type": "show", "cards": ["AC", "2D", "3H", "ZZ"]}, 422, "'ZZ' is not a card"),
    ({"type": "deal"}, 422, "deal 1 is not finished"),
    ({"type": "fold"}, 400, "'fold' is no kind of entry: deal, play, peg, show or irregularity"),
    ({}, 400, "say what kind of entry: deal, play, peg, show or irregularity"),
    # the order of play, kept by the pegging core: the A plays twice without B's go
    ({"type": "play", "turns": "B:5 A:5 B:5 B:5"}, 422,
     "turn 4 (B:5): it is A's turn, not B's: B plays again only after A says go (A:go)"),
    ({"type": "play", "turns": "B:K A:K B:K B:go"}, 422, "it is A's turn, not B's"),
    # a go taken on 25 from A's king, where both still held a card that fits (issue 45)
    ({"type": "play", "turns": "B:5H A:TD B:JS A:KC B:4S A:6H B:2C A:3D"}, 422,
     "turn 4 (A:KC): on 25 it would pass 31, so it would lead after everybody went go; but "
     "nobody goes while a card fits: B's 4S (turn 5) makes 29, A's 6H (turn 6) makes 31"),
    ({"type": "irregularity", "player": "Z", "kind": "peg"}, 422,
     "'Z' is not a player of this game (A, B)"),
    (["deal"], 400, "the body must be a JSON object"),
]


@pytest.mark.parametrize("entry, status, message", BAD, ids=[m[:30] for _, _, m in BAD])
def test_bad_entries_are_refused_and_the_saved_game_is_unchanged(client, entry, status, message):
    game_id = new_game(client)
    add(client, game_id, DEAL)
    before = client.get(f"/api/games/{game_id}/export").get_json()
    error = add(client, game_id, entry, status)["error"]
    assert message in error
    assert client.get(f"/api/games/{game_id}/export").get_json() == before


def test_a_claim_of_nineteen_alone_is_a_show_of_nothing(client):
    """"Nineteen" is said for a show of nothing, as on the photo page and `cribcam count`."""
    game_id = new_game(client)
    add(client, game_id, DEAL)
    add(client, game_id, PLAY)
    state = add(client, game_id, {"type": "show", "claim": 19})
    assert scores(state) == [3, 2]
    assert state["log"][-1]["text"] == "B's hand: 19 claimed (nineteen: nothing to count, 0)"
    assert state["next"] == {"step": "show", "player": "A", "crib": False}


def test_a_hand_holding_a_card_the_other_player_played(client):
    game_id = new_game(client)
    add(client, game_id, DEAL)
    add(client, game_id, PLAY)
    before = client.get(f"/api/games/{game_id}").get_json()
    error = add(client, game_id, {"type": "show", "cards": ["AC", "2D", "3H", "5D"]}, 422)
    assert error == {"error": "5D was played by A; it cannot be in B's hand"}
    assert client.get(f"/api/games/{game_id}").get_json() == before


def test_undo_an_entry_in_the_middle(client):
    game_id = new_game(client)
    add(client, game_id, DEAL)
    add(client, game_id, {"type": "irregularity", "player": "A", "kind": "hand"})
    add(client, game_id, PLAY)
    response = client.post(f"/api/games/{game_id}/undo", json={"entry": 1})
    assert response.status_code == 422
    assert response.get_json()["error"].startswith("entry 1 cannot be undone on its own")
    response = client.post(f"/api/games/{game_id}/undo", json={"entry": "2"})
    assert response.status_code == 400
    state = client.post(f"/api/games/{game_id}/undo", json={"entry": 2}).get_json()
    assert scores(state) == [3, 2] and [line["entry"]["type"] for line in state["log"]] == [
        "deal", "play"]


def test_not_json_and_no_such_game(client):
    game_id = new_game(client)
    response = client.post(f"/api/games/{game_id}/entries", data="deal",
                           content_type="application/json")
    assert response.status_code == 400 and "not valid JSON" in response.get_json()["error"]
    for response in (client.get("/api/games/nope"), client.post("/api/games/nope/undo"),
                     client.post("/api/games/nope/entries", json=DEAL)):
        assert response.status_code == 404
        assert response.get_json() == {"error": "no game 'nope'"}
    response = client.post(f"/api/games/{game_id}/undo")
    assert response.status_code == 422
    assert response.get_json() == {"error": "nothing to undo: the game has no entries"}


def test_bodies_are_read_as_on_api_count(client):
    """JSON whatever the Content-Type (as curl -d sends it), and 413 over the 64 KB limit."""
    response = client.post("/api/games", data=json.dumps({"players": ["Ann", "Bob"]}),
                           content_type="application/x-www-form-urlencoded")
    assert response.status_code == 201, response.get_json()
    game_id = response.get_json()["id"]
    response = client.post(f"/api/games/{game_id}/entries", data=json.dumps(DEAL),
                           content_type="text/plain")
    assert response.status_code == 200 and response.get_json()["deal"]["starter"] == "5S"
    for address in ("/api/games", f"/api/games/{game_id}/entries", f"/api/games/{game_id}/undo"):
        response = client.post(address, json={**DEAL, "pad": "x" * 70_000})
        assert response.status_code == 413, address
        assert response.get_json() == {"error": "the JSON body is over 64 KB"}
    assert len(client.get(f"/api/games/{game_id}").get_json()["log"]) == 1


PLAYED_BY = "cribbage is played by 2, 3, 4 (two partnerships) or 6 (two teams of three)"


@pytest.mark.parametrize("setup, status, message", [
    ({"players": 5}, 422, "5 players"),
    ({"players": 1}, 422, f"1 player: {PLAYED_BY}"),  # a count, as the page sends "1"
    ({"players": 7}, 422, f"7 players: {PLAYED_BY}"),
    ({"players": list("ABCDEFG")}, 422, f"7 players: {PLAYED_BY}"),  # names: the same words
    ({"players": ["Ann", "x" * 5000]}, 422, "'xxxxxxxxxxxxxxxxxxxx…' is not a usable name: 1 to "
                                            "20 printable characters"),
    ({"players": ["Ann", "Ann"]}, 422, "the same name"),
    ({"players": "Ann Bob"}, 400, '"players" must be a number of players or a list'),
    ({"target": "121"}, 400, '"target" must be a whole number'),
    ({"muggins": "yes"}, 400, '"muggins" must be true or false'),
    ({"variant": "seven-card"}, 400, '"variant" must be one of six-card, five-card'),
    ({"variant": "five-card", "players": 3}, 422, "five-card cribbage is a game for two"),
    ({"target": 61, "skunk": True}, 422, "the skunk variation is played to 121"),
])
def test_bad_setups(client, setup, status, message):
    response = client.post("/api/games", json=setup)
    assert response.status_code == status
    assert message in response.get_json()["error"]
    assert len(response.get_json()["error"]) < 200  # a name pasted by mistake is not echoed whole


def test_a_finished_game_its_export_and_the_next_game_of_the_match(client):
    game_id = new_game(client, players=4, target=61)
    state = add(client, game_id, {"type": "deal", "heels": True})  # A deals a jack
    assert [side["name"] for side in state["sides"]] == ["A & C", "B & D"]
    for points in (15, 15, 15, 14):
        state = add(client, game_id, {"type": "peg", "player": "C", "points": points})
    assert scores(state) == [61, 0] and state["over"]
    assert state["result"] == {
        "winner": "A & C", "games": 2, "said": "A & C win: 2 games (B & D 0: lurch)",
        "losses": [{"side": "B & D", "score": 0, "kind": "lurch", "games": 2}]}
    assert "game is over" in add(client, game_id, DEAL, 422)["error"]

    response = client.get(f"/api/games/{game_id}/export")
    assert response.headers["Content-Disposition"] == \
        f'attachment; filename="cribcam-game-{game_id}.json"'
    assert len(response.get_json()["entries"]) == 5

    response = client.post(f"/api/games/{game_id}/next")
    assert response.status_code == 201
    second = response.get_json()
    assert second["next"] == {"step": "deal", "player": "B", "crib": False}  # the loser deals
    assert second["match"]["tally"] == [{"side": "A & C", "games": 2},
                                        {"side": "B & D", "games": 0}]

    # The next game has begun from this result: undoing it is refused, and changes nothing.
    add(client, second["id"], DEAL)
    finished = client.get(f"/api/games/{game_id}").get_json()
    response = client.post(f"/api/games/{game_id}/undo")
    assert response.status_code == 422
    assert response.get_json() == {"error": f"game {game_id}'s result stands: the match's "
                                            f"next game {second['id']} has begun from it; "
                                            f"undo in {second['id']} instead"}
    assert client.get(f"/api/games/{game_id}").get_json() == finished


def test_the_page_continues_a_game_by_its_address(client):
    game_id = new_game(client)
    for address in ("/game", f"/game/{game_id}"):
        response = client.get(address)
        assert response.status_code == 200
        assert b'<svg id="board"' in response.data
    assert f'data-game="{game_id}"'.encode() in client.get(f"/game/{game_id}").data


# What a player is told of a database the server cannot use: not where it lies (the log says).
UNUSABLE = ("the games cannot be kept on this server now: its games database cannot be used (the "
            "server's log says why)")


def test_a_database_that_cannot_be_used_answers_503(tmp_path, caplog):
    from cribcam.web import create_app

    app = create_app({"TESTING": True, "MODEL_PATH": tmp_path / "no-model.onnx",
                      "GAME_DB": "not a database"})
    response = app.test_client().post("/api/games", json={})
    assert response.status_code == 503
    assert response.get_json() == {"error": UNUSABLE}
    assert "'not a database' is not a database URL: use sqlite:///path/games.sqlite3" in caplog.text


def test_a_file_that_is_no_database_answers_503_and_the_page_still_loads(tmp_path, caplog):
    from cribcam.web import create_app

    garbage = tmp_path / "notadb.sqlite3"
    garbage.write_text("garbage\n")
    app = create_app({"TESTING": True, "MODEL_PATH": tmp_path / "no-model.onnx",
                      "GAME_DB": f"sqlite:///{garbage}"})
    client = app.test_client()
    for response in (client.get("/api/games"), client.post("/api/games", json={})):
        assert response.status_code == 503
        assert response.get_json() == {"error": UNUSABLE}
        assert str(garbage) not in response.get_data(as_text=True)
    assert f"the games database sqlite:///{garbage} cannot be used: file is not a database" in caplog.text
    assert client.get("/game").status_code == 200


def test_the_server_makes_its_database_and_folder_on_first_use(tmp_path):
    """The web app is where games are started: a database not there yet is made."""
    from cribcam.web import create_app

    path = tmp_path / "club" / "games.sqlite3"
    app = create_app({"TESTING": True, "MODEL_PATH": tmp_path / "no-model.onnx",
                      "GAME_DB": f"sqlite:///{path}"})
    assert app.test_client().get("/api/games").get_json()["games"] == []
    assert path.is_file()


@pytest.mark.parametrize("origin,status", [
    (None, 201), ("http://localhost", 201),  # scripts send no Origin; the app's own pages send its own
    ("http://evil.example", 403), ("http://localhost:9999", 403), ("null", 403),
])
def test_a_page_of_another_site_cannot_post_to_the_api(client, origin, status):
    headers = {"Origin": origin} if origin else {}
    response = client.post("/api/games", data='{"players": ["Ann", "Bob"]}', headers=headers)
    assert response.status_code == status
    if status == 403:
        assert f"a page of {origin} may not send requests" in response.json["error"]
    assert client.post("/api/count", json={"hand": ["5H", "5C", "5S", "JD"], "starter": "5D"}, headers=headers).status_code == (200 if status == 201 else 403)


def test_a_game_that_cannot_be_replayed_is_said_in_the_list_and_deleted(client):
    from cribcam.game.store import entries

    whole, broken = new_game(client), new_game(client)
    for game_id in (whole, broken):
        add(client, game_id, DEAL)
        add(client, game_id, {"type": "peg", "player": "B", "points": 2})
    with client.application.extensions["cribcam.games"].engine.begin() as connection:
        connection.execute(entries.delete().where(entries.c.game_id == broken,
                                                  entries.c.seq == 0))  # its deal lost
    client.application.extensions.pop("cribcam.games")  # the server restarted on the damaged database
    listing = client.get("/api/games").get_json()
    assert [game["id"] for game in listing["games"]] == [whole]
    assert listing["unreadable"] == [{"id": broken, "error": "it cannot be replayed: start a "
                                      "deal first: next is A's deal"}]
    assert client.get(f"/api/games/{broken}").status_code == 422
    cross_site = client.delete(f"/api/games/{broken}", headers={"Origin": "http://evil.example"})
    assert cross_site.status_code == 403
    assert client.delete(f"/api/games/{broken}").get_json() == {"deleted": broken}
    assert client.get(f"/api/games/{broken}").status_code == 404
    assert client.delete(f"/api/games/{broken}").status_code == 404
    assert client.get("/api/games").get_json()["unreadable"] == []


def test_the_games_kept_are_listed_page_by_page(client):
    assert client.get("/api/games").get_json() == {"games": [], "unreadable": [], "page": 1,
                                                   "per_page": 20, "total": 0, "pages": 1}
    ids = [new_game(client, players=["Ann", "Bob"], target=61) for _ in range(3)]
    add(client, ids[0], DEAL)  # the first game changed last
    state = add(client, ids[0], {"type": "play", "turns": [
        t.replace("A:", "a:").replace("B:", "b:") for t in PLAY["turns"]]})  # initials do
    assert scores(state) == [3, 2]
    listing = client.get("/api/games?per_page=2").get_json()
    assert (listing["page"], listing["per_page"], listing["total"], listing["pages"]) == (
        1, 2, 3, 2)
    assert [game["id"] for game in listing["games"]] == [ids[0], ids[2]]
    first = listing["games"][0]
    assert first["players"] == ["Ann", "Bob"] and first["sides"] == [
        {"name": "Ann", "score": 3}, {"name": "Bob", "score": 2}]
    assert first["status"] == "deal 1: Bob's hand next" and not first["over"]
    assert first["changed"].endswith("+00:00")
    second = client.get("/api/games?page=2&per_page=2").get_json()
    assert [game["id"] for game in second["games"]] == [ids[1]]
    assert client.get("/api/games?page=9").get_json()["games"] == []


@pytest.mark.parametrize("query, message", [
    ("page=0", '"page" must be a whole number from 1, not \'0\''),
    ("page=-1", '"page" must be a whole number from 1'),
    ("page=two", '"page" must be a whole number from 1, not \'two\''),
    ("page=", '"page" must be a whole number from 1'),
    ("per_page=0", '"per_page" must be a whole number from 1 to 100'),
    ("per_page=101", '"per_page" must be a whole number from 1 to 100, not \'101\''),
    ("per_page=1.5", '"per_page" must be a whole number from 1 to 100'),
    ("page=99999999999999999999", '"page" must be a whole number from 1'),
])
def test_a_bad_page_of_the_list_is_a_clear_400(client, query, message):
    response = client.get(f"/api/games?{query}")
    assert response.status_code == 400
    assert message in response.get_json()["error"]
