"""Locking onto a hand: the count appears once the same cards are read in most recent frames.

A reading flickers: a card missed in one frame, a misread in another. The lock holds a hand
once one card set has been read in ``agree`` of the last ``window`` frames, and lets go only
when another set has, or when the locked set has faded from most of the window, so a single
odd frame never changes a locked count.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass


@dataclass(frozen=True)
class LockState:
    """Where the lock stands after a frame.

    Attributes:
        cards: the locked card set, or None while nothing is locked.
        changed: this frame locked a new hand or let one go.
    """

    cards: frozenset[str] | None
    changed: bool


class HandLock:
    """Follows the card sets read frame by frame.

    Args:
        window: how many recent frames are considered.
        agree: how many of them must show the same cards to lock.
    """

    def __init__(self, window: int = 8, agree: int = 5):
        if not 0 < agree <= window:
            raise ValueError(f"agree must be 1 to window ({window}), not {agree}")
        self.window, self.agree = window, agree
        self.recent: deque[frozenset[str]] = deque(maxlen=window)
        self.cards: frozenset[str] | None = None

    def update(self, cards) -> LockState:
        """Adds one frame's cards and says what is locked now."""
        self.recent.append(frozenset(cards))
        leader, votes = Counter(self.recent).most_common(1)[0]
        before = self.cards
        if votes >= self.agree and leader:
            self.cards = leader
        elif self.cards is not None and self.recent.count(self.cards) < self.window - self.agree:
            self.cards = None  # the locked hand is mostly gone and nothing new has settled
        return LockState(self.cards, self.cards != before)
