"""Fixtures of the web tests: the app and its test client (as in the Flask tutorial), a stub
reader for the photo path without a model, a real reader on the shipped models, and real
waitress servers on loopback."""

from __future__ import annotations

import pytest

from cribcam.web import create_app
from webtools import DATA, LiveServer, StubReader


@pytest.fixture
def app(tmp_path):
    """The app as it runs with no model installed (an explicit missing path, so the tests
    mean the same whether or not models/ has one)."""
    app = create_app({"TESTING": True, "MODEL_PATH": tmp_path / "no-model.onnx"})
    yield app


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def stub_reader():
    return StubReader()


@pytest.fixture
def stub_app(stub_reader):
    return create_app({"TESTING": True}, reader=stub_reader)


@pytest.fixture
def stub_client(stub_app):
    return stub_app.test_client()


@pytest.fixture(scope="session")
def model_reader(shipped_models):
    """A real ``CardReader`` on the shipped models, loaded once."""
    from cribcam.vision import CardReader

    return CardReader(model_path=shipped_models)


@pytest.fixture
def live_server_factory():
    servers: list[LiveServer] = []

    def start(app) -> LiveServer:
        server = LiveServer(app)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


@pytest.fixture
def live_server(app, live_server_factory):
    """The no-model app on a real server."""
    return live_server_factory(app)


@pytest.fixture(scope="session")
def photo_bytes() -> bytes:
    return (DATA / "webcam-5-cards.jpg").read_bytes()


# --- the browser the page tests drive (browsing.py), imported when a test asks for it, so
# the tests without a page need no Playwright ---------------------------------------------


@pytest.fixture(scope="module")
def browser():
    from pathlib import Path

    from browsing import CHROMIUM, CHROMIUM_ARGS, SHOTS, sync_api

    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}: run `bash .ci/install-system-packages` "
                    f"(Debian's chromium package)")
    playwright = sync_api.sync_playwright().start()
    try:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    except Exception:
        playwright.stop()
        raise
    SHOTS.mkdir(parents=True, exist_ok=True)
    yield browser
    browser.close()
    playwright.stop()


@pytest.fixture
def open_page(browser, live_server_factory):
    """Opens a tab on a new server of an app (the no-model app by default); each is closed,
    and checked, when the test ends."""
    from browsing import DESKTOP, Page

    pages: list[Page] = []

    def open_(app=None, viewport=DESKTOP) -> Page:
        server = live_server_factory(app or create_app({"MODEL_PATH": "/nonexistent/model.onnx"}))
        page = Page(browser, server.url, viewport)
        pages.append(page)
        return page

    yield open_
    for page in pages:
        page.close()


@pytest.fixture(scope="module")
def playwright():
    """One Playwright for the module: its sync API runs one at a time in a thread."""
    from pathlib import Path

    from browsing import CHROMIUM, SHOTS, sync_api

    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}: run `bash .ci/install-system-packages`")
    SHOTS.mkdir(parents=True, exist_ok=True)
    driver = sync_api.sync_playwright().start()
    yield driver
    driver.stop()


@pytest.fixture(scope="module")
def camera_browser(playwright):
    """A fake camera, given to contexts granted the permission and refused to the others."""
    from browsing import FAKE_CAMERA, chromium

    with chromium(playwright, FAKE_CAMERA) as browser:
        yield browser


@pytest.fixture
def live_tabs(live_server_factory):
    """Opens the live page in tabs (``LiveTabs.open``), each closed and checked at the end."""
    from browsing import LiveTabs

    tabs = LiveTabs(live_server_factory)
    yield tabs
    tabs.close_all()


# --- teaching a deck on the bundled models ------------------------------------------------

TEACH_QUICKLY = {"copies": 4, "steps": 150}  # teach.Settings of a test's lesson


@pytest.fixture
def layout_photos(tmp_path, heldout_decks):
    """Two rendered layout photos of a held-out design: the clubs and the diamonds."""
    import cv2

    from cribcam.datagen.layout_photos import render_layout

    deck = heldout_decks[2]
    paths = []
    for k, suit in enumerate("CD"):
        image, _ = render_layout(deck, suit, seed=30 + k)
        paths.append(tmp_path / f"{'clubs' if suit == 'C' else 'diamonds'}.jpg")
        cv2.imwrite(str(paths[-1]), image)
    return paths


@pytest.fixture
def teaching_server(shipped_models, tmp_path, monkeypatch, live_server_factory):
    """The app on the bundled models (a finder that finds the indices), teaching a quick lesson,
    its decks in a data folder of the test's own, and no torch to import (as the base install)."""
    import sys

    from cribcam.settings import DATA_ENV

    monkeypatch.setenv(DATA_ENV, str(tmp_path / "data"))
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` fails as if not installed
    app = create_app({"MODEL_PATH": shipped_models, "TEACH_SETTINGS": TEACH_QUICKLY})
    return app, live_server_factory(app)
