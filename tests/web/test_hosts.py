"""The names a server answers to (issue 46: a page of another site whose name was made to lead
to the server, DNS rebinding, sent a Host and an Origin of its own, which passed the Origin
check, and changed games)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from cribcam.web import create_app
from webtools import serving


def test_a_name_the_server_does_not_answer_to_is_refused_before_anything_changes(tmp_path):
    app = create_app({"TESTING": True, "MODEL_PATH": tmp_path / "no-model.onnx",
                      "GAME_DB": f"sqlite:///{tmp_path / 'games.sqlite3'}"})
    client = app.test_client()
    rebound = {"Host": "rebind.example:8000", "Origin": "http://rebind.example:8000"}
    answer = client.post("/api/games", json={"players": ["Ann", "Bob"]}, headers=rebound)
    assert answer.status_code == 403
    assert answer.json == {"error": "this server does not answer to the name 'rebind.example': open it "
                                    "as localhost or by this machine's address, or start it with --name "
                                    "rebind.example"}
    assert client.get("/api/games").json["total"] == 0  # nothing was made
    for own in ("localhost:8000", "127.0.0.1:8000", "[::1]:8000", "LOCALHOST"):
        assert client.get("/api/status", headers={"Host": own}).status_code == 200, own


def get(url: str, host: str) -> tuple[int, dict]:
    request = urllib.request.Request(url, headers={"Host": host})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def test_serve_answers_to_the_names_it_is_given_too(tmp_path, monkeypatch):
    monkeypatch.setenv("CRIBCAM_DB", f"sqlite:///{tmp_path / 'games.sqlite3'}")
    with serving("--port", "0", "--threads", "2", "--name", "cribcam.home.lan") as process:
        url = process.stdout.readline().split()[2]
        port = url.rstrip("/").rsplit(":", 1)[1]
        assert get(url + "api/status", f"cribcam.home.lan:{port}")[0] == 200
        assert get(url + "api/status", f"127.0.0.1:{port}")[0] == 200
        status, answer = get(url + "api/status", f"elsewhere.example:{port}")
        assert status == 403 and "does not answer to the name 'elsewhere.example'" in answer["error"]
