"""The JSON API: ``POST /api/count``, ``POST /api/read`` and ``GET /api/status``.

Answers are the JSON of ``cribcam count --json`` and ``cribcam read --json``; errors are
``{"error": "..."}`` with 400 (malformed request, also a deck name no deck can have), 404 (a
taught deck chosen that is not there), 413 (too large), 415 (not an image), 422 (cards that
make no valid hand) or 503 (no card-reading model).
"""

from __future__ import annotations

import json
import math
import re

from flask import Blueprint, current_app, jsonify, request
from werkzeug.exceptions import HTTPException

from cribcam.scoring import CardError, parse_card, rules, score_hand
from cribcam.scoring.muggins import claim_problem, typed_claim  # as `cribcam count` takes them
from cribcam.scoring.report import count_report
from cribcam.vision.images import PAGE_SIDE, ImageError, data_url, decode_image
from cribcam.web.reader_slot import ModelUnavailable

bp = Blueprint("api", __name__, url_prefix="/api")

_TRUE = {"1", "true", "on", "yes"}
_FALSE = {"", "0", "false", "off", "no"}
_EXAMPLE = '{"hand": ["5H", "5C", "5S", "JD"], "starter": "5D", "crib": false, "claim": 12}'


class BadRequest(ValueError):
    """A request that does not say what it means: 400 with this message."""


@bp.errorhandler(BadRequest)
def _bad_request(exc):
    return jsonify(error=str(exc)), 400


@bp.errorhandler(CardError)
def _bad_cards(exc):
    return jsonify(error=str(exc)), 422


@bp.errorhandler(ImageError)
def _bad_image(exc):
    return jsonify(error=str(exc)), exc.status


@bp.errorhandler(ModelUnavailable)
def _no_model(exc):
    return jsonify(error=str(exc)), 503


@bp.get("/status")
def status():
    """What this server can do: whether photos can be read, the variants, the upload limit."""
    from cribcam.web import reader_slot

    return jsonify(model=reader_slot(current_app).available, variants=list(rules.VARIANTS),
                   max_upload_bytes=current_app.config["MAX_CONTENT_LENGTH"])


@bp.post("/count")
def count():
    """Counts a hand: ``{"hand", "starter", "crib"?, "variant"?, "claim"?}`` in, the count out."""
    body = json_body()
    hand = body.get("hand")
    if isinstance(hand, str):
        hand = hand.replace(",", " ").split()
    if not isinstance(hand, list) or not all(isinstance(card, str) for card in hand):
        raise BadRequest(f'"hand" must be a list of cards like ["5H", "10D", "QS", "K♦"]; '
                         f"send {_EXAMPLE}")
    starter = body.get("starter")
    if not isinstance(starter, str) or not starter.strip():
        raise BadRequest(f'"starter" must be a card like "5D"; send {_EXAMPLE}')
    crib = body.get("crib", False)
    if crib is None:
        crib = False
    if not isinstance(crib, bool):
        raise BadRequest('"crib" must be true or false')
    variant = variant_field(body.get("variant"))
    claim = _claim(body.get("claim"))
    score = score_hand(hand, starter, crib=crib, variant=variant)
    return jsonify(count_report(score, claim))


@bp.post("/read")
def read():
    """Reads a photo (multipart field ``image``) and counts it, as ``cribcam read --json``.

    Optional form fields: ``starter``, ``crib``, ``claim``, ``variant`` as for /api/count,
    ``annotate`` (true: add ``"annotated"``, a JPEG data URL of the photo with the cards
    drawn on it), ``hand_only`` (true: the photo holds the hand alone, the starter to come:
    ``vision.report.read_to_count``), and ``deal`` (true: the photo shows the cards dealt to a
    player, for the discard advisor: they are read, with no starter and no count).
    """
    from cribcam.vision.annotate import draw_reading
    from cribcam.vision.report import read_deal, read_to_count, reading_report
    from cribcam.web import reader_slot

    upload, form = image_upload("photo")
    starter = (form.get("starter") or "").strip() or None
    if starter is not None:
        starter = parse_card(starter).code  # CardError: 422
    crib = flag_field(form.get("crib"), "crib")
    annotate = flag_field(form.get("annotate"), "annotate")
    deal = flag_field(form.get("deal"), "deal")
    hand_only = flag_field(form.get("hand_only"), "hand_only")
    variant = variant_field(form.get("variant") or None)
    claim_text = (form.get("claim") or "").strip()
    claim = _claim(typed_claim(claim_text) if claim_text else None)

    image = uploaded_image(upload)
    slot = reader_slot(current_app)
    if deal:
        reading = read_deal(slot, image, variant)  # ModelUnavailable: 503
        report = {**reading.as_dict(), "count": None}
    else:
        reading = read_to_count(slot, image, variant, crib, starter, hand_only)  # ModelUnavailable: 503
        report = reading_report(reading, starter, crib, claim, variant, hand_only)
    if annotate:
        # Drawn at the size shown, so its labels are sized for the picture the page shows.
        report["annotated"] = data_url(draw_reading(image, reading, max_side=PAGE_SIDE))
    return jsonify(report)


def image_upload(what: str):
    """The multipart field ``image`` of this request and the rest of its form.

    Args:
        what: what the image is, for the messages ("photo", "frame").

    Raises:
        BadRequest: the body is not multipart form data or has no ``image`` field.
    """
    example = "(curl -F image=@hand.jpg ...)"
    if request.mimetype != "multipart/form-data":
        raise BadRequest(f'send the {what} as multipart/form-data in the field "image" {example}')
    try:
        files, form = request.files, request.form
    except HTTPException:
        raise
    except Exception:  # a body werkzeug cannot parse as multipart
        raise BadRequest("the multipart form data is malformed") from None
    upload = files.get("image")
    if upload is None:
        raise BadRequest(f'no {what}: send it in the multipart field "image" {example}')
    return upload, form


def uploaded_image(upload):
    """Decodes an uploaded image (``decoded_image``)."""
    return decoded_image(upload.read())


def decoded_image(data: bytes):
    """Decodes an image's bytes within the app's size limits (ImageError: 413/415/400), as
    many at a time as photos are read (``ReaderSlot.at_most``): a small file of 50 megapixels
    decodes to 150 MB, and sixteen at once took 4 GB."""
    from cribcam.web import reader_slot

    with reader_slot(current_app).at_most():
        image, _ = decode_image(data, current_app.config["MAX_IMAGE_PIXELS"],
                                current_app.config["MAX_IMAGE_SIDE"])
    return image


def json_body(example: str = _EXAMPLE, optional: bool = False) -> dict:
    """The JSON object this request sends, within ``MAX_JSON_BYTES``, whatever its
    Content-Type (curl -d sends form-urlencoded unless told otherwise).

    Args:
        example: a body the endpoint takes, shown in the messages of a malformed one.
        optional: no body at all is an empty object (for endpoints whose fields all have
            defaults).

    Raises:
        BadRequest: the body is not a JSON object (400).
        RequestEntityTooLarge: it is over ``MAX_JSON_BYTES`` (413).
    """
    limit = current_app.config["MAX_JSON_BYTES"]
    if request.content_length is not None and request.content_length > limit:
        return _too_large(limit)
    data = request.get_data(cache=False)
    if len(data) > limit:
        return _too_large(limit)
    if optional and not data:
        return {}
    try:
        body = json.loads(data)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        raise BadRequest(f"the body is not valid JSON; send {example}") from None
    if not isinstance(body, dict):
        raise BadRequest(f"the body must be a JSON object; send {example}")
    unkept = _unkeepable_text(body)
    if unkept is not None:
        raise BadRequest(f"the body holds text that cannot be kept or shown ({unkept}): send "
                         f"text without a NUL or a lone \\uD800-\\uDFFF escape")
    return body


_UNKEEPABLE = re.compile("[\x00\ud800-\udfff]")


def _unkeepable_text(value) -> str | None:
    """The first character of a string of ``value`` (a parsed JSON body, keys too) that no
    page, terminal or database can keep, as its escape: a NUL, or half of a UTF-16 pair
    (JSON can escape one, UTF-8 cannot encode it); None when there is none."""
    stack = [value]
    while stack:  # not recursive: a body may nest as deep as json.loads allows
        item = stack.pop()
        if isinstance(item, str):
            found = _UNKEEPABLE.search(item)
            if found:
                return found.group().encode("unicode_escape", "backslashreplace").decode()
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def _too_large(limit: int):
    from werkzeug.exceptions import RequestEntityTooLarge

    raise RequestEntityTooLarge(f"the JSON body is over {limit // 1024} KB")


def variant_field(value) -> str:
    if value is None:
        return rules.DEFAULT_VARIANT
    if not isinstance(value, str) or value not in rules.VARIANTS:
        raise BadRequest(f'"variant" must be one of {", ".join(rules.VARIANTS)}')
    return value


def _claim(value) -> int | None:
    if value is None:
        return None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    problem = claim_problem(value)
    if problem:
        raise BadRequest(f'"claim" {problem}')
    return value


def flag_field(value: str | None, name: str) -> bool:
    text = (value or "").strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise BadRequest(f'"{name}" must be true or false')
