"""The machine's own speed, read beside the benchmarks: a fixed pure-Python loop, best of five
runs, in million steps a second. The figures that are CPU time (webhooks' CPU per delivery, the
draw, a post's server CPU) move with it; on a shared machine it moved by a factor of two
between two sittings of the same code (docs/performance.md), so ``bench/run --all`` reads it
before and after every benchmark and says when a sitting's speed did not hold still.

    python -m bench.machine        # one reading
"""

from __future__ import annotations

import time

STEPS = 1_000_000
RUNS = 5
# Spread (the fastest reading over the slowest) above which a sitting is called unsteady.
STEADY_SPREAD = 1.15


def _loop(steps: int) -> int:
    total = 0
    for k in range(steps):
        total += k & 7
    return total


def speed() -> float:
    """Million loop steps a second: the best of ``RUNS`` runs (the least disturbed one)."""
    best = float("inf")
    for _ in range(RUNS):
        start = time.perf_counter()
        _loop(STEPS)
        best = min(best, time.perf_counter() - start)
    return STEPS / best / 1e6


def spread(readings: list[float]) -> float:
    return max(readings) / min(readings) if readings else 1.0


if __name__ == "__main__":
    print(f"{speed():.2f} million loop steps a second")
