import pytest

from cribcam.live.lock import HandLock

A = {"5H", "5C", "5S", "JD", "5D"}
B = {"2C", "3D", "4S", "9H", "KD"}


def feed(lock, frames):
    return [lock.update(f) for f in frames]


def test_locks_after_enough_agreeing_frames():
    lock = HandLock(window=8, agree=5)
    states = feed(lock, [A] * 5)
    assert [s.cards for s in states[:4]] == [None] * 4
    assert states[4].cards == A and states[4].changed


def test_one_odd_frame_never_changes_a_locked_hand():
    lock = HandLock(window=8, agree=5)
    feed(lock, [A] * 8)
    for odd in ({"5H", "5C"}, B, set()):
        state = lock.update(odd)
        assert state.cards == A and not state.changed
        feed(lock, [A] * 3)


def test_follows_a_new_hand():
    lock = HandLock(window=8, agree=5)
    feed(lock, [A] * 8)
    states = feed(lock, [B] * 5)
    assert states[-1].cards == B and states[-1].changed
    assert all(s.cards == A for s in states[:-1])


def test_unlocks_when_the_table_is_cleared():
    lock = HandLock(window=8, agree=5)
    feed(lock, [A] * 8)
    states = feed(lock, [set()] * 8)
    assert states[-1].cards is None
    assert sum(s.changed for s in states) == 1


def test_empty_table_never_locks():
    assert HandLock().update(set()).cards is None


def test_bad_settings():
    with pytest.raises(ValueError):
        HandLock(window=3, agree=5)
