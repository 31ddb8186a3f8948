"""Benchmark the discard advisor: expected hands for every way to lay away, and the full advice.

Run: python bench/bench_discard.py [--deals 40]
Targets (2-core machine): the expected hand of all 15 discards of six cards within 20 ms;
the full advice, cribs included, within 500 ms. "First call" includes building the lookup
tables in this process, as a fresh `cribcam discard` does.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time

from cribcam.scoring import CARD_CODES
from cribcam.scoring.discard import advise, dealt_cards, expected_hand, lay_aways, unseen_cards


def hand_values(cards: list[str], variant: str) -> list[float]:
    """The expected hand of every way to lay away ``cards`` (what the 20 ms target times)."""
    dealt = dealt_cards(cards, variant)
    unseen = unseen_cards(dealt)
    return [expected_hand(keep, unseen) for _, keep in lay_aways(dealt, variant)]


def milliseconds(work, deals: list[list[str]]) -> tuple[float, float]:
    """Median and 90th percentile of ``work(deal)`` over the deals, in milliseconds."""
    times = []
    for deal in deals:
        start = time.perf_counter()
        work(deal)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), statistics.quantiles(times, n=10)[-1]


def load() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=40, help="random deals timed per case")
    args = parser.parse_args()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}; load average {load()}")
    rng = random.Random(0)

    start = time.perf_counter()
    advise(rng.sample(CARD_CODES, 6))
    print(f"first call (tables built): {(time.perf_counter() - start) * 1000:.0f} ms")

    cases = [("six cards, two players", 6, "six-card", 20),
             ("five cards, three or four players", 5, "six-card", None),
             ("five-card cribbage", 5, "five-card", None)]
    for name, dealt, variant, hand_target in cases:
        deals = [rng.sample(CARD_CODES, dealt) for _ in range(args.deals)]
        advise(deals[0], variant=variant)  # this variant's tables
        median, p90 = milliseconds(lambda d: hand_values(d, variant), deals)
        target = f" (target {hand_target} ms)" if hand_target else ""
        print(f"{name}: expected hands, every option: median {median:.1f} ms, "
              f"p90 {p90:.1f} ms{target}")
        median, p90 = milliseconds(lambda d: advise(d, dealer=True, variant=variant), deals)
        target = " (target 500 ms)" if hand_target else ""
        print(f"{name}: full advice: median {median:.0f} ms, p90 {p90:.0f} ms{target}")
    print(f"load average at the end: {load()}")


if __name__ == "__main__":
    main()
