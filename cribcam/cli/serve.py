"""`cribcam serve`: the web app (photo page and JSON API) under waitress."""

from __future__ import annotations

import sys
from pathlib import Path

from cribcam.cli.main import UsageError

# cribcam.web.server.DEFAULT_THREADS, not imported: every `cribcam` command would load Flask.
DEFAULT_THREADS = 8


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "serve", help="run the web app: photo page and JSON API",
        description="Serve the web app (the photo page and the JSON API) with waitress. The "
                    "model is loaded once; without one, typed cards still count and photos "
                    "answer 503.",
        epilog="example: cribcam serve --port 8000, then open http://127.0.0.1:8000/")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1; 0.0.0.0 for every "
                             "machine on the network: there is no login)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: any free)")
    parser.add_argument("--model", type=Path, help="detector .onnx (default: the bundled model)")
    parser.add_argument("--threads", type=int, default=DEFAULT_THREADS,
                        help=f"request threads (default {DEFAULT_THREADS}; photos are read "
                             f"two at a time whatever this is)")
    parser.set_defaults(handler=run)


def run(args) -> int:
    from cribcam.web import create_app, reader_slot
    from cribcam.web.server import make_server, server_url

    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port} is not a port number (0-65535)")
    if not 1 <= args.threads <= 64:
        raise UsageError(f"--threads {args.threads}: choose 1 to 64")
    if args.model is not None and not args.model.is_file():
        raise UsageError(f"no such model file: {args.model}")
    app = create_app({"MODEL_PATH": args.model} if args.model else None)
    slot = reader_slot(app)
    if args.model is not None and not slot.available:
        raise UsageError(f"the model {args.model} could not be loaded: {slot.error}")
    try:
        server = make_server(app, args.host, args.port, args.threads)
    except OSError as exc:
        raise UsageError(f"cannot listen on {args.host} port {args.port}: {exc.strerror or exc}")
    if slot.available:
        model = f"reading photos with {slot.description}"
    else:
        model = "no card-reading model installed: typed cards count, photos answer 503"
    print(f"cribcam serve: {server_url(server)} ({model}; Ctrl-C stops)", flush=True)
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print("cribcam serve: listening beyond this machine; anyone who can reach it can use it",
              file=sys.stderr, flush=True)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    return 0
