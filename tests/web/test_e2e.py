"""End to end in a real browser: Debian's Chromium, headless, driven by Playwright.

The app runs under waitress on a free loopback port; the page is used as a player uses it:
type or photograph a hand, read the count off the page, fix a card, claim a total and see
the muggins verdict. Screenshots go to test-artifacts/web/ (look at them).

Chromium comes from Debian (`apt-get install chromium`, see .ci/install-system-packages);
Playwright drives it as it is and downloads no browser of its own.
"""

from __future__ import annotations

import re

import cv2
import numpy as np
import pytest

from cribcam.scoring import score_hand
from cribcam.vision.reading import (
    CARDS_MISSING,
    CHECK_CARDS,
    GUESSED,
    MORE_IN_VIEW,
    READ_BY_FACE,
    STARTER_UNKNOWN,
    Problem,
)
from cribcam.web import create_app
from image_tools import png_bomb, with_exif_orientation
from waiting import in_page, wait_until
from webtools import ARTIFACTS, DATA, LABELS, StubReader, encode

sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright (the test extra)")

from browsing import PHONE, SHOTS, expect  # noqa: E402 (after the check for Playwright)

STARTER_NOT_TOLD = Problem(STARTER_UNKNOWN,
                           "could not tell which card is the starter: set it a little apart, or name it")

# --- helpers: what a player does ---------------------------------------------------------


def type_cards(page, text: str) -> None:
    page.fill("#typed-cards", text)
    page.click("#type-form button[type=submit]")


def total(page) -> sync_api.Locator:
    return page.locator("#total")


def hand_chips(page) -> list[str]:
    return page.locator("#hand-chips .chip[data-card]").evaluate_all(
        "chips => chips.map(c => c.dataset.card)")


def starter_chip(page) -> str | None:
    chip = page.locator("#starter-chips .chip[data-card]")
    return chip.get_attribute("data-card") if chip.count() else None


def pick(page, code: str, starter: bool | None = None) -> None:
    """In the open picker, choose ``code`` (and tick or untick "starter"), then OK."""
    page.click(f'#picker-ranks button[data-rank="{code[0]}"]')
    page.click(f'#picker-suits button[data-suit="{code[1]}"]')
    if starter is not None:
        page.locator("#picker-starter").set_checked(starter)
    page.click("#picker-ok")
    expect(page.locator("#picker")).not_to_be_visible()


def change_card(page, old: str, new: str, starter: bool | None = None) -> None:
    page.click(f'.chip[data-card="{old}"]')
    expect(page.locator("#picker")).to_be_visible()
    pick(page, new, starter)


def settle(page, hand: list[str], starter: str) -> None:
    """Fixes the chips until they hold ``hand`` and ``starter``, as a player fixes misreads."""
    truth = set(hand) | {starter}
    shown = hand_chips(page) + ([starter_chip(page)] if starter_chip(page) else [])
    wrong = [c for c in shown if c not in truth]
    missing = [c for c in sorted(truth) if c not in shown]
    while wrong and missing:
        change_card(page, wrong.pop(), missing.pop())
    for code in missing:
        page.click("#hand-chips .chip.empty")
        pick(page, code, starter=False)
    for code in wrong:
        page.click(f'.chip[data-card="{code}"]')
        page.click("#picker-remove")
    if starter_chip(page) != starter:
        change_card(page, starter, starter, starter=True)
    assert sorted(hand_chips(page)) == sorted(hand) and starter_chip(page) == starter


def claim(page, points: int) -> None:
    page.fill("#claim", str(points))
    page.click("#claim-form button[type=submit]")


def wait_for_request(page, held: list) -> None:
    """Waits up to 10 s until a request that a test's route holds back is in ``held``."""
    wait_until(lambda: held, timeout=10, pause=in_page(page), message="the page sent no request to hold")


def expected_total(hand, starter, **kwargs) -> str:
    return str(score_hand(hand, starter, **kwargs).total)


# --- typing, fixing, claiming ------------------------------------------------------------


def test_typed_hand_is_counted_itemized_and_spoken(open_page):
    tab = open_page()
    page = tab.page
    expect(page.locator("#model-note")).to_contain_text("no card-reading model is installed")
    type_cards(page, "5h 5c 5s jd 5d")
    expect(total(page)).to_have_text("29")
    assert hand_chips(page) == ["5H", "5C", "5S", "JD"] and starter_chip(page) == "5D"
    expect(page.locator("#items tr")).to_have_count(15)
    expect(page.locator("#spoken")).to_contain_text("a double pair royal is 28 and his nobs is 29")
    page.click("#speak-button")
    spoken = score_hand(["5H", "5C", "5S", "JD"], "5D").spoken
    assert page.evaluate("window.__spoken") == [spoken]
    tab.shot("01-typed-hand-desktop")


def test_fixing_a_card_and_the_starter_updates_the_count(open_page):
    tab = open_page()
    page = tab.page
    type_cards(page, "5H 5C 5S JD 5D")
    expect(total(page)).to_have_text("29")
    page.click('.chip[data-card="JD"]')
    expect(page.locator("#picker")).to_be_visible()
    page.click('#picker-ranks button[data-rank="Q"]')
    expect(page.locator("#picker-preview")).to_have_text("Q♦")
    tab.shot("02-picker-desktop")
    page.click("#picker-ok")
    expect(total(page)).to_have_text(expected_total(["5H", "5C", "5S", "QD"], "5D"))  # 28: no nobs
    assert hand_chips(page) == ["5H", "5C", "5S", "QD"]

    change_card(page, "5C", "4C")
    expect(total(page)).to_have_text(expected_total(["5H", "4C", "5S", "QD"], "5D"))
    # The starter is the 4C, not the 5D: the cards swap places.
    change_card(page, "4C", "4C", starter=True)
    assert starter_chip(page) == "4C" and sorted(hand_chips(page)) == ["5D", "5H", "5S", "QD"]
    expect(total(page)).to_have_text(expected_total(["5H", "5D", "5S", "QD"], "4C"))

    # A card already in play is refused in the picker.
    page.click('.chip[data-card="QD"]')
    page.click('#picker-ranks button[data-rank="5"]')
    page.click('#picker-suits button[data-suit="H"]')
    page.click("#picker-ok")
    expect(page.locator("#picker-error")).to_contain_text("5♥ is already in play")
    page.click("#picker-cancel")
    assert sorted(hand_chips(page)) == ["5D", "5H", "5S", "QD"]


def test_muggins_checker_says_correct_muggins_or_overclaimed(open_page):
    tab = open_page()
    page = tab.page
    type_cards(page, "5H 5C 5S JD 5D")
    expect(total(page)).to_have_text("29")
    verdict = page.locator("#verdict")

    claim(page, 24)
    expect(verdict).to_have_attribute("data-verdict", "muggins")
    expect(verdict).to_contain_text("Muggins! 5 points overlooked")
    expect(verdict).to_contain_text("the opponent may peg 5")
    expect(page.locator("#verdict .overlooked li")).to_have_count(3)
    expect(page.locator("#verdict .overlooked li").first).to_contain_text("his nobs")
    tab.shot("03-muggins-desktop")

    claim(page, 31)
    expect(verdict).to_have_attribute("data-verdict", "overclaim")
    expect(verdict).to_contain_text("Over-claimed by 2")
    claim(page, 29)
    expect(verdict).to_have_attribute("data-verdict", "correct")
    expect(verdict).to_contain_text("Correct: the hand is 29.")

    # Fixing a card re-judges the same claim at once: 29 is now over-claimed by 1.
    change_card(page, "JD", "QD")
    expect(total(page)).to_have_text("28")
    expect(verdict).to_have_attribute("data-verdict", "overclaim")
    expect(verdict).to_contain_text("Over-claimed by 1")
    tab.shot("04-overclaim-desktop")


def test_an_impossible_claim_counting_it_yourself_is_judged_not_refused(open_page):
    # The claim box once allowed 29 at most: in practice mode, where only Check judges, the
    # browser refused 30 with its own bubble and the page said nothing.
    page = open_page().page
    page.check("#practice")
    type_cards(page, "5H 5C 5S JD 5D")
    expect(page.locator("#practice-note")).to_be_visible()  # the hand counted: a claim typed before is cleared
    claim(page, 30)
    expect(page.locator("#verdict")).to_have_attribute("data-verdict", "overclaim")
    expect(page.locator("#verdict")).to_contain_text("Over-claimed by 1")
    claim(page, 1001)  # beyond what the server takes: the page's own message, from the same bound
    expect(page.locator("#count-error")).to_have_text(
        "“1001” is not a claim: enter the points claimed, a whole number from 0 to 1000, like 12.")


def test_a_claim_typed_while_the_hand_is_checked_stays_for_that_hand(open_page):
    # Counting it yourself, a new hand clears the claim box: the player counts it afresh. A
    # claim typed while that hand was still on its way to the server is for it, and stays.
    page = open_page().page
    page.check("#practice")
    held = []

    def hold_the_first(route):  # the typed hand's check waits until the claim is typed
        if held:
            route.continue_()
        else:
            held.append(route)

    page.route("**/api/count", hold_the_first)
    type_cards(page, "5H 5C 5S JD 5D")
    wait_for_request(page, held)
    page.fill("#claim", "29")
    held[0].continue_()
    expect(page.locator("#practice-note")).to_be_visible()  # the hand counted, the count hidden
    expect(page.locator("#claim")).to_have_value("29")
    page.click("#claim-form button[type=submit]")
    expect(page.locator("#verdict")).to_have_attribute("data-verdict", "correct")
    type_cards(page, "9S 6D 5H 4C 4D")  # the next hand: the claim typed before it goes
    expect(page.locator("#claim")).to_have_value("")
    expect(page.locator("#practice-note")).to_be_visible()


def test_count_it_yourself_first_hides_the_count_until_a_claim(open_page):
    tab = open_page()
    page = tab.page
    page.check("#practice")
    type_cards(page, "9S 6D 5H 4C 4D")
    expect(page.locator("#practice-note")).to_be_visible()
    expect(page.locator("#count")).to_be_hidden()
    tab.shot("05-practice-hidden-desktop")
    claim(page, 12)
    expect(page.locator("#count")).to_be_visible()
    expect(total(page)).to_have_text("14")
    expect(page.locator("#verdict")).to_contain_text("2 points overlooked")
    tab.shot("06-practice-revealed-desktop")
    # A new hand is counted afresh: the count hides again.
    change_card(page, "9S", "TS")
    expect(page.locator("#count")).to_be_hidden()
    expect(page.locator("#claim")).to_have_value("")


def test_crib_and_five_card_switches_recount_at_once(open_page):
    tab = open_page()
    page = tab.page
    type_cards(page, "2H 4H 8H QH KS")
    hand = ["2H", "4H", "8H", "QH"]
    expect(total(page)).to_have_text(expected_total(hand, "KS"))
    page.click("label:has(input[name=what][value=crib])")
    expect(page.locator("#total-label")).to_have_text("Crib total")
    expect(total(page)).to_have_text(expected_total(hand, "KS", crib=True))
    page.click("label:has(input[name=what][value=hand])")
    page.click("label:has(input[name=variant][value=five-card])")
    expect(page.locator("#count-error")).to_contain_text(
        "A five-card cribbage hand needs 3 cards and a starter; 5 cards given (the starter and 4 others)")
    expect(page.locator("#count")).to_be_hidden()
    tab.shot("07-five-card-error-desktop")
    page.click('.chip[data-card="QH"]')
    page.click("#picker-remove")
    expect(total(page)).to_have_text(expected_total(hand[:3], "KS", variant="five-card"))
    expect(page.locator("#count-error")).to_be_hidden()


def test_typing_mistakes_are_explained(open_page):
    tab = open_page()
    page = tab.page
    type_cards(page, "5H 5C 5X JD 5D")
    expect(page.locator("#type-error")).to_contain_text("'5X' is not a card")
    type_cards(page, "5H 5C 5H JD 5D")
    expect(page.locator("#type-error")).to_contain_text("5H appears twice")


def test_a_mistyped_hand_clears_the_hand_before_it(open_page):
    tab = open_page()
    page = tab.page
    type_cards(page, "5H 5C 5S JD 5D")
    expect(total(page)).to_have_text("29")
    claim(page, 28)
    expect(page.locator("#verdict")).to_be_visible()
    type_cards(page, "9S 6D 5X 4C 4D")
    expect(page.locator("#type-error")).to_contain_text("'5X' is not a card")
    # Nothing of the 29 is left to be taken for the count of what was typed.
    expect(page.locator("#count")).to_be_hidden()
    expect(page.locator("#verdict")).to_be_hidden()
    expect(page.locator("#count-empty")).to_be_visible()
    assert hand_chips(page) == [] and starter_chip(page) is None
    expect(page.locator("#claim")).to_have_value("")
    expect(page.locator("#typed-cards")).to_have_value("9S 6D 5X 4C 4D")  # to be fixed
    tab.shot("07b-typing-mistake-desktop")
    type_cards(page, "9S 6D 5H 4C 4D")
    expect(total(page)).to_have_text("14")
    expect(page.locator("#type-error")).to_be_hidden()


def test_cards_entered_one_by_one_with_the_picker(open_page):
    tab = open_page()
    page = tab.page
    for code in ["7C", "8C", "8D", "9H"]:
        page.click("#hand-chips .chip.empty")
        pick(page, code)
    expect(page.locator("#count-error")).to_contain_text("Which card is the starter?")
    page.click("#starter-chips .chip.empty")
    pick(page, "8S")
    expect(total(page)).to_have_text(expected_total(["7C", "8C", "8D", "9H"], "8S"))


# --- photos ------------------------------------------------------------------------------


def test_without_a_model_the_photo_buttons_are_off(open_page):
    tab = open_page()
    page = tab.page
    expect(page.locator("#model-note")).to_contain_text("no card-reading model is installed")
    for name in ("camera-input", "file-input"):
        expect(page.locator(f"#{name}")).to_be_disabled()
        expect(page.locator(f"label[for={name}]")).to_have_attribute("aria-disabled", "true")
    expect(page.locator("#photo-hint")).to_be_hidden()
    expect(page.locator("#count-empty")).to_have_text("Type the cards to see the count.")
    tab.shot("08-no-model-desktop")
    type_cards(page, "AS QH KC AC QS")
    expect(total(page)).to_have_text(expected_total(["AS", "QH", "KC", "AC"], "QS"))


def test_with_a_model_the_photo_buttons_are_on(open_page):
    page = open_page(create_app({"TESTING": True}, reader=StubReader())).page
    expect(page.locator("#file-input")).to_be_enabled()
    expect(page.locator("label[for=file-input]")).not_to_have_attribute("aria-disabled", "true")
    expect(page.locator("#photo-hint")).to_be_visible()
    expect(page.locator("#model-note")).to_be_hidden()


def test_photo_the_server_cannot_read_shows_the_503_message(open_page):
    # The page was told of a model (say the server lost it since): the 503 is still said.
    tab = open_page()
    page = tab.page
    page.route("**/api/status", lambda route: route.fulfill(
        json={"model": True, "variants": ["six-card", "five-card"], "max_upload_bytes": 12582912}))
    page.reload()
    expect(page.locator("body.ready")).to_have_count(1)
    page.set_input_files("#file-input", str(DATA / "webcam-5-cards.jpg"))
    expect(page.locator("#photo-status")).to_contain_text(
        "Photos cannot be read: no card-reading model is installed on this server")
    expect(page.locator("#photo-status")).to_have_class("status error")
    tab.shot("08b-photo-503-desktop")


def test_a_claim_checked_before_any_card_says_it_waits_for_the_cards(open_page):
    page = open_page().page
    claim(page, 12)  # pressing Check did nothing at all
    expect(page.locator("#count-error")).to_have_text(
        "The claim of 12 is checked once there are cards: type them, or read a photo.")
    type_cards(page, "5H 5C 5S JD 5D")
    expect(page.locator("#count-error")).to_be_hidden()
    expect(page.locator("#verdict")).to_have_attribute("data-verdict", "muggins")


@pytest.mark.parametrize("forget", ["New hand", "Count"])
def test_a_hand_forgotten_while_its_photo_is_read_stops_the_spinner(open_page, forget):
    # "New hand", or a typed hand counted, before the reading's answer: the spinner stayed.
    page = open_page(create_app({"TESTING": True}, reader=StubReader())).page
    held = []
    page.route("**/api/read", lambda route: held.append(route))
    page.set_input_files("#file-input", str(DATA / "webcam-5-cards.jpg"))
    wait_for_request(page, held)
    expect(page.locator("body.reading")).to_have_count(1)
    if forget == "New hand":
        page.click("#clear-button")
    else:
        type_cards(page, "5H 5C 5S JD 5D")
        expect(total(page)).to_have_text("29")
    expect(page.locator("body.reading")).to_have_count(0)
    expect(page.locator("#photo-status")).to_have_text("")
    held[0].continue_()  # the stale answer comes, and changes nothing
    page.wait_for_load_state("networkidle")
    expect(page.locator("body.reading")).to_have_count(0)
    expect(page.locator("#photo-figure")).to_be_hidden()


def test_a_file_that_is_not_a_photo_is_explained(open_page):
    page = open_page(create_app({"TESTING": True}, reader=StubReader())).page
    page.set_input_files("#file-input", files=[{"name": "hand.jpg", "mimeType": "image/jpeg",
                                                "buffer": b"this is a text file named hand.jpg"}])
    expect(page.locator("#photo-status")).to_contain_text("The file is not an image")


def test_photo_read_then_fixed_then_claimed(open_page):
    # A reading with one card misread (QC for the QS) and no starter found.
    reader = StubReader(cards=["AS", "QH", "KC", "AC", "QC"],
                        problems=[STARTER_NOT_TOLD])
    tab = open_page(create_app({"TESTING": True}, reader=reader))
    page = tab.page
    page.set_input_files("#camera-input", str(DATA / "webcam-5-cards.jpg"))
    expect(page.locator("#photo-status")).to_contain_text("5 cards read")
    expect(page.locator("#photo")).to_have_attribute("src", re.compile(r"^data:image/jpeg;base64,"))
    assert page.evaluate("document.getElementById('photo').naturalWidth") == 640
    expect(page.locator("#problems")).to_contain_text("Could not tell which card is the starter")
    expect(page.locator("#starter-choice-buttons button")).to_have_count(5)
    tab.shot("09-photo-read-desktop")
    page.click('#starter-choice-buttons button[data-starter="QC"]')
    assert starter_chip(page) == "QC"
    expect(total(page)).to_have_text(expected_total(["AS", "QH", "KC", "AC"], "QC"))
    change_card(page, "QC", "QS", starter=True)  # the misread
    hand = ["AS", "QH", "KC", "AC"]
    expect(total(page)).to_have_text(expected_total(hand, "QS"))
    claim(page, 2)
    true_total = score_hand(hand, "QS").total
    expect(page.locator("#verdict")).to_have_attribute(
        "data-verdict", "correct" if true_total == 2 else "muggins" if true_total > 2 else "overclaim")
    tab.shot("10-photo-fixed-claimed-desktop")


def test_a_big_sideways_phone_photo_is_shrunk_and_turned_upright_before_upload(open_page):
    reader = StubReader(cards=["AS", "QH", "KC", "AC", "QS"], starter="QS")
    tab = open_page(create_app({"TESTING": True}, reader=reader))
    page = tab.page
    photo = cv2.resize(cv2.imread(str(DATA / "webcam-5-cards.jpg")), (4000, 3000))
    photo = cv2.add(photo, np.random.default_rng(1).integers(0, 24, photo.shape, np.uint8))
    stored = with_exif_orientation(encode(photo, ".jpg", [cv2.IMWRITE_JPEG_QUALITY, 85]), 6)
    assert 1.5e6 < len(stored) < 12e6
    page.set_input_files("#file-input", files=[{"name": "IMG_1234.JPG", "mimeType": "image/jpeg",
                                                "buffer": stored}])
    expect(total(page)).to_have_text(expected_total(["AS", "QH", "KC", "AC"], "QS"))
    shape, expected = reader.calls[-1]
    assert shape == (1920, 1440, 3) and expected == 5  # portrait: EXIF 6 applied, 1920 at most


def test_on_a_phone_the_verdict_on_a_claim_shows_beside_the_photos_total(open_page):
    # The verdict was only in the count's panel, far below the total over the photo (issue 45).
    reader = StubReader(cards=["AS", "QH", "KC", "AC", "QS"], starter="QS")
    tab = open_page(create_app({"TESTING": True}, reader=reader), viewport=PHONE)
    page = tab.page
    page.set_input_files("#file-input", str(DATA / "webcam-5-cards.jpg"))
    true_total = int(expected_total(["AS", "QH", "KC", "AC"], "QS"))
    expect(page.locator("#photo-count-total")).to_have_text(str(true_total))
    expect(page.locator("#photo-count-verdict")).to_be_hidden()  # no claim, no verdict
    claim(page, true_total - 2)
    verdict = page.locator("#photo-count-verdict")
    expect(verdict).to_have_text("Muggins! 2 points overlooked")
    total_box, verdict_box = page.locator("#photo-count-total").bounding_box(), verdict.bounding_box()
    assert abs(verdict_box["y"] - total_box["y"]) < 60
    tab.shot("photo-verdict-beside-total-phone")
    claim(page, true_total)
    expect(verdict).to_have_text("Correct")


def test_a_photo_with_cards_beyond_the_hand_is_not_counted_until_the_cards_are_put_right(open_page):
    # The total of five of thirteen cards, which five a guess, was shown (issue 45).
    reader = StubReader(cards=["5H", "5C", "5S", "JD", "5D"],
                        problems=[Problem(MORE_IN_VIEW, "more cards in view than the 5 expected: 8 read surely were "
                                                        "left out; photograph only the cards to count, or fix the "
                                                        "misread ones")])
    page = open_page(create_app({"TESTING": True}, reader=reader)).page
    page.set_input_files("#file-input", str(DATA / "webcam-5-cards.jpg"))
    not_counted = "Not counted: the photo shows more cards than the hand"
    expect(page.locator("#count-error")).to_contain_text(not_counted)
    expect(page.locator("#count")).to_be_hidden()
    expect(page.locator("#problems")).to_contain_text("More cards in view than the 5 expected")
    change_card(page, "5D", "5D", starter=True)  # a starter chosen among the same five: still a guess
    expect(page.locator("#count-error")).to_contain_text(not_counted)
    change_card(page, "JD", "JH")  # the player puts the cards right: now they are the hand
    expect(total(page)).to_have_text(expected_total(["5H", "5C", "5S", "JH"], "5D"))


def test_a_photo_of_the_hand_only_waits_for_its_starter(open_page):
    # Read as five cards, a photo of four got a phantom fifth offered as the starter (issue 45).
    reader = StubReader(cards=["5H", "5C", "5S", "JD"])
    tab = open_page(create_app({"TESTING": True}, reader=reader), viewport=PHONE)
    page = tab.page
    page.check("#hand-only")
    page.set_input_files("#file-input", str(DATA / "webcam-5-cards.jpg"))
    expect(page.locator("#photo-status")).to_contain_text("4 cards read")
    assert reader.calls[-1][1] == 4
    expect(page.locator("#count-error")).to_contain_text("Which card is the starter?")
    expect(page.locator("#starter-choices")).to_be_hidden()  # none of the four is offered as it
    tab.shot("photo-hand-only-phone")
    page.click("#starter-chips .chip")  # the "?": the starter named after
    pick(page, "5D")
    assert sorted(hand_chips(page)) == ["5C", "5H", "5S", "JD"] and starter_chip(page) == "5D"
    expect(total(page)).to_have_text("29")


def test_a_small_file_of_a_huge_image_is_scaled_down_before_upload(open_page):
    # 60 megapixels in 0.1 MB: sent as it was, the server refused it (over 50 MP; issue 45).
    reader = StubReader(cards=["AS", "QH", "KC", "AC", "QS"], starter="QS")
    page = open_page(create_app({"TESTING": True}, reader=reader)).page
    huge = png_bomb(7800)
    assert len(huge) < 1.5e6
    page.set_input_files("#file-input", files=[{"name": "scan.png", "mimeType": "image/png", "buffer": huge}])
    expect(total(page)).to_have_text(expected_total(["AS", "QH", "KC", "AC"], "QS"), timeout=30_000)
    shape, _ = reader.calls[-1]
    assert shape[:2] == (1920, 1920)


def test_photo_read_by_the_real_model(open_page, model_reader):
    labels = LABELS["webcam-5-cards.jpg"]["cards"]
    tab = open_page(create_app({"TESTING": True}, reader=model_reader))
    page = tab.page
    page.set_input_files("#file-input", str(DATA / "webcam-5-cards.jpg"))
    expect(page.locator("#photo-status")).not_to_contain_text("Reading the cards", timeout=60_000)
    expect(page.locator("#photo-status")).not_to_have_class("status error")
    expect(page.locator("#photo-figure")).to_be_visible()
    tab.shot("11-photo-real-model-desktop")
    hand, starter = [c for c in labels if c != "QS"], "QS"
    settle(page, hand, starter)
    expect(total(page)).to_have_text(expected_total(hand, starter))
    claim(page, 0)
    expect(page.locator("#verdict")).to_be_visible()
    tab.shot("12-photo-real-model-fixed-desktop")


# --- phone -------------------------------------------------------------------------------


def test_phone_width_layout(open_page):
    tab = open_page(viewport=PHONE)
    page = tab.page
    type_cards(page, "5H 5C 5S JD 5D")
    expect(total(page)).to_have_text("29")
    claim(page, 28)
    expect(page.locator("#verdict")).to_contain_text("Muggins! 1 point overlooked")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    for selector in ("#camera-input + label, label[for=camera-input]", "#hand-chips", "#claim"):
        box = page.locator(selector).first.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    tab.shot("13-phone")
    page.click('.chip[data-card="JD"]')
    dialog = page.locator("#picker").bounding_box()
    assert dialog["x"] >= 0 and dialog["x"] + dialog["width"] <= PHONE["width"]
    assert dialog["y"] >= 0 and dialog["y"] + dialog["height"] <= PHONE["height"]
    page.screenshot(path=str(SHOTS / "14-phone-picker.png"))
    page.click("#picker-cancel")


# --- an address that fails ---------------------------------------------------------------


def test_an_unknown_address_has_the_apps_page_with_the_way_home(open_page):
    tab = open_page()
    page = tab.page
    page.goto(tab.url + "/nonexistent")
    expect(page.locator("h2")).to_have_text("No such page")
    expect(page.locator("#error-message")).to_have_text("There is no page at /nonexistent on this server.")
    tab.shot("15-not-found-desktop")
    page.click("#home-link")
    expect(page.locator("body.ready")).to_have_count(1)
    assert page.url == tab.url + "/"


def test_a_deck_chosen_then_removed_goes_back_to_the_bundled_model(open_page, tmp_path, monkeypatch):
    from cribcam.settings import DATA_ENV

    monkeypatch.setenv(DATA_ENV, str(tmp_path / "no-decks"))  # no deck is taught any more
    tab = open_page()
    tab.context.add_cookies([{"name": "cribcam-deck", "value": "gone", "url": tab.url}])
    tab.page.reload()
    expect(tab.page.locator("body.ready")).to_have_count(1)
    expect(tab.page.locator("#deck-choice-box")).to_be_hidden()
    # Otherwise every photo would be read with a deck that is not there: 404 until chosen again.
    # The page resets it once /api/decks has answered.
    tab.page.wait_for_function("document.cookie === 'cribcam-deck='", timeout=10_000)
    tab.close()


def test_a_card_read_by_its_face_is_said_until_the_player_settles_it(open_page):
    reader = StubReader(cards=["8D"], unsure=["8D"], problems=[
        Problem(READ_BY_FACE, "the 8D was read from its pips alone, its corners could not be read: check it, "
                              "or tap it to fix it")])
    page = open_page(create_app({"TESTING": True}, reader=reader)).page
    page.set_input_files("#camera-input", str(DATA / "webcam-5-cards.jpg"))
    expect(page.locator("#problems")).to_contain_text("The 8D was read from its pips alone")
    change_card(page, "8D", "9D")  # the player settles it
    expect(page.locator("#problems")).to_be_hidden()


def test_counting_for_yourself_first_the_starter_buttons_keep_their_totals_until_the_claim(open_page):
    reader = StubReader(cards=["AS", "QH", "KC", "AC", "QC"],
                        problems=[STARTER_NOT_TOLD])
    page = open_page(create_app({"TESTING": True}, reader=reader)).page
    page.check("#practice")
    page.set_input_files("#camera-input", str(DATA / "webcam-5-cards.jpg"))
    buttons = page.locator("#starter-choice-buttons button")
    expect(buttons).to_have_count(5)
    expect(buttons.first).not_to_contain_text("point")
    assert "point" not in page.locator("#starter-choices").inner_text()
    assert all(":" not in (b.get_attribute("aria-label") or "") for b in buttons.all())
    page.uncheck("#practice")  # counting aloud with the app: the totals help choose
    expect(buttons.first).to_contain_text("point")


def test_messages_go_with_their_cause_the_starter_chosen_a_card_fixed_a_claim_refused(open_page):
    reader = StubReader(cards=["AS", "QH", "KC", "AC", "JS"], unsure=["JS"],
                        problems=[STARTER_NOT_TOLD,
                                  Problem(CHECK_CARDS, "check the JS: the reader is not sure of it; tap it to fix it")])
    page = open_page(create_app({"TESTING": True}, reader=reader)).page
    page.set_input_files("#camera-input", str(DATA / "webcam-5-cards.jpg"))
    expect(page.locator("#photo-status")).to_have_text("5 cards read, 1 to check. Tap a card of the hand to fix it.")
    expect(page.locator("#problems")).to_contain_text("Could not tell which card is the starter")
    expect(page.locator("#problems")).not_to_contain_text("Check the JS")  # the note on unsure cards says it
    expect(page.locator("#unsure-note")).to_contain_text("not sure of the jack of spades")

    page.click('#starter-choice-buttons button[data-starter="AC"]')
    expect(page.locator("#problems")).to_be_hidden()
    change_card(page, "JS", "JH")  # the unsure card fixed
    expect(page.locator("#photo-status")).to_have_text(
        "5 cards read; the hand's cards are as you changed them, the labels on the photo as read. "
        "Tap a card of the hand to fix it.")
    expect(page.locator("#unsure-note")).to_be_hidden()

    claim(page, 3)
    expect(page.locator("#verdict")).to_be_visible()
    page.fill("#claim", "-3")
    page.click("#claim-form button[type=submit]")
    expect(page.locator("#count-error")).to_contain_text("“-3” is not a claim")
    expect(page.locator("#verdict")).to_be_hidden()  # the verdict on 3 went with the claim


def test_a_claim_out_of_range_or_no_number_says_so_and_what_a_claim_is(open_page):
    # -3 and 5000 are whole numbers: the page once asked for "a whole number, like 12" all the
    # same; "abc" (a number box took no letters) once said nothing and took the verdict away.
    page = open_page().page
    type_cards(page, "5H 5C 5S JD 5D")
    for typed in ("-3", "5000", "abc", "12.5"):
        claim(page, 29)
        expect(page.locator("#verdict")).to_have_attribute("data-verdict", "correct")
        page.fill("#claim", "")
        page.locator("#claim").press_sequentially(typed)
        page.click("#claim-form button[type=submit]")
        expect(page.locator("#count-error")).to_have_text(
            f"“{typed}” is not a claim: enter the points claimed, a whole number from 0 to 1000, like 12.")
        expect(page.locator("#verdict")).to_be_hidden()  # the verdict on 29 went with the claim
        expect(total(page)).to_have_text("29")  # the count stays
    claim(page, 28)  # a claim that can be judged: the mistake said before goes
    expect(page.locator("#verdict")).to_have_attribute("data-verdict", "muggins")
    expect(page.locator("#count-error")).to_be_hidden()


def test_the_photo_status_says_what_was_read_and_that_the_cards_were_changed_since(open_page):
    # The reader read four cards; the player adds a fifth, makes it the starter and fixes a
    # card: the line once said "5 cards read".
    reader = StubReader(cards=["2C", "7H", "QS", "QH"], starter="QH")
    page = open_page(create_app({"TESTING": True}, reader=reader)).page
    page.set_input_files("#camera-input", str(DATA / "webcam-5-cards.jpg"))
    status = page.locator("#photo-status")
    expect(status).to_have_text("4 cards read. Tap a card of the hand to fix it.")
    page.click("#hand-chips .chip.empty")
    pick(page, "5S", starter=True)  # the QH goes back to the hand
    expect(status).to_have_text("4 cards read; the hand's cards are as you changed them (5 cards now), "
                                "the labels on the photo as read. Tap a card of the hand to fix it.")
    change_card(page, "2C", "3C")
    expect(total(page)).to_have_text(expected_total(["7H", "3C", "QS", "QH"], "5S"))
    expect(status).to_contain_text("4 cards read; the hand's cards are as you changed them (5 cards now)")
    page.click('.chip[data-card="5S"]')
    page.click("#picker-remove")
    change_card(page, "3C", "2C")  # back to what was read: nothing to say of changes
    expect(status).to_have_text("4 cards read. Tap a card of the hand to fix it.")


# --- cards the reader could only guess (issue 31, point 2) --------------------------------------

GUESSED_READER = dict(cards=["AS", "QH", "KC", "AC"], starter="AC", guesses=["JS"],
                      problems=[Problem(CARDS_MISSING, "4 cards read but 5 expected: 1 is missing or hidden; make "
                                                       "sure a corner of every card shows"),
                                Problem(GUESSED, "a card could only be guessed: the JS? Name it to count it")])


def test_a_guess_is_a_question_not_counted_until_the_player_names_it(open_page):
    page = open_page(create_app({"TESTING": True}, reader=StubReader(**GUESSED_READER)), viewport=PHONE).page
    page.set_input_files("#camera-input", str(DATA / "webcam-5-cards.jpg"))
    expect(page.locator("#count-error")).to_contain_text("needs 4 cards and a starter")  # no count without it
    expect(page.locator("#count")).to_be_hidden()
    expect(page.locator("#photo-status")).to_have_text(
        "4 cards read, 1 more guessed, not counted. Tap a card of the hand to fix it, or a guess to name it.")
    guess = page.locator('.chip.guess[data-guess="JS"]')
    expect(guess).to_have_attribute("aria-label", re.compile(r"could only guess: the jack of spades\? Not counted"))
    assert hand_chips(page) == ["AS", "QH", "KC"] and starter_chip(page) == "AC"
    expect(page.locator("#problems")).to_contain_text("A card could only be guessed: the JS?")
    page.screenshot(path=str(ARTIFACTS / "guessed-card-phone.png"), full_page=True)

    guess.click()  # the player looks: it is the jack of spades
    expect(page.locator("#picker-title")).to_have_text("Is it the jack of spades? Name the card")
    page.click("#picker-ok")
    expect(total(page)).to_have_text(str(score_hand(["AS", "QH", "KC", "JS"], "AC").total))
    expect(page.locator(".chip.guess")).to_have_count(0)
    assert hand_chips(page) == ["AS", "QH", "KC", "JS"]
    expect(page.locator("#problems")).to_be_hidden()  # five cards on the chips: nothing is missing now
    expect(page.locator("#photo-status")).to_have_text(  # the reader read 4: the player named the fifth
        "4 cards read; the hand's cards are as you changed them (5 cards now), the labels on the photo as read. "
        "Tap a card of the hand to fix it.")


def test_a_guess_removed_is_gone_and_one_named_otherwise_counts_as_named(open_page):
    page = open_page(create_app({"TESTING": True}, reader=StubReader(**GUESSED_READER))).page
    page.set_input_files("#camera-input", str(DATA / "webcam-5-cards.jpg"))
    page.locator('.chip.guess[data-guess="JS"]').click()
    page.click("#picker-remove")  # no fifth card: the reader guessed from a pip
    expect(page.locator(".chip.guess")).to_have_count(0)
    expect(page.locator("#count-error")).to_contain_text("needs 4 cards and a starter")
    expect(page.locator("#problems")).not_to_contain_text("guessed")
    expect(page.locator("#problems")).to_contain_text("4 cards read but 5 expected")  # still true of the chips

    page.set_input_files("#camera-input", str(DATA / "webcam-5-cards.jpg"))
    page.locator('.chip.guess[data-guess="JS"]').click()
    pick(page, "5D", starter=True)  # it is the 5D, and the starter: the AC goes back to the hand
    assert hand_chips(page) == ["AS", "QH", "KC", "AC"] and starter_chip(page) == "5D"
    expect(total(page)).to_have_text(str(score_hand(["AS", "QH", "KC", "AC"], "5D").total))


def test_the_photo_says_what_its_not_read_boxes_mean_only_when_it_has_some(open_page):
    marked = StubReader(cards=["AS", "QH", "KC", "AC"], unreadable=[(500.0, 20.0, 540.0, 80.0)])
    page = open_page(create_app({"TESTING": True}, reader=marked)).page
    page.set_input_files("#camera-input", str(DATA / "webcam-5-cards.jpg"))
    expect(page.locator("#photo-caption")).to_be_visible()
    expect(page.locator("#photo-caption")).to_contain_text("marked “not read”")
    plain = open_page(create_app({"TESTING": True}, reader=StubReader())).page
    plain.set_input_files("#camera-input", str(DATA / "webcam-5-cards.jpg"))
    expect(plain.locator("#photo-status")).to_contain_text("5 cards read")
    expect(plain.locator("#photo-caption")).to_be_hidden()
