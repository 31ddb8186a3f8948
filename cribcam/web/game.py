"""The scoreboard: the page ``/game`` and its JSON API under ``/api/games``.

    GET  /api/games?page=1&per_page=20  the games kept, the last changed first: {"games":
                                      [{"id", "players", "sides": [{"name", "score"}], "over",
                                      "winner", "status", "changed", ...}], "page", "per_page",
                                      "total", "pages", "unreadable": [{"id", "error"}]} (per_page
                                      at most 100; unreadable: games that cannot be replayed)
    POST /api/games                   {"players": ["Ann", "Bob"] or 2, "variant", "target",
                                       "muggins", "skunk", "first_dealer"}: a new game (201)
    GET  /api/games/ID                the state: scores, pegs, log, what comes next, result
    POST /api/games/ID/entries        one entry (see ``cribcam.game.entries``): the new state
    POST /api/games/ID/undo           drop the last entry, or {"entry": N} the Nth (if the
                                      entries after it still fit): the state without it
    POST /api/games/ID/next           the next game of the match, once this one is over (201)
    GET  /api/games/ID/export         the setup, the log and the state as a JSON download
    DELETE /api/games/ID              the game and its log, gone (the last game of its match:
                                      {"deleted": ID}); also a game that cannot be replayed

Bodies are read as on /api/count (``api.json_body``): JSON whatever their Content-Type.
Errors are ``{"error": "..."}``: 400 a malformed request or entry (also an unknown variant,
as on the rest of the API), 404 no such game, 409 an entry saved by someone else at the same
moment, 413 a body over ``MAX_JSON_BYTES``, 422 an entry or setup the rules refuse (and
cards that make no hand), 503 the game database cannot be used. A refused entry changes
nothing. The games are kept in the database of ``GAME_DB`` in the app's config, else of
``CRIBCAM_DB``, else in the user's data folder (``cribcam.game.store``).
"""

from __future__ import annotations

import logging
import threading

from flask import Blueprint, current_app, jsonify, render_template, request

from cribcam.game import EntryError, GameError, Setup
from cribcam.game.store import MAX_PER_PAGE, PER_PAGE, GameConflict, GameNotFound, GameStore, StoreError
from cribcam.web import api

bp = Blueprint("game", __name__)
log = logging.getLogger(__name__)

# Bad input is answered as on the rest of the API: the same errors, the same statuses.
for _handlers in api.bp.error_handler_spec[None].values():
    for _error, _handler in _handlers.items():
        bp.register_error_handler(_error, _handler)

_STATUS = [(StoreError, 503), (GameNotFound, 404), (GameConflict, 409), (EntryError, 400),
           (GameError, 422)]
_store_lock = threading.Lock()
_SETUP_EXAMPLE = '{"players": ["Ann", "Bob"], "muggins": true}'
_ENTRY_EXAMPLE = '{"type": "deal", "starter": "5D"}'


@bp.errorhandler(GameError)
def game_error(exc: GameError):
    """A game's error as the API answers it, here and where another part of the API meets one
    (the live play of a kept game)."""
    return jsonify(error=game_error_message(exc)), next(code for kind, code in _STATUS if isinstance(exc, kind))


def game_error_message(exc: GameError) -> str:
    """What a player is told of a game's error. Where the database lies and how it fails is the
    operator's business, in the server's log; a player is told the games are out of reach (a
    503 showed the database's path)."""
    if isinstance(exc, StoreError):
        log.error("%s", exc)
        return "the games cannot be kept on this server now: its games database cannot be used (the server's log says why)"
    return str(exc)


def store() -> GameStore:
    """The app's game store, opened on first use (so an app never playing opens no database).
    Games are started here, so a database not there yet is made, as ``cribcam serve`` makes
    it at its start."""
    with _store_lock:
        if "cribcam.games" not in current_app.extensions:
            current_app.extensions["cribcam.games"] = GameStore(current_app.config.get("GAME_DB"))
        return current_app.extensions["cribcam.games"]


@bp.get("/game")
@bp.get("/game/<game_id>")
def page(game_id: str | None = None):
    """The scoreboard page; with an id it continues that game (its script loads the state)."""
    return render_template("game.html", script="game.js", game_id=game_id or "")


@bp.get("/api/games")
def games():
    """A page of the games kept, the last changed first (``?page=2&per_page=20``)."""
    page = _page_field("page", request.args.get("page"), 1, None)
    per_page = _page_field("per_page", request.args.get("per_page"), PER_PAGE, MAX_PER_PAGE)
    return jsonify(store().page(page, per_page))


def _page_field(name: str, value: str | None, default: int, most: int | None) -> int:
    """A whole number from 1 (to ``most``) in the query string; ``api.BadRequest`` (400)."""
    if value is None:
        return default
    text = value.strip()
    number = int(text) if text.isascii() and text.isdigit() and len(text) <= 9 else 0
    if number < 1 or (most is not None and number > most):
        span = f"from 1 to {most}" if most is not None else "from 1"
        raise api.BadRequest(f'"{name}" must be a whole number {span}, not {value!r}; e.g. '
                             f'/api/games?page=2&per_page={PER_PAGE}')
    return number


@bp.post("/api/games")
def create():
    setup = setup_from_json(api.json_body(_SETUP_EXAMPLE))
    game_id = store().create(setup)
    return jsonify(store().state(game_id)), 201


@bp.get("/api/games/<game_id>")
def state(game_id: str):
    return jsonify(store().state(game_id))


@bp.post("/api/games/<game_id>/entries")
def add(game_id: str):
    store().add(game_id, api.json_body(_ENTRY_EXAMPLE))
    return jsonify(store().state(game_id))


@bp.post("/api/games/<game_id>/undo")
def undo(game_id: str):
    number = api.json_body('{"entry": 2}', optional=True).get("entry")
    if number is not None and (isinstance(number, bool) or not isinstance(number, int)):
        raise EntryError('"entry" must be the number of an entry of the log (1 for the first)')
    store().undo(game_id, number)
    return jsonify(store().state(game_id))


@bp.post("/api/games/<game_id>/next")
def next_game(game_id: str):
    return jsonify(store().state(store().next_game(game_id))), 201


@bp.delete("/api/games/<game_id>")
def delete(game_id: str):
    store().delete(game_id)
    return jsonify(deleted=game_id)


@bp.get("/api/games/<game_id>/export")
def export(game_id: str):
    response = jsonify(store().export(game_id))
    response.headers["Content-Disposition"] = f'attachment; filename="cribcam-game-{game_id}.json"'
    return response


def setup_from_json(body: dict) -> Setup:
    """A ``Setup`` from the JSON of ``POST /api/games``.

    Raises:
        EntryError, api.BadRequest (the variant): a malformed field (400).
        GameError: a setup the rules refuse (422).
    """
    players = body.get("players", 2)
    # The variant as on every other endpoint: one that is not a variant is malformed (400).
    options = {"variant": api.variant_field(body.get("variant"))}
    for name, kind in [("target", int), ("muggins", bool), ("skunk", bool), ("first_dealer", str)]:
        value = body.get(name)
        if value is None:
            continue
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise EntryError(f'"{name}" must be {_KINDS[kind]}')
        options[name] = value
    if isinstance(players, int) and not isinstance(players, bool):
        return Setup.for_count(players, **options)
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise EntryError('"players" must be a number of players or a list of names, like '
                         '["Ann", "Bob"]')
    return Setup(tuple(p.strip() for p in players), **options)


_KINDS = {str: "a string", int: "a whole number", bool: "true or false"}
