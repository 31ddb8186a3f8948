"""The pages: one photo-and-count page, everything else is its JavaScript and the API."""

from __future__ import annotations

from flask import Blueprint, current_app, render_template

from cribcam.scoring import rules

bp = Blueprint("pages", __name__)


@bp.get("/")
def index():
    return render_template(
        "index.html", variants=list(rules.VARIANTS), default_variant=rules.DEFAULT_VARIANT,
        max_upload=current_app.config["MAX_CONTENT_LENGTH"])
