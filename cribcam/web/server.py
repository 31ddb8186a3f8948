"""Running the app under waitress, with every request and response kept in memory."""

from __future__ import annotations

import waitress

DEFAULT_THREADS = 8  # more than CONCURRENT_READS: typed counts never wait behind photos


def make_server(app, host: str = "127.0.0.1", port: int = 8000, threads: int = DEFAULT_THREADS):
    """A waitress server for ``app`` (not yet running: call ``.run()``; ``.close()`` to stop).

    Waitress buffers request bodies over 512 KB and responses over 1 MB in temporary files;
    here both buffers stay in memory up to the upload limit, so no photo and no annotated
    copy of one ever touches the disk. Waitress itself refuses bodies a little over the
    app's limit (with a plain-text 413), so it never buffers more than that per request; the
    app answers anything between with its JSON 413.

    Args:
        port: 0 picks a free port; ``server.effective_port`` tells which.
    """
    limit = int(app.config["MAX_CONTENT_LENGTH"])
    in_memory = limit + (1 << 20)
    return waitress.create_server(
        app, host=host, port=port, threads=threads,
        max_request_body_size=in_memory, inbuf_overflow=in_memory + 1,
        outbuf_overflow=max(in_memory * 2, 1 << 25), ident="cribcam",
        channel_timeout=60, connection_limit=100)


def server_url(server) -> str:
    host = server.effective_host
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{server.effective_port}/"
