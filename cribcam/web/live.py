"""The live page (``/live``) and its frame endpoint (``POST /api/live/frame``).

The page sends camera frames one at a time; each is read, and the session's ``Follower``
(``cribcam.live``, the same lock as ``cribcam live``) says whether a hand is locked. The
answer carries the frame's cards and boxes for the overlay and, while a hand is locked,
its reading and count as ``/api/read`` gives them.
"""

from __future__ import annotations

from flask import Blueprint, Flask, current_app, jsonify

from cribcam.live.sessions import LiveSessions, SessionBusy
from cribcam.web import api
from cribcam.web.pages import render_page

LIVE_DEFAULTS = {
    "LIVE_MAX_SESSIONS": 32,  # cameras followed at once; the one idle longest makes room
    "LIVE_IDLE_SECONDS": 300,  # a session without a frame for this long is forgotten
    "LIVE_LOCK_WINDOW": 8,  # frames the lock looks back over (as `cribcam live --window`)
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
        app.config["LIVE_LOCK_WINDOW"], app.config["LIVE_LOCK_AGREE"])
    app.register_blueprint(pages)
    app.register_blueprint(frames)


@pages.get("/live")
def page():
    return render_page("live.html")


@frames.errorhandler(SessionBusy)
def _busy(exc):
    return jsonify(error=str(exc)), 429


@frames.post("/frame")
def frame():
    """Reads one camera frame (multipart field ``image``) for a live session.

    Form fields: ``session`` (the id from the previous answer; none, unknown or expired
    opens a new session), ``crib`` and ``variant`` as for /api/read.

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
