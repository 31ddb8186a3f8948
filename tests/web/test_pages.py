"""What a new user hit in a week (issue 21), in a real browser: Debian's Chromium, headless,
driven by Playwright, the app under waitress on loopback. Screenshots go to
test-artifacts/web/ (look at them).

- every page has one bar of the pages, the page shown marked, usable on a phone (item 9);
- messages say how many cards a hand needs and how many were given (item 8);
- the teach page shows no counting panels until a deck is taught, and its options line up
  (item 12);
- on a phone the photo page shows the count above the photo (item 14);
- a card the reader is not sure of is drawn apart and the count says to check it (issue 19).
"""

from __future__ import annotations

import json
import re

import cv2
import pytest

from browsing import DESKTOP, PHONE, SHOTS, Page, expect
from cribcam.scoring import score_hand
from cribcam.web import create_app
from test_e2e import change_card, total, type_cards, wait_for_request
from webtools import DATA, StubReader

PAGES = [("/", "Count a hand"), ("/live", "Live camera"), ("/game", "Game"),
         ("/discard", "Discard"), ("/teach", "Teach a deck")]


@pytest.fixture
def site(browser, live_server_factory, tmp_path):
    """A server (no model, its games in this test's database) and tabs on it."""
    app = create_app({"MODEL_PATH": tmp_path / "no-model.onnx",
                      "GAME_DB": f"sqlite:///{tmp_path / 'games.sqlite3'}"})
    server = live_server_factory(app)
    tabs = []

    def open_(path="/", viewport=DESKTOP) -> Page:
        tab = Page(browser, server.url, viewport)
        tabs.append(tab)
        if path != "/":
            tab.visit(path)
        return tab

    yield open_
    for tab in tabs:
        tab.close()


def nav_links(page) -> list[tuple[str, str, str | None]]:
    return page.locator("nav.site-nav a").evaluate_all(
        "links => links.map(a => [a.getAttribute('href'), a.textContent.trim(), a.getAttribute('aria-current')])")


def photo_file(tmp_path, portrait: bool = False) -> str:
    """The test photo of five cards, turned upright as a phone takes it when ``portrait``."""
    image = cv2.imread(str(DATA / "webcam-5-cards.jpg"))
    if portrait:
        image = cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
    path = tmp_path / ("portrait.jpg" if portrait else "landscape.jpg")
    cv2.imwrite(str(path), image)
    return str(path)


# --- one bar of pages on every page (item 9) --------------------------------------------------


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_every_page_has_the_bar_of_pages_with_itself_marked(site, viewport):
    tab = site(viewport=viewport)
    page = tab.page
    for path, label in PAGES:
        tab.visit(path)
        links = nav_links(page)
        assert [(href, text) for href, text, _ in links] == PAGES
        assert [text for _, text, current in links if current] == [label]  # itself, and only itself
        expect(page.locator("nav.site-nav")).to_have_attribute("aria-label", "Pages")
        # On a phone as on a desk: every link in view, none off the side, each big enough to tap.
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        for box in page.locator("nav.site-nav a").evaluate_all(
                "links => links.map(a => a.getBoundingClientRect().toJSON())"):
            assert 0 <= box["x"] and box["x"] + box["width"] <= viewport["width"]
            assert box["height"] >= 40 and box["y"] + box["height"] <= viewport["height"] / 3
        if path in ("/", "/teach"):
            tab.shot(f"nav-{path.strip('/') or 'index'}-{'phone' if viewport is PHONE else 'desktop'}")


def test_the_pages_once_out_of_reach_are_a_click_away_from_the_photo_page(site):
    tab = site()
    page = tab.page
    for path, label in PAGES[2:] + PAGES[:1]:  # game, discard, teach, and back
        page.get_by_role("navigation", name="Pages").get_by_role("link", name=label).click()
        expect(page.locator("body.ready")).to_have_count(1)
        assert page.url == tab.url + path
        expect(page.locator('nav.site-nav a[aria-current="page"]')).to_have_text(label)


def test_the_page_of_an_unknown_address_has_the_bar_with_nothing_marked(site):
    tab = site()
    tab.page.goto(tab.url + "/nonexistent")
    expect(tab.page.locator("h2")).to_have_text("No such page")
    assert [text for _, text, current in nav_links(tab.page)] == [label for _, label in PAGES]
    expect(tab.page.locator("nav.site-nav a[aria-current]")).to_have_count(0)


# --- how many cards (item 8) -------------------------------------------------------------------


def test_two_cards_typed_say_what_a_hand_needs_and_what_was_given(site):
    page = site().page
    type_cards(page, "5h 5c")
    expect(page.locator("#type-error")).to_have_text(
        "A six-card cribbage hand needs 4 cards and a starter; 2 cards given (the starter and 1 other)")


def test_a_photo_of_four_cards_says_what_a_hand_needs_and_what_was_read(open_page, tmp_path):
    reader = StubReader(cards=["AS", "QH", "KC", "QS"], starter="QS")
    page = open_page(create_app({"TESTING": True}, reader=reader)).page
    page.set_input_files("#file-input", photo_file(tmp_path))
    expect(page.locator("#photo-status")).to_contain_text("4 cards read")
    # Said once, by the count, of the cards on the chips (it goes when a card is added).
    expect(page.locator("#count-error")).to_have_text(
        "A six-card cribbage hand needs 4 cards and a starter; 4 cards given (the starter and 3 others)")
    expect(page.locator("#problems")).to_be_hidden()


# --- the teach page (item 12) ------------------------------------------------------------------


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_teach_page_has_no_counting_panels_and_its_options_line_up(site, viewport):
    tab = site("/teach", viewport)
    page = tab.page
    # Nothing to count before a deck is taught: no Cards or Count panel, the teaching panel wide.
    expect(page.locator("#cards-panel")).to_be_hidden()
    expect(page.locator("#count-panel")).to_be_hidden()
    panel = page.locator("#photo-panel").bounding_box()
    if viewport is DESKTOP:
        assert panel["width"] > 0.6 * viewport["width"]
    # Each option's label stands above its control, left-aligned with it: "Next photo holds"
    # no longer dangles beside the buttons, its select no longer wraps away from it.
    # Each pair is measured in one script run: measured apart, a layout shift between the two
    # (the page still settling) once put 94 px between a label and its control.
    for label, control in (("label[for=deck-name]", "#deck-name"), ("#next-suit-label", "#next-suit"),
                           (".teach-options legend", ".teach-options .segmented label")):
        above, below = page.evaluate("""([a, b]) => [a, b].map((selector) => {
            const r = document.querySelector(selector).getBoundingClientRect();
            return {x: r.x, y: r.y, height: r.height};
        })""", [label, control])
        assert above["y"] + above["height"] <= below["y"] + 1 and below["y"] - above["y"] < 40
        assert abs(above["x"] - below["x"]) < 2
    if viewport is DESKTOP:  # the three options side by side, their controls on one line
        tops = {round(page.locator(c).bounding_box()["y"]) for c in
                ("#deck-name", "#next-suit", ".teach-options .segmented label >> nth=0")}
        assert max(tops) - min(tops) <= 2, tops
    tab.shot(f"teach-options-{'phone' if viewport is PHONE else 'desktop'}")
    page.click("label:has(input[name=naming][value=any])")
    expect(page.locator("#next-suit-field")).to_be_hidden()  # no suit to choose: no empty gap
    page.click("label:has(input[name=naming][value=layout])")
    expect(page.locator("#next-suit")).to_be_visible()


def test_the_counting_panels_come_once_a_deck_is_taught(site):
    page = site("/teach").page
    expect(page.locator("#count-panel")).to_be_hidden()
    page.evaluate("document.getElementById('try').hidden = false")  # as teach.js does once taught
    expect(page.locator("#cards-panel")).to_be_visible()
    expect(page.locator("#count-panel")).to_be_visible()


# --- the count above the photo on a phone (item 14) -------------------------------------------


def test_on_a_phone_the_count_of_a_photo_shows_above_the_photo(open_page, tmp_path):
    reader = StubReader(cards=["AS", "QH", "KC", "AC", "QS"], starter="QS")
    tab = open_page(create_app({"TESTING": True}, reader=reader), viewport=PHONE)
    page = tab.page
    page.set_input_files("#camera-input", photo_file(tmp_path, portrait=True))
    expect(total(page)).to_have_text("4")
    summary = page.locator("#photo-count")
    expect(summary).to_be_visible()
    expect(summary).to_contain_text("Hand total 4")
    count, photo = summary.bounding_box(), page.locator("#photo").bounding_box()
    # In the first screen, above the photo: no scrolling past the photo to see the total.
    assert count["y"] + count["height"] <= photo["y"]
    assert count["y"] + count["height"] <= PHONE["height"]
    assert photo["height"] <= 0.5 * PHONE["height"] + 1  # the upright photo is kept compact
    page.screenshot(path=str(SHOTS / "photo-count-above-photo-phone.png"))
    # It follows the cards: a card fixed, the total there changes with the count below.
    change_card(page, "KC", "KS")
    expect(page.locator("#photo-count-total")).to_have_text(total(page).inner_text())
    page.click("#clear-button")  # no photo, no count beside it
    expect(summary).to_be_hidden()
    type_cards(page, "5H 5C 5S JD 5D")
    expect(total(page)).to_have_text("29")
    expect(summary).to_be_hidden()  # typed: the count is beside the typed cards


def test_on_a_desk_the_count_is_beside_the_photo_and_not_repeated(open_page, tmp_path):
    reader = StubReader(cards=["AS", "QH", "KC", "AC", "QS"], starter="QS")
    page = open_page(create_app({"TESTING": True}, reader=reader)).page
    page.set_input_files("#file-input", photo_file(tmp_path, portrait=True))
    expect(total(page)).to_have_text("4")
    expect(page.locator("#photo-count")).to_be_hidden()
    box = total(page).bounding_box()
    assert box["y"] + box["height"] <= DESKTOP["height"]


# --- cards the reader is not sure of (issue 19) ------------------------------------------------


def test_a_card_read_unsure_is_drawn_apart_and_the_count_says_to_check_it(open_page, tmp_path):
    reader = StubReader(cards=["AS", "QH", "KC", "AC", "QS"], starter="QS", unsure=["KC"])
    tab = open_page(create_app({"TESTING": True}, reader=reader), viewport=PHONE)
    page = tab.page
    page.set_input_files("#file-input", photo_file(tmp_path))
    expect(total(page)).to_have_text("4")
    expect(page.locator("#photo-status")).to_contain_text("5 cards read, 1 to check")
    chip = page.locator('.chip[data-card="KC"]')
    expect(chip).to_have_class(re.compile(r"\bunsure\b"))
    expect(chip).to_contain_text("check")
    expect(chip).to_have_attribute("aria-label", re.compile(r"^K check: king of clubs, not sure"))
    expect(page.locator(".chip.unsure")).to_have_count(1)  # the sure ones are drawn as ever
    assert chip.evaluate("c => getComputedStyle(c).borderTopStyle") == "dashed"
    note = page.locator("#unsure-note")
    expect(note).to_be_visible()
    expect(note).to_contain_text("Check this card")
    expect(note).to_contain_text("not sure of the king of clubs")
    expect(page.locator("#photo-count-check")).to_have_text("Check K♣")
    page.screenshot(path=str(SHOTS / "unsure-card-phone.png"), full_page=True)
    # The player looks at it and keeps it as it is: no longer in doubt.
    change_card(page, "KC", "KC")
    expect(page.locator(".chip.unsure")).to_have_count(0)
    expect(note).to_be_hidden()
    expect(page.locator("#photo-count-check")).to_be_hidden()
    expect(total(page)).to_have_text("4")


def test_the_page_reads_unsure_from_each_card_of_the_json(open_page, tmp_path):
    # The contract alone, whatever reader is behind it: "unsure": true marks a card; false or
    # no field at all, a sure one. The starter can be in doubt too.
    reading = {"cards": [{"card": "5H", "confidence": 0.97, "unsure": False, "boxes": []},
                         {"card": "5C", "confidence": 0.95, "boxes": []},
                         {"card": "TS", "confidence": 0.41, "unsure": True, "boxes": []},
                         {"card": "JD", "confidence": 0.90, "boxes": []},
                         {"card": "5D", "confidence": 0.38, "unsure": True, "boxes": []}],
               "starter": "5D", "problems": [], "count": None}
    tab = open_page(create_app({"TESTING": True}, reader=StubReader()))
    page = tab.page
    page.route("**/api/read", lambda route: route.fulfill(status=200, content_type="application/json",
                                                          body=json.dumps(reading)))
    page.set_input_files("#file-input", photo_file(tmp_path))
    expect(total(page)).to_have_text(str(score_hand(["5H", "5C", "TS", "JD"], "5D").total))
    unsure = page.locator(".chip.unsure").evaluate_all("chips => chips.map(c => c.dataset.card)")
    assert sorted(unsure) == ["5D", "TS"]
    expect(page.locator("#starter-chips .chip.unsure")).to_have_count(1)
    expect(page.locator("#unsure-note")).to_contain_text("the ten of spades and the five of diamonds")
    tab.shot("unsure-cards-desktop")
    # Typed cards are the player's own: nothing is left in doubt.
    type_cards(page, "5H 5C TS JD 5D")
    expect(page.locator(".chip.unsure")).to_have_count(0)
    expect(page.locator("#unsure-note")).to_be_hidden()


def test_a_claim_typed_while_the_photo_is_read_is_judged_on_its_hand(open_page, tmp_path):
    # A player photographs the hand and types the opponent's claim while it is read: the claim
    # is for that hand, so it stays and is judged on it. A claim typed before is for the hand
    # before, and goes.
    reading = {"cards": [{"card": c, "confidence": 0.95, "boxes": []} for c in ("5H", "5C", "5S", "JD", "5D")],
               "starter": "5D", "problems": [], "count": None}
    tab = open_page(create_app({"TESTING": True}, reader=StubReader()))
    page = tab.page
    held = []
    page.route("**/api/read", lambda route: held.append(route))
    page.set_input_files("#file-input", photo_file(tmp_path))
    wait_for_request(page, held)
    page.fill("#claim", "29")
    page.click("#claim-form button[type=submit]")
    held.pop().fulfill(status=200, content_type="application/json", body=json.dumps(reading))
    expect(total(page)).to_have_text("29")
    expect(page.locator("#verdict")).to_have_attribute("data-verdict", "correct")
    page.set_input_files("#file-input", photo_file(tmp_path))  # the next photo, no claim typed
    wait_for_request(page, held)
    held.pop().fulfill(status=200, content_type="application/json", body=json.dumps(reading))
    expect(page.locator("#claim")).to_have_value("")
    expect(page.locator("#verdict")).to_be_hidden()


def test_the_cards_the_real_reader_is_unsure_of_are_the_ones_drawn_unsure(open_page, model_reader):
    # Whichever cards the model doubts (it changes with the model), the page marks those.
    tab = open_page(create_app({"TESTING": True}, reader=model_reader))
    page = tab.page
    with page.expect_response("**/api/read", timeout=60_000) as answer:
        page.set_input_files("#file-input", str(DATA / "webcam-5-cards.jpg"))
    reading = answer.value.json()
    expect(page.locator("#photo-status")).to_contain_text("read")
    doubted = sorted(c["card"] for c in reading["cards"] if c["unsure"])
    drawn = page.locator(".chip.unsure").evaluate_all("chips => chips.map(c => c.dataset.card)")
    assert sorted(drawn) == doubted
    expect(page.locator("#unsure-note")).to_be_visible() if doubted else \
        expect(page.locator("#unsure-note")).to_be_hidden()
    tab.shot("unsure-real-reader-desktop")
