import pytest

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
