"""The scoreboard page in a real browser (Debian's Chromium, headless, driven by Playwright):
a short game played, the page reloaded and the game continued, an entry undone, a bad entry
refused, and the game's end with the match tally. Screenshots go to test-artifacts/web/."""

from __future__ import annotations

import re

import numpy as np
import pytest

from cribcam.web import create_app

from test_e2e import DESKTOP, Page, browser, expect  # noqa: F401 (browser: the fixture)
from webtools import StubReader, encode

PNG = encode(np.full((64, 64, 3), 200, np.uint8), ".png")
PLAY = "Bob:KS Ann:5H Bob:3H Ann:5C Bob:2D Ann:5D Bob:AC Ann:JS"


@pytest.fixture
def open_game(browser, live_server_factory, tmp_path):  # noqa: F811
    """Opens the scoreboard of a new app (its games in this test's database) in a tab."""
    tabs = []

    def open_(reader=None, game_id=""):
        app = create_app({"MODEL_PATH": "/nonexistent/model.onnx",
                          "GAME_DB": f"sqlite:///{tmp_path / 'games.sqlite3'}"}, reader=reader)
        tab = Page(browser, live_server_factory(app).url, DESKTOP)
        tabs.append(tab)
        tab.page.goto(f"{tab.url}/game/{game_id}" if game_id else f"{tab.url}/game")
        expect(tab.page.locator("body.ready")).to_have_count(1)
        return tab, app

    yield open_
    for tab in tabs:
        tab.close()


def scores(page) -> list[str]:
    return page.locator("#sides .score").all_inner_texts()


def pegs(page, side: str) -> tuple[str, str]:
    track = page.locator(f'#board .track[data-side="{side}"]')
    return (track.locator(".peg.back").get_attribute("data-hole"),
            track.locator(".peg.front").get_attribute("data-hole"))


def show(page, cards: str = "", claim: str = "") -> None:
    page.fill("#show-cards", cards)
    page.fill("#show-claim", claim)
    page.click("#show-form button[type=submit]")


def test_a_short_game_reloaded_continued_and_undone(open_game):
    tab, _ = open_game()
    page = tab.page
    page.fill("#players", "Ann Bob")
    page.click('label:has(input[name="target"][value="61"])')
    page.check("#muggins")
    page.click("#new-form button[type=submit]")
    expect(page).to_have_url(re.compile(r"/game/[0-9a-f]{10}$"))
    expect(page.locator("#next")).to_have_text("Ann deals: type the starter (or tick a jack).")
    expect(page.locator("#board .hole")).to_have_count(2 * 60 + 2 * 2)  # 60 holes, start, game

    page.fill("#starter", "5S")
    page.click("#deal-form button[type=submit]")
    expect(page.locator("#next")).to_contain_text("The play: Bob leads")
    page.fill("#turns", PLAY)
    page.click("#play-form button[type=submit]")
    expect(page.locator("#sides .score").first).to_have_text("3")
    assert scores(page) == ["3", "2"] and pegs(page, "Ann") == ("2", "3")
    show(page, "AC 2D 3H KS", "5")  # 7: Bob overlooks his run and Ann takes 2
    expect(page.locator("#sides .score").first).to_have_text("5")
    assert scores(page) == ["5", "7"]
    expect(page.locator("#log li").last).to_contain_text("Muggins: 2 points overlooked")

    page.reload()  # the game continues from the server's database
    expect(page.locator("body.ready")).to_have_count(1)
    assert scores(page) == ["5", "7"]
    expect(page.locator("#next")).to_have_text("Ann's hand: type the cards, the number claimed, "
                                               "or both.")
    show(page, "5H 5C 5D JS")
    expect(page.locator("#sides .score").first).to_have_text("34")
    page.click("#undo-button")
    expect(page.locator("#sides .score").first).to_have_text("5")
    expect(page.locator("#log li")).to_have_count(3)
    show(page, "5H 5C 5D JS")
    expect(page.locator("#sides .score").first).to_have_text("34")

    page.set_input_files("#show-photo", files=[{"name": "crib.png", "mimeType": "image/png",
                                                "buffer": PNG}])
    expect(page.locator("#entry-error")).to_contain_text("no card-reading model")  # none here
    show(page, "4H 6D 4C 5H")  # 5H is in Ann's hand: refused, nothing changes
    expect(page.locator("#entry-error")).to_have_text("5H was played by Ann; it cannot be in "
                                                      "Ann's crib")
    assert scores(page) == ["34", "7"]
    show(page, "4H 6D 4C 6S")
    expect(page.locator("#sides .score").first).to_have_text("58")
    expect(page.locator("#entry-error")).to_be_hidden()

    page.click("#deal-form button[type=submit]")  # Bob deals; no starter typed
    page.select_option("#peg-player", "Ann")
    page.fill("#peg-points", "3")
    page.click("#peg-button")
    expect(page.locator("#result")).to_contain_text("Ann wins: 2 games (Bob 7: lurch).")
    expect(page.locator("#result")).to_contain_text("Ann reached 61 with the play: Ann pegs 3")
    assert pegs(page, "Ann") == ("58", "61")
    expect(page.locator("#match")).to_have_text("Match (game 1): Ann 2, Bob 0")
    tab.shot("game-01-over")

    page.click("#next-game-button")
    expect(page.locator("#next")).to_have_text("Bob deals: type the starter (or tick a jack).")
    expect(page.locator("#match")).to_have_text("Match (game 2): Ann 2, Bob 0")
    assert scores(page) == ["0", "0"]


def test_a_crib_read_from_a_photo(open_game, tmp_path):
    tab, app = open_game(reader=StubReader(cards=["4H", "6D", "4C", "6S"]))
    client = app.test_client()
    game_id = client.post("/api/games", json={"players": ["Ann", "Bob"]}).get_json()["id"]
    for entry in ({"type": "deal", "starter": "5S"},
                  {"type": "irregularity", "player": "Bob", "kind": "peg"},
                  {"type": "show", "claim": 7}, {"type": "show", "claim": 29}):
        client.post(f"/api/games/{game_id}/entries", json=entry)
    page = tab.page
    page.goto(f"{tab.url}/game/{game_id}")
    expect(page.locator("body.ready")).to_have_count(1)  # the game is loaded from the server
    assert scores(page) == ["31", "7"]
    page.click('#log button[aria-label="Undo entry 2"]')  # the irregularity was a mistake
    expect(page.locator("#sides .score").first).to_have_text("29")
    page.click('#log button[aria-label="Undo entry 1"]')  # the deal: the shows need it
    expect(page.locator("#entry-error")).to_contain_text("Entry 1 cannot be undone on its own")
    expect(page.locator("#log li")).to_have_count(3)
    expect(page.locator("#next")).to_contain_text("Ann's crib")
    page.set_input_files("#show-photo", files=[{"name": "crib.png", "mimeType": "image/png",
                                                "buffer": PNG}])
    expect(page.locator("#show-cards")).to_have_value("4H 6D 4C 6S")
    page.click("#show-form button[type=submit]")
    expect(page.locator("#sides .score").first).to_have_text("53")
    entry = client.get(f"/api/games/{game_id}/export").get_json()["entries"][-1]
    assert entry == {"type": "show", "cards": ["4H", "6D", "4C", "6S"], "claim": None,
                     "player": None, "crib": None, "source": "photo"}
