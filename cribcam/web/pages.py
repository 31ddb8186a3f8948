"""The photo page; everything else it does is its JavaScript and the API."""

from __future__ import annotations

from flask import Blueprint, current_app, render_template

from cribcam.scoring import rules

bp = Blueprint("pages", __name__)


def render_page(template: str) -> str:
    """Renders a page that extends ``_page.html`` with what its counting panels need."""
    return render_template(
        template, variants=list(rules.VARIANTS), default_variant=rules.DEFAULT_VARIANT,
        max_upload=current_app.config["MAX_CONTENT_LENGTH"])


@bp.get("/")
def index():
    return render_page("index.html")
