"""The live page (``/live``) and its frame endpoint (``POST /api/live/frame``).

The page sends camera frames one at a time; each is read, and the session's ``Follower``
(``cribcam.live``, the same lock as ``cribcam live hands``) says whether a hand is locked. The
answer carries the frame's cards and boxes for the overlay and, while a hand is locked,
its reading and count as ``/api/read`` gives them.
"""

from __future__ import annotations

import threading
import time

from flask import Blueprint, Flask, current_app, jsonify, request

from cribcam.game import GameError
from cribcam.live.sessions import LiveSessions, SessionBusy
from cribcam.web import api
from cribcam.web.game import game_error, game_error_message, store
from cribcam.web.pages import render_page

LIVE_DEFAULTS = {
    "LIVE_MAX_SESSIONS": 32,  # cameras followed at once; the one idle longest makes room
    "LIVE_IDLE_SECONDS": 300,  # a session without a frame for this long is forgotten
    "LIVE_LOCK_WINDOW": 8,  # frames the lock looks back over (as `cribcam live hands --window`)
    "LIVE_LOCK_AGREE": 5,  # of them, how many must show the same cards to lock
}

pages = Blueprint("live", __name__)
frames = Blueprint("live_api", __name__, url_prefix="/api/live")

# Bad input is answered here as on the rest of the API: the same errors, the same statuses.
for _handlers in api.bp.error_handler_spec[None].values():
    for _error, _handler in _handlers.items():
        frames.register_error_handler(_error, _handler)


def init_app(app: Flask) -> None:
    """Adds the live page, its endpoint and the session store to ``app``."""
    for key, value in LIVE_DEFAULTS.items():
        app.config.setdefault(key, value)
    app.extensions["cribcam.live"] = LiveSessions(
        app.config["LIVE_MAX_SESSIONS"], app.config["LIVE_IDLE_SECONDS"],
        app.config["LIVE_LOCK_WINDOW"], app.config["LIVE_LOCK_AGREE"],
        app.config.get("LIVE_CLOCK") or time.monotonic)  # a test's clock, or the machine's
    app.register_blueprint(pages)
    app.register_blueprint(frames)


@pages.get("/live")
def page():
    return render_page("live.html")


@frames.errorhandler(SessionBusy)
def _busy(exc):
    return jsonify(error=str(exc)), 429


frames.register_error_handler(GameError, game_error)  # a kept game's play: its game's errors


@frames.post("/frame")
def frame():
    """Reads one camera frame (multipart field ``image``) for a live session.

    Form fields: ``session`` (the id from the previous answer; none, unknown or expired
    opens a new session), ``crib`` and ``variant`` as for /api/read. A session watching the
    play (``POST /api/live/play``) answers as ``_play_frame`` says instead.

    Returns:
        ``{"session", "frame", "reading", "locked", "hand", "new_hand", "unsure", "report"}``:
        ``reading`` is this frame's cards with their boxes (``Reading.as_dict``); ``hand``
        numbers the last hand locked (0: none yet); ``unsure`` lists the cards that keep a
        hand from locking (unsure in most recent frames: the player should check them);
        ``report`` is the locked hand's reading and count as /api/read answers, or null
        while nothing is locked.
    """
    from cribcam.vision.report import expected_cards, reading_report
    from cribcam.web import reader_slot

    upload, form = api.image_upload("frame")
    crib = api.flag_field(form.get("crib"), "crib")
    variant = api.variant_field(form.get("variant") or None)
    image = api.uploaded_image(upload)
    slot = reader_slot(current_app)
    slot.chosen()  # no model (503) or no such deck (404) before a session is opened for nothing

    session_id, session = current_app.extensions["cribcam.live"].open(form.get("session"))
    watch = session.play  # taken once: the play may be stopped while this frame is read
    if watch is not None:
        return _play_frame(session_id, session, watch, image, slot)
    expected = expected_cards(variant, crib)
    with session.reading():
        # A frame that shows what the last one read showed is not read again.
        reading = session.still.read(image, lambda frame: slot.read(frame, expected=expected),
                                     key=(slot.deck_choice(), expected))
        step = session.follower.update(reading)
        number = session.frames
    report = (reading_report(step.locked, crib=crib, variant=variant)
              if step.locked is not None else None)
    return jsonify(session=session_id, frame=number, reading=reading.as_dict(),
                   locked=step.locked is not None, hand=step.hand, new_hand=step.new_hand,
                   unsure=list(step.unsure), report=report)


# --- the play (pegging) ---------------------------------------------------------------------

_PLAY_EXAMPLE = '{"players": ["Ann", "Bob"], "dealer": "Bob", "variant": "six-card"} or {"game": "ID"}'


@frames.post("/play")
def start_play():
    """Starts watching the play in a live session: ``{"session", "players", "dealer",
    "variant"}`` (players in seating order, as a list or one string; the dealer's left leads),
    or ``{"session", "game"}``: the play of a kept game at its play, its players, dealer and
    variant the game's, and once over it goes into the game as its play entry, here on the
    server (``play["game"]`` says how it went).

    Returns:
        ``{"session", "play", "frame_side"}``: ``play`` is where the play stands
        (``_play_state``); the play's frames are to be sent ``frame_side`` pixels long. 404 for
        no such game, 409 for a game not at its play.
    """
    from cribcam.live.play import FRAME_SIDE, PlayWatch

    body = api.json_body(_PLAY_EXAMPLE)
    game_id = body.get("game")
    if game_id is not None and (not isinstance(game_id, str) or not game_id.strip()):
        raise api.BadRequest(f'"game" must be the id of a kept game, like {_PLAY_EXAMPLE}')
    table = _table_of_game(game_id.strip()) if game_id is not None else _table_named(body)
    session_id, session = current_app.extensions["cribcam.live"].open(_session_field(body))
    session.play = PlayWatch(table)
    session.play_game = {"id": game_id.strip()} if game_id is not None else None
    return jsonify(session=session_id, play=_play_state(session, session.play, []), frame_side=FRAME_SIDE)


def _table_named(body: dict):
    """The play of the players, dealer and variant a request names."""
    from cribcam.game.table_play import TablePlay
    from cribcam.scoring import rules

    players = body.get("players")
    if isinstance(players, str):
        players = players.replace(",", " ").split()
    if not isinstance(players, list) or not all(isinstance(p, str) and p.strip() for p in players):
        raise api.BadRequest(f'"players" must name the players in seating order, like {_PLAY_EXAMPLE}')
    dealer = body.get("dealer")
    variant = api.variant_field(body.get("variant"))
    try:
        table = TablePlay([p.strip() for p in players], dealer if isinstance(dealer, str) else "",
                          rules.VARIANTS[variant].hand_size)
    except ValueError as exc:
        raise api.BadRequest(str(exc)) from None
    return table


def _table_of_game(game_id: str):
    """The play of the kept game ``game_id``; a missing game and its store's errors are the
    game API's (404, 503), a game not at its play 409."""
    from werkzeug.exceptions import Conflict

    from cribcam.game.table_play import NotAtPlay, TablePlay

    try:
        return TablePlay.of_game(store().game(game_id))
    except NotAtPlay as exc:
        raise Conflict(f"game {game_id} is {exc}") from None


def _into_game(session, watch) -> None:
    """Once the play of a kept game is over, it goes into the game (once: a go and a frame
    may end it at the same moment), and the game's answer is kept for the page: its sides'
    scores, or why it did not take the play."""
    from cribcam.scoring.cards import CardError

    game = session.play_game
    if game is None or watch.table.turn is not None:
        return
    with _INTO_GAME:
        if "sides" in game or "error" in game:
            return
        try:
            store().add(game["id"], watch.table.game_entry())
            game["sides"] = store().state(game["id"])["sides"]
        except GameError as exc:
            game["error"] = game_error_message(exc)
        except CardError as exc:
            game["error"] = str(exc)


_INTO_GAME = threading.Lock()


@frames.post("/play/go")
def play_go():
    """The player whose turn it is (or ``"player"``) says go: ``{"session", "player"}``.

    Returns:
        ``{"session", "event", "play"}``; 404 when the session watches no play.
    """
    body = api.json_body('{"session": "...", "player": "Ann"}')
    session_id, session = _playing(_session_field(body))
    player = body.get("player") or session.play.table.turn
    if player not in session.play.table.players:
        # Said at once, never kept among the play's events (a name of any length each time).
        raise api.BadRequest(f'"player" must be one of the players '
                             f'({", ".join(session.play.table.players)}), or none for whose turn it is')
    event = session.play.go(player)
    return jsonify(session=session_id, event=event, play=_play_state(session, session.play, [event]))


@frames.post("/play/fix")
def play_fix():
    """A card laid was read wrong: ``{"session", "card", "named"}`` (the card as read, and as
    the player names it); the play is pegged anew with it.

    Returns:
        ``{"session", "play"}``; 400 when the play cannot be so (the card not laid, the name no
        card or laid already, a count past 31); 404 when the session watches no play.
    """
    from cribcam.game.table_play import PlayRefused

    body = api.json_body('{"session": "...", "card": "6H", "named": "9H"}')
    session_id, session = _playing(_session_field(body))
    try:
        session.play.fix(str(body.get("card") or ""), str(body.get("named") or ""))
    except PlayRefused as exc:
        raise api.BadRequest(str(exc)) from None
    return jsonify(session=session_id, play=_play_state(session, session.play, []))


@frames.delete("/play")
def stop_play():
    """Stops watching the play in the session (``?session=``): its frames count hands again."""
    session_id, session = _playing(request.args.get("session"))
    session.play = session.play_game = None
    return jsonify(session=session_id, stopped=True)


def _session_field(body: dict) -> str | None:
    """The body's ``"session"``: the id an earlier answer gave, or none; 400 for any other
    kind of value (a list or an object is no id)."""
    session_id = body.get("session")
    if session_id is not None and not isinstance(session_id, str):
        raise api.BadRequest('"session" must be the id an earlier answer gave, as a string')
    return session_id


def _playing(session_id: str | None):
    from werkzeug.exceptions import NotFound

    sessions = current_app.extensions["cribcam.live"]
    if not session_id or not sessions.has(session_id):
        raise NotFound("no such live session: start the play first (POST /api/live/play)")
    session_id, session = sessions.open(session_id)
    if session.play is None:
        raise NotFound("this live session watches no play: start it first (POST /api/live/play)")
    return session_id, session


def _play_frame(session_id: str, session, watch, image, slot):
    """A frame of the play: read, its cards newly laid played.

    Returns:
        ``{"session", "frame", "reading", "play"}``: ``play`` is where the play stands with
        this frame's ``new`` events (``_play_state``).
    """
    from cribcam.live.play import table_reader

    read = table_reader(slot.read, watch.table)
    with session.reading():
        number = session.frames
        events = watch.frame(image, read, current_app.extensions["cribcam.live"].clock(), {"frame": number})
        reading = watch.still.last_reading
    return jsonify(session=session_id, frame=number, reading=reading.as_dict() if reading else None,
                   play=_play_state(session, watch, events))


def _play_state(session, watch, new: list[dict]) -> dict:
    """Where the play stands (``TablePlay.state``) with the events just now (``new``) and all
    so far; for a kept game's play, ``game``: its id, and once the play is over and in the game
    its sides' scores (``sides``) or why the game did not take it (``error``)."""
    _into_game(session, watch)
    return {**watch.table.state(), "new": new, "events": watch.events, "game": session.play_game}
