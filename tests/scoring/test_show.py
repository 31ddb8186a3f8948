import json
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cribcam.scoring import CARD_CODES, CardError, score_hand
from cribcam.scoring.cards import parse_cards


def test_seed_hands_from_the_rules_sheet(shared_dir):
    hands = json.loads((shared_dir / "scoring" / "seed_hands.json").read_text())["hands"]
    assert len(hands) == 51
    wrong = [(h["ranks"], score_hand(h["hand"], h["starter"]).total, h["total"])
             for h in hands if score_hand(h["hand"], h["starter"]).total != h["total"]]
    assert wrong == []


@pytest.mark.parametrize("hand, starter, total, spoken", [
    ("9S 6D 5H 4C", "4D", 14, "fifteen 2, fifteen 4, fifteen 6 and a double run is 14"),
    ("8S 7D 7H 6C", "2D", 16, "fifteen 2, fifteen 4, fifteen 6, fifteen 8 and a double run is 16"),
    ("5H 5C 5S JD", "5D", 29, "fifteen 2, fifteen 4, fifteen 6, fifteen 8, fifteen 10, fifteen 12, "
                             "fifteen 14, fifteen 16, a double pair royal is 28 and his nobs is 29"),
    ("2H 4D 6S 8C", "KD", 0, "nineteen: nothing to count, 0"),
    ("AC AD 2S 2H", "3H", 16, "a quadruple run is 16"),
    ("6C 7D 7S 7H", "8H", 21, "fifteen 2, fifteen 4, fifteen 6 and a triple run is 21"),
    ("3C 4D 5S 6H", "6C", 16, "fifteen 2, fifteen 4, fifteen 6 and a double run of four is 16"),
    ("2H 3H 4H 5H", "6H", 14, "fifteen 2, fifteen 4, a run of five is 9 and a flush of five is 14"),
])
def test_spoken_examples(hand, starter, total, spoken):
    score = score_hand(hand, starter)
    assert score.total == total
    if spoken is not None:
        assert score.spoken == spoken


def test_run_of_five_flush_total():
    score = score_hand("2H 3H 4H 5H", "6H")
    fifteens = [i for i in score.items if i.kind == "fifteen"]
    assert len(fifteens) == 2  # 4+5+6 and 2+3+4+6
    assert [i.points for i in score.items if i.kind == "run"] == [5]
    assert [i.points for i in score.items if i.kind == "flush"] == [5]


def test_double_run_is_itemized_as_two_runs_and_a_pair():
    items = score_hand("9S 6D 5H 4C", "4D").items
    assert sorted(i.kind for i in items if i.kind != "fifteen") == ["pair", "run", "run"]


def test_flush_rules_hand_and_crib():
    hand = "2H 4H 8H QH"
    assert [i.points for i in score_hand(hand, "KS").items if i.kind == "flush"] == [4]
    assert [i.points for i in score_hand(hand, "KH").items if i.kind == "flush"] == [5]
    assert [i.points for i in score_hand(hand, "KS", crib=True).items if i.kind == "flush"] == []
    assert [i.points for i in score_hand(hand, "KH", crib=True).items if i.kind == "flush"] == [5]


def test_nobs_and_heels():
    assert [i.kind for i in score_hand("JH 2C 4D 8S", "KH").items] == ["nobs"]
    assert score_hand("JH 2C 4D 8S", "KC").total == 0
    heels = score_hand("2C 4D 6S 8H", "JH")
    assert heels.heels == 2 and heels.total == 0  # his heels never goes into the hand


def test_five_card_cribbage_hand():
    score = score_hand("5H 5C JD", "5D", variant="five-card")
    assert score.total == 15  # 3 x (J+5) + 5+5+5 = 8, pair royal 6, nobs 1
    assert score_hand("2H 4H 8H", "KS", variant="five-card").total == 3
    assert score_hand("2H 4H 8H", "KH", variant="five-card").total == 4


def test_wrong_number_of_cards_says_how_many():
    # What is needed, then every card given counted, the starter too (issue 21: "1 card
    # given" for a hand typed as two cards read as one card too few, not one card in all).
    with pytest.raises(CardError, match=r"^a six-card cribbage hand needs 4 cards and a starter; "
                                        r"4 cards given \(the starter and 3 others\)$"):
        score_hand("5H 5C JD", "5D")
    with pytest.raises(CardError, match=r"^a six-card cribbage hand needs 4 cards and a starter; "
                                        r"2 cards given \(the starter and 1 other\)$"):
        score_hand("5H", "5D")
    with pytest.raises(CardError, match=r"; 1 card given \(the starter alone\)$"):
        score_hand([], "5D")
    with pytest.raises(CardError, match=r"^a five-card cribbage hand needs 3 cards and a starter; 5 cards given"):
        score_hand("5H 5C JD 2C", "5D", variant="five-card")
    with pytest.raises(CardError, match=r"^a crib needs 4 cards and a starter; 6 cards given"):
        score_hand("5H 5C JD 2C 3C", "5D", crib=True)


def test_starter_in_hand_is_a_duplicate():
    with pytest.raises(CardError, match="5D appears twice"):
        score_hand("5H 5C 5D JD", "5D")


# ----- properties over random hands -----
deals = st.lists(st.sampled_from(CARD_CODES), min_size=5, max_size=5, unique=True)


@settings(max_examples=400, deadline=None)
@given(deals)
def test_total_is_the_sum_of_items(cards):
    score = score_hand(cards[:4], cards[4])
    assert score.total == sum(item.points for item in score.items)
    assert score.total not in {19, 25, 26, 27} and 0 <= score.total <= 29


@settings(max_examples=200, deadline=None)
@given(deals, st.permutations(range(4)))
def test_reordering_the_hand_changes_nothing(cards, order):
    a = score_hand(cards[:4], cards[4])
    b = score_hand([cards[i] for i in order], cards[4])
    assert a.total == b.total
    def key(score):
        return sorted((i.kind, i.points, sorted(c.code for c in i.cards)) for i in score.items)
    assert key(a) == key(b)


@settings(max_examples=300, deadline=None)
@given(deals)
def test_crib_never_beats_the_hand(cards):
    assert score_hand(cards[:4], cards[4], crib=True).total <= score_hand(cards[:4], cards[4]).total


@settings(max_examples=300, deadline=None)
@given(deals)
def test_every_item_really_scores(cards):
    score = score_hand(cards[:4], cards[4])
    for item in score.items:
        if item.kind == "fifteen":
            assert sum(c.value for c in item.cards) == 15 and len(item.cards) >= 2
        elif item.kind == "pair":
            assert len(item.cards) == 2 and item.cards[0].rank == item.cards[1].rank
        elif item.kind == "run":
            ranks = sorted(c.rank for c in item.cards)
            assert ranks == list(range(ranks[0], ranks[0] + len(ranks))) and item.points == len(ranks)
        elif item.kind == "flush":
            assert len({c.suit for c in item.cards}) == 1 and item.points == len(item.cards)
        elif item.kind == "nobs":
            jack, starter = item.cards
            assert jack.rank == 11 and jack.suit == starter.suit and starter == score.starter
        else:
            pytest.fail(f"unexpected item kind {item.kind}")


@settings(max_examples=200, deadline=None)
@given(deals)
def test_counts_agree_with_a_plain_brute_force(cards):
    """An independent, deliberately naive count of fifteens, pairs and runs."""
    five = parse_cards(cards)
    fifteens = sum(2 for k in range(2, 6) for s in combinations(five, k) if sum(c.value for c in s) == 15)
    pairs = sum(2 for a, b in combinations(five, 2) if a.rank == b.rank)
    runs = 0
    for length in (5, 4, 3):
        for s in combinations(five, length):
            ranks = sorted(c.rank for c in s)
            if ranks == list(range(ranks[0], ranks[0] + length)):
                runs += length
        if runs:
            break
    score = score_hand(cards[:4], cards[4])
    assert sum(i.points for i in score.items if i.kind in ("fifteen", "pair", "run")) == fifteens + pairs + runs
