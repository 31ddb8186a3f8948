"""The API over real HTTP on loopback: waitress in a thread, and `cribcam serve` as a process."""

from __future__ import annotations

import http.client
import json
import os
import socket
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import pytest

from cribcam.scoring import score_hand
from cribcam.scoring.report import count_report
from webtools import serve, serving

HAND = {"hand": ["9S", "6D", "5H", "4C"], "starter": "4D", "claim": 12}


def request(url: str, method: str = "GET", path: str = "/", body: bytes | None = None,
            headers: dict | None = None, timeout: float = 30) -> tuple[int, dict, bytes]:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def post_json(url: str, path: str, payload) -> tuple[int, dict]:
    status, _, body = request(url, "POST", path, json.dumps(payload).encode(),
                              {"Content-Type": "application/json"})
    return status, json.loads(body)


def multipart(data: bytes, **fields) -> tuple[bytes, str]:
    boundary = "loopbackboundary"
    body = b"".join(f"--{boundary}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n"
                    .encode() for k, v in fields.items())
    body += (f"--{boundary}\r\nContent-Disposition: form-data; name=\"image\"; "
             f"filename=\"hand.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n").encode()
    return body + data + f"\r\n--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


# --- waitress in a thread ------------------------------------------------------------------


def test_count_over_http(live_server):
    status, report = post_json(live_server.url, "/api/count", HAND)
    assert status == 200
    assert report == count_report(score_hand(HAND["hand"], "4D"), 12)


def test_errors_over_http_are_json(live_server, photo_bytes):
    assert post_json(live_server.url, "/api/count", {"hand": ["5H"], "starter": "5D"})[0] == 422
    status, headers, body = request(live_server.url, "POST", "/api/count", b"{oops",
                                    {"Content-Type": "application/json"})
    assert status == 400 and headers["Content-Type"] == "application/json"
    assert "not valid JSON" in json.loads(body)["error"]
    body, content_type = multipart(photo_bytes)
    status, _, answer = request(live_server.url, "POST", "/api/read", body,
                                {"Content-Type": content_type})
    assert status == 503 and "no card-reading model" in json.loads(answer)["error"]
    body, content_type = multipart(b"plain text, not a photo")
    status, _, answer = request(live_server.url, "POST", "/api/read", body,
                                {"Content-Type": content_type})
    assert status == 415 and "not an image" in json.loads(answer)["error"]


def test_upload_just_over_the_limit_is_a_json_413(live_server):
    body, content_type = multipart(b"\xff\xd8\xff" + os.urandom(12 * 1024 * 1024 + 1000))
    status, headers, answer = request(live_server.url, "POST", "/api/read", body,
                                      {"Content-Type": content_type})
    assert status == 413
    assert json.loads(answer) == {"error": "the upload is larger than the 12 MB limit: "
                                           "send a smaller photo"}


def test_huge_upload_is_refused_before_its_body_is_read(live_server):
    # 200 MB announced: waitress refuses it from the headers and reads none of it.
    parts = urlsplit(live_server.url)
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
        sock.sendall(b"POST /api/read HTTP/1.1\r\nHost: localhost\r\n"
                     b"Content-Type: multipart/form-data; boundary=x\r\n"
                     b"Content-Length: 209715200\r\n\r\n")
        answer = sock.recv(4096)
    assert answer.startswith(b"HTTP/1.1 413")


def test_concurrent_requests_on_keep_alive_connections(live_server):
    def worker(n: int) -> list[int]:
        parts = urlsplit(live_server.url)
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        statuses = []
        for i in range(15):
            claim = (n + i) % 20
            connection.request("POST", "/api/count", json.dumps({**HAND, "claim": claim}),
                               {"Content-Type": "application/json"})
            response = connection.getresponse()
            report = json.loads(response.read())
            assert report["claimed"] == claim
            statuses.append(response.status)
        connection.close()
        return statuses

    with ThreadPoolExecutor(8) as pool:
        results = [s for statuses in pool.map(worker, range(8)) for s in statuses]
    assert results == [200] * 120


def test_page_and_assets_over_http(live_server):
    status, headers, body = request(live_server.url)
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert b'capture="environment"' in body
    for asset in ("/static/app.js", "/static/style.css"):
        assert request(live_server.url, path=asset)[0] == 200


# --- `cribcam serve` ---------------------------------------------------------------------


def test_cribcam_serve_runs_the_app_on_loopback(tmp_path):
    with serving("--port", "0", "--threads", "2") as process:
        line = process.stdout.readline()
        assert line.startswith("cribcam serve: http://127.0.0.1:"), line + process.stderr.read()
        url = line.split()[2]
        assert request(url)[0] == 200
        status, _, body = request(url, path="/api/status")
        assert status == 200 and "model" in json.loads(body)
        status, report = post_json(url, "/api/count", HAND)
        assert status == 200 and report["total"] == 14


@pytest.mark.parametrize("args,words", [
    (["--model", "/no/such/models"], "no such model folder: /no/such/models"),
    (["--port", "70000"], "--port 70000 is not a port number"),
    (["--threads", "0"], "--threads 0: choose 1 to 64"),
    (["--port", "eight"], "invalid int value"),
])
def test_cribcam_serve_usage_errors_are_one_line(args, words):
    process = serve(*args)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 2
    assert words in err and "Traceback" not in err


@pytest.mark.parametrize("scheme", [[], ["--https"]], ids=["http", "https"])
def test_cribcam_serve_says_when_the_port_is_taken(scheme):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        process = serve(*scheme, "--port", str(port))
        out, err = process.communicate(timeout=60)
    assert process.returncode == 2
    assert f"cannot listen on 127.0.0.1 port {port}" in err and "Traceback" not in err


def test_cribcam_serve_with_an_empty_model_folder_counts_typed_cards_and_answers_photos_503(
        tmp_path, photo_bytes):
    # As docs/install.md promises: no model is no reason not to serve; the start line says so.
    with serving("--model", str(tmp_path), "--port", "0") as process:
        line = process.stdout.readline()
        assert line.startswith("cribcam serve: http://127.0.0.1:"), line + process.stderr.read()
        assert f"no card-reading model in {tmp_path}: typed cards count, photos answer 503" in line
        url = line.split()[2]
        status, report = post_json(url, "/api/count", HAND)
        assert status == 200 and report["total"] == 14
        status, _, body = request(url, path="/api/status")
        assert status == 200 and json.loads(body)["model"] is False
        data, content_type = multipart(photo_bytes)
        status, _, answer = request(url, "POST", "/api/read", data, {"Content-Type": content_type})
        assert status == 503
        assert "no card-reading model is installed" in json.loads(answer)["error"]


def test_cribcam_serve_with_a_damaged_model_refuses_to_start(tmp_path):
    for name in ("finder.onnx", "classifier.onnx"):
        (tmp_path / name).write_bytes(b"not a model")
    process = serve("--model", str(tmp_path), "--port", "0")
    out, err = process.communicate(timeout=60)
    assert process.returncode == 2 and "could not be loaded" in err


def test_cribcam_serve_reads_photos_with_a_folder_of_models(shipped_models):
    with serving("--model", str(shipped_models), "--port", "0") as process:
        line = process.stdout.readline()
        assert "reading photos with" in line or line.startswith("cribcam serve: http"), line
        url = line.split()[2]
        status, _, body = request(url, path="/api/status")
        assert status == 200 and json.loads(body)["model"] is True


def test_cribcam_serve_keeps_games_in_the_database_of_db(tmp_path):
    database = tmp_path / "club" / "games.sqlite3"
    with serving("--port", "0", "--db", f"sqlite:///{database}") as process:
        url = process.stdout.readline().split()[2]
        status, game = post_json(url, "/api/games", {"players": ["Ann", "Bob"]})
        assert status == 201
    from cribcam.game.store import GameStore

    assert GameStore(f"sqlite:///{database}").game(game["id"]).setup.players == ("Ann", "Bob")


def test_cribcam_serve_refuses_a_database_it_cannot_use():
    process = serve("--port", "0", "--db", "not a url")
    out, err = process.communicate(timeout=60)
    assert process.returncode == 2
    assert "--db:" in err and "is not a database URL" in err and "Traceback" not in err
