"""Memory the server freed, given back to the system."""

from __future__ import annotations

import ctypes
import ctypes.util


def release_free_memory() -> None:
    """Hands the C heap's free memory back to the system (glibc's ``malloc_trim``).

    Teaching a deck works through hundreds of MB of crops and model runs in a thread of its
    own, and glibc keeps what that thread freed in its arena for later: the server grew with
    every deck taught (``bench/server_memory.py``). Does nothing where the C library has no
    ``malloc_trim`` (macOS, musl).
    """
    try:
        trim = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return
    trim(0)
