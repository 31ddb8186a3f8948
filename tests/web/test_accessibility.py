"""Every page checked by axe-core for the WCAG 2.1 A and AA rules, on a desk and on a phone,
after the page's main action; and what a screen reader hears and where the keyboard's focus
goes after each action (issue 52).

axe-core comes from the npm registry at the version .ci/axe/package-lock.json pins, installed
by .ci/install-axe (which .ci/run runs); it is injected into the test's browser only, which
ignores the app's Content-Security-Policy for it. The app never serves it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cribcam.web import create_app

from browsing import DESKTOP, PHONE, Page, expect
from test_live_page import HAND, CountingReader, camera_browser, playwright  # noqa: F401 (fixtures)
from test_teach_page import layout_photos, teaching_server  # noqa: F401 (fixtures)
from webtools import DATA, StubReader

AXE = Path(__file__).resolve().parents[2] / ".ci" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
WCAG_21_A_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
VIEWPORTS = [pytest.param(DESKTOP, id="desktop"), pytest.param(PHONE, id="phone")]


class CspBypassingBrowser:
    """A browser whose tabs ignore the page's Content-Security-Policy, which forbids the inline
    script axe is injected as; everything else as the browser given."""

    def __init__(self, browser):
        self.browser = browser

    def new_context(self, **options):
        return self.browser.new_context(bypass_csp=True, **options)


def axe_violations(page) -> list[str]:
    """The WCAG 2.1 A and AA rules axe finds broken on the page as it is now, each with the
    elements that break it."""
    if not AXE.exists():
        pytest.fail(f"no axe-core at {AXE}: run `bash .ci/install-axe`")
    page.add_script_tag(path=str(AXE))
    results = page.evaluate("tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})",
                            WCAG_21_A_AA)
    return [f"{v['id']} ({v['help']}): " + "; ".join(" ".join(n["target"]) for n in v["nodes"])
            for v in results["violations"]]


def expect_no_violations(page, state: str) -> None:
    found = axe_violations(page)
    assert found == [], f"axe, {state}:\n" + "\n".join(found)


def tab_on(browser, server, path: str, viewport) -> Page:
    """A tab on ``path`` of ``server`` that axe can be injected into, ready."""
    tab = Page(CspBypassingBrowser(browser), server.url, viewport)
    if path != "/":
        tab.page.goto(server.url + path)
        expect(tab.page.locator("body.ready")).to_have_count(1)
    return tab


@pytest.fixture
def open_tab(camera_browser, live_server_factory, tmp_path):  # noqa: F811
    """Opens a page of a new app (a stand-in reader, games in this test's database) in a tab
    that axe can be injected into. One browser, with the live page's fake camera, for every
    page: a module runs one Playwright."""
    tabs = []

    def open_(path: str, viewport, reader=None, camera=False) -> Page:
        app = create_app({"MODEL_PATH": "/nonexistent/model.onnx",
                          "GAME_DB": f"sqlite:///{tmp_path / 'games.sqlite3'}"}, reader=reader)
        tab = tab_on(camera_browser, live_server_factory(app), "/", viewport)
        tabs.append(tab)
        if camera:
            tab.context.grant_permissions(["camera"])
        if path != "/":
            tab.page.goto(tab.url + path)
            expect(tab.page.locator("body.ready")).to_have_count(1)
        return tab

    yield open_
    for tab in tabs:
        tab.close()


# --- axe on every page ---------------------------------------------------------------------


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_the_photo_page_passes_axe_after_a_photo_is_counted(open_tab, viewport):
    tab = open_tab("/", viewport, reader=StubReader(cards=HAND, starter="5D", unsure={"JD"},
                                                       guesses=["2C"]))
    page = tab.page
    expect_no_violations(page, "on load")
    page.set_input_files("#file-input", str(DATA / "webcam-5-cards.jpg"))
    expect(page.locator("#total")).to_have_text("29")
    expect_no_violations(page, "after a photo is counted")
    page.fill("#claim", "28")
    page.click("#claim-form button[type=submit]")
    expect(page.locator("#verdict")).to_be_visible()
    expect_no_violations(page, "after a claim is checked")
    page.locator("#hand-chips .chip[data-card]").first.click()
    expect(page.locator("#picker")).to_be_visible()
    expect_no_violations(page, "with the card picker open")


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_the_discard_page_passes_axe_after_a_deal_is_advised(open_tab, viewport):
    page = open_tab("/discard", viewport).page
    expect_no_violations(page, "on load")
    page.fill("#typed-cards", "5h 5c 6d jd qs ks")
    page.click("#type-form button[type=submit]")
    expect(page.locator("#options tr").first).to_be_visible()
    expect_no_violations(page, "after a deal is advised")


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_the_game_page_passes_axe_after_a_game_is_started_and_scored(open_tab, viewport):
    page = open_tab("/game", viewport).page
    expect_no_violations(page, "on load")
    page.fill("#players", "Ann Bob")
    page.click("#new-form button[type=submit]")
    expect(page.locator("#next")).to_contain_text("Ann deals")
    page.fill("#starter", "5S")
    page.click("#deal-form button[type=submit]")
    page.select_option("#peg-player", "Bob")
    page.fill("#peg-points", "2")
    page.click("#peg-button")
    expect(page.locator("#sides .score").nth(1)).to_have_text("2")
    page.fill("#show-cards", "5H 5C 5D JS")
    page.click("#show-form button[type=submit]")
    expect(page.locator("#sides .score").nth(1)).to_have_text("31")
    expect_no_violations(page, "after a peg and a show")


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_the_live_page_passes_axe_with_a_hand_locked(open_tab, viewport):
    page = open_tab("/live", viewport, reader=CountingReader(HAND), camera=True).page
    expect(page.locator("#total")).to_have_text("29")
    expect_no_violations(page, "with a hand locked")


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_the_teach_page_passes_axe_with_layout_photos_read(camera_browser, teaching_server,  # noqa: F811
                                                            layout_photos, viewport):  # noqa: F811
    _, server = teaching_server
    tab = tab_on(camera_browser, server, "/teach", viewport)
    try:
        page = tab.page
        expect_no_violations(page, "on load")
        page.fill("#deck-name", "axe-deck")
        page.set_input_files("#teach-input", [str(p) for p in layout_photos])
        expect(page.locator(".layout-photo")).to_have_count(2, timeout=60_000)
        expect_no_violations(page, "with layout photos read")
        page.locator(".layout-photo").first.locator(".chip").first.click()
        expect(page.locator(".chip-edit")).to_be_focused()
        expect_no_violations(page, "with a card's name being typed")
    finally:
        tab.close()


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_the_error_page_passes_axe(open_tab, viewport):
    tab = open_tab("/", viewport)
    page = tab.page
    page.goto(tab.url + "/no-such-page")
    expect_no_violations(page, "the page of an address that fails")
