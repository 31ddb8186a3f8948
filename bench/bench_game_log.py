"""Benchmark adding an entry to a kept game as its log grows (issue 46: every entry replayed
the whole log and deep-copied the state, so entry 500 took 1.3 s on SQLite).

Run: python bench/bench_game_log.py [--db URL] [--entries 1000]
Target: adding entry 1,000 no slower than entry 10 (2x), on SQLite (a file in a temporary
folder by default) and on PostgreSQL (--db postgresql://...).

The game cycles through deals whose counts score nothing (a deal, then three shows claimed
0), so that it runs to any length without ending.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import tempfile
import time

from cribcam.game import Setup
from cribcam.game.store import GameStore

CYCLE = [{"type": "deal", "starter": "5S"}, {"type": "show", "claim": 0},
         {"type": "show", "claim": 0}, {"type": "show", "claim": 0}]
MEASURED = (10, 100, 500, 1000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="a database URL (default: SQLite in a temporary folder)")
    parser.add_argument("--entries", type=int, default=1000)
    args = parser.parse_args()
    url = args.db or f"sqlite:///{tempfile.mkdtemp()}/games.sqlite3"
    store = GameStore(url)
    game_id = store.create(Setup(("A", "B")))
    seconds = {}
    for number in range(1, args.entries + 1):
        start = time.perf_counter()
        store.add(game_id, CYCLE[(number - 1) % len(CYCLE)])
        seconds[number] = time.perf_counter() - start
    print(f"{platform.processor() or platform.machine()}, {url.split(':')[0]}")
    for number in (n for n in MEASURED if n <= args.entries):
        around = [seconds[n] for n in range(max(1, number - 9), number + 1)]  # the 10 up to it
        print(f"entry {number:>5}: {statistics.median(around) * 1000:.1f} ms (median of entries "
              f"{max(1, number - 9)}-{number})")


if __name__ == "__main__":
    main()
