"""Waiting in the tests: for a condition, with a deadline. The one file of the suite that sleeps.

A test never sleeps to let something happen (tests/test_suite_rules.py says so): it waits
for what it needs, here or with Playwright's own waiting (``expect``, ``wait_for_function``),
and a busy machine only makes it slower, never wrong. ``stays_false`` is the one fixed wait,
for the things a test asserts do NOT happen.

A Playwright page's events (its requests, and the tests' routes that pass them on) are
handled only while the test's thread is in a Playwright call: waiting on a page, pass
``pause=in_page(page)`` so that the page goes on meanwhile.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(condition: Callable[[], T], timeout: float = 10.0, step: float = 0.05,
               pause: Callable[[float], object] = time.sleep,
               message: str | Callable[[], str] | None = None) -> T:
    """Checks ``condition()`` every ``step`` seconds until it is true, and returns its value.

    Raises:
        AssertionError: ``timeout`` seconds passed first; it says ``message`` (called, when
            it is a function, to say how things stand then).
    """
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            said = message() if callable(message) else message
            raise AssertionError(f"not within {timeout:g} s: {said or getattr(condition, '__name__', condition)}")
        pause(step)


def stays_false(condition: Callable[[], object], seconds: float, step: float = 0.05,
                pause: Callable[[float], object] = time.sleep) -> bool:
    """Whether ``condition()`` stays false for ``seconds``, checked every ``step`` seconds: for
    asserting that something does NOT happen (within that time). Returns False as soon as it
    comes true. Never use it to wait for something to happen: that is ``wait_until``."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() >= deadline:
            return True
        pause(step)
    return False


def in_page(page) -> Callable[[float], None]:
    """A ``pause`` that waits in a Playwright ``page``, which handles its events meanwhile."""
    return lambda seconds: page.wait_for_timeout(seconds * 1000)
