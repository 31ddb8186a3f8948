"""The photo page, and the page of an address that fails; everything else the photo page
does is its JavaScript and the API."""

from __future__ import annotations

from flask import Blueprint, current_app, render_template, request
from werkzeug.exceptions import HTTPException

from cribcam.scoring import rules
from cribcam.scoring.muggins import MAX_CLAIM

bp = Blueprint("pages", __name__)


@bp.app_context_processor
def game_variants() -> dict:
    """The games every page's variant choice offers (``_choices.html``), and the one it starts on."""
    return {"variants": list(rules.VARIANTS), "default_variant": rules.DEFAULT_VARIANT}


def render_page(template: str) -> str:
    """Renders a page that extends ``_page.html`` with what its counting panels need."""
    return render_template(template, max_upload=current_app.config["MAX_CONTENT_LENGTH"], max_claim=MAX_CLAIM)


@bp.get("/")
def index():
    return render_page("index.html")


def error_page(exc: HTTPException) -> str:
    """The app's own page for an HTTP error outside the API, with the way back home."""
    if exc.code == 404:
        title, message = "No such page", f"There is no page at {request.path} on this server."
    else:
        title, message = f"{exc.code} {exc.name}", exc.description
    return render_template("error.html", title=title, message=message)
