"""Slow clients on a real server: late headers, a trickled body and idle connections are cut
off, so that no number of them locks other players out (issue 46, point 5).

The deadlines are made short here (``make_server``'s options); the server's own are in
``cribcam.web.server``.
"""

from __future__ import annotations

import socket
import threading

import pytest

from cribcam.web.server import CONNECTION_LIMIT
from test_server import request
from waiting import wait_until
from webtools import LiveServer

SHORT = {"header_seconds": 0.5, "body_bytes_per_second": 1000, "idle_seconds": 0.5}


@pytest.fixture
def strict_server(app):
    server = LiveServer(app, **SHORT)
    yield server
    server.close()


def connect(server: LiveServer) -> socket.socket:
    connection = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    connection.setblocking(False)
    return connection


def closed_by_server(connection: socket.socket) -> bool:
    """Whether the server has closed this connection (its end of the stream, or a reset)."""
    try:
        return connection.recv(65536) == b""
    except BlockingIOError:
        return False
    except ConnectionResetError:
        return True


class Trickle:
    """Sends a little of a request down each connection every ``step`` seconds, in a thread,
    until stopped: a client that is never quiet, only slow."""

    def __init__(self, connections: list[socket.socket], piece: bytes, step: float = 0.1):
        self.connections, self.piece, self.step = connections, piece, step
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stop.wait(self.step):
            for connection in self.connections:
                try:
                    connection.send(self.piece)
                except OSError:
                    pass  # closed by the server: what the tests wait for

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()
        for connection in self.connections:
            connection.close()


def test_headers_sent_a_line_at_a_time_are_cut_off(strict_server):
    connection = connect(strict_server)
    connection.send(b"GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    with Trickle([connection], b"X-Slow: 1\r\n"):
        wait_until(lambda: closed_by_server(connection), timeout=20,
                   message="a client sending a header line every 0.1 s still holds its connection")


def test_a_body_slower_than_the_rate_allowed_is_cut_off(strict_server):
    connection = connect(strict_server)
    connection.send(b"POST /api/count HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    b"Content-Type: application/json\r\nContent-Length: 2000\r\n\r\n")
    with Trickle([connection], b" " * 10):  # 2000 bytes at 100 a second: 20 s, with 2.5 s allowed
        wait_until(lambda: closed_by_server(connection), timeout=20,
                   message="a body trickled at 100 bytes a second still holds its connection")


def test_a_quiet_connection_between_requests_is_closed(strict_server):
    connection = socket.create_connection(("127.0.0.1", strict_server.port), timeout=10)
    connection.sendall(b"GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert connection.recv(65536).startswith(b"HTTP/1.1 200")
    connection.setblocking(False)
    wait_until(lambda: closed_by_server(connection), timeout=20,
               message="a keep-alive connection quiet for 0.5 s was not closed")


def test_a_slow_client_within_the_rate_is_answered(app):
    server = LiveServer(app, header_seconds=5, body_bytes_per_second=1000, idle_seconds=5)
    try:
        body = b'{"hand": ["5H", "5D", "5C", "JS"], "starter": "5S"}'.ljust(1200)
        connection = socket.create_connection(("127.0.0.1", server.port), timeout=30)
        connection.sendall(b"POST /api/count HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                           b"Content-Type: application/json\r\n"
                           b"Content-Length: %d\r\n\r\n" % len(body))
        sent = threading.Event()
        for start in range(0, len(body), 300):  # 1200 bytes in four pieces, 0.2 s apart
            connection.sendall(body[start:start + 300])
            sent.wait(0.2)
        answer = connection.recv(65536)
        assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
        assert b'"total":29' in answer.replace(b" ", b"")
        connection.close()
    finally:
        server.close()


def test_more_slow_clients_than_connections_do_not_lock_others_out(strict_server):
    """The issue's case: more clients than the server's connections, each sending a header
    line now and then. Each is cut off at its deadline, so a player's request gets in."""
    slow = [connect(strict_server) for _ in range(CONNECTION_LIMIT + 10)]
    for connection in slow:
        connection.send(b"GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    with Trickle(slow, b"X-Slow: 1\r\n", step=0.2):
        status, _, _ = request(strict_server.url, "GET", "/api/status", timeout=60)
        assert status == 200
        wait_until(lambda: all(closed_by_server(c) for c in slow), timeout=30,
                   message="some slow clients still hold connections")
