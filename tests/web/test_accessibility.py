"""Every page checked by axe-core for the WCAG 2.1 A and AA rules, on a desk and on a phone,
after the page's main action; and what a screen reader hears and where the keyboard's focus
goes after each action (issue 52).

axe-core comes from the npm registry at the version .ci/axe/package-lock.json pins, installed
by .ci/install-axe (which .ci/run runs); it is injected into the test's browser only, which
ignores the app's Content-Security-Policy for it. The app never serves it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from browsing import DESKTOP, PHONE, Page, expect, sync_api
from cribcam.scoring import score_hand
from cribcam.vision.reading import STARTER_UNKNOWN, Problem
from cribcam.web import create_app
from test_live_page import HAND, wait_for_frames
from webtools import DATA, CountingReader, StubReader

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
        tab.visit(path)
    return tab


@pytest.fixture
def open_tab(camera_browser, live_server_factory, tmp_path):
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
            tab.visit(path)
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
def test_the_teach_page_passes_axe_with_layout_photos_read(camera_browser, teaching_server,
                                                            layout_photos, viewport):
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


# --- every result heard: one live region, there from the start (point 1) ------------------


def announcer(page) -> sync_api.Locator:
    """The page's live region, checked to be there, and heard, before anything is shown."""
    region = page.locator("#announcer")
    expect(region).to_have_attribute("role", "status")
    expect(region).to_have_attribute("aria-live", "polite")
    assert region.evaluate("e => !e.closest('[hidden]') && getComputedStyle(e).display !== 'none'")
    return region


def test_a_photo_s_count_and_each_change_to_it_are_said(open_tab):
    tab = open_tab("/", DESKTOP, reader=StubReader(cards=HAND, starter="5D"))
    page = tab.page
    said = announcer(page)
    page.set_input_files("#file-input", str(DATA / "webcam-5-cards.jpg"))
    spoken = score_hand(HAND[:4], "5D").spoken
    expect(said).to_have_text(f"Hand total 29. {spoken[0].upper()}{spoken[1:]}.")
    page.click('label:has(input[name="what"][value="crib"])')
    expect(said).to_contain_text("Crib total 29.")
    page.fill("#claim", "20")
    page.click("#claim-form button[type=submit]")
    expect(said).to_contain_text("Muggins! 9 points overlooked. Crib total 29.")
    page.click('#hand-chips .chip[data-card="5H"]')
    page.click('#picker-ranks button[data-rank="K"]')
    page.click("#picker-ok")
    expect(said).to_contain_text("Crib total 21.")  # the K for the 5: 8 points less


def test_the_best_discard_is_said(open_tab):
    page = open_tab("/discard", DESKTOP).page
    said = announcer(page)
    page.fill("#typed-cards", "5h 5c 6d jd qs ks")
    page.click("#type-form button[type=submit]")
    expect(said).to_have_text(re.compile(r"^Best: lay away the \w+ of \w+ and the \w+ of \w+, \d+\.\d\d expected\.$"))


def test_a_game_s_score_and_its_muggins_are_said_after_each_entry(open_tab):
    page = open_tab("/game", DESKTOP).page
    said = announcer(page)
    page.fill("#players", "Ann Bob")
    page.check("#muggins")
    page.click("#new-form button[type=submit]")
    page.fill("#starter", "5S")
    page.click("#deal-form button[type=submit]")
    page.select_option("#peg-player", "Bob")
    page.fill("#peg-points", "2")
    page.click("#peg-button")
    expect(said).to_contain_text("Score: Ann 0, Bob 2.")
    page.fill("#show-cards", "5H 5C 5D JS")
    page.fill("#show-claim", "20")
    page.click("#show-form button[type=submit]")
    expect(said).to_contain_text("Muggins")
    expect(said).to_contain_text("Score: Ann 9, Bob 22.")


def test_a_locked_hand_s_count_is_said_once(open_tab):
    reader = CountingReader(HAND)
    page = open_tab("/live", DESKTOP, reader=reader, camera=True).page
    said = announcer(page)
    expect(said).to_contain_text("Hand total 29.")
    changes = page.evaluate("""() => { window.__changes = 0;
      new MutationObserver(() => window.__changes++).observe(announcer, {childList: true, characterData: true, subtree: true}); }""")
    assert changes is None
    wait_for_frames(page, reader, 5)
    assert page.evaluate("window.__changes") == 0  # the same count, frame after frame, is not said again


# --- the focus after each action (point 2) --------------------------------------------------


def expect_focus_on(page, selector: str) -> None:
    expect(page.locator(selector)).to_be_focused()
    assert page.evaluate("document.activeElement !== document.body")


def test_on_the_discard_page_the_focus_stays_with_the_ranks_and_the_cards(open_tab):
    page = open_tab("/discard", DESKTOP).page
    page.focus('#rank-buttons button[data-rank="9"]')
    page.keyboard.press("Enter")  # the nine of hearts added: its button is disabled
    expect_focus_on(page, '#rank-buttons button[data-rank="T"]')
    page.keyboard.press("Enter")
    page.focus('#rank-buttons button[data-rank="K"]')
    page.keyboard.press("Enter")
    expect_focus_on(page, '#rank-buttons button[data-rank="A"]')  # round to the first
    page.focus('#dealt-chips .chip[data-card="9H"]')
    page.keyboard.press("Enter")  # taken back: the next card is in its place
    expect_focus_on(page, '#dealt-chips .chip[data-card="TH"]')
    page.focus('#dealt-chips .chip[data-card="KH"]')
    page.keyboard.press("Enter")  # the last one: the one before takes its place
    expect_focus_on(page, '#dealt-chips .chip[data-card="TH"]')
    page.keyboard.press("Enter")  # none left: the ranks
    expect_focus_on(page, '#rank-buttons button[data-rank="A"]')


def test_the_picker_gives_the_focus_back_to_the_card_changed_or_in_the_place_of_one_removed(open_tab):
    page = open_tab("/", DESKTOP).page
    page.fill("#typed-cards", "5H 5C 5S JD 5D")
    page.click("#type-form button[type=submit]")
    expect(page.locator("#total")).to_have_text("29")
    page.focus('#hand-chips .chip[data-card="5C"]')
    page.keyboard.press("Enter")
    page.click('#picker-ranks button[data-rank="K"]')
    page.click("#picker-ok")
    expect_focus_on(page, '#hand-chips .chip[data-card="KC"]')
    page.keyboard.press("Enter")
    page.click("#picker-remove")
    expect_focus_on(page, '#hand-chips .chip[data-card="5S"]')  # the next card, in its place
    page.focus("#starter-chips .chip")
    page.keyboard.press("Enter")
    page.click('#picker-ranks button[data-rank="4"]')
    page.click("#picker-ok")
    expect_focus_on(page, '#starter-chips .chip[data-card="4D"]')


def test_choosing_the_starter_of_a_photo_leaves_the_focus_on_the_starter(open_tab):
    reader = StubReader(cards=["AS", "QH", "KC", "AC", "QC"],
                        problems=[Problem(STARTER_UNKNOWN, "could not tell which card is the starter: set it "
                                                           "a little apart, or name it")])
    page = open_tab("/", DESKTOP, reader=reader).page
    page.set_input_files("#file-input", str(DATA / "webcam-5-cards.jpg"))
    page.focus('#starter-choice-buttons button[data-starter="QC"]')
    page.keyboard.press("Enter")
    expect_focus_on(page, '#starter-chips .chip[data-card="QC"]')


def test_each_step_of_a_game_leaves_the_focus_on_the_next_step_s_field(open_tab):
    page = open_tab("/game", DESKTOP).page
    page.fill("#players", "Ann Bob")
    page.focus("#new-form button[type=submit]")
    page.keyboard.press("Enter")
    expect_focus_on(page, "#starter")
    page.keyboard.type("5S")
    page.keyboard.press("Enter")
    expect_focus_on(page, "#turns")


def test_starting_and_stopping_the_play_leaves_the_focus_on_the_button_that_undoes_it(open_tab):
    page = open_tab("/live", DESKTOP, reader=CountingReader([]), camera=True).page
    page.fill("#play-players", "Ann Bob")
    page.fill("#play-dealer", "Bob")
    page.focus("#play-form button[type=submit]")
    page.keyboard.press("Enter")
    expect_focus_on(page, "#go-button")
    page.focus("#play-stop")
    page.keyboard.press("Enter")
    expect_focus_on(page, "#play-form button[type=submit]")


def test_a_card_named_on_the_teach_page_keeps_the_focus(camera_browser, teaching_server,
                                                         layout_photos):
    _, server = teaching_server
    tab = tab_on(camera_browser, server, "/teach", DESKTOP)
    try:
        page = tab.page
        expect_ring_on_photo_button(page, "teach-input", ["teach-input"])  # point 3
        page.set_input_files("#teach-input", [str(p) for p in layout_photos])
        expect(page.locator(".layout-photo")).to_have_count(2, timeout=60_000)
        page.locator(".layout-photo").first.locator(".chip").nth(1).focus()
        page.keyboard.press("Enter")
        expect(page.locator(".chip-edit")).to_be_focused()
        page.keyboard.type("3s")
        page.keyboard.press("Enter")
        expect_focus_on(page, '.layout-photo >> nth=0 >> .chip[data-card="3S"]')
        view = page.locator(".layout-view").first  # point 11: enlarged from the keyboard too
        view.focus()
        page.keyboard.press("Enter")
        expect(view).to_have_class(re.compile(r"\bbig\b"))
        expect(view).to_have_attribute("aria-pressed", "true")
        # Point 7: the cards still missing read by their names.
        expect(page.locator("#missing").get_by_role("img", name="two of hearts")).to_have_count(1)
    finally:
        tab.close()


# --- a focus ring on each photo button, and on nothing else (point 3) -----------------------

OUTLINE = "e => getComputedStyle(e).outlineStyle"


@pytest.mark.parametrize("path, inputs", [
    ("/", ["camera-input", "file-input"]), ("/discard", ["photo-input"]),
])
def test_a_photo_button_focused_from_the_keyboard_shows_its_ring(open_tab, path, inputs):
    page = open_tab(path, DESKTOP, reader=StubReader()).page  # a reader: the buttons are on
    for focused in inputs:
        expect_ring_on_photo_button(page, focused, inputs)


def expect_ring_on_photo_button(page, focused: str, inputs: list[str]) -> None:
    """The file input ``focused``, tabbed to, rings its label, and none of the others'."""
    page.focus(f"#{focused}")
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")  # from the keyboard: :focus-visible
    expect_focus_on(page, f"#{focused}")
    for label in inputs:
        ring = page.locator(f'label[for="{label}"]').evaluate(OUTLINE)
        assert ring == ("solid" if label == focused else "none"), (focused, label, ring)


def test_the_game_s_photo_button_shows_its_ring_and_a_text_box_rings_itself_alone(open_tab):
    page = open_tab("/game", DESKTOP, reader=StubReader()).page
    page.fill("#players", "Ann Bob")
    page.click("#new-form button[type=submit]")
    page.fill("#starter", "5S")
    page.click("#deal-form button[type=submit]")
    expect(page.locator("#show-form")).to_be_visible()
    page.focus("#show-form button[type=submit]")
    page.keyboard.press("Tab")
    expect_focus_on(page, "#show-photo")
    assert page.locator('label[for="show-photo"]').evaluate(OUTLINE) == "solid"
    page.focus("#show-cards")
    page.keyboard.press("Tab")  # the claim box: ringed, the Show button after it not
    expect_focus_on(page, "#show-claim")
    assert page.locator("#show-claim").evaluate(OUTLINE) == "solid"
    assert page.locator("#show-form button[type=submit]").evaluate(OUTLINE) == "none"


# --- the game's peg box (point 4) -----------------------------------------------------------


def test_enter_in_the_peg_box_pegs_the_points_typed(open_tab):
    page = open_tab("/game", DESKTOP).page
    page.fill("#players", "Ann Bob")
    page.click("#new-form button[type=submit]")
    page.fill("#starter", "5S")
    page.click("#deal-form button[type=submit]")
    expect(page.get_by_role("spinbutton", name="Points")).to_be_visible()  # named, not by its placeholder only
    page.select_option("#peg-player", "Bob")
    page.fill("#peg-points", "2")
    page.press("#peg-points", "Enter")
    expect(page.locator("#sides .score")).to_have_text(["0", "2"])
    expect(page.locator("#entry-error")).to_be_hidden()
    expect_focus_on(page, "#peg-points")  # ready for the next peg


# --- a guessed card's chip in full contrast (point 5) ---------------------------------------

def contrast(colour: str, other: str) -> float:
    """WCAG's contrast ratio of two computed colours ("rgb(29, 35, 39)")."""
    def luminance(css: str) -> float:
        channels = [float(v) / 255 for v in re.findall(r"[\d.]+", css)[:3]]
        r, g, b = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in channels]
        return 0.2126 * r + 0.7152 * g + 0.0722 * b
    light, dark = sorted([luminance(colour), luminance(other)], reverse=True)
    return (light + 0.05) / (dark + 0.05)


# An element's colour, its chip's background, and the opacity it is drawn with (the product
# of its own and its ancestors').
ON_CHIP = """e => {
  let opacity = 1;
  for (let n = e; n; n = n.parentElement) opacity *= Number(getComputedStyle(n).opacity);
  return [getComputedStyle(e).color, getComputedStyle(e.closest('.chip')).backgroundColor, opacity];
}"""


def test_a_guessed_card_s_chip_has_aa_contrast(open_tab):
    page = open_tab("/", DESKTOP, reader=StubReader(cards=HAND, starter="5D", guesses=["2H"])).page
    page.set_input_files("#file-input", str(DATA / "webcam-5-cards.jpg"))
    guess = page.locator('.chip.guess[data-guess="2H"]')
    for part in ["rank", "suit", "check-mark"]:
        colour, background, opacity = guess.locator(f".{part}").evaluate(ON_CHIP)
        assert contrast(colour, background) >= 4.5 and opacity == 1, (part, colour, background, opacity)


# --- the option chosen, seen in forced colours (point 6) ------------------------------------

BACKGROUND = "e => getComputedStyle(e).backgroundColor"


def expect_chosen_apart(chosen, other) -> None:
    assert chosen.evaluate(BACKGROUND) != other.evaluate(BACKGROUND)


def test_in_forced_colours_the_option_chosen_stands_out(open_tab):
    tab = open_tab("/", DESKTOP)
    page = tab.page
    page.emulate_media(forced_colors="active")
    expect_chosen_apart(page.locator('label:has(input[value="hand"])'), page.locator('label:has(input[value="crib"])'))
    expect_chosen_apart(page.locator('label:has(input[value="six-card"])'),
                        page.locator('label:has(input[value="five-card"])'))
    page.click('#hand-chips .chip[data-action="add-card"]')
    page.click('#picker-ranks button[data-rank="7"]')
    page.click('#picker-suits button[data-suit="S"]')
    expect_chosen_apart(page.locator('#picker-ranks button[data-rank="7"]'), page.locator('#picker-ranks button[data-rank="8"]'))
    expect_chosen_apart(page.locator('#picker-suits button[data-suit="S"]'), page.locator('#picker-suits button[data-suit="H"]'))
    tab.visit("/discard")
    expect_chosen_apart(page.locator('#suit-buttons button[data-suit="H"]'), page.locator('#suit-buttons button[data-suit="S"]'))
    expect_chosen_apart(page.locator('label:has(input[value="dealer"])'), page.locator('label:has(input[value="pone"])'))
    tab.visit("/game")
    expect_chosen_apart(page.locator('label:has(input[value="121"])'), page.locator('label:has(input[value="61"])'))


# --- cards read by their names (point 7) ----------------------------------------------------


def test_the_cards_of_a_count_and_of_the_advice_are_read_by_their_names(open_tab):
    tab = open_tab("/", DESKTOP)
    page = tab.page
    page.fill("#typed-cards", "5H 5C 5S JD 5D")
    page.click("#type-form button[type=submit]")
    expect(page.locator("#items").get_by_role("img", name="jack of diamonds")).not_to_have_count(0)
    tab.visit("/discard")
    page.fill("#typed-cards", "5h 5c 6d jd qs ks")
    page.click("#type-form button[type=submit]")
    expect(page.locator("#options tr").first.get_by_role("img", name="king of spades")).not_to_have_count(0)


# --- the live play: its turn said once, its G key turned off at will (point 8) ---------------


def test_the_play_s_turn_is_said_once_and_its_g_key_can_be_turned_off(open_tab):
    reader = CountingReader([])
    page = open_tab("/live", DESKTOP, reader=reader, camera=True).page
    page.fill("#play-players", "Ann Bob")
    page.fill("#play-dealer", "Bob")
    page.click("#play-form button[type=submit]")
    expect(page.locator("#play-turn")).to_have_text("Ann to play")
    page.evaluate("""() => { window.__turns = 0;
      new MutationObserver(() => window.__turns++).observe(document.getElementById('play-turn'),
        {childList: true, characterData: true, subtree: true}); }""")
    wait_for_frames(page, reader, 5)
    assert page.evaluate("window.__turns") == 0  # the same turn, frame after frame: not said again
    expect_no_violations(page, "with the play watched")
    goes = []
    page.on("request", lambda r: goes.append(r) if r.url.endswith("/api/live/play/go") else None)
    page.uncheck("#go-key")
    page.locator("body").press("g")
    page.click("#go-button")  # a request after the key's, had it sent one
    expect(page.locator("#play-said")).to_contain_text("cannot say go")
    assert len(goes) == 1


# --- text spacing on a phone, and 320 px (point 10) ------------------------------------------

# WCAG 1.4.12's text spacing, as a reader's style sheet sets it.
TEXT_SPACING = ("* { line-height: 1.5 !important; letter-spacing: 0.12em !important; "
                "word-spacing: 0.16em !important; } p { margin-bottom: 2em !important; }")


def test_with_wide_text_spacing_a_phone_s_chips_hold_their_cards(open_tab):
    page = open_tab("/", PHONE).page
    page.add_style_tag(content=TEXT_SPACING)
    page.fill("#typed-cards", "5H 5C 5S JD 5D")
    page.click("#type-form button[type=submit]")
    expect(page.locator("#total")).to_have_text("29")
    for chip in page.locator(".chip[data-card]").all():
        box = chip.bounding_box()
        for part in [chip.locator(".rank"), chip.locator(".suit")]:
            inner = part.bounding_box()
            assert box["y"] <= inner["y"] and inner["y"] + inner["height"] <= box["y"] + box["height"], \
                (chip.get_attribute("data-card"), box, inner)


def test_at_320_px_the_game_page_scrolls_no_way_but_down(open_tab):
    page = open_tab("/game", {"width": 320, "height": 800}).page
    page.fill("#players", "Ann Bob")
    page.click("#new-form button[type=submit]")
    page.click("#irregularity summary")
    expect(page.locator("#irregularity-kind")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") == 0
    # Nor out of its panel (at the page's edge, it pushed a phone's page sideways).
    overflow = page.locator("#irregularity-kind").evaluate("""select => {
      const panel = select.closest('.panel');
      const inside = panel.getBoundingClientRect().right - parseFloat(getComputedStyle(panel).paddingRight);
      return select.getBoundingClientRect().right - inside; }""")
    assert overflow <= 0


# --- hints, errors, groups and names (point 11) ---------------------------------------------


def test_a_typing_mistake_is_tied_to_its_box_and_the_cards_are_in_named_groups(open_tab):
    page = open_tab("/", DESKTOP).page
    box = page.locator("#typed-cards")
    expect(box).to_have_attribute("aria-describedby", "typed-hint")
    page.fill("#typed-cards", "5H 5C ZZ")
    page.click("#type-form button[type=submit]")
    expect(page.locator("#type-error")).to_be_visible()
    expect(box).to_have_attribute("aria-invalid", "true")
    expect(box).to_have_attribute("aria-describedby", "typed-hint type-error")
    page.fill("#typed-cards", "5H 5C 5S JD 5D")
    page.click("#type-form button[type=submit]")
    expect(page.locator("#total")).to_have_text("29")
    expect(box).not_to_have_attribute("aria-invalid", "true")
    expect(box).to_have_attribute("aria-describedby", "typed-hint")
    expect(page.get_by_role("group", name="Hand").get_by_role("button")).to_have_count(5)  # four and "+"
    expect(page.get_by_role("group", name="Starter").get_by_role("button")).to_have_count(1)
    page.click('#hand-chips .chip[data-card="JD"]')
    expect_focus_on(page, '#picker-ranks button[data-rank="J"]')  # the card's rank, not the ace


def test_a_game_s_undo_buttons_say_what_they_undo_and_a_phone_s_games_table_keeps_its_head(open_tab):
    tab = open_tab("/game", DESKTOP)
    page = tab.page
    page.fill("#players", "Ann Bob")
    page.click("#new-form button[type=submit]")
    page.fill("#starter", "5S")
    page.click("#deal-form button[type=submit]")
    expect(page.get_by_role("button", name=re.compile(r"^Undo entry 1: Deal 1: Ann deals"))).to_have_count(1)
    page.set_viewport_size(PHONE)
    page.goto(tab.url + "/game")
    expect(page.locator("#games tbody tr")).to_have_count(1)
    expect(page.locator("#games").get_by_role("columnheader")).to_have_count(4)


def test_the_picker_s_ranks_and_suits_are_a_tab_stop_each_and_arrows_move_in_them(open_tab):
    page = open_tab("/", DESKTOP).page
    page.fill("#typed-cards", "5H 5C 5S JD 5D")
    page.click("#type-form button[type=submit]")
    page.focus('#hand-chips .chip[data-card="JD"]')
    page.keyboard.press("Enter")
    expect_focus_on(page, '#picker-ranks button[data-rank="J"]')
    page.keyboard.press("ArrowRight")
    expect_focus_on(page, '#picker-ranks button[data-rank="Q"]')
    page.keyboard.press("Enter")  # chosen: the queen
    page.keyboard.press("Tab")  # the suits, on the one chosen
    expect_focus_on(page, '#picker-suits button[data-suit="D"]')
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Space")  # clubs
    page.keyboard.press("Tab")
    expect_focus_on(page, "#picker-starter")
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Shift+Tab")
    expect_focus_on(page, '#picker-ranks button[data-rank="Q"]')
    tabbable = page.locator("#picker button:visible, #picker input:visible").evaluate_all(
        "es => es.filter((e) => e.tabIndex >= 0).length")
    assert tabbable == 2 + 1 + 3  # the two grids, the box, Remove, Cancel and OK
    page.click("#picker-ok")
    expect(page.locator('#hand-chips .chip[data-card="QC"]')).to_have_count(1)


def test_the_board_s_pegs_are_ringed_apart_from_the_wood(open_tab):
    page = open_tab("/game", DESKTOP).page
    page.fill("#players", "Ann Bob")
    page.click("#new-form button[type=submit]")
    ring = page.locator("#board .peg.front").first.evaluate("peg => getComputedStyle(peg).stroke")
    wood = page.locator("#board .wood").evaluate("wood => getComputedStyle(wood).fill")
    assert contrast(ring, wood) >= 3  # WCAG 1.4.11, for the pegs' outline on the wood
