"""Running the app under waitress, with every request and response kept in memory."""

from __future__ import annotations

import time

import waitress
from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser
from waitress.server import BaseWSGIServer
from waitress.utilities import RequestEntityTooLarge

from cribcam.settings import DEFAULT_THREADS  # more than CONCURRENT_READS: typed counts never wait behind photos

DRAIN_BYTES = 64 * 1024 * 1024  # a body over the limit is read and thrown away up to this size

# Slow clients. Waitress reads every connection without a thread, but it serves at most
# ``CONNECTION_LIMIT`` at once and its own timeout counts inactivity only: a client sending a
# header line every few seconds holds its connection forever, and a hundred such clients lock
# everybody out. So a request's headers must arrive within HEADER_SECONDS of its first byte,
# its body at BODY_BYTES_PER_SECOND on average after them (a phone's photo on a poor network
# still makes it), and a connection quiet between requests is closed after IDLE_SECONDS.
CONNECTION_LIMIT = 100
HEADER_SECONDS = 10.0
BODY_BYTES_PER_SECOND = 32 * 1024
IDLE_SECONDS = 20.0


def make_server(app, host: str = "127.0.0.1", port: int = 8000, threads: int = DEFAULT_THREADS,
                drain: int = DRAIN_BYTES, header_seconds: float = HEADER_SECONDS,
                body_bytes_per_second: float = BODY_BYTES_PER_SECOND,
                idle_seconds: float = IDLE_SECONDS):
    """A waitress server for ``app`` (not yet running: call ``.run()``; ``.close()`` to stop).

    Waitress buffers request bodies over 512 KB and responses over 1 MB in temporary files;
    here both buffers stay in memory up to the upload limit, so no photo and no annotated
    copy of one ever touches the disk. Waitress itself keeps no body a little over the app's
    limit; the app answers every request over its limit with its own 413 (JSON on the API).

    Args:
        port: 0 picks a free port; ``server.effective_port`` tells which.
        drain: a body announced over the limit is read to its end and thrown away, up to this
            many bytes, before the 413 is sent: a client still sending when the server answers
            and closes sees "connection reset by peer", never the answer. A larger one (or one
            that waits for "100 Continue") is answered at once and its connection closed.
        header_seconds, body_bytes_per_second, idle_seconds: the deadlines a slow client is
            held to (see ``HEADER_SECONDS``); a client late on one has its connection closed.
    """
    limit = int(app.config["MAX_CONTENT_LENGTH"])
    in_memory = limit + (1 << 20)
    server = waitress.create_server(
        app, host=host, port=port, threads=threads,
        max_request_body_size=in_memory, inbuf_overflow=in_memory + 1,
        outbuf_overflow=max(in_memory * 2, 1 << 25), ident="cribcam",
        channel_timeout=idle_seconds, connection_limit=CONNECTION_LIMIT)
    parser = type("DrainingParser", (_DrainingParser,), {
        "drain": drain, "header_seconds": header_seconds,
        "body_bytes_per_second": body_bytes_per_second})
    channel = type("DeadlineChannel", (_DeadlineChannel,),
                   {"parser_class": parser, "idle_seconds": idle_seconds})
    # One server, or one for each address the host names (a MultiSocketServer): each makes
    # the channels of the connections it accepts.
    listeners = [server] if isinstance(server, BaseWSGIServer) else \
        [d for d in server.map.values() if isinstance(d, BaseWSGIServer)]
    for listener in listeners:
        listener.channel_class = channel
    return server


def server_url(server) -> str:
    host = server.effective_host
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{server.effective_port}/"


class _DrainingParser(HTTPRequestParser):
    # Also the deadlines of one request (made when its first byte arrives): see overdue().
    """A request parser that hands a body too large to the app, with nothing of it kept.

    Waitress refuses a ``Content-Length`` over ``max_request_body_size`` with its own plain
    413 and closes the connection at once, while the client is still sending: the client gets
    a reset, not the answer. Here the body is read and thrown away instead (up to ``drain``
    bytes), then the request goes to the app with an empty body: its ``CONTENT_LENGTH`` is
    over ``MAX_CONTENT_LENGTH``, so the app answers its own 413 as for any body over the limit,
    and the connection stays usable.
    """

    drain = DRAIN_BYTES
    header_seconds = HEADER_SECONDS
    body_bytes_per_second = BODY_BYTES_PER_SECOND
    to_discard = 0  # bytes of the body still to read and throw away
    body_began = None  # when the headers were all in (time.monotonic())

    def __init__(self, adj):
        super().__init__(adj)
        self.began = time.monotonic()

    def overdue(self, now: float) -> bool:
        """Whether this request is late: its headers, or its body at the slowest rate allowed."""
        if self.body_began is None:
            return now - self.began > self.header_seconds
        if self.expect_continue:
            return False  # the client waits for the server's "100 Continue", not late itself
        body = max(self.content_length, self.body_bytes_received)
        return now - self.body_began > self.header_seconds + body / self.body_bytes_per_second

    def received(self, data):
        consumed = self._received(data)
        if self.headers_finished and self.body_began is None:
            self.body_began = time.monotonic()
        return consumed

    def _received(self, data):
        if self.to_discard:
            consumed = min(len(data), self.to_discard)
            self.to_discard -= consumed
            self.completed = not self.to_discard
            return consumed
        consumed = super().received(data)
        too_large = isinstance(self.error, RequestEntityTooLarge)
        if too_large and not self.chunked and self.body_bytes_received == 0:
            # Refused from its headers: to the app, with no body (nothing of it is buffered).
            self.error = None
            self.body_rcv = None
            if self.expect_continue or self.content_length > self.drain:
                # Not sent yet (it waits for 100 Continue), or too much to read: answered now.
                self.expect_continue = False
                self.headers["CONNECTION"] = "close"
            else:
                self.completed = False
                self.to_discard = self.content_length
        return consumed


class _DeadlineChannel(HTTPChannel):
    """A channel that closes its connection when its client is late (see ``HEADER_SECONDS``).

    Checked whenever waitress's loop asks whether to read (at least once a second), on the
    loop's own thread, the one that reads requests; never while one is being answered.
    """

    parser_class = _DrainingParser
    idle_seconds = IDLE_SECONDS

    def readable(self):
        if not (self.will_close or self.requests or self.total_outbufs_len):
            if self.request is not None:
                late = self.request.overdue(time.monotonic())
            else:
                late = time.time() - self.last_activity > self.idle_seconds  # waitress's clock
            if late:
                self.will_close = True  # closed by the loop's next pass, as waitress's own timeout does
        return super().readable()
