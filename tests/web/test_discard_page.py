"""The discard page in a real browser (Debian's Chromium, headless, driven by Playwright), used
as a player uses it: type or tap the cards dealt, say whose crib it is, read the ranked
options; photograph the deal. Screenshots go to test-artifacts/web/ (look at them)."""

from __future__ import annotations

from browsing import PHONE, expect
from cribcam.scoring.discard import advise
from cribcam.vision.reading import MAYBE_ONE_CARD, Problem
from cribcam.web import create_app
from webtools import DATA, StubReader

DEAL = ["5H", "5C", "6D", "JD", "QS", "KS"]


def goto_discard(tab) -> None:
    tab.visit("/discard")


def row_cards(row, column: int) -> list[str]:
    return row.locator("td").nth(column).locator(".mini").all_inner_texts()


def expect_options(page, advice) -> None:
    """The table shows ``advice``: every option, best first, its figures to 2 places."""
    rows = page.locator("#options tr")
    expect(rows).to_have_count(len(advice.options))
    best = advice.best
    expect(rows.first.locator("td.points")).to_have_text(
        [f"{best.hand:.2f}", f"{best.crib:.2f}", f"{best.net:.2f}"])
    expect(page.locator("#best strong")).to_have_text(f"{best.net:.2f}")
    shown = [c.replace("♣", "C").replace("♦", "D").replace("♥", "H").replace("♠", "S")
             for c in row_cards(rows.first, 0)]
    assert shown == [c.code.replace("T", "10") for c in best.discard]


def test_typed_and_tapped_deals_are_ranked_for_the_dealer_and_the_pone(open_page):
    tab = open_page()
    page = tab.page
    goto_discard(tab)
    expect(page.locator("#advice-empty")).to_be_visible()

    page.fill("#typed-cards", "5h 5c 6d jd qs ks")
    page.click("#type-form button[type=submit]")
    expect_options(page, advise(DEAL, dealer=True))
    assert page.locator("#dealt-chips .chip").evaluate_all("cs => cs.map(c => c.dataset.card)") == DEAL
    expect(page.locator("#advice-note")).to_contain_text("Net = hand + crib")
    tab.shot("discard-01-dealer-desktop")

    page.click("text=Theirs")
    expect_options(page, advise(DEAL, dealer=False))
    expect(page.locator("#advice-note")).to_contain_text("Net = hand − crib")

    # Take the king back: five cards, one to the crib (three or four players)...
    page.click('#dealt-chips .chip[data-card="KS"]')
    expect_options(page, advise(DEAL[:5], dealer=False))
    # ...or, in five-card cribbage, two of them.
    page.click('input[name="variant"][value="five-card"] >> xpath=..')
    expect_options(page, advise(DEAL[:5], dealer=False, variant="five-card"))

    # A new deal tapped in: hearts 2 3 4, then spades 4 9 (the 4 of hearts is taken).
    page.click("#clear-button")
    expect(page.locator("#advice")).to_be_hidden()
    page.click('#suit-buttons button[data-suit="H"]')
    for rank in "234":
        page.click(f'#rank-buttons button[data-rank="{rank}"]')
    expect(page.locator("#advice-empty")).to_contain_text("Add 2 more cards")
    page.click('#suit-buttons button[data-suit="S"]')
    page.click('#rank-buttons button[data-rank="4"]')
    page.click('#rank-buttons button[data-rank="9"]')
    expect(page.locator('#rank-buttons button[data-rank="9"]')).to_be_disabled()
    expect_options(page, advise(["2H", "3H", "4H", "4S", "9S"], dealer=False, variant="five-card"))
    # The buttons are named as the count page's picker names them: what they show, then in words.
    expect(page.get_by_role("button", name="Q, queen", exact=True)).to_have_attribute("data-rank", "Q")
    expect(page.get_by_role("button", name="spades", exact=True)).to_have_attribute("data-suit", "S")


def test_the_page_shows_every_figure_as_cribcam_discard_prints_it(open_page):
    import subprocess
    import sys

    printed = subprocess.run([sys.executable, "-m", "cribcam", "discard", *DEAL, "--pone"],
                             capture_output=True, text=True, timeout=120).stdout.splitlines()
    tab = open_page()
    page = tab.page
    goto_discard(tab)
    page.click("text=Theirs")
    page.fill("#typed-cards", " ".join(DEAL))
    page.click("#type-form button[type=submit]")
    rows = page.locator("#options tr")
    expect(rows).to_have_count(15)
    shown = [rows.nth(i).locator("td.points").all_inner_texts() for i in range(15)]
    assert shown == [row.split()[-3:] for row in printed[2:-1]]
    assert ["6.28", "6.96", "-0.67"] in shown  # 5C JD: the page said -0.68, the command -0.67
    best, worst, spread = printed[-1].split("(")[1].split(")")[0], "-3.84", "13.04"
    expect(page.locator("#best strong")).to_have_text(best)
    expect(page.locator("#spread")).to_contain_text(f"expects {worst}: {spread} points less")


def test_bad_typing_and_a_photo_without_a_model_say_what_is_wrong(open_page):
    tab = open_page(viewport=PHONE)
    page = tab.page
    goto_discard(tab)
    page.fill("#typed-cards", "5H 5C 6D JD QS 5H")
    page.click("#type-form button[type=submit]")
    expect(page.locator("#deal-error")).to_have_text("5H appears twice; a deck has one 5H")
    expect(page.locator("#advice")).to_be_hidden()

    page.set_input_files("#photo-input", str(DATA / "webcam-5-cards.jpg"))
    expect(page.locator("#photo-status")).to_contain_text("no card-reading model")
    expect(page.locator("#photo-status")).to_have_class("status error")
    tab.shot("discard-02-errors-phone")


def test_cards_read_from_a_photo_are_advised(open_page):
    doubt = Problem(MAYBE_ONE_CARD, "the QS and the KS may be one card's two corners: check the KS")
    tab = open_page(create_app({"TESTING": True}, reader=StubReader(cards=DEAL, problems=[doubt])))
    page = tab.page
    goto_discard(tab)
    page.set_input_files("#photo-input", str(DATA / "webcam-5-cards.jpg"))
    expect(page.locator("#photo-status")).to_contain_text("6 cards read")
    expect(page.locator("#photo-status")).to_contain_text("The QS and the KS may be one card's two corners")
    expect_options(page, advise(DEAL, dealer=True))
    tab.shot("discard-03-photo-desktop")


def _deal_advised(open_page):
    """The discard page, the DEAL typed and advised for the dealer: its tab."""
    tab = open_page()
    goto_discard(tab)
    tab.page.fill("#typed-cards", " ".join(DEAL))
    tab.page.click("#type-form button[type=submit]")
    expect_options(tab.page, advise(DEAL, dealer=True))
    return tab


def test_a_mistake_said_goes_once_a_later_deal_is_advised(open_page):
    tab = _deal_advised(open_page)
    page = tab.page
    page.click('input[name="variant"][value="five-card"] >> xpath=..')  # six cards: five-card deals 5
    expect(page.locator("#deal-error")).to_contain_text("five-card cribbage deals 5")
    page.fill("#typed-cards", " ".join(DEAL[:5]))
    page.click("#type-form button[type=submit]")
    expect_options(page, advise(DEAL[:5], dealer=True, variant="five-card"))
    expect(page.locator("#deal-error")).to_be_hidden()


def test_the_new_deal_button_stands_apart_from_the_photo_button(open_page):
    for viewport in (PHONE, None):
        tab = open_page(**({"viewport": viewport} if viewport else {}))
        goto_discard(tab)
        new_deal = tab.page.locator("#clear-button").bounding_box()
        photo = tab.page.locator('label[for="photo-input"]').bounding_box()
        assert photo["y"] - (new_deal["y"] + new_deal["height"]) >= 8, (new_deal, photo)
        tab.shot(f"discard-04-buttons-{'phone' if viewport else 'desktop'}")


def test_advise_with_an_empty_box_clears_the_advice_before(open_page):
    tab = _deal_advised(open_page)
    page = tab.page
    page.fill("#typed-cards", "")
    page.click("#type-form button[type=submit]")
    expect(page.locator("#deal-error")).to_have_text(
        "Type the cards dealt, like 5H 5C 6D JD QS KS.")
    expect(page.locator("#advice")).to_be_hidden()  # no advice for cards no longer asked about
    expect(page.locator("#advice-empty")).to_be_visible()
    expect(page.locator("#dealt-chips .chip")).to_have_count(0)
    tab.shot("discard-06-empty-advise-desktop")


def test_a_card_typed_twice_in_five_card_cribbage_is_said_with_the_count(open_page):
    tab = open_page(viewport=PHONE)
    page = tab.page
    goto_discard(tab)
    page.click('input[name="variant"][value="five-card"] >> xpath=..')
    page.fill("#typed-cards", "5H 5H 6D JD QS KS")
    page.click("#type-form button[type=submit]")
    expect(page.locator("#deal-error")).to_have_text(
        "5H appears twice; a deck has one 5H. 6 cards given; five-card cribbage deals 5 (two "
        "players)")
    tab.shot("discard-07-twice-five-card-phone")


def test_on_a_phone_the_deal_and_the_table_fit_the_width_tidily(open_page):
    tab = open_page(viewport=PHONE)
    page = tab.page
    goto_discard(tab)
    page.click("text=Theirs")  # negative nets: the widest figures
    tens = ["TH", "TC", "TD", "TS", "QS", "KS"]  # cards of two characters: the widest
    page.fill("#typed-cards", " ".join(tens))
    page.click("#type-form button[type=submit]")
    expect_options(page, advise(tens, dealer=False))
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    # Nothing past the right edge of the screen, nor past the panel that holds it.
    beyond = page.evaluate("""width => [...document.querySelectorAll('main *')].filter(e => {
        const box = e.getBoundingClientRect();
        const panel = e.closest('.panel').getBoundingClientRect();
        return box.width && (box.right > Math.min(width, panel.right) + 0.5
                             || box.left < panel.left - 0.5);
      }).map(e => e.outerHTML.slice(0, 80))""", PHONE["width"])
    assert beyond == []
    # The six cards dealt in one row, under their label.
    tops = page.locator("#dealt-chips .chip").evaluate_all(
        "chips => chips.map(c => Math.round(c.getBoundingClientRect().top))")
    assert len(tops) == 6 and len(set(tops)) == 1, tops
    # Each cell's cards on one line: the two laid away side by side, the four kept likewise.
    for cells in page.locator("#options tr").evaluate_all("""rows => rows.map(r =>
            [...r.querySelectorAll('td .mini-cards')].map(cell => new Set([...cell.children]
                .map(m => Math.round(m.getBoundingClientRect().top))).size))"""):
        assert cells == [1, 1], cells
    tab.shot("discard-05-table-phone")
