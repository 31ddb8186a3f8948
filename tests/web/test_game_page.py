"""The scoreboard page in a real browser (Debian's Chromium, headless, driven by Playwright):
a short game played, the page reloaded and the game continued, an entry undone, a bad entry
refused, and the game's end with the match tally. Screenshots go to test-artifacts/web/."""

from __future__ import annotations

import re

import numpy as np
import pytest

from browsing import DESKTOP, PHONE, SHOTS, Page, expect
from cribcam.cli.main import main
from cribcam.vision.reading import PARTLY_IN_PHOTO, Problem
from cribcam.web import create_app
from webtools import PLACEHOLDER_FITS, StubReader, encode

PNG = encode(np.full((64, 64, 3), 200, np.uint8), ".png")
PLAY = "Bob:KS Ann:5H Bob:3H Ann:5C Bob:2D Ann:5D Bob:AC Ann:JS"


@pytest.fixture
def open_game(browser, live_server_factory, tmp_path):
    """Opens the scoreboard of a new app (its games in this test's database) in a tab."""
    tabs = []

    def open_(reader=None, game_id="", viewport=DESKTOP):
        app = create_app({"MODEL_PATH": "/nonexistent/model.onnx",
                          "GAME_DB": f"sqlite:///{tmp_path / 'games.sqlite3'}"}, reader=reader)
        tab = Page(browser, live_server_factory(app).url, viewport)
        tabs.append(tab)
        tab.visit(f"/game/{game_id}" if game_id else "/game")
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
    # Each Undo inside its row, clear of the lines between the rows (they sat on them).
    for row in page.locator("#log li").all():
        line, button = row.bounding_box(), row.locator(".undo-entry").bounding_box()
        assert line["y"] < button["y"] and button["y"] + button["height"] < line["y"] + line["height"] - 1
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
    cut = Problem(PARTLY_IN_PHOTO, "the 6S at the right edge is only partly in the photo: check that it is one of "
                                   "the cards, or leave it out")
    tab, app = open_game(reader=StubReader(cards=["4H", "6D", "4C", "6S"], problems=[cut]))
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
    page.click('#log button[aria-label^="Undo entry 2:"]')  # the irregularity was a mistake
    expect(page.locator("#sides .score").first).to_have_text("29")
    page.click('#log button[aria-label^="Undo entry 1:"]')  # the deal: the shows need it
    expect(page.locator("#entry-error")).to_contain_text("Entry 1 cannot be undone on its own")
    expect(page.locator("#log li")).to_have_count(3)
    expect(page.locator("#next")).to_contain_text("Ann's crib")
    page.set_input_files("#show-photo", files=[{"name": "crib.png", "mimeType": "image/png",
                                                "buffer": PNG}])
    expect(page.locator("#show-cards")).to_have_value("4H 6D 4C 6S")
    expect(page.locator("#photo-note")).to_have_text(cut.message)
    page.click("#show-form button[type=submit]")
    expect(page.locator("#sides .score").first).to_have_text("53")
    entry = client.get(f"/api/games/{game_id}/export").get_json()["entries"][-1]
    assert entry == {"type": "show", "cards": ["4H", "6D", "4C", "6S"], "claim": None,
                     "player": None, "crib": None, "source": "photo"}


def new_game(client, *entries, **setup) -> str:
    game_id = client.post("/api/games", json=setup or {"players": ["Ann", "Bob"]}).get_json()["id"]
    for entry in entries:
        response = client.post(f"/api/games/{game_id}/entries", json=entry)
        assert response.status_code == 200, response.get_json()
    return game_id


def test_the_games_kept_are_listed_and_one_is_opened_from_the_list(open_game):
    tab, app = open_game()
    page = tab.page
    expect(page.locator("#games-empty")).to_be_visible()  # none yet
    client = app.test_client()
    ids = [new_game(client, players=[f"P{n}", f"Q{n}"], target=61) for n in range(10)]
    ids.append(new_game(client, players=["P10", "Q10"], variant="five-card"))
    played = new_game(client, {"type": "deal", "starter": "5S"}, {"type": "play", "turns": PLAY})
    page.reload()
    expect(page.locator("body.ready")).to_have_count(1)
    rows = page.locator("#games tbody tr")
    expect(rows).to_have_count(10)  # ten a page, the last changed first
    expect(rows.first).to_contain_text("Ann v Bob")
    expect(rows.first.locator(".game-score")).to_have_text("3–2 (to 121)")
    expect(rows.nth(1).locator(".game-score")).to_have_text("0–0 (to 61, five-card)")
    expect(rows.nth(2).locator(".game-score")).to_have_text("0–0 (to 61)")  # six-card, to 61
    expect(rows.first).to_contain_text("deal 1: Bob's hand next")
    expect(page.locator("#games-where")).to_have_text("1–10 of 12")
    page.click("#games-older")
    expect(rows).to_have_count(2)
    expect(rows.last).to_contain_text("P0 v Q0")
    assert page.locator("#games-older").is_disabled()
    page.click("#games-newer")
    expect(rows).to_have_count(10)
    tab.shot("game-02-list")
    page.click("#games tbody tr >> nth=0 >> a")
    expect(page).to_have_url(re.compile(f"/game/{played}$"))
    expect(page.locator("body.ready")).to_have_count(1)
    assert scores(page) == ["3", "2"]
    expect(page.locator("#games-panel")).to_be_hidden()
    assert ids[0] != played


def test_the_play_box_speaks_the_games_names_and_takes_initials(open_game):
    tab, app = open_game()
    game_id = new_game(app.test_client(), {"type": "deal", "starter": "5S"})
    page = tab.page
    tab.visit(f"/game/{game_id}")
    expect(page.locator("#turns")).to_have_attribute("placeholder", "Bob:K Ann:6 Bob:K Ann:go ...")
    expect(page.locator("#turns-hint")).to_contain_text("Initials do too: B:K for Bob:K.")
    tab.shot("game-05-play-names")
    page.fill("#turns", "B:KS A:5H A:3H")  # Ann plays twice: refused, naming Bob's turn
    page.click("#play-form button[type=submit]")
    expect(page.locator("#entry-error")).to_have_text(
        "Turn 3 (Ann:3H): it is Bob's turn, not Ann's: Ann plays again only after Bob says go "
        "(Bob:go)")
    page.fill("#turns", "b:KS a:5H b:3H a:5C b:2D a:5D b:AC a:JS")
    page.click("#play-form button[type=submit]")
    expect(page.locator("#sides .score").first).to_have_text("3")
    expect(page.locator("#log li").last).to_contain_text("The play: Bob:KS Ann:5H Bob:3H")


def test_a_reason_in_the_log_reads_without_brackets_in_brackets(open_game):
    # The game's reasons hold brackets of their own: the log once said "Bob +2 (his heels (a
    # jack turned up))".
    tab, app = open_game()
    game_id = new_game(app.test_client(), {"type": "deal", "starter": "JH"}, players=["Ann", "Bob"],
                       first_dealer="Bob")
    page = tab.page
    page.goto(f"{tab.url}/game/{game_id}")
    scored = page.locator("#log li .scored").last
    expect(scored).to_have_text("Bob +2: his heels (a jack turned up)")


def test_the_winner_pegs_out_and_nothing_is_scored_after_the_end(open_game, tmp_path, capsys):
    tab, app = open_game()
    pegs_ = [{"type": "peg", "player": "Ann", "points": n} for n in (15, 15, 15, 14)]
    game_id = new_game(app.test_client(), {"type": "deal"}, *pegs_, players=["Ann", "Bob"],
                       target=61)
    page = tab.page
    tab.visit(f"/game/{game_id}")
    expect(page.locator("#irregularity")).to_be_visible()
    page.select_option("#peg-player", "Ann")
    page.fill("#peg-points", "15")
    page.click("#peg-button")
    expect(page.locator("#result p").first).to_have_text("Ann wins: 2 games (Bob 0: lurch).")
    # `cribcam game show` says the result in the very same words.
    main(["game", "show", game_id, "--db", f"sqlite:///{tmp_path / 'games.sqlite3'}"])
    assert ". Ann wins: 2 games (Bob 0: lurch).\n" in capsys.readouterr().out
    assert scores(page) == ["61", "0"]  # not 74: the rest is listed as not scored
    assert pegs(page, "Ann") == ("59", "61")
    expect(page.locator("#log li").last).to_contain_text(
        "Not scored, the game was over. Ann 13: the play: Ann pegs 15, past the game hole")
    expect(page.locator("#irregularity")).to_be_hidden()  # no scoring entry after the end
    for form in ("#deal-form", "#play-form", "#show-form"):
        expect(page.locator(form)).to_be_hidden()
    response = app.test_client().post(f"/api/games/{game_id}/entries", json={
        "type": "irregularity", "player": "Bob", "kind": "peg"})
    assert response.status_code == 422 and "the game is over" in response.get_json()["error"]


def test_the_board_is_legible_on_a_phone(open_game):
    tab, app = open_game(viewport=PHONE)
    game_id = new_game(app.test_client(), {"type": "deal", "starter": "5S"},
                       {"type": "play", "turns": PLAY}, {"type": "show", "claim": 7},
                       {"type": "show", "claim": 29})
    page = tab.page
    tab.visit(f"/game/{game_id}")
    expect(page.locator("#board")).to_have_attribute("data-row-holes", "15")
    expect(page.locator("#board .hole")).to_have_count(2 * 60 + 2 * 2)
    hole = page.locator("#board .track >> nth=0 >> .hole >> nth=0").bounding_box()
    peg = page.locator('#board .track[data-side="Ann"] .peg.front').bounding_box()
    assert hole["width"] >= 6 and peg["width"] >= 12, (hole, peg)  # were about 4 and 8
    board = page.locator("#board").bounding_box()
    assert board["x"] >= 0 and board["x"] + board["width"] <= PHONE["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert pegs(page, "Ann") == ("3", "32")
    tab.shot("game-03-phone")
    new_game(app.test_client(), players=["Cy", "Di"], variant="five-card")
    page.goto(f"{tab.url}/game")
    expect(page.locator("#games tbody tr")).to_have_count(2)
    expect(page.locator("#games .game-score").first).to_have_text("0–0 (to 61, five-card)")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    tab.shot("game-04-phone-list")


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_new_game_refused_says_why_in_the_same_words_for_a_count_and_for_names(open_game,
                                                                                 viewport):
    tab, _ = open_game(viewport=viewport)
    page = tab.page
    played_by = "cribbage is played by 2, 3, 4 (two partnerships) or 6 (two teams of three)"
    for players, said in [("1", f"1 player: {played_by}"), ("7", f"7 players: {played_by}"),
                          ("A B C D E F G", f"7 players: {played_by}"),
                          ("Ann " + "x" * 5000, "'xxxxxxxxxxxxxxxxxxxx…' is not a usable name: "
                                                "1 to 20 printable characters, no spaces, ':' or '='")]:
        page.fill("#players", players)
        page.click("#new-form button[type=submit]")
        expect(page.locator("#new-error")).to_have_text(said)
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    tab.shot(f"game-06-new-error-{'phone' if viewport is PHONE else 'desktop'}")


def test_the_players_box_starts_empty_with_a_hint_and_empty_starts_a_game_of_a_and_b(open_game):
    tab, _ = open_game()
    page = tab.page
    players = page.locator("#players")
    assert players.input_value() == "" and players.get_attribute("placeholder") == "Ann Bob"
    page.click("#new-form button[type=submit]")
    expect(page).to_have_url(re.compile(r"/game/[0-9a-f]{10}$"))
    expect(page.locator("#next")).to_have_text("A deals: type the starter (or tick a jack).")


@pytest.mark.parametrize("pegged", [True, False])
def test_a_play_pegged_as_it_happened_or_not_entered_leads_on_to_the_shows_and_the_next_deal(open_game, pegged):
    tab, _ = open_game()
    page = tab.page
    page.fill("#players", "Ann Bob")
    page.click("#new-form button[type=submit]")
    page.fill("#starter", "5S")
    page.click("#deal-form button[type=submit]")
    expect(page.locator("#next")).to_contain_text("The play: Bob leads")
    if pegged:
        page.select_option("#peg-player", "Bob")
        page.fill("#peg-points", "2")
        page.click("#peg-button")
        expect(page.locator("#sides .score").nth(1)).to_have_text("2")
    expect(page.locator("#show-form")).to_be_visible()
    expect(page.locator("#show-label")).to_have_text("Then Bob's hand (the play done)")
    for label in ("Bob's hand", "Ann's hand", "Ann's crib"):
        show(page, claim="0")
        if label != "Ann's crib":
            expect(page.locator("#show-label")).to_have_text({"Bob's hand": "Ann's hand", "Ann's hand": "Ann's crib"}[label])
    expect(page.locator("#next")).to_have_text("Bob deals: type the starter (or tick a jack).")
    expect(page.locator("#play-form")).to_be_hidden()


def test_the_entry_boxes_placeholders_fit_a_phone(open_game):
    # The starter's placeholder was cut to "5D (option" beside its tick box and button.
    tab, app = open_game(viewport=PHONE)
    client = app.test_client()
    for entries, form in [((), "#deal-form"), (({"type": "deal", "starter": "5S"},), "#play-form"),
                          (({"type": "deal", "starter": "5S"}, {"type": "play", "turns": PLAY}), "#show-form")]:
        tab.page.goto(f"{tab.url}/game/{new_game(client, *entries)}")
        expect(tab.page.locator(form)).to_be_visible()
        for field in tab.page.locator("#entry-panel input[placeholder]:visible").all():
            assert field.evaluate(PLACEHOLDER_FITS), field.get_attribute("id")  # the placeholder whole
        tab.page.locator("#entry-panel").screenshot(path=str(SHOTS / f"game-05-entry-{form[1:]}-phone.png"))
