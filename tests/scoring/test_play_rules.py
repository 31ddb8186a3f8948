"""Random deals played out against an independent statement of the rules of the play.

The referee here shares no code with ``scoring.pegging``: it deals hands, plays them out the
way Hoyle's rules say (a player plays while a card fits, says go only when none does, and the
others play on while they can; after a go or a 31 the player after the last to play leads),
scores each card and go itself, and writes the play as a player would type it. A written play
may leave out the goes before a card that would pass 31, as the typed form allows.

A sloppy table goes now and then while holding a card that fits: that play must be refused.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cribcam.scoring import score_play
from cribcam.scoring.pegging import TurnError

RANKS = "A23456789TJQK"
SUITS = "CDHS"
NAMES = ["Ann", "Bob", "Cal", "Dee"]


def value(card: str) -> int:
    return min(RANKS.index(card[0]) + 1, 10)


def card_points(series: list[str], count: int) -> int:
    """What the newest card of a count scores: fifteen, 31, pairs, the longest run."""
    points = 2 if count in (15, 31) else 0
    ranks = [RANKS.index(card[0]) + 1 for card in series]
    same = 1
    while same < len(ranks) and ranks[-same - 1] == ranks[-1]:
        same += 1
    points += {1: 0, 2: 2, 3: 6, 4: 12}[same]
    for length in range(len(ranks), 2, -1):
        tail = sorted(ranks[-length:])
        if tail == list(range(tail[0], tail[0] + length)):
            points += length
            break
    return points


def play_out(rng: random.Random, players: int, hand_size: int, sloppy: bool):
    """Deals and plays a hand. Returns the turns written as tokens, each player's pegs, and
    whether some player went go while holding a card that fits."""
    names = NAMES[:players]
    deck = [rank + suit for rank in RANKS for suit in SUITS]
    rng.shuffle(deck)
    hands = {name: deck[i * hand_size:(i + 1) * hand_size] for i, name in enumerate(names)}
    pegs = dict.fromkeys(names, 0)
    # (player, card or None for a go, the count a card closes by leading, else None)
    turns: list[tuple[str, str | None, int | None]] = []
    broke_rule = False
    count, series, went, last = 0, [], set(), None
    closed = None  # the count the last count ended on
    turn = names[0]

    def next_after(player, test):
        start = names.index(player)
        for step in range(1, players + 1):
            other = names[(start + step) % players]
            if test(other):
                return other
        return None

    while any(hands.values()):
        fits = [card for card in hands[turn] if count + value(card) <= 31]
        if fits and not (sloppy and rng.random() < 0.15):
            card = rng.choice(fits)
            hands[turn].remove(card)
            turns.append((turn, card, closed))
            count += value(card)
            series.append(card)
            pegs[turn] += card_points(series, count)
            last = turn
        else:
            broke_rule |= bool(fits)
            went.add(turn)
            turns.append((turn, None, None))
        closed = None
        following = next_after(turn, lambda p: p not in went and hands[p])
        if count == 31 or following is None:
            if last is None:  # everybody went go on a count of nothing: only a sloppy table
                break
            if count < 31:
                pegs[last] += 1  # for the go, or for last when no card is left
            leader = next_after(last, lambda p: hands[p])
            closed, count, series, went, last = count, 0, [], set(), None
            turn = leader
            if leader is None:
                break
        else:
            turn = following
    return written(rng, turns), pegs, broke_rule


def written(rng: random.Random, turns):
    """The play as typed: the goes just before a card that would pass 31 on the count they
    closed may be left out."""
    tokens, pending = [], []
    for player, card, closes in turns:
        if card is None:
            pending.append(f"{player}:go")
            continue
        if pending and closes is not None and closes + value(card) > 31 and rng.random() < 0.5:
            pending = []  # the card itself says that everybody went go
        tokens += pending + [f"{player}:{card}"]
        pending = []
    return tokens + pending


deals = st.tuples(st.randoms(use_true_random=False), st.sampled_from([(2, 4), (3, 4), (4, 4), (2, 3)]))


@settings(max_examples=400, deadline=None)
@given(deals)
def test_a_play_by_the_rules_is_taken_and_pegged_as_the_referee_pegs_it(deal):
    rng, (players, hand_size) = deal
    tokens, pegs, _ = play_out(rng, players, hand_size, sloppy=False)
    pegging = score_play(tokens, players=NAMES[:players], hand_size=hand_size)
    assert {name: pegging.totals.get(name, 0) for name in pegs} == pegs


@settings(max_examples=400, deadline=None)
@given(deals)
def test_a_go_while_a_card_fits_is_refused(deal):
    rng, (players, hand_size) = deal
    tokens, pegs, broke_rule = play_out(rng, players, hand_size, sloppy=True)
    if broke_rule:
        with pytest.raises(TurnError, match="go"):
            score_play(tokens, players=NAMES[:players], hand_size=hand_size)
    else:
        pegging = score_play(tokens, players=NAMES[:players], hand_size=hand_size)
        assert {name: pegging.totals.get(name, 0) for name in pegs} == pegs
