"""The live page in a real browser: Debian's Chromium, headless, with a fake camera.

Chromium's fake camera (``--use-fake-device-for-media-stream``) films a moving test pattern,
or plays a clip (``--use-file-for-fake-video-capture``); ``device-count=0`` gives a browser
with no camera at all, and a browser without ``--use-fake-ui-for-media-stream`` asks the
page's context for the permission (refused unless granted). The app runs under waitress on
loopback, with a stand-in reader whose cards the tests change, or with the shipped model
on a clip of synthetic hands. Screenshots go to test-artifacts/web/ (look at them).
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from browsing import ALLOW_CAMERA, DESKTOP, FAKE_CAMERA, PHONE, SHOTS, chromium, expect
from cribcam.live.https import TLSFront, local_names, network_address, self_signed_certificate, server_context
from cribcam.live.laid import STILL_FOR
from cribcam.scoring import score_hand
from cribcam.web import create_app
from cribcam.web.server import make_server, server_url
from test_e2e import change_card, hand_chips
from waiting import in_page, wait_until
from webtools import PLACEHOLDER_FITS, CountingReader, LiveServer, StubReader

HAND = ["5H", "5C", "5S", "JD", "5D"]
FRAME_SECONDS = 0.1  # a frame's time on a play's clock that counts frames
OTHER = ["2C", "3D", "4S", "9H", "KD"]


def frames_read(reader: StubReader) -> int:
    with reader.lock:
        return len(reader.calls)


def wait_for_frames(page, reader: StubReader, n: int) -> None:
    """Lets the page send ``n`` more frames."""
    target = frames_read(reader) + n
    wait_until(lambda: frames_read(reader) >= target, timeout=30, pause=in_page(page),
               message=lambda: f"the page sent {frames_read(reader)} frames, not {target}")


def wait_for_size(page, reader, width: int, timeout_ms: int = 10_000) -> None:
    """Waits until the reader gets frames ``width`` pixels wide."""
    def sent() -> str:
        shape = page.evaluate("[video.videoWidth, video.videoHeight]")
        return f"the page sent frames of {reader.last_size}, not {width} wide ({frames_read(reader)} frames; {shape})"

    wait_until(lambda: reader.last_size and reader.last_size[0] == width, timeout=timeout_ms / 1000,
               pause=in_page(page), message=sent)


def requests_seen(page) -> None:
    """Returns once the test has seen every request the page sent till now: the page sends one
    more, and it is waited for (a page's requests reach the test in the order it sends them)."""
    with page.expect_request(lambda request: request.url.endswith("/api/status?seen")):
        page.evaluate("fetch('/api/status?seen')")


# --- following the camera ------------------------------------------------------------------


def test_frames_go_one_at_a_time_with_the_overlay_and_frames_per_second(camera_browser, live_tabs):
    reader = CountingReader(HAND)
    tab = live_tabs.open(camera_browser, create_app({"TESTING": True}, reader=reader))
    page = tab.page
    refused = []
    page.on("response", lambda r: refused.append(r.url) if r.status == 429 else None)
    expect(page.locator("#lock-status")).to_have_attribute("data-lock", "locked")
    expect(page.locator("#fps")).to_have_text(re.compile(r"^\d+\.\d frames/s$"))
    wait_for_frames(page, reader, 10)
    assert reader.most_at_once == 1 and refused == []
    assert float(page.locator("#fps").get_attribute("data-fps")) > 0

    # The overlay: one label per card read, boxes drawn where the reader saw them.
    expect(page.locator("#overlay")).to_have_attribute("data-cards", "5")
    size = page.evaluate("[overlay.width, overlay.height]")
    assert size == [640, 480]  # the fake camera's frames, sent at 640 pixels
    step = 640 / 6  # StubReader's first box: x from 0.6 to 1.2 steps, y from 30 % to 45 %
    pixel = "([x, y]) => Array.from(overlay.getContext('2d').getImageData(x, y, 1, 1).data)"
    edge = page.evaluate(pixel, [round(step * 0.6), 180])
    inside = page.evaluate(pixel, [round(step * 0.9), 190])
    assert edge[3] == 255 and inside[3] == 0  # the box's edge is drawn, its inside left clear
    tab.shot("live-01-locked-desktop")


def test_a_hand_locks_is_counted_and_spoken_then_the_next_replaces_it(camera_browser, live_tabs):
    reader = CountingReader([])
    tab = live_tabs.open(camera_browser, create_app({"TESTING": True}, reader=reader))
    page = tab.page
    expect(page.locator("#lock-status")).to_have_attribute("data-lock", "looking")
    expect(page.locator("#count-empty")).to_be_visible()
    page.check("#sound")

    reader.show(HAND)
    expect(page.locator("#lock-status")).to_have_text("Locked: 5 cards")
    expect(page.locator("#total")).to_have_text("29")
    assert sorted(hand_chips(page)) == sorted(HAND[:4])
    expect(page.locator("#history li")).to_have_count(1)
    expect(page.locator("#history li").first).to_have_attribute("data-total", "29")
    spoken = score_hand(HAND[:4], "5D").spoken
    page.wait_for_function("n => window.__spoken.length >= n", arg=1)
    assert page.evaluate("window.__spoken") == [spoken]

    # A single odd frame never changes the locked count.
    reader.show(OTHER)
    wait_for_frames(page, reader, 1)
    reader.show(HAND)
    wait_for_frames(page, reader, 6)
    expect(page.locator("#total")).to_have_text("29")
    expect(page.locator("#history li")).to_have_count(1)

    # The cards change: the lock follows the new hand.
    reader.show(OTHER)
    other_total = str(score_hand(OTHER[:4], "KD").total)
    expect(page.locator("#total")).to_have_text(other_total)
    expect(page.locator("#history li")).to_have_count(2)
    expect(page.locator("#history li").first).to_have_attribute("data-total", other_total)
    page.wait_for_function("n => window.__spoken.length >= n", arg=2)
    assert page.evaluate("window.__spoken")[1] == score_hand(OTHER[:4], "KD").spoken

    # The table is cleared: the lock lets go, the last count stays to be checked.
    reader.show([])
    expect(page.locator("#lock-status")).to_have_attribute("data-lock", "looking")
    expect(page.locator("#total")).to_have_text(other_total)
    tab.shot("live-02-second-hand-desktop")


def test_a_fixed_card_and_a_claim_stay_while_the_hand_stays_locked(camera_browser, live_tabs):
    misread = ["AS", "QH", "KC", "AC", "QC"]  # the QS read as QC; the QC taken for the starter
    reader = CountingReader(misread)
    tab = live_tabs.open(camera_browser, create_app({"TESTING": True}, reader=reader), viewport=PHONE)
    page = tab.page
    expect(page.locator("#lock-status")).to_have_attribute("data-lock", "locked")
    change_card(page, "QC", "QS", starter=True)
    hand = ["AS", "QH", "KC", "AC"]
    true_total = score_hand(hand, "QS").total
    expect(page.locator("#total")).to_have_text(str(true_total))
    page.fill("#claim", str(true_total - 2))
    page.click("#claim-form button[type=submit]")
    expect(page.locator("#verdict")).to_have_attribute("data-verdict", "muggins")
    wait_for_frames(page, reader, 8)  # still locked on the misread cards: nothing is undone
    expect(page.locator("#verdict")).to_have_attribute("data-verdict", "muggins")
    assert page.locator("#starter-chips .chip[data-card]").get_attribute("data-card") == "QS"
    # Crib and five-card switches count the same chips again.
    page.click("label:has(input[name=what][value=crib])")
    expect(page.locator("#total-label")).to_have_text("Crib total")
    tab.shot("live-03-fixed-and-claimed-phone")


def test_the_list_of_hands_follows_a_card_fixed_and_the_starter_chosen(camera_browser, live_tabs):
    # The count followed the chips, but the list kept the cards as read and "which is the starter?".
    reader = CountingReader(["AS", "QH", "KC", "AC", "QC"])  # the QS read as QC
    reader.starter = None  # the layout does not say which card is the starter
    tab = live_tabs.open(camera_browser, create_app({"TESTING": True}, reader=reader))
    page = tab.page
    entry = page.locator("#history li").first
    expect(entry).to_contain_text("which is the starter?")
    change_card(page, "QC", "QS", starter=True)
    total = score_hand(["AS", "QH", "KC", "AC"], "QS").total
    expect(page.locator("#total")).to_have_text(str(total))
    expect(entry).to_have_attribute("data-cards", "AS QH KC AC QS")
    expect(entry).to_have_attribute("data-total", str(total))
    expect(entry).to_have_text(f"1.A♠Q♥K♣A♣Q♠ hand {total}")
    wait_for_frames(page, reader, 4)  # the same hand still locked: it stays as fixed
    expect(entry).to_have_attribute("data-cards", "AS QH KC AC QS")
    expect(page.locator("#history li")).to_have_count(1)


def test_a_card_read_unsure_is_drawn_dashed_and_named_until_the_reader_is_sure(camera_browser, live_tabs,
                                                                               monkeypatch):
    # Read alike for two lock windows running, a hand locks with its unsure card marked to
    # confirm (live.follow.STEADY_WINDOWS; tests/live/test_follow.py): on a fast machine the
    # checks below outlast 16 frames. Here the reader becomes sure before it would.
    monkeypatch.setattr("cribcam.live.follow.STEADY_WINDOWS", 1000)
    reader = CountingReader(HAND)
    reader.unsure = {"JD"}  # in every frame, as the reader reads a card it is not sure of
    tab = live_tabs.open(camera_browser, create_app({"TESTING": True}, reader=reader), viewport=PHONE)
    page = tab.page
    # The server holds the lock on a guess; the page says which card to check, and draws it dashed.
    badge = page.locator("#lock-status")
    expect(badge).to_have_attribute("data-lock", "check")
    expect(badge).to_have_text("Check J♦: not sure of it yet")
    expect(page.locator("#overlay")).to_have_attribute("data-unsure", "1")
    expect(page.locator("#count")).to_be_hidden()  # no count on a guess; the count area says why
    expect(page.locator("#unsure-note")).to_contain_text("not sure of the jack of diamonds yet")
    tab.shot("live-unsure-card-phone")
    reader.unsure = set()  # turned to the light: read surely, the hand locks and counts
    expect(badge).to_have_attribute("data-lock", "locked")
    expect(page.locator("#overlay")).to_have_attribute("data-unsure", "0")
    expect(page.locator("#total")).to_have_text("29")
    expect(page.locator(".chip.unsure")).to_have_count(0)
    expect(page.locator("#unsure-note")).to_be_hidden()


def test_a_portrait_camera_is_shown_and_read_whole(playwright, live_tabs, tmp_path):
    # A phone held upright films a frame taller than wide. Asked for 640 by 480, Chromium
    # cropped it to that shape: its top and bottom were lost, from the view and the reader.
    clip = portrait_clip(tmp_path / "portrait.y4m", 480, 640)
    reader = CountingReader(HAND)
    with chromium(playwright, ALLOW_CAMERA, FAKE_CAMERA, f"--use-file-for-fake-video-capture={clip}") as browser:
        for viewport in (DESKTOP, PHONE):
            tab = live_tabs.open(browser, create_app({"TESTING": True}, reader=reader), viewport=viewport)
            page = tab.page
            expect(page.locator("#lock-status")).to_have_attribute("data-lock", "locked")
            assert page.evaluate("[video.videoWidth, video.videoHeight]") == [480, 640]
            shape, _ = reader.calls[-1]
            assert shape == (640, 480, 3)  # the reader gets the whole frame, upright
            # The view shows it whole: the red band at its top and the blue one at its bottom.
            view = cv2.imdecode(np.frombuffer(page.locator("#video").screenshot(), np.uint8), cv2.IMREAD_COLOR)
            height, width = view.shape[:2]
            assert height > width  # upright, as filmed
            top, bottom = view[3, width // 2], view[-4, width // 2]
            assert top[2] > 180 and top[0] < 80, top  # red (BGR)
            assert bottom[0] > 180 and bottom[2] < 80, bottom  # blue
            # The boxes are drawn over the frame where it is shown.
            assert page.locator("#overlay").bounding_box() == page.locator("#video").bounding_box()
            if viewport is PHONE:
                assert page.locator("#video").bounding_box()["height"] <= 0.7 * PHONE["height"] + 1
            tab.shot(f"live-portrait-camera-{'phone' if viewport is PHONE else 'desktop'}")
        live_tabs.close_all()


def portrait_clip(path: Path, width: int, height: int) -> Path:
    """A still clip for Chromium's fake camera: grey, a red band at the top, a blue at the bottom."""
    frame = np.full((height, width, 3), 200, np.uint8)
    frame[: height // 10] = (0, 0, 255)
    frame[-(height // 10):] = (255, 0, 0)
    yuv = cv2.cvtColor(frame, cv2.COLOR_BGR2YUV_I420).tobytes()
    with path.open("wb") as clip:
        clip.write(f"YUV4MPEG2 W{width} H{height} F10:1 Ip A1:1 C420jpeg\n".encode())
        for _ in range(10):
            clip.write(b"FRAME\n" + yuv)
    return path


# --- when there is no camera, no permission or no model ------------------------------------


def test_a_refused_camera_permission_is_explained(camera_browser, live_tabs):
    tab = live_tabs.open(camera_browser, create_app({"TESTING": True}, reader=CountingReader(HAND)),
                    camera=False)
    page = tab.page
    expect(page.locator("#camera-status")).to_contain_text("Camera permission was refused")
    expect(page.locator("#camera-status")).to_be_visible()
    expect(page.locator("#camera-button")).to_have_text("Start camera")
    expect(page.locator("#lock-status")).to_have_text("No camera.")
    tab.shot("live-04-permission-refused-desktop")
    # Allowed afterwards, the camera starts with a press.
    tab.context.grant_permissions(["camera"])
    page.click("#camera-button")
    expect(page.locator("#lock-status")).to_have_attribute("data-lock", "locked")
    expect(page.locator("#camera-status")).to_be_hidden()


def test_no_camera_is_explained(playwright, live_tabs):
    with chromium(playwright, ALLOW_CAMERA, FAKE_CAMERA + "=device-count=0") as browser:
        tab = live_tabs.open(browser, create_app({"TESTING": True}, reader=CountingReader(HAND)))
        expect(tab.page.locator("#camera-status")).to_contain_text("No camera was found")
        tab.shot("live-05-no-camera-desktop")
        live_tabs.close_all()


def test_a_page_that_is_not_secure_says_to_use_https(camera_browser, live_tabs):
    address = network_address()
    if address is None:
        pytest.skip("no network address: every page here is on loopback, which is secure")
    server = AddressServer(create_app({"TESTING": True}, reader=CountingReader(HAND)), address)
    try:
        tab = live_tabs.open(camera_browser, server=server)
        expect(tab.page.locator("#camera-status")).to_contain_text("The camera needs a secure page")
        expect(tab.page.locator("#camera-status")).to_contain_text("cribcam serve --https")
        live_tabs.close_all()
    finally:
        server.close()


def test_without_a_model_the_page_says_so_and_stops_sending(camera_browser, live_tabs, app):
    tab = live_tabs.open(camera_browser, app)
    page = tab.page
    expect(page.locator("#model-note")).to_contain_text("no card-reading model is installed")
    expect(page.locator("#camera-status")).to_contain_text(
        "Photos cannot be read: no card-reading model is installed on this server")
    expect(page.locator("#camera-button")).to_have_text("Start camera")
    # Typing still counts.
    page.fill("#typed-cards", "5H 5C 5S JD 5D")
    page.click("#type-form button[type=submit]")
    expect(page.locator("#total")).to_have_text("29")
    tab.shot("live-06-no-model-desktop")


class AddressServer(LiveServer):
    """A ``LiveServer`` on another address than loopback."""

    def __init__(self, app, host: str):
        self.app = app
        self.server = make_server(app, host, 0, 2)
        self.url = server_url(self.server).rstrip("/")
        self.port = self.server.effective_port
        self.thread = threading.Thread(target=self.server.run, daemon=True, name="address-server")
        self.thread.start()


# --- over HTTPS, as a phone opens it ---------------------------------------------------------


def test_over_https_with_the_self_signed_certificate_the_camera_works(playwright, live_tabs,
                                                                       live_server_factory):
    reader = CountingReader(HAND)
    backend = live_server_factory(create_app({"TESTING": True}, reader=reader))
    cert, key = self_signed_certificate(local_names("127.0.0.1"))
    front = TLSFront(server_context(cert, key), "127.0.0.1", 0, backend.port)
    with chromium(playwright, FAKE_CAMERA, "--ignore-certificate-errors") as browser:
        try:
            tab = live_tabs.open(browser, server=SimpleNamespace(url=f"https://127.0.0.1:{front.port}"))
            assert tab.page.evaluate("location.protocol + isSecureContext") == "https:true"
            expect(tab.page.locator("#total")).to_have_text("29")
            live_tabs.close_all()
        finally:
            front.close()


# --- a clip of real-looking hands, read by the shipped model ---------------------------------


def test_the_page_locks_onto_each_hand_of_a_clip_in_turn(shipped_models, heldout_decks, tmp_path, playwright,
                                                         live_tabs):
    from cribcam.datagen.clips import ClipSpec, write_clip
    from cribcam.vision import CardReader

    clip = tmp_path / "clip.y4m"
    record = write_clip(clip, ClipSpec(hands=3, hold_seconds=4.0, seed=7), heldout_decks)
    app = create_app({"TESTING": True}, reader=CardReader(shipped_models))
    with chromium(playwright, ALLOW_CAMERA, FAKE_CAMERA,
                  f"--use-file-for-fake-video-capture={clip}") as browser:
        tab = live_tabs.open(browser, app)
        history = tab.page.locator("#history li")
        expect(history).to_have_count(3, timeout=120_000)
        tab.shot("live-07-clip-shipped-model-desktop")
        seen = history.evaluate_all("items => items.map(i => [i.dataset.cards, i.dataset.total])")
        live_tabs.close_all()
    # Newest first in the list; the clip's hands in order, each with its count.
    seen = [(sorted(cards.split()), total) for cards, total in reversed(seen)]
    expected = [(sorted(h["hand"] + [h["starter"]]), str(h["total"])) for h in record["hands"]]
    assert [cards for cards, _ in seen] == [cards for cards, _ in expected]  # read right, locked in turn
    assert seen == expected  # each starter told apart, so each hand counted


# --- the play (pegging) --------------------------------------------------------------------


def test_the_play_is_watched_counted_and_pegged_and_a_go_is_one_button(camera_browser, live_tabs):
    reader = CountingReader([])
    # The play's clock counts the frames read (FRAME_SECONDS each): "lies still for STILL_FOR
    # seconds" means as many frames, however slowly a busy machine sends them.
    app = create_app({"TESTING": True, "LIVE_CLOCK": lambda: frames_read(reader) * FRAME_SECONDS}, reader=reader)
    tab = live_tabs.open(camera_browser, app, viewport=PHONE)
    page = tab.page
    expect(page.locator("#lock-status")).to_have_attribute("data-lock", "looking")
    page.fill("#play-players", "Ann Bob")
    page.fill("#play-dealer", "Bob")
    page.click("#play-form button[type=submit]")
    expect(page.locator("#play-board")).to_be_visible()
    expect(page.locator("#play-turn")).to_have_text("Ann to play")  # the dealer's left leads
    wait_for_size(page, reader, 1280)  # the play's frames are larger: a table of cards, not a hand

    reader.show(["5H"])  # Ann lays the five of hearts
    expect(page.locator("#play-count")).to_have_text("5")
    reader.show(["5H", "TD"])  # Bob the ten of diamonds: fifteen two
    expect(page.locator("#play-count")).to_have_text("15")
    expect(page.locator("#play-said")).to_have_text("Bob 10♦: 15, fifteen for two")
    expect(page.locator('#play-totals li[data-player="Bob"]')).to_have_text("Bob 2")
    expect(page.locator("#play-series li")).to_have_count(2)
    expect(page.locator("#play-turn")).to_have_text("Ann to play")
    expect(page.locator("#lock-status")).to_have_text("Watching the play: Ann to play")
    tab.shot("live-play-phone")

    page.click('#play-series .play-card[data-card="TD"]')  # it was the nine of diamonds
    page.fill("#play-series .chip-edit", "9d")
    page.keyboard.press("Enter")
    expect(page.locator("#play-count")).to_have_text("14")
    expect(page.locator('#play-totals li[data-player="Bob"]')).to_have_text("Bob 0")
    expect(page.locator("#play-said")).to_have_text("10♦ named 9D: the play is pegged anew.")
    # The list of turns follows: the card as named, its count and pegs anew.
    expect(page.locator("#play-events li")).to_have_text(["Bob 9♦: 14", "Ann 5♥: 5"])
    reader.show(["5H", "TD"])  # the camera still reads it as the ten where it lies: not laid again
    wait_for_frames(page, reader, round(2 * STILL_FOR / FRAME_SECONDS))  # laid, it would be by now
    expect(page.locator("#play-count")).to_have_text("14")
    expect(page.locator("#play-events li")).to_have_count(2)

    page.click("#go-button")  # Ann cannot say go on 14: any card fits (said once: "Ann: Ann cannot…" before)
    expect(page.locator("#play-said")).to_have_text("Ann cannot say go on 14: any card fits under 31, so Ann plays one")
    expect(page.locator("#play-count")).to_have_text("14")
    page.click("#play-stop")
    expect(page.locator("#play-form")).to_be_visible()
    expect(page.locator("#play-board")).to_be_hidden()
    wait_for_size(page, reader, 640)  # a hand's frames again


class HeldReader(CountingReader):
    """A stand-in reader that holds each frame until ``release`` is set (``holding``: one is held)."""

    def __init__(self, cards=()):
        super().__init__(cards)
        self.holding, self.release = threading.Event(), threading.Event()

    def read(self, image, expected=None, starter=True):
        self.holding.set()
        self.release.wait(10)
        return super().read(image, expected)


def test_a_play_started_while_the_first_frame_is_read_keeps_its_session(camera_browser, live_tabs):
    # The first frame opens a session of its own: answered after the play had started, it
    # replaced the play's session, and the frames counted hands while the board waited for a card.
    reader = HeldReader([])
    tab = live_tabs.open(camera_browser, create_app({"TESTING": True}, reader=reader))
    page = tab.page
    # Waited for in the page: its requests go through this thread (Page's routes).
    wait_until(reader.holding.is_set, timeout=10, pause=in_page(page), message="no frame came to the reader")
    page.fill("#play-players", "Ann Bob")
    page.fill("#play-dealer", "Bob")
    page.click("#play-form button[type=submit]")
    expect(page.locator("#play-turn")).to_have_text("Ann to play")
    reader.release.set()
    reader.show(["5H"])
    expect(page.locator("#play-count")).to_have_text("5")
    expect(page.locator("#lock-status")).to_have_text("Watching the play: Bob to play")


def test_a_hands_panels_are_hidden_while_the_play_is_watched(camera_browser, live_tabs):
    # On a phone they lay under the board with the hand before the play's notes ("Which card is
    # the starter?"), read as if about the play.
    reader = CountingReader(HAND)
    reader.starter = None
    tab = live_tabs.open(camera_browser, create_app({"TESTING": True}, reader=reader), viewport=PHONE)
    page = tab.page
    hand_parts = ["#cards-panel", "#count-panel", "#starter-choices", ".hand-hint"]
    expect(page.locator("#starter-choices")).to_be_visible()
    page.fill("#play-players", "Ann Bob")
    page.fill("#play-dealer", "Bob")
    page.click("#play-form button[type=submit]")
    expect(page.locator("#play-board")).to_be_visible()
    for part in hand_parts:
        expect(page.locator(part)).to_be_hidden()
    tab.shot("live-play-hand-hidden-phone")
    page.click("#play-stop")
    for part in hand_parts:  # the hand before the play, to be counted again
        expect(page.locator(part)).to_be_visible()


def test_a_play_watched_from_a_game_of_the_board_pegs_into_the_game(camera_browser, live_tabs, tmp_path):
    reader = CountingReader([])
    app = create_app({"TESTING": True, "GAME_DB": f"sqlite:///{tmp_path / 'games.sqlite3'}"}, reader=reader)
    client = app.test_client()
    game = client.post("/api/games", json={"players": ["Ann", "Bob"], "first_dealer": "Bob"}).json
    client.post(f"/api/games/{game['id']}/entries", json={"type": "deal", "starter": "2H"})
    tab = live_tabs.open(camera_browser, app)
    page = tab.page
    page.fill("#play-game", game["id"])
    page.click("#play-form button[type=submit]")
    expect(page.locator("#play-turn")).to_have_text("Ann to play")
    assert page.input_value("#play-players") == "Ann Bob" and page.input_value("#play-dealer") == "Bob"
    laid = []
    for card in ["5H", "TD", "5S", "5C", "6D", "9H", "AC", "2S"]:  # Ann, Bob in turn: 31 on the fifth
        laid.append(card)
        reader.show(laid)
        expect(page.locator("#play-events li")).to_have_count(len(laid))
    expect(page.locator("#play-turn")).to_have_text("The play is over.")
    # The count it ended on, with its cards as they lie (issue 45: 0, and the cards gone).
    expect(page.locator("#play-count")).to_have_text("12")
    expect(page.locator("#play-series .play-card")).to_have_count(3)
    # The list numbered from the first card (1.) up, the newest at the top.
    assert page.evaluate("document.getElementById('play-events').reversed")
    expect(page.locator("#play-events li").last).to_contain_text("Ann 5")
    # On a desktop the board takes the hand's column: nothing of the page is left empty.
    board, camera = page.locator("#play-panel").bounding_box(), page.locator("#camera-panel").bounding_box()
    assert board["x"] >= camera["x"] + camera["width"] and abs(board["y"] - camera["y"]) < 2
    tab.shot("live-play-over-desktop")
    expect(page.locator("#play-game-note")).to_contain_text("Pegged in the game: Ann ")
    state = client.get(f"/api/games/{game['id']}").json
    assert state["next"]["step"] == "show" and [s["score"] for s in state["sides"]] == \
        [int(page.locator('#play-totals li[data-player="Ann"]').inner_text().split()[1]),
         int(page.locator('#play-totals li[data-player="Bob"]').inner_text().split()[1])]


def test_the_play_form_fits_a_phone_and_says_when_no_players_are_named(camera_browser, live_tabs):
    tab = live_tabs.open(camera_browser, create_app({"TESTING": True}, reader=CountingReader([])), viewport=PHONE)
    page = tab.page
    page.click("#play-form button[type=submit]")  # no players named: said on the page, before the server is asked
    expect(page.locator("#play-error")).to_have_text(
        "Name the players, in seating order, like Ann Bob (or name a game of the board).")
    panel = page.locator("#play-panel").bounding_box()
    label = page.locator('label[for="play-players"]').bounding_box()
    assert label["height"] < 40  # on one line, above its field
    for field in ("#play-players", "#play-dealer", "#play-game"):
        box = page.locator(field).bounding_box()
        assert box["x"] + box["width"] <= panel["x"] + panel["width"] - 8, field  # clear of the panel's edge
        assert page.locator(field).evaluate(PLACEHOLDER_FITS), field  # the placeholder whole
    page.locator("#play-panel").screenshot(path=str(SHOTS / "live-play-form-phone.png"))
    page.fill("#play-players", "Ann Bob")
    page.fill("#play-dealer", "Bob")
    page.click("#play-form button[type=submit]")
    expect(page.locator("#play-board")).to_be_visible()
    expect(page.locator("#play-error")).to_be_hidden()


def test_on_a_phone_the_hands_count_comes_right_under_the_camera(camera_browser, live_tabs):
    # It came under the play's form and the hand's cards, far below the camera (issue 45).
    tab = live_tabs.open(camera_browser, create_app({"TESTING": True}, reader=CountingReader(HAND)),
                         viewport=PHONE)
    page = tab.page
    expect(page.locator("#total")).to_have_text("29")
    camera, count = page.locator("#camera-panel").bounding_box(), page.locator("#count-panel").bounding_box()
    assert 0 < count["y"] - (camera["y"] + camera["height"]) < 20
    assert page.locator("#play-panel").bounding_box()["y"] > count["y"]
    tab.shot("live-count-under-camera-phone")


def test_the_page_says_which_taught_deck_it_reads_with(camera_browser, live_tabs):
    tab = live_tabs.open(camera_browser, create_app({"TESTING": True}, reader=CountingReader([])))
    page = tab.page
    expect(page.locator("#deck-note")).to_be_hidden()  # cribcam's own reader: nothing to say
    page.route("**/api/decks", lambda route: route.fulfill(json={
        "decks": [{"name": "kitchen", "cards": 52, "taught": None, "lettering": ""}], "chosen": "kitchen"}))
    page.reload()
    expect(page.locator("#deck-note")).to_have_text(
        "Reading with your taught deck kitchen (choose another on the photo page).")


def test_a_five_card_game_of_the_board_is_watched_with_hands_of_three(camera_browser, live_tabs, tmp_path):
    # The game named gave its players and dealer, and the page's own variant went with them: a
    # five-card game was watched as if each had four cards to play. Now the server reads all
    # three from the game, and puts the play into it once over.
    reader = CountingReader([])
    app = create_app({"TESTING": True, "GAME_DB": f"sqlite:///{tmp_path / 'games.sqlite3'}"}, reader=reader)
    client = app.test_client()
    game = client.post("/api/games", json={"players": ["Ann", "Bob"], "first_dealer": "Bob",
                                           "variant": "five-card"}).json
    client.post(f"/api/games/{game['id']}/entries", json={"type": "deal", "starter": "2H"})
    tab = live_tabs.open(camera_browser, app)
    page = tab.page
    page.fill("#play-game", game["id"])
    with page.expect_request(lambda r: r.url.endswith("/api/live/play") and r.method == "POST") as started:
        page.click("#play-form button[type=submit]")
    # The game is named, not its players nor its variant: the server takes them from the game.
    assert started.value.post_data_json == {"game": game["id"], "session": started.value.post_data_json["session"]}
    expect(page.locator("#play-turn")).to_have_text("Ann to play")
    assert page.input_value("#play-players") == "Ann Bob" and page.input_value("#play-dealer") == "Bob"
    laid = []
    for card in ["5H", "TD", "2S", "3C", "4D", "AC"]:  # three each, 25 in all: over with hands of three
        laid.append(card)
        reader.show(laid)
        expect(page.locator("#play-events li")).to_have_count(len(laid))
    expect(page.locator("#play-turn")).to_have_text("The play is over.")
    expect(page.locator("#play-game-note")).to_contain_text("Pegged in the game: Ann ")
    assert client.get(f"/api/games/{game['id']}").json["next"]["step"] == "show"


def start_the_play(page) -> str:
    """Starts watching Ann and Bob's play (Bob deals) from the form; its live session's id."""
    page.fill("#play-players", "Ann Bob")
    page.fill("#play-dealer", "Bob")
    with page.expect_response(lambda r: r.url.endswith("/api/live/play") and r.request.method == "POST") as answer:
        page.click("#play-form button[type=submit]")
    expect(page.locator("#play-turn")).to_have_text("Ann to play")
    return answer.value.json()["session"]


def test_a_go_the_server_refuses_is_said_on_the_board(camera_browser, live_tabs):
    # A go that failed (the session lost) showed nothing: the Go button seemed to do nothing.
    app = create_app({"TESTING": True}, reader=CountingReader([]))
    tab = live_tabs.open(camera_browser, app)
    page = tab.page
    session = start_the_play(page)
    assert app.test_client().delete(f"/api/live/play?session={session}").status_code == 200  # behind the page's back
    page.click("#go-button")
    expect(page.locator("#play-said")).to_have_text(
        "This live session watches no play: start it first (POST /api/live/play)")
    expect(page.locator("#play-said")).to_have_class(re.compile(r"\berror\b"))


def test_the_g_key_says_go_once_and_not_with_ctrl_nor_held_nor_while_typing(camera_browser, live_tabs):
    tab = live_tabs.open(camera_browser, create_app({"TESTING": True}, reader=CountingReader([])))
    page = tab.page
    start_the_play(page)
    goes = []
    page.on("request", lambda r: goes.append(r) if r.url.endswith("/api/live/play/go") else None)
    page.keyboard.press("Control+g")  # the browser's find-next
    page.keyboard.press("Alt+g")
    page.locator("#play-dealer").evaluate(  # typed in a field (the form's, hidden now)
        "field => field.dispatchEvent(new KeyboardEvent('keydown', { key: 'g', bubbles: true }))")
    requests_seen(page)
    assert goes == []
    page.keyboard.down("g")  # held down: one go, not one for each repeat
    expect(page.locator("#play-said")).to_have_text("Ann cannot say go on 0: any card fits under 31, so Ann plays one")
    page.keyboard.down("g")  # Playwright sends these with repeat set
    page.evaluate("document.body.dispatchEvent(new KeyboardEvent('keydown', { key: 'g', repeat: true, bubbles: true }))")
    page.keyboard.up("g")
    requests_seen(page)
    assert len(goes) == 1
