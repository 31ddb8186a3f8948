"""Uploads over the limit, over real HTTP on loopback (waitress in a thread): the client gets the
app's JSON 413, never "connection reset by peer" while it is still sending (issue 21, item 17).

Waitress itself refused a body announced over its own limit (the app's 12 MB and 1 MB more)
from the headers, and closed the connection while the client was still sending: the client
saw a reset instead of the answer. The server now reads such a body to its end and throws it
away (up to ``server.DRAIN_BYTES``), and the app answers as for any body over its limit.
"""

from __future__ import annotations

import http.client
import json
import socket

import pytest

from cribcam.web import create_app
from cribcam.web.server import DRAIN_BYTES
from test_server import HAND, multipart
from webtools import StubReader

MB = 1024 * 1024
TOO_LARGE = {"error": "the upload is larger than the 12 MB limit: send a smaller photo"}


@pytest.fixture
def server(live_server_factory):
    """A server whose reader would read any photo that came through: only the size refuses."""
    return live_server_factory(create_app({"TESTING": True}, reader=StubReader()))


def photo_of(size: int) -> tuple[bytes, str]:
    return multipart(b"\xff\xd8\xff" + b"\0" * size)


@pytest.mark.parametrize("size", [13 * MB, 13 * MB + 1000, 20 * MB, 60 * MB])
def test_a_photo_over_the_limit_is_answered_413_json_and_the_connection_goes_on(server, size):
    # 13 MB and more: over waitress's own limit (12 MB + 1 MB), where it used to reset.
    body, content_type = photo_of(size)
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        connection.request("POST", "/api/read", body=body, headers={"Content-Type": content_type})
        response = connection.getresponse()
        assert response.status == 413
        assert response.getheader("Content-Type") == "application/json"
        assert json.loads(response.read()) == TOO_LARGE
        # The whole body was read: the same connection carries the next request.
        connection.request("POST", "/api/count", body=json.dumps(HAND),
                           headers={"Content-Type": "application/json"})
        again = connection.getresponse()
        assert again.status == 200 and json.loads(again.read())["total"] == 14
    finally:
        connection.close()


def test_a_raw_client_sends_13_mb_and_reads_the_413_then_a_clean_close(server):
    body, content_type = photo_of(13 * MB)
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
        sock.sendall(f"POST /api/read HTTP/1.1\r\nHost: localhost\r\nContent-Type: {content_type}\r\n"
                     f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode())
        sock.sendall(body)  # all of it: a reset would raise here (BrokenPipe, ConnectionReset)
        answer = b""
        while chunk := sock.recv(65536):  # to the server's close: a FIN, not a reset
            answer += chunk
    head, _, payload = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413 ")
    assert b"Content-Type: application/json" in head
    assert json.loads(payload) == TOO_LARGE


def test_a_body_too_large_to_read_through_is_answered_at_once(server):
    # Over DRAIN_BYTES (200 MB announced, none sent): not read, answered from the headers,
    # with the same JSON, and the connection closed.
    announced = max(200 * MB, DRAIN_BYTES + 1)
    answer = _answer_to_headers(server, f"Content-Length: {announced}\r\n")
    head, _, payload = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413 ") and b"Connection: close" in head
    assert json.loads(payload) == TOO_LARGE


def test_a_client_waiting_for_100_continue_gets_the_413_instead(server):
    # curl asks before sending a large body: it is told no at once, and sends nothing.
    answer = _answer_to_headers(server, f"Content-Length: {20 * MB}\r\nExpect: 100-continue\r\n")
    assert answer.startswith(b"HTTP/1.1 413 ") and b"100 Continue" not in answer
    assert json.loads(answer.partition(b"\r\n\r\n")[2]) == TOO_LARGE


def _answer_to_headers(server, headers: str) -> bytes:
    """All the server answers to a photo upload's headers sent alone (no body), until it closes."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"POST /api/read HTTP/1.1\r\nHost: localhost\r\n"
                     b"Content-Type: multipart/form-data; boundary=x\r\n" + headers.encode() + b"\r\n")
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer
