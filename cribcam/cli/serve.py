"""`cribcam serve`: the web app (photo page, live page and JSON API) under waitress."""

from __future__ import annotations

import errno
import secrets

from cribcam.cli.decks import add_deck_option
from cribcam.cli.game import add_db_option
from cribcam.cli.main import UsageError
from cribcam.cli.model import add_model_option
from cribcam.settings import DEFAULT_THREADS


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "serve", help="run the web app: photo page, live page and JSON API",
        description="Serve the web app (the photo page, the live camera page and the JSON "
                    "API) with waitress. The model is loaded once; without one, typed cards "
                    "still count and photos answer 503.",
        epilog="examples: cribcam serve --port 8000, then open http://127.0.0.1:8000/ (or "
               "/live); cribcam serve --https --host 0.0.0.0, then open the printed https "
               "address on a phone on the same network")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1; 0.0.0.0 for every "
                             "machine on the network: there is no login)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: any free)")
    parser.add_argument("--name", action="append", default=[], metavar="NAME",
                        help="a name the server answers to besides this machine's own (its "
                             "addresses, host name and localhost), as a browser is given it: "
                             "cribcam.home.lan (any number of times)")
    add_model_option(parser)
    add_deck_option(parser)
    add_db_option(parser)
    parser.add_argument("--threads", type=int, default=DEFAULT_THREADS,
                        help=f"request threads (default {DEFAULT_THREADS}; photos are read "
                             f"two at a time whatever this is)")
    parser.add_argument("--https", action="store_true",
                        help="serve over HTTPS with a self-signed certificate, made the first "
                             "time and kept in the data folder, so that phones may use their "
                             "camera on the live page (the browser warns once about the certificate)")
    parser.set_defaults(handler=run)


def run(args, *, name: str = "serve", config: dict | None = None, on_ready=None,
        any_port_if_taken: bool = False) -> int:
    """Serves the app until Ctrl-C.

    Args:
        args: the options of `cribcam serve`.
        name: the command named in the lines printed (`cribcam live hands` serves the app too).
        config: app settings over those the options give.
        on_ready: called with the server's URL once it listens, before it serves.
        any_port_if_taken: when ``args.port`` is taken, listen on any free port instead.
    """
    from cribcam.web import create_app, reader_slot
    from cribcam.web.server import make_server, server_url

    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port} is not a port number (0-65535)")
    if not 1 <= args.threads <= 64:
        raise UsageError(f"--threads {args.threads}: choose 1 to 64")
    if args.model is not None and not args.model.is_dir():
        raise UsageError(f"no such model folder: {args.model} (it holds finder.onnx and classifier.onnx)")
    if args.deck:
        from cribcam.vision.decks import DeckError, find_deck

        try:
            find_deck(args.deck)
        except DeckError as exc:
            raise UsageError(str(exc)) from None
    if args.db:
        _check_database(args.db)
    from cribcam.live.https import local_names

    hosts = local_names(args.host) + [name.strip() for name in getattr(args, "name", []) if name.strip()]
    beyond = args.host not in LOOPBACK
    key = _door_key() if beyond else None
    app = create_app({"MODEL_PATH": args.model, "DECK": args.deck, "GAME_DB": args.db, "HOSTS": hosts,
                      "DOOR_KEY": key, **(config or {})})
    slot = reader_slot(app)
    if args.model is not None and not slot.available and not slot.missing:
        # A model named that is there but cannot be loaded is a mistake to fix, not a server to
        # run. No model at all is a server that counts typed cards (the start line says so).
        raise UsageError(f"the model {args.model} could not be loaded: {slot.error}")
    server = front = None
    notes: list[str] = []
    try:
        if args.https:  # waitress on loopback, behind a TLS front on --host and --port
            server = make_server(app, "127.0.0.1", 0, args.threads)
            front, url, notes = _tls_front(args.host, args.port, server.effective_port)
        else:
            try:
                server = make_server(app, args.host, args.port, args.threads)
            except OSError as exc:
                if not (any_port_if_taken and args.port and exc.errno == errno.EADDRINUSE):
                    raise
                server = make_server(app, args.host, 0, args.threads)
                notes.append(f"port {args.port} is taken (another cribcam serve?): "
                             f"listening on {server.effective_port} instead")
            url = server_url(server)
    except OSError as exc:
        if server is not None:
            server.close()
        raise UsageError(f"cannot listen on {args.host} port {args.port}: {exc.strerror or exc}") from None
    if slot.available:
        model = f"reading photos with {slot.description}"
        if args.deck:
            model += f" and the taught deck {args.deck}"
    else:
        where = f"in {args.model}" if args.model is not None else "installed"
        model = f"no card-reading model {where}: typed cards count, photos answer 503"
    try:  # from the first line printed, a Ctrl-C stops the server cleanly
        print(f"cribcam {name}: {url} ({model}; Ctrl-C stops)", flush=True)
        for note in notes:
            print(f"cribcam {name}: {note}", flush=True)
        if beyond:
            print(f"cribcam {name}: listening beyond this machine: its key is {key}; a browser is "
                  f"asked for it once before it changes a game, a deck or a live session (a script "
                  f"sends it as the header X-Cribcam-Key); counting and reading need none", flush=True)
        if on_ready is not None:  # listening already: a browser opened now is answered at once
            on_ready(url)
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        if front is not None:
            front.close()
        server.close()
    return 0


LOOPBACK = ("127.0.0.1", "localhost", "::1")
KEY_DIGITS = 8


def _door_key() -> str:
    """The key a server listening beyond this machine asks for before a change: kept in the
    data folder, the same at every start (a browser that gave it once goes on), made the
    first time."""
    from cribcam.settings import data_dir

    path = data_dir() / "door-key"
    try:
        key = path.read_text().strip()
    except OSError:
        key = ""
    if not (key.isdigit() and len(key) == KEY_DIGITS):
        key = f"{secrets.randbelow(10 ** KEY_DIGITS):0{KEY_DIGITS}d}"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch(mode=0o600)
            path.chmod(0o600)
            path.write_text(key + "\n")
        except OSError as exc:
            raise UsageError(f"the server's key cannot be kept in {path}: {exc.strerror or exc}") from None
    return key


def _check_database(url: str) -> None:
    """Opens the games' database once, so that a bad ``--db`` stops the start, not a game."""
    from cribcam.game.store import StoreError, connect

    try:
        connect(url).dispose()
    except StoreError as exc:
        raise UsageError(f"--db: {exc}") from None


def _tls_front(host: str, port: int, backend_port: int):
    """A TLS front with the self-signed certificate kept in the data folder (made the first
    time), its URL, and lines for the user: the certificate's fingerprint and where a phone
    can open the live page."""
    from cribcam.live import https
    from cribcam.settings import data_dir

    names = https.local_names(host)
    folder = data_dir() / "https"
    cert, key, new = https.kept_certificate(folder, names)
    front = https.TLSFront(https.server_context(cert, key), host, port, backend_port)
    every = host in https.WILDCARDS
    shown = "127.0.0.1" if every else host
    url = f"https://{f'[{shown}]' if ':' in shown else shown}:{front.port}/"
    kept = f"made now and kept in {folder}" if new else f"kept in {folder}, as a phone trusted it before"
    notes = [f"self-signed certificate for {', '.join(names)} ({kept}); SHA-256 {https.fingerprint(cert)}"]
    address = https.network_address() if every else None
    if address:
        notes.append(f"on a phone on this network open https://{address}:{front.port}/live "
                     f"and accept the certificate warning once")
    return front, url, notes
