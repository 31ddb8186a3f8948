"""The web app: the photo page and the JSON API, on top of the reader and the scoring core.

    >>> from cribcam.web import create_app
    >>> app = create_app()            # loads the bundled model once, if there is one

``cribcam serve`` runs it under waitress; ``flask --app cribcam.web run`` for development.
The web layer only parses requests and calls ``cribcam.vision`` and ``cribcam.scoring``; it
never counts or reads cards itself.
"""

from __future__ import annotations

import hmac
import io
import logging
from urllib.parse import urlsplit

from flask import Flask, Request, current_app, has_request_context, jsonify, make_response, request
from werkzeug.exceptions import BadRequest, Forbidden, HTTPException

from cribcam.bundled import WEB_DIR
from cribcam.vision.decks import DeckError, check_name
from cribcam.vision.images import DEFAULT_MAX_PIXELS, DEFAULT_MAX_SIDE
from cribcam.web.pages import error_page
from cribcam.web.reader_slot import ModelUnavailable, ReaderSlot

MAX_UPLOAD_BYTES = 12 * 1024 * 1024
DECK_COOKIE = "cribcam-deck"  # the taught deck a browser chose on the photo page ("": the bundled one)
KEY_COOKIE = "cribcam-key"  # the door key, as a browser gave it once (web/static/counting.js send)
KEY_HEADER = "X-Cribcam-Key"  # the door key, as a script gives it
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")  # methods that change nothing
OPEN_WRITES = {"/api/count", "/api/read", "/api/discard"}  # POSTs that change nothing

DEFAULTS = {
    "MAX_CONTENT_LENGTH": MAX_UPLOAD_BYTES,  # whole request; larger answers 413
    "MAX_JSON_BYTES": 64 * 1024,  # /api/count bodies
    "MAX_IMAGE_PIXELS": DEFAULT_MAX_PIXELS,  # checked from the header, before decoding
    "MAX_IMAGE_SIDE": DEFAULT_MAX_SIDE,  # photos are scaled down to this before reading
    "MODEL_PATH": None,  # None: the bundled models/ (finder.onnx and classifier.onnx)
    "MODEL_THREADS": 0,  # onnxruntime threads per inference; 0: onnxruntime decides
    "CONCURRENT_READS": 2,  # photos read at once; more request threads than this keep typed
                            # counts quick while photos are read (bench/load_test.py)
    "LOAD_MODEL_AT_START": True,
    "DECK_READERS_KEPT": 2,  # taught decks' readers kept loaded, the last used (their heads: the models are shared)
    # The names the server answers to (the Host header): None for this machine's own (its
    # loopback and network addresses and host names: live.https.local_names); serve --name adds.
    "HOSTS": None,
    # The key every change asks for (a game, a deck, a live session): serve beyond loopback sets
    # one; None for none. Counting and reading change nothing and never ask (OPEN_WRITES).
    "DOOR_KEY": None,
    "DECK": None,  # the taught deck photos are read with when a request chooses none (serve --deck)
}

log = logging.getLogger(__name__)


class InMemoryRequest(Request):
    """A request whose uploaded files are parsed into memory, never into temporary files.

    Werkzeug spools uploads over 500 KB to a temporary file; the request size limit
    (``MAX_CONTENT_LENGTH``) bounds what this keeps in memory instead.
    """

    def _get_file_stream(self, total_content_length, content_type, filename=None,
                         content_length=None):
        return io.BytesIO()


def create_app(config: dict | None = None, reader=None) -> Flask:
    """Builds the app.

    Args:
        config: settings over ``DEFAULTS`` (and Flask's own, e.g. ``TESTING``).
        reader: a ready card reader (anything with ``read(image, expected=..., starter=...)``); by default
            a ``CardReader`` on ``MODEL_PATH``, loaded once. With no model the app still
            serves the page and ``/api/count``; ``/api/read`` answers 503.
    """
    app = Flask(__name__, template_folder=str(WEB_DIR / "templates"),
                static_folder=str(WEB_DIR / "static"), static_url_path="/static")
    app.request_class = InMemoryRequest
    app.config.from_mapping(DEFAULTS)
    app.config.from_mapping(config or {})
    app.json.sort_keys = False  # the same key order as `cribcam count --json`
    app.json.ensure_ascii = False

    slot = ReaderSlot(reader, app.config["MODEL_PATH"], app.config["MODEL_THREADS"],
                      app.config["CONCURRENT_READS"], deck_choice=deck_to_read_with,
                      decks_kept=app.config["DECK_READERS_KEPT"])
    app.extensions["cribcam.reader"] = slot
    if reader is None and app.config["LOAD_MODEL_AT_START"]:
        try:
            slot.get()
        except ModelUnavailable:
            log.warning("no card-reading model (%s): photos answer 503; typed cards still count",
                        slot.error)

    from cribcam.web import api, discard, game, live, pages, teach

    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(discard.bp)
    app.register_blueprint(game.bp)
    app.register_blueprint(teach.bp)
    live.init_app(app)
    _register_error_handlers(app)
    app.before_request(_refuse_other_hosts)
    app.before_request(_refuse_cross_site_writes)
    app.before_request(_ask_for_the_door_key)
    app.after_request(_security_headers)
    return app


def _refuse_other_hosts():
    """403 for a request to a name the server does not answer to: a page of another site
    whose name was made to lead here (DNS rebinding) sends its own name as the Host, and its
    Origin matches it, so the Origin check alone let it change games."""
    from cribcam.live.https import local_names

    hosts = current_app.config["HOSTS"]
    if hosts is None:
        hosts = current_app.config["HOSTS"] = local_names("127.0.0.1")
    name = urlsplit(f"//{request.host}").hostname or ""
    if name.lower() not in {host.lower() for host in hosts}:
        raise Forbidden(f"this server does not answer to the name {name[:60]!r}: open it as "
                        f"{hosts[0]} or by this machine's address, or start it with --name {name[:60]}")


def _ask_for_the_door_key():
    """403 (``"code": "door_key"``) for a change without the server's key, when it has one
    (``DOOR_KEY``: serve beyond loopback): anyone on the network could undo any game to
    nothing, evict every live session or fill the disk by teaching. The pages ask the player
    for it once and keep it in a cookie; a script sends it in ``KEY_HEADER``."""
    key = current_app.config["DOOR_KEY"]
    if not key or request.method in SAFE_METHODS or request.path in OPEN_WRITES:
        return None
    given = request.headers.get(KEY_HEADER) or request.cookies.get(KEY_COOKIE) or ""
    if hmac.compare_digest(given.strip().encode(), key.encode()):
        return None
    answer = jsonify(error="this server asks for its key before anything changes: the key "
                           "`cribcam serve` printed at its start", code="door_key")
    return answer, 403


def _refuse_cross_site_writes():
    """403 for a POST (or DELETE) that a page of another site makes the browser send.

    The API takes JSON with any Content-Type and photos as forms, which pages of any site may
    send without asking; games and taught decks must not change that way. Browsers name the
    page's origin on every such request; curl and scripts send none and are let through.
    """
    origin = request.headers.get("Origin")
    writes = request.method not in SAFE_METHODS
    if writes and origin is not None and urlsplit(origin).netloc != request.host:
        raise Forbidden(f"a page of {origin} may not send requests to this server")


def reader_slot(app: Flask) -> ReaderSlot:
    return app.extensions["cribcam.reader"]


def chosen_deck() -> str | None:
    """The taught deck this request reads photos with: its field ``deck``, else the deck the
    browser chose (a cookie), else the server's (``DECK``); None for the bundled classifier.

    As named, unchecked: ``GET /api/decks`` reports it so that the photo page can see a
    choice of a deck removed since, and go back to the bundled model."""
    if not has_request_context():
        return None
    for choice in (request.values.get("deck"), request.cookies.get(DECK_COOKIE)):
        if choice is not None:
            return choice or None
    return current_app.config["DECK"]


def deck_to_read_with() -> str | None:
    """``chosen_deck()``, once it is a name a deck can have; whether such a deck is taught is
    the reader slot's to find (``DeckError``: 404).

    Raises:
        BadRequest: a name no deck can have (path characters, spaces...): a malformed
            request (400), where a well-formed name of a deck not taught is 404.
    """
    deck = chosen_deck()
    if deck:
        try:
            check_name(deck)
        except DeckError as exc:
            raise BadRequest(str(exc)) from None
    return deck


_MESSAGES = {
    400: "the request is malformed",
    404: "no such page or API endpoint",
    405: "this endpoint does not answer that method",
    413: "the upload is larger than the {limit} MB limit: send a smaller photo",
}


def _api_message(exc: HTTPException, app: Flask) -> str:
    if exc.description and exc.description != type(exc).description:
        return exc.description  # raised with a message of our own
    limit = app.config["MAX_CONTENT_LENGTH"] // (1024 * 1024)
    length = request.content_length
    if exc.code == 413 and length is not None and length <= app.config["MAX_CONTENT_LENGTH"]:
        # Within the size: werkzeug refuses a form of more parts than MAX_FORM_PARTS so.
        return (f"the form has more than {app.config['MAX_FORM_PARTS']} fields: send the photo "
                f"and the few fields the endpoint takes")
    return _MESSAGES.get(exc.code, exc.name.lower()).format(limit=limit)


def _register_error_handlers(app: Flask) -> None:
    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        if not request.path.startswith("/api/"):
            response = make_response(error_page(exc))
        else:
            response = jsonify(error=_api_message(exc, app))
        response.status_code = exc.code or 500
        if exc.code == 405 and exc.valid_methods:
            response.headers["Allow"] = ", ".join(exc.valid_methods)
        return response

    @app.errorhandler(DeckError)
    def no_such_deck(exc: DeckError):
        # A deck chosen that is not (or no longer) taught: say so, the player chooses another.
        if not request.path.startswith("/api/"):
            from werkzeug.exceptions import NotFound

            return error_page(NotFound(str(exc))), 404
        return jsonify(error=str(exc)), 404

    @app.errorhandler(Exception)
    def unexpected_error(exc: Exception):
        # A bug, never a user's mistake: every bad input is answered with a 4xx before this.
        log.exception("unexpected error on %s %s", request.method, request.path)
        if not request.path.startswith("/api/"):
            from werkzeug.exceptions import InternalServerError

            return error_page(InternalServerError()), 500
        return jsonify(error="internal error: the server could not handle this request"), 500


_CSP = ("default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; "
        "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
        "frame-ancestors 'none'")


def _security_headers(response):
    response.headers.setdefault("Content-Security-Policy", _CSP)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    if request.path.startswith("/api/"):
        response.headers.setdefault("Cache-Control", "no-store")
    return response
