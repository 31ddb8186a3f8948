"""Following readings frame by frame: the desktop mode and the live page share these rules."""

from __future__ import annotations

import numpy as np

from cribcam.live.desktop import follow
from cribcam.live.follow import Follower
from cribcam.live.lock import HandLock
from cribcam.scoring import score_hand
from cribcam.vision.reading import Reading, SeenCard

A = ["5H", "5C", "5S", "JD", "5D"]
B = ["2C", "3D", "4S", "9H", "KD"]


def reading(codes, starter=None, x=0.0, unsure=()) -> Reading:
    """A reading of ``codes`` left to right (``x`` moves the boxes, to tell frames apart)."""
    cards = tuple(SeenCard(code, 0.9, ((x + 40.0 * i, 10.0, x + 40.0 * i + 20, 40.0),), unsure=code in unsure)
                  for i, code in enumerate(codes))
    return Reading(cards, starter, (), 640, 480)


def test_a_hand_locks_once_most_frames_agree_and_is_numbered():
    follower = Follower(HandLock(window=8, agree=5))
    steps = [follower.update(reading(A)) for _ in range(5)]
    assert [s.locked for s in steps[:4]] == [None] * 4
    assert [s.hand for s in steps[:4]] == [0] * 4
    assert steps[4].new_hand and steps[4].hand == 1 and steps[4].locked.codes == A


def test_the_locked_reading_is_the_latest_view_of_the_locked_cards():
    follower = Follower(HandLock(window=8, agree=5))
    for x in range(6):
        step = follower.update(reading(A, x=float(x)))
    assert step.locked.cards[0].boxes[0][0] == 5.0
    # A frame missing a card leaves the lock, and the view it reports, on the full hand.
    step = follower.update(reading(A[:4], x=99.0))
    assert step.locked.codes == A and step.locked.cards[0].boxes[0][0] == 5.0
    assert step.reading.codes == A[:4] and not step.new_hand


def test_flicker_never_changes_the_locked_hand_or_its_number():
    follower = Follower(HandLock(window=8, agree=5))
    for _ in range(8):
        follower.update(reading(A))
    for odd in (A[:3], B, [], A[:4] + ["6D"]):
        step = follower.update(reading(odd))
        assert step.locked.codes == A and step.hand == 1 and not step.new_hand
        for _ in range(3):
            follower.update(reading(A))


def test_a_new_hand_gets_the_next_number():
    follower = Follower(HandLock(window=8, agree=5))
    for _ in range(8):
        follower.update(reading(A))
    steps = [follower.update(reading(B)) for _ in range(5)]
    assert [s.new_hand for s in steps] == [False] * 4 + [True]
    assert steps[-1].hand == 2 and steps[-1].locked.codes == B


def test_the_same_hand_locking_again_after_an_unlock_is_not_new():
    follower = Follower(HandLock(window=8, agree=5))
    for _ in range(8):
        follower.update(reading(A))
    steps = [follower.update(reading([])) for _ in range(8)]
    assert steps[-1].locked is None and steps[-1].hand == 1
    steps = [follower.update(reading(A)) for _ in range(8)]
    assert any(s.locked is not None for s in steps)
    assert not any(s.new_hand for s in steps) and steps[-1].hand == 1


def test_desktop_follow_yields_each_new_hand_once_with_its_count():
    frames = [A] * 8 + [[]] * 3 + [A] * 6 + [A[:2]] * 2 + [B] * 8
    looks = [A, [], A[:2], B]  # each a picture of its own, the same whenever it is in view
    images = [np.full((4, 4, 3), 80 * looks.index(codes), np.uint8) for codes in frames]
    shown = []

    def read(image):  # the reader takes the last card for the starter
        codes = looks[int(image[0, 0, 0]) // 80]
        return reading(codes, starter=codes[-1] if codes else None)

    def on_frame(frame, seen, locked):
        shown.append(None if locked is None else locked["count"]["total"])
        return True

    hands = list(follow(iter(images), read, HandLock(8, 5), 10.0,
                        {"starter": None, "crib": False, "claim": None, "variant": "six-card"},
                        on_frame))
    assert [hand.frame for hand in hands] == [4, 23]
    assert hands[0].seconds == 0.4
    assert hands[0].report["count"]["total"] == score_hand(A[:4], "5D").total == 29
    assert hands[1].report["count"]["total"] == score_hand(B[:4], "KD").total
    assert [c["card"] for c in hands[1].report["cards"]] == B
    assert shown[:4] == [None] * 4 and shown[4] == 29
    assert shown[-1] == score_hand(B[:4], "KD").total and len(shown) == len(frames)


def test_desktop_follow_stops_when_the_window_is_closed():
    images = iter([np.zeros((4, 4, 3), np.uint8)] * 20)
    calls = []

    def on_frame(frame, seen, locked):
        calls.append(1)
        return len(calls) < 3

    hands = list(follow(images, lambda image: reading([]), HandLock(), 30.0,
                        {"starter": None, "crib": False, "claim": None, "variant": "six-card"},
                        on_frame))
    assert hands == [] and len(calls) == 3


def test_a_hand_does_not_lock_on_a_card_unsure_in_most_frames_and_says_which():
    follower = Follower(HandLock(window=8, agree=5))
    steps = [follower.update(reading(A, unsure={"JD"} if i % 4 else set())) for i in range(8)]
    assert all(s.locked is None for s in steps)
    assert steps[-1].unsure == ("JD",) and steps[-1].hand == 0
    # Once the card reads surely in most frames, the hand locks.
    for _ in range(5):
        step = follower.update(reading(A))
    assert step.locked is not None and step.locked.codes == A and step.unsure == ()


def test_a_card_read_unsure_but_alike_frame_after_frame_locks_once_steady_and_stays_marked():
    from cribcam.live.follow import STEADY_WINDOWS

    follower = Follower(HandLock(window=8, agree=5))
    steady = STEADY_WINDOWS * 8
    steps = [follower.update(reading(A, unsure={"JD"})) for _ in range(steady)]
    assert all(s.locked is None for s in steps[:-1])
    assert all(s.unsure == ("JD",) for s in steps[4:-1])  # from the fifth frame, when it would lock
    assert steps[-1].new_hand and steps[-1].unsure == () and steps[-1].hand == 1
    assert [c.card for c in steps[-1].locked.cards if c.unsure] == ["JD"]  # the player confirms it


def test_a_hand_whose_reading_flickers_does_not_lock_on_its_unsure_card():
    follower = Follower(HandLock(window=8, agree=5))
    other = A[:-1]  # a frame now and then that misses a card breaks the run
    steps = [follower.update(reading(other if i % 5 == 4 else A, unsure={"JD"})) for i in range(40)]
    assert all(s.locked is None for s in steps) and steps[-1].unsure == ("JD",)


def test_a_card_unsure_now_and_then_does_not_hold_the_lock():
    follower = Follower(HandLock(window=8, agree=5))
    steps = [follower.update(reading(A, unsure={"JD"} if i == 2 else set())) for i in range(5)]
    assert steps[-1].locked is not None and steps[-1].new_hand
