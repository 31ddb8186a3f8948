"""Running the app under waitress, with every request and response kept in memory."""

from __future__ import annotations

import waitress
from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser
from waitress.server import BaseWSGIServer
from waitress.utilities import RequestEntityTooLarge

from cribcam.settings import DEFAULT_THREADS  # more than CONCURRENT_READS: typed counts never wait behind photos

DRAIN_BYTES = 64 * 1024 * 1024  # a body over the limit is read and thrown away up to this size


def make_server(app, host: str = "127.0.0.1", port: int = 8000, threads: int = DEFAULT_THREADS,
                drain: int = DRAIN_BYTES):
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
    """
    limit = int(app.config["MAX_CONTENT_LENGTH"])
    in_memory = limit + (1 << 20)
    server = waitress.create_server(
        app, host=host, port=port, threads=threads,
        max_request_body_size=in_memory, inbuf_overflow=in_memory + 1,
        outbuf_overflow=max(in_memory * 2, 1 << 25), ident="cribcam",
        channel_timeout=60, connection_limit=100)
    channel = type("DrainingChannel", (_DrainingChannel,),
                   {"parser_class": type("DrainingParser", (_DrainingParser,), {"drain": drain})})
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
    """A request parser that hands a body too large to the app, with nothing of it kept.

    Waitress refuses a ``Content-Length`` over ``max_request_body_size`` with its own plain
    413 and closes the connection at once, while the client is still sending: the client gets
    a reset, not the answer. Here the body is read and thrown away instead (up to ``drain``
    bytes), then the request goes to the app with an empty body: its ``CONTENT_LENGTH`` is
    over ``MAX_CONTENT_LENGTH``, so the app answers its own 413 as for any body over the limit,
    and the connection stays usable.
    """

    drain = DRAIN_BYTES
    to_discard = 0  # bytes of the body still to read and throw away

    def received(self, data):
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


class _DrainingChannel(HTTPChannel):
    parser_class = _DrainingParser
