"""Benchmark the counting core: full enumeration (hand and crib) and single-hand scoring.

Run: python bench/bench_scoring.py [--repeats 5]
Targets (2-core machine): `cribcam stats` under 2 s wall-clock as a user runs it (a fresh
process: start-up, imports and tables included), score_hand under 50 us.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import subprocess
import sys
import time

from cribcam.scoring import CARD_CODES, score_hand
from cribcam.scoring.stats import distribution


def time_stats_command(crib: bool, repeats: int) -> list[float]:
    """Wall-clock seconds of `cribcam stats`, each run a fresh process as a user starts it."""
    command = [sys.executable, "-m", "cribcam", "stats", *(["--crib"] if crib else [])]
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        seconds.append(time.perf_counter() - start)
    return seconds


def time_enumeration(crib: bool, repeats: int) -> tuple[float, float]:
    """Seconds for the first (cold) run in this process and the median of the warm ones."""
    cold = distribution(crib=crib).seconds
    warm = statistics.median(distribution(crib=crib).seconds for _ in range(repeats))
    return cold, warm


def time_score_hand(hands: int) -> float:
    """Median microseconds per itemized ``score_hand`` over batches of random deals."""
    rng = random.Random(0)
    deals = [rng.sample(CARD_CODES, 5) for _ in range(hands)]
    per_call = []
    for batch in range(0, hands, 1000):
        chunk = deals[batch:batch + 1000]
        start = time.perf_counter()
        for cards in chunk:
            _ = score_hand(cards[:4], cards[4]).total  # the total, computed as a caller asks for it
        per_call.append((time.perf_counter() - start) / len(chunk) * 1e6)
    return statistics.median(per_call)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--hands", type=int, default=50_000)
    args = parser.parse_args()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}")
    for crib in (False, True):
        runs = time_stats_command(crib, args.repeats)
        print(f"cribcam stats{' --crib' if crib else ''}, fresh process: median "
              f"{statistics.median(runs):.2f} s wall-clock, slowest {max(runs):.2f} s "
              f"of {args.repeats} (load average {os.getloadavg()[0]:.1f})")
        cold, warm = time_enumeration(crib, args.repeats)
        print(f"stats {'--crib' if crib else '(hand)'}: first run {cold:.2f} s, "
              f"then median {warm:.2f} s of {args.repeats}")
    print(f"score_hand: median {time_score_hand(args.hands):.1f} us per hand "
          f"({args.hands} random deals)")


if __name__ == "__main__":
    main()
