"""The discard advisor against brute force: plain loops over starters and the opponent's
discards, every deal counted by ``score_hand``."""

from __future__ import annotations

import random
import re
from itertools import combinations
from statistics import fmean

import numpy as np
import pytest

from cribcam.scoring import CARD_CODES, CardError, parse_cards, score_hand
from cribcam.scoring.cards import SUITS
from cribcam.scoring.discard import advise, dealt_cards, expected_crib, expected_hand, lay_aways, unseen_cards
from cribcam.scoring.stats import deal_totals

SIX_CARD_DEALS = ["5H 5C 6D JD QS KS", "2H 4H 6H 8H TH QC", "JC JD JH 5S 5D 4C", "AS 2D 3C 7H 8S KD"]
FIVE_CARD_DEALS = ["5H 5C 6D JD QS", "AH 2H 3H 4H 9S"]


def brute_hand(keep, unseen, variant="six-card") -> float:
    return fmean(score_hand(keep, starter, variant=variant).total for starter in unseen)


def brute_crib(discard, unseen, variant="six-card") -> float:
    others = 4 - len(discard)
    totals = [score_hand(discard + others_cards, starter, crib=True, variant=variant).total
              for others_cards in combinations(unseen, others)
              for starter in unseen if starter not in others_cards]
    return fmean(totals)


def columns(deals):
    """Deals (lists of Cards, the starter last) as the (k, N) rank and suit arrays of deal_totals."""
    ranks = np.array([[c.rank - 1 for c in deal] for deal in deals], dtype=np.uint8).T
    suits = np.array([[SUITS.index(c.suit) for c in deal] for deal in deals], dtype=np.uint8).T
    return ranks, suits


# --- the vectorized scorer agrees with score_hand ------------------------------------------


def sample_deals(size: int, count: int, seed: int) -> list[list]:
    """Random deals of ``size`` cards (the starter last); half of them have a one-suited hand
    and a third a jack, so flushes and nobs are well represented."""
    rng = random.Random(seed)
    deals = []
    for i in range(count):
        if i % 2:
            suit = rng.choice(SUITS)
            hand = rng.sample([c for c in CARD_CODES if c[1] == suit], size - 1)
            if i % 3 == 0 and not any(c[0] == "J" for c in hand):
                hand[0] = "J" + suit
            starter = rng.choice([c for c in CARD_CODES if c not in hand])
            deals.append(parse_cards(hand + [starter]))
        else:
            deals.append(parse_cards(rng.sample(CARD_CODES, size)))
    return deals


@pytest.mark.parametrize("size, crib, variant", [(5, False, "six-card"), (5, True, "six-card"),
                                                 (4, False, "five-card")])
def test_deal_totals_agree_with_score_hand(size, crib, variant):
    deals = sample_deals(size, 4000, seed=size + crib)
    fast = deal_totals(*columns(deals), crib=crib)
    slow = [score_hand(deal[:-1], deal[-1], crib=crib, variant=variant).total for deal in deals]
    assert fast.tolist() == slow
    assert max(slow) >= 12  # the sample holds real hands: flushes, nobs, pairs royal


# --- expected values against brute force ---------------------------------------------------


@pytest.mark.parametrize("deal, variant", [(d, "six-card") for d in SIX_CARD_DEALS]
                         + [(d, "five-card") for d in FIVE_CARD_DEALS])
def test_expected_hand_of_every_option_is_the_brute_force_mean(deal, variant):
    dealt = dealt_cards(deal, variant)
    unseen = unseen_cards(dealt)
    assert len(unseen) == 52 - len(dealt)
    for _, keep in lay_aways(dealt, variant):
        assert expected_hand(keep, unseen) == pytest.approx(brute_hand(keep, unseen, variant),
                                                            abs=1e-12)


@pytest.mark.parametrize("deal, discard, variant", [
    ("5H 5C 6D JD QS KS", "5C 6D", "six-card"),  # the dealer's best: 5 and 6 to the crib
    ("2H 4H 6H 8H TH QC", "8H TH", "six-card"),  # hearts to the crib: crib flushes count
    ("5H 5C 6D JD QS", "5H 5C", "five-card"),
])
def test_expected_crib_over_the_whole_deck_is_the_brute_force_mean(deal, discard, variant):
    unseen = unseen_cards(dealt_cards(deal, variant))
    discard = tuple(parse_cards(discard))
    assert expected_crib(discard, unseen, variant) == pytest.approx(
        brute_crib(discard, unseen, variant), abs=1e-12)


@pytest.mark.parametrize("discard", ["JS", "5S JS", "5S"])
def test_expected_crib_from_a_few_unseen_cards_is_the_brute_force_mean(discard):
    # A small unseen set keeps brute force quick for three unknown crib cards too (one laid
    # away, as with three or four players); jacks and spades make nobs and flushes count.
    unseen = tuple(parse_cards("AS 4S 5D 6S TS JD JH QS KC 9S 2S 5H"))
    discard = tuple(parse_cards(discard))
    assert expected_crib(discard, unseen) == pytest.approx(brute_crib(discard, unseen), abs=1e-12)


# --- the advice ------------------------------------------------------------------------------


@pytest.mark.parametrize("deal, variant, options, kept", [
    ("5H 5C 6D JD QS KS", "six-card", 15, 4),
    ("5H 5C 6D JD QS", "six-card", 5, 4),  # three or four players: one card laid away
    ("5H 5C 6D JD QS", "five-card", 10, 3),
])
def test_every_way_to_lay_away_is_ranked_best_first(deal, variant, options, kept):
    advice = advise(deal, dealer=True, variant=variant)
    assert len(advice.options) == options
    assert len({o.discard for o in advice.options}) == options
    for option in advice.options:
        assert len(option.keep) == kept
        assert sorted(option.keep + option.discard) == sorted(advice.cards)
        assert option.net == pytest.approx(option.hand + option.crib)
    nets = [o.net for o in advice.options]
    assert nets == sorted(nets, reverse=True)
    assert (advice.best, advice.worst) == (advice.options[0], advice.options[-1])
    assert advice.spread == pytest.approx(nets[0] - nets[-1])


def test_the_pone_subtracts_the_crib_and_so_chooses_differently():
    deal = "5H 5C 6D JD QS KS"
    dealer, pone = advise(deal, dealer=True), advise(deal, dealer=False)
    by_discard = {o.discard: o for o in dealer.options}
    for option in pone.options:
        mine = by_discard[option.discard]
        assert (option.hand, option.crib) == (mine.hand, mine.crib)
        assert option.net == pytest.approx(option.hand - option.crib)
    # The dealer gives the 5 and 6 to their own crib; the pone keeps both 5s and the
    # face cards, and gives the 6 and a king, which make the least for the dealer.
    assert [c.code for c in dealer.best.discard] == ["5C", "6D"]
    assert [c.code for c in pone.best.discard] == ["6D", "KS"]
    assert pone.worst.discard == tuple(parse_cards("5H 5C"))


def test_the_json_form():
    advice = advise(["5h", "5c", "6d", "jd", "qs", "ks"], dealer=False)
    record = advice.as_dict()
    assert list(record) == ["cards", "dealer", "variant", "options", "spread"]
    assert record["cards"] == ["5H", "5C", "6D", "JD", "QS", "KS"]
    assert record["dealer"] is False and record["variant"] == "six-card"
    first = record["options"][0]
    assert list(first) == ["discard", "keep", "hand", "crib", "net"]
    assert first["discard"] == ["6D", "KS"] and first["keep"] == ["5H", "5C", "JD", "QS"]
    assert first["hand"] == round(advice.best.hand, 4)


@pytest.mark.parametrize("cards, variant, message", [
    ("5H 5C 6D JD QS KS 2C", "six-card",
     "7 cards given; six-card cribbage deals 6 (two players) or 5 (three or four players)"),
    ("5H 5C 6D JD", "six-card", "4 cards given"),
    ("5H 5C 6D JD QS KS", "five-card", "6 cards given; five-card cribbage deals 5 (two players)"),
    ("5H 5C 6D JD QS 5H", "six-card", "5H appears twice"),
    ("5H 5C 6D JD QS 1S", "six-card", "'1S' is not a card"),
    ("5H 5C 6D JD QS KS", "seven-card", "unknown variant 'seven-card'"),
])
def test_a_deal_that_cannot_be_is_refused(cards, variant, message):
    with pytest.raises(CardError, match=re.escape(message)):
        advise(cards, variant=variant)


def test_a_card_dealt_twice_is_said_with_the_wrong_number_of_cards():
    # The walkthrough's deal: its count was said, not the 5H typed twice that may explain it.
    with pytest.raises(CardError) as refused:
        advise("5H 5H 6D JD QS KS", variant="five-card")
    assert str(refused.value) == ("5H appears twice; a deck has one 5H. 6 cards given; "
                                  "five-card cribbage deals 5 (two players)")
