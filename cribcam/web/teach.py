"""The teach page (``/teach``) and its API: show cribcam your own deck, then read with it.

The page uploads layout photos one at a time (``POST /api/teach/photos``); each answer holds
the cards found in it with the names they will be taught as. The player fixes names on the
page, then ``POST /api/teach/train`` teaches the deck in a thread of the server and
``GET /api/teach/status`` reports its progress. ``GET /api/decks`` lists the taught decks
for the deck choice of the photo page. Photos stay in this server's memory while the page is
open, and in the deck's own folder once taught; nothing leaves the machine.

The app's ``TEACH_SETTINGS`` config (a dict of ``teach.lesson.Settings`` fields, none by
default) changes how decks are taught here (the tests teach a quicker lesson).

Errors are answered as on the rest of the API; a session or photo id this server does not
hold (never opened, dropped to make room, or removed) is 404, as an unknown game.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from pathlib import Path

from flask import Blueprint, current_app, jsonify, request
from werkzeug.exceptions import NotFound

from cribcam.scoring.cards import CARD_CODES, SUITS
from cribcam.teach.alphabet import check_stated
from cribcam.vision.decks import LAYOUT, DeckError, check_name, deck_folder, lettering, list_decks
from cribcam.web import api
from cribcam.web.memory import release_free_memory
from cribcam.web.pages import render_page

log = logging.getLogger(__name__)

MAX_SESSIONS = 8  # teach pages open at once; the one idle longest makes room
MAX_PHOTOS = 8  # photos per page: four suits, and some again
MAX_DECKS = 20  # decks a server keeps (a few MB each, their photos too): teaching had no bound

bp = Blueprint("teach", __name__)

for _handlers in api.bp.error_handler_spec[None].values():  # bad input answered as on the rest of the API
    for _error, _handler in _handlers.items():
        bp.register_error_handler(_error, _handler)


class Conflict(RuntimeError):
    """A request that cannot go on now (a deck is being taught, the name is taken, the session
    holds as many photos as a deck is taught from): 409."""


@bp.errorhandler(Conflict)
def _conflict(exc):
    return jsonify(error=str(exc)), 409


class Unprocessable(ValueError):
    """A request well formed whose names or letters cannot be taught: 422."""


@bp.errorhandler(Unprocessable)
def _unprocessable(exc):
    return jsonify(error=str(exc)), 422


@dataclass
class Job:
    """A deck being taught, as the status endpoint tells it."""

    name: str
    stage: str = "preparing"
    done: float = 0.0
    total: float = 0.0
    started: float = field(default_factory=time.monotonic)
    error: str | None = None
    record: dict | None = None

    def as_json(self) -> dict:
        from cribcam.teach.lesson import reads_better, taught_sentences

        status = {"name": self.name, "stage": self.stage, "done": round(self.done, 1), "total": round(self.total, 1),
                  "left": round(max(0.0, self.total - self.done)), "error": self.error}
        if self.record is not None:
            status["checks"] = taught_sentences(self.record)
            status["seconds"] = self.record["seconds"]
            status["reads_better"] = reads_better(self.record)  # the page makes it the default only then
        return status


@dataclass
class Session:
    """One teach page's photos and its teaching.

    Attributes:
        photos: id -> ``LayoutPhoto``, its cards found and named, its pixels dropped (``image``
            None): a session keeps each photo as the bytes sent (``files``), decoded again to
            teach. Eight pages of eight photos each held 0.5 GB decoded.
        files: id -> the photo's bytes as sent.
    """

    photos: OrderedDict = field(default_factory=OrderedDict)
    files: dict = field(default_factory=dict)
    job: Job | None = None


class Teachings:
    """The teach pages' sessions, and the one deck that may be taught at a time (teaching
    takes every core for minutes)."""

    def __init__(self):
        self.sessions: OrderedDict[str, Session] = OrderedDict()
        self.lock = threading.Lock()
        self.running: Job | None = None

    def session(self, session_id, create: bool = False) -> tuple[str, Session]:
        """The session ``session_id`` and its id; with ``create``, a new one when there is none.

        Raises:
            api.BadRequest: without ``create``, no id given, or one that is no string (400).
            NotFound: without ``create``, no session of that id: never opened, or dropped to
                make room (404, as an unknown game).
        """
        if not create and (not isinstance(session_id, str) or not session_id):
            raise api.BadRequest('"session" is required: the id the answer to the first photo gave')
        with self.lock:
            if isinstance(session_id, str) and session_id in self.sessions:
                self.sessions.move_to_end(session_id)
                return session_id, self.sessions[session_id]
            if not create:
                raise NotFound("no such teaching session: upload the photos again")
            while len(self.sessions) >= MAX_SESSIONS:
                self.sessions.popitem(last=False)
            session_id = secrets.token_urlsafe(12)
            self.sessions[session_id] = Session()
            return session_id, self.sessions[session_id]


def _teachings() -> Teachings:
    return current_app.extensions.setdefault("cribcam.teach", Teachings())


@bp.context_processor
def _layout():
    # Said on the page before any upload: whether this server can teach a deck, and if not why,
    # and how many photos it takes.
    return {"layout": LAYOUT, "suits": SUITS, "unavailable": _unavailable(), "max_photos": MAX_PHOTOS}


def _unavailable() -> str | None:
    """Why no deck can be taught on this server, or None when one can."""
    from cribcam.teach.lesson import teaching_unavailable

    return teaching_unavailable(current_app.config["MODEL_PATH"])


@bp.get("/teach")
def page():
    return render_page("teach.html")


@bp.get("/api/decks")
def decks():
    """The taught decks, and the one this browser reads with (null: the bundled model)."""
    from cribcam.web import chosen_deck

    return jsonify(decks=[{"name": d.name, "cards": len(d.record.get("cards", [])), "taught": d.record.get("taught"),
                           "lettering": lettering(d.record)}
                          for d in list_decks()], chosen=chosen_deck())


@bp.delete("/api/decks/<name>")
def remove(name: str):
    """Removes a taught deck, its folder and nothing else (``vision.decks.remove_deck``), and
    its reader if one is loaded. 404 when there is none of that name."""
    from cribcam.vision.decks import remove_deck
    from cribcam.web import reader_slot

    remove_deck(name)  # DeckError: 404, as for a deck chosen that is not taught
    reader_slot(current_app).forget_deck(name)
    return jsonify(removed=name)


@bp.post("/api/teach/photos")
def add_photo():
    """Finds the cards of a layout photo (multipart field ``image``).

    Form fields: ``session`` (from an earlier answer; none opens a session), and ``suit``
    (C, D, H or S: the photo holds that suit as the layout states, named ace to king) or
    ``one_card`` ("true": the photo shows one card, and every index found in it is that card,
    named ``card`` or else as the current reader proposes); neither: the cards lie in any
    order and the current reader proposes their names.

    Returns:
        ``{"session", "photo": {"id", "name", "width", "height", "suit", "cards": [{"boxes",
        "name", "proposal", "confidence"}], "problems"}}``; 409 when the session holds
        ``MAX_PHOTOS`` already.
    """
    from cribcam.teach import layout_photos
    from cribcam.web import reader_slot

    upload, form = api.image_upload("photo")
    suit = (form.get("suit") or "").strip().upper()
    if suit and suit not in SUITS:
        raise api.BadRequest('"suit" must be one of C, D, H, S, or empty for cards in any order')
    one_card = (form.get("one_card") or "").strip().lower() == "true"
    card = (form.get("card") or "").strip().upper()
    if card and card not in CARD_CODES:
        raise api.BadRequest(f'"card" must name one card, like QH or TC, not {card!r}')
    if one_card and suit:
        raise api.BadRequest('a photo holds a suit laid out ("suit") or one card ("one_card"), not both')
    data = upload.read()
    image = api.decoded_image(data)
    reader = reader_slot(current_app).get()  # the bundled reader finds and proposes: 503 without one
    session_id, session = _teachings().session(form.get("session"), create=True)
    if len(session.photos) >= MAX_PHOTOS:
        raise Conflict(f"a deck is taught from {MAX_PHOTOS} photos at most: remove one first")
    photo = layout_photos.LayoutPhoto(_unique_name(upload.filename, session), image)
    if one_card:
        layout_photos.name_one_card(photo, card or None, reader)
    else:
        photo.cards = layout_photos.find_cards(reader, image)
        if suit:
            layout_photos.name_in_order(photo, suit)
        else:
            layout_photos.name_by_proposals(photo)
    photo_id = secrets.token_urlsafe(6)
    answer = {"id": photo_id, "suit": suit or None, "one_card": one_card, **photo.as_json()}
    photo.image = None  # kept as sent, in session.files
    session.photos[photo_id], session.files[photo_id] = photo, data
    return jsonify(session=session_id, photo=answer)


def _unique_name(filename: str | None, session: Session) -> str:
    """The photo's file name, made unique in the session (phones name every photo image.jpg).
    It only names the photo on the page: what cannot be shown (a NUL, a control character)
    is left out, and a name past 100 characters is cut."""
    name = "".join(char for char in Path(filename or "").name if char.isprintable())[:100]
    name = name.strip() or "photo.jpg"
    taken = {photo.name for photo in session.photos.values()}
    stem, suffix = Path(name).stem, Path(name).suffix
    k = 1
    while name in taken:
        k += 1
        name = f"{stem}-{k}{suffix}"
    return name


@bp.delete("/api/teach/photos/<photo_id>")
def remove_photo(photo_id: str):
    _, session = _teachings().session(request.args.get("session"))
    if session.photos.pop(photo_id, None) is None:
        raise NotFound("no such photo in this session")
    del session.files[photo_id]
    return jsonify(removed=photo_id)


@bp.post("/api/teach/train")
def train():
    """Teaches the deck: ``{"session", "name", "names": {photo id: [name or null per card]},
    "letters": {rank: text}}`` (``letters``, optional: what the deck prints for some ranks, as the
    player confirmed them; ``/api/teach/letters`` says which to ask).

    Answers 202 and teaches in a thread; ``GET /api/teach/status`` follows it. Errors: 400
    (a bad name or body, no session id), 404 (no such session), 409 (the name is taken, or
    another deck is being taught), 413 (a body over ``MAX_JSON_BYTES``), 422 (a name that is
    no card, none at all, or a letter no deck prints), 503 (the models cannot be taught on:
    ``teaching_unavailable``).
    """
    from cribcam.teach import lesson

    body = api.json_body('{"session": "...", "name": "kitchen", "names": {"photo id": ["AC", "2C", null]}, '
                         '"letters": {"Q": "V"}}')
    _, session = _teachings().session(body.get("session"))
    try:
        name = check_name(body.get("name"))
    except DeckError as exc:
        raise api.BadRequest(str(exc)) from None
    if deck_folder(name).exists():
        raise Conflict(f"a deck named {name!r} exists already: choose another name")
    if len(list_decks()) >= MAX_DECKS:
        raise Conflict(f"this server keeps {MAX_DECKS} taught decks at most: remove one first "
                       f"(cribcam decks remove NAME, or DELETE /api/decks/NAME)")
    letters = body.get("letters") or {}
    if not isinstance(letters, dict) or not all(isinstance(v, str) for v in letters.values()):
        raise api.BadRequest('"letters" must map ranks to what the deck prints for them, like {"Q": "V"}')
    try:
        letters = check_stated(letters)
    except ValueError as exc:
        raise Unprocessable(str(exc)) from None
    named = _named(session, body)
    unavailable = _unavailable()
    if unavailable:
        return jsonify(error=f"a deck cannot be taught on this server: {unavailable}"), 503
    teachings = _teachings()
    with teachings.lock:
        if teachings.running is not None and teachings.running.stage not in ("done", "failed"):
            raise Conflict(f"the deck {teachings.running.name} is being taught on this server: wait for it")
        session.job = teachings.running = Job(name)
    settings = lesson.Settings(**current_app.config.get("TEACH_SETTINGS", {}))
    models = current_app.config["MODEL_PATH"]
    threading.Thread(target=_teach, args=(session.job, named, models, settings, letters), daemon=True,
                     name=f"teach-{name}").start()
    return jsonify(session.job.as_json()), 202


@bp.post("/api/teach/letters")
def letters():
    """The letters to confirm before teaching: ``{"session", "names"}`` (as ``/api/teach/train``
    takes them) answers ``{"questions": [{"rank", "text", "standard", "learnt", "said"}]}``, the
    ranks whose printed letter teaching cannot settle alone (``alphabet.letter_questions``). The
    player's answers go to ``/api/teach/train`` as ``"letters"``."""
    from cribcam.teach import lesson

    body = api.json_body('{"session": "...", "names": {"photo id": ["QC", "KC", null]}}')
    _, session = _teachings().session(body.get("session"))
    named = _named(session, body)
    questions = lesson.letters_to_confirm(named, current_app.config["MODEL_PATH"])
    return jsonify(questions=[question.as_json() for question in questions])


def _named(session: Session, body: dict) -> list:
    """The session's photos, their cards named as ``body["names"]`` says (a photo not in it keeps
    its names), each with its pixels decoded again. Raises 400 for a malformed body, 422 for
    names that are no cards or none at all."""
    from cribcam.teach import layout_photos

    names = body.get("names")
    if not isinstance(names, dict):
        raise api.BadRequest('"names" must map each photo id to its cards\' names')
    photos = list(session.photos.items())
    for photo_id, photo in photos:
        given = names.get(photo_id, [card.name for card in photo.cards])
        if not isinstance(given, list) or len(given) != len(photo.cards):
            raise api.BadRequest(f"{photo.name}: give one name (or null) for each of its {len(photo.cards)} cards")
        for card, card_name in zip(photo.cards, given):
            card.name = card_name.strip().upper() if isinstance(card_name, str) and card_name.strip() else None
    try:
        layout_photos.check_names([photo for _, photo in photos])
    except ValueError as exc:
        raise Unprocessable(str(exc)) from None
    if not any(card.name for _, photo in photos for card in photo.cards):
        raise Unprocessable("no card is named: there is nothing to teach")
    return [replace(photo, image=api.decoded_image(session.files[photo_id])) for photo_id, photo in photos]


def _teach(job: Job, photos: list, models, settings, letters: dict) -> None:
    from cribcam.teach import lesson

    def progress(stage: str, done: float, total: float) -> None:
        if stage == "done":
            return  # said below, once the record is in
        job.stage = stage
        if total:
            job.done, job.total = done, total

    try:
        deck = lesson.teach(photos, job.name, models, settings, progress=progress, letters=letters)
    except (DeckError, ValueError, FileNotFoundError) as exc:
        job.error, job.stage = str(exc), "failed"
    except Exception as exc:  # a bug: said on the page, logged in full
        log.exception("teaching the deck %s failed", job.name)
        job.error, job.stage = f"teaching failed: {type(exc).__name__}: {exc}", "failed"
    else:
        job.record, job.stage = deck.record, "done"
    finally:
        release_free_memory()


@bp.get("/api/teach/status")
def status():
    """The teaching of this session: ``{"name", "stage", "done", "total", "left", "error"}``,
    and once done ``"checks"`` (sentences), ``"seconds"`` and ``"reads_better"`` (the lesson
    measured better than untaught on the cards held back: ``teach.lesson.reads_better``)."""
    _, session = _teachings().session(request.args.get("session"))
    if session.job is None:
        raise NotFound("nothing is being taught in this session")
    return jsonify(session.job.as_json())
