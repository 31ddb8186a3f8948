"""The discard advisor on the web: the page ``/discard`` and ``POST /api/discard``.

The endpoint takes ``{"cards": [...], "dealer": true, "variant": "six-card"}`` (``dealer``
and ``variant`` optional, as for ``cribcam discard``) and answers the JSON of ``cribcam
discard --json`` (``advice_report``: the points rounded once, there, as the page and the
command show them); errors are ``{"error": "..."}`` with 400 (malformed request) or 422
(cards that make no deal), as on the rest of the API.
"""

from __future__ import annotations

from flask import Blueprint, jsonify

from cribcam.scoring.discard import advise
from cribcam.scoring.discard_report import advice_report
from cribcam.web import api
from cribcam.web.pages import render_page

bp = Blueprint("discard", __name__)

_EXAMPLE = '{"cards": ["5H", "5C", "6D", "JD", "QS", "KS"], "dealer": true}'

# Bad input is answered here as on the rest of the API: the same errors, the same statuses.
for _handlers in api.bp.error_handler_spec[None].values():
    for _error, _handler in _handlers.items():
        bp.register_error_handler(_error, _handler)


@bp.get("/discard")
def page():
    return render_page("discard.html")


@bp.post("/api/discard")
def discard():
    """Ranks every way to lay away the cards dealt, best first."""
    body = api.json_body(_EXAMPLE)
    cards = body.get("cards")
    if isinstance(cards, str):
        cards = cards.replace(",", " ").split()
    if not isinstance(cards, list) or not all(isinstance(card, str) for card in cards):
        raise api.BadRequest(f'"cards" must be a list of cards like ["5H", "10D", "QS", "K♦"]; '
                             f"send {_EXAMPLE}")
    dealer = body.get("dealer")
    if dealer is None:
        dealer = True
    if not isinstance(dealer, bool):
        raise api.BadRequest('"dealer" must be true (the crib is yours) or false (it is the '
                             "opponent's)")
    variant = api.variant_field(body.get("variant"))
    return jsonify(advice_report(advise(cards, dealer=dealer, variant=variant)))
