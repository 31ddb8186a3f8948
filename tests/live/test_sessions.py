"""The live page's sessions: one follower per camera, bounded, expiring, one frame at a time."""

from __future__ import annotations

import pytest

from cribcam.live.sessions import LiveSessions, SessionBusy


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_an_unknown_or_missing_id_opens_a_new_session_and_a_known_one_is_kept():
    sessions = LiveSessions(clock=Clock())
    first_id, first = sessions.open(None)
    again_id, again = sessions.open(first_id)
    assert again_id == first_id and again is first
    other_id, other = sessions.open("not-a-session")
    assert other_id not in (first_id, "not-a-session") and other is not first
    assert len(sessions) == 2 and len(first_id) >= 20


def test_sessions_are_forgotten_when_idle():
    clock = Clock()
    sessions = LiveSessions(idle_seconds=60, clock=clock)
    old_id, old = sessions.open(None)
    clock.now += 30
    kept_id, _ = sessions.open(None)
    clock.now += 40  # old: idle 70 s; kept: 40 s
    assert len(sessions) == 1
    new_id, new = sessions.open(old_id)
    assert new_id != old_id and new is not old
    assert sessions.open(kept_id)[0] == kept_id


def test_the_store_is_bounded_and_the_longest_idle_makes_room():
    clock = Clock()
    sessions = LiveSessions(max_sessions=3, clock=clock)
    ids = []
    for _ in range(3):
        ids.append(sessions.open(None)[0])
        clock.now += 1
    sessions.open(ids[0])  # used again: now the most recent
    clock.now += 1
    sessions.open(None)
    assert len(sessions) == 3
    assert sessions.open(ids[0])[0] == ids[0]
    assert sessions.open(ids[1])[0] != ids[1]  # the longest idle was dropped


def test_a_session_reads_one_frame_at_a_time_and_counts_them():
    _, session = LiveSessions().open(None)
    with session.reading():
        with pytest.raises(SessionBusy, match="still being read"):
            with session.reading():
                pass
    with session.reading():
        pass
    assert session.frames == 2


def test_sessions_follow_with_their_own_lock_settings():
    sessions = LiveSessions(window=4, agree=2)
    _, session = sessions.open(None)
    assert (session.follower.lock.window, session.follower.lock.agree) == (4, 2)


def test_bad_settings_are_refused_at_once():
    with pytest.raises(ValueError):
        LiveSessions(max_sessions=0)
    with pytest.raises(ValueError):
        LiveSessions(window=3, agree=5)
