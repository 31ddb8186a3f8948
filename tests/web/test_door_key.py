"""A server open to its network asks for its key before a change (issue 46: anyone on the LAN
could undo any game to nothing, evict every live session, fill the disk by teaching)."""

from __future__ import annotations

import os
import re
import stat

import pytest
from playwright.sync_api import expect

from browsing import DESKTOP, Page
from cribcam.web import create_app
from webtools import serving

KEY = "12345678"


@pytest.fixture
def locked(tmp_path):
    return create_app({"TESTING": True, "MODEL_PATH": tmp_path / "no-model.onnx", "DOOR_KEY": KEY,
                       "GAME_DB": f"sqlite:///{tmp_path / 'games.sqlite3'}"})


def test_a_change_without_the_key_is_refused_and_one_with_it_taken(locked):
    client = locked.test_client()
    answer = client.post("/api/games", json={"players": ["Ann", "Bob"]})
    assert answer.status_code == 403 and answer.json["code"] == "door_key"
    assert answer.json["error"].startswith("this server asks for its key before anything changes")
    assert client.post("/api/games", json={}, headers={"X-Cribcam-Key": "87654321"}).status_code == 403
    assert client.post("/api/live/play", json={"players": ["Ann", "Bob"], "dealer": "Bob"}).status_code == 403
    assert client.get("/api/games").json["total"] == 0  # reading asks for nothing
    counted = client.post("/api/count", json={"hand": ["5H", "5C", "5S", "JD"], "starter": "5D"})
    assert counted.status_code == 200  # counting changes nothing: no key
    made = client.post("/api/games", json={}, headers={"X-Cribcam-Key": KEY})  # a script
    assert made.status_code == 201
    client.set_cookie("cribcam-key", KEY)  # a browser that gave it once
    assert client.delete(f"/api/games/{made.json['id']}").status_code == 200


def test_the_page_asks_for_the_key_once_and_goes_on(browser, live_server_factory, locked):
    tab = Page(browser, live_server_factory(locked).url, DESKTOP)
    page = tab.page
    asked = []

    def answer(dialog):
        asked.append(dialog.message)
        dialog.accept(KEY)

    page.on("dialog", answer)
    tab.visit("/game")
    page.fill("#players", "Ann Bob")
    page.click("#new-form button[type=submit]")
    expect(page).to_have_url(re.compile(r"/game/[0-9a-f]{10}$"))
    assert len(asked) == 1 and asked[0].startswith("This server asks for its key before anything changes")
    page.fill("#starter", "5S")  # the next change: the key is kept, not asked again
    page.click("#deal-form button[type=submit]")
    expect(page.locator("#next")).to_contain_text("The play: Bob leads")
    assert len(asked) == 1
    tab.close()


def test_serve_beyond_loopback_says_its_key_and_keeps_it(tmp_path, monkeypatch):
    monkeypatch.setenv("CRIBCAM_DATA", str(tmp_path))
    monkeypatch.setenv("CRIBCAM_DB", f"sqlite:///{tmp_path / 'games.sqlite3'}")
    keys = []
    for _ in range(2):
        with serving("--host", "0.0.0.0", "--port", "0", "--threads", "2") as process:
            process.stdout.readline()  # the address
            said = process.stdout.readline()
            found = re.search(r"its key is (\d{8});", said)
            assert found, said
            keys.append(found.group(1))
    assert keys[0] == keys[1] == (tmp_path / "door-key").read_text().strip()  # the same at every start
    assert stat.S_IMODE(os.stat(tmp_path / "door-key").st_mode) == 0o600
