"""The browser the page tests drive: Debian's Chromium, headless, through Playwright, and a
tab on one server that records what should never happen (``Page``). The fixtures that open
them are in conftest.py."""

from __future__ import annotations

import shutil
from contextlib import contextmanager

from playwright import sync_api

from webtools import ARTIFACTS

expect = sync_api.expect

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SHOTS = ARTIFACTS / "web"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

# speechSynthesis replaced by a recorder: headless Chromium has no voices to speak with.
SPEECH_RECORDER = """
window.__spoken = [];
window.SpeechSynthesisUtterance = class { constructor(text) { this.text = text; } };
Object.defineProperty(window, "speechSynthesis", {configurable: true, value: {
  speak(u) { window.__spoken.push(u.text); }, cancel() {} }});
"""


class Page:
    """A browser tab on one server, recording what should never happen."""

    def __init__(self, browser, url: str, viewport: dict):
        self.url = url
        self.context = browser.new_context(viewport=viewport, service_workers="block",
                                           has_touch=viewport is PHONE,
                                           is_mobile=viewport is PHONE)
        self.elsewhere: list[str] = []
        self.errors: list[str] = []
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.add_init_script(SPEECH_RECORDER)
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.on("console", self._console)
        self.visit("/")

    def visit(self, path: str) -> None:
        """Goes to ``path`` of the server and waits until the page is ready (its script ran)."""
        self.page.goto(self.url + path)
        expect(self.page.locator("body.ready")).to_have_count(1)

    def _route(self, route):
        if route.request.url.startswith(self.url + "/"):
            route.continue_()
        else:
            self.elsewhere.append(route.request.url)
            route.abort()

    def _console(self, message):
        # 4xx/5xx answers the page handles are logged by Chromium as "Failed to load resource".
        if message.type == "error" and "Failed to load resource" not in message.text:
            self.errors.append(message.text)

    def shot(self, name: str) -> None:
        self.page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)

    def close(self) -> None:
        self.context.close()
        assert self.elsewhere == [], f"the page asked for things off this server: {self.elsewhere}"
        assert self.errors == [], f"errors in the page: {self.errors}"


FAKE_CAMERA = "--use-fake-device-for-media-stream"
ALLOW_CAMERA = "--use-fake-ui-for-media-stream"


@contextmanager
def chromium(playwright, *extra: str):
    """A headless Chromium launched with ``extra`` switches."""
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS + list(extra))
    try:
        yield browser
    finally:
        browser.close()


class LiveTabs:
    """Opens the live page in browser tabs; closing them checks what they did (``Page``)."""

    def __init__(self, live_server_factory):
        self.live_server_factory = live_server_factory
        self.tabs: list[Page] = []

    def open(self, browser, app=None, camera: bool = True, viewport=DESKTOP, server=None) -> Page:
        """A tab on /live of ``app`` (on a new server) or of ``server``, with the camera
        permission granted or not."""
        server = server or self.live_server_factory(app)
        tab = Page(browser, server.url, viewport)
        self.tabs.append(tab)
        if camera:
            tab.context.grant_permissions(["camera"])
        tab.visit("/live")
        return tab

    def close_all(self) -> None:
        while self.tabs:
            self.tabs.pop().close()
