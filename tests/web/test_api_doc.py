"""The API reference (web/static/api.txt) names every endpoint under /api/, and no other.

An endpoint is documented by a line that starts with its method and path, e.g.
``POST /api/games/<id>/entries``; every path part of a route (``<game_id>``,
``<photo_id>``, ``<int:n>``...) is written ``<id>`` in the doc.
"""

from __future__ import annotations

import re

from cribcam.web import WEB_DIR, create_app

API_DOC = WEB_DIR / "static" / "api.txt"
IGNORED_METHODS = {"HEAD", "OPTIONS"}  # added by Flask to every route
_CONVERTER = re.compile(r"<[^>]+>")
_DOCUMENTED = re.compile(r"^(GET|POST|PUT|PATCH|DELETE)\s+(/api/\S*)", re.MULTILINE)


def doc_path(rule: str) -> str:
    """A route as the doc writes it: each ``<converter:name>`` part as ``<id>``."""
    return _CONVERTER.sub("<id>", rule)


def api_endpoints() -> set[tuple[str, str]]:
    """(method, path as documented) of every route of the app under /api/."""
    app = create_app({"TESTING": True, "LOAD_MODEL_AT_START": False})
    return {(method, doc_path(rule.rule))
            for rule in app.url_map.iter_rules() if rule.rule.startswith("/api/")
            for method in rule.methods - IGNORED_METHODS}


def documented_endpoints() -> set[tuple[str, str]]:
    return set(_DOCUMENTED.findall(API_DOC.read_text(encoding="utf-8")))


def test_every_api_endpoint_is_documented():
    endpoints = api_endpoints()
    assert ("GET", "/api/status") in endpoints  # the url_map was read, not an empty app
    missing = sorted(endpoints - documented_endpoints())
    assert not missing, (f"{API_DOC} does not document "
                         + ", ".join(f"{method} {path}" for method, path in missing))


def test_the_doc_names_no_endpoint_the_app_lacks():
    unknown = sorted(documented_endpoints() - api_endpoints())
    assert not unknown, (f"{API_DOC} documents endpoints the app has not: "
                         + ", ".join(f"{method} {path}" for method, path in unknown))
