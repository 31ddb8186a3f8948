import numpy as np
import pytest

from cribcam.scoring import score_hand, stats
from cribcam.scoring.cards import SUITS, Card
from cribcam.scoring.muggins import IMPOSSIBLE_TOTALS
from cribcam.scoring.stats import distribution


@pytest.fixture(scope="module")
def hands():
    return distribution(crib=False)


def test_full_enumeration_matches_the_published_figures(hands):
    assert hands.hands == 12_994_800
    assert hands.counts[0] == 1_009_008
    assert hands.counts[28] == 76
    assert hands.counts[29] == 4
    assert [t for t, n in enumerate(hands.counts) if n == 0] == [19, 25, 26, 27]
    assert hands.mean == pytest.approx(4.7692, abs=1e-4)


def test_impossible_totals_constant_agrees_with_the_enumeration(hands):
    assert {t for t, n in enumerate(hands.counts) if n == 0} == IMPOSSIBLE_TOTALS["six-card"]


def test_crib_distribution():
    cribs = distribution(crib=True)
    assert cribs.hands == 12_994_800
    # Only flushes differ: fewer cribs score 4+ for a flush, none more.
    assert cribs.mean < distribution(crib=False).mean
    assert cribs.counts[29] == 4 and cribs.counts[28] == 76


def test_five_card_sets_are_every_set_once_in_lexicographic_order():
    cards = stats._five_card_sets().astype(np.int64)
    assert cards.shape == (5, 2_598_960)
    assert (np.diff(cards, axis=0) > 0).all()  # each set's cards increase
    keys = (cards * (52 ** np.arange(4, -1, -1))[:, None]).sum(axis=0)
    assert (np.diff(keys) > 0).all()  # sets strictly increase, so none repeats


@pytest.mark.parametrize("crib", [False, True])
def test_table_and_array_rules_agree_with_the_scorer_deal_by_deal(crib):
    ranks, suits = stats._five_card_columns()
    sample = np.random.default_rng(7).choice(ranks.shape[1], size=3000, replace=False)
    ranks, suits = ranks[:, sample], suits[:, sample]
    base = stats._rank_pattern_points()[stats._rank_keys(ranks)]
    for starter in range(5):
        totals = base + stats._flush_and_nobs(ranks, suits, starter, crib)
        for deal, total in enumerate(totals):
            cards = [Card(int(r) + 1, SUITS[s]) for r, s in zip(ranks[:, deal], suits[:, deal])]
            hand = cards[:starter] + cards[starter + 1:]
            assert total == score_hand(hand, cards[starter], crib=crib).total, (hand, cards[starter])
