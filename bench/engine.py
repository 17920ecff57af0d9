"""Benchmark of the rules engine: score a 1,000-deal mixed log for each convention.

    python -m bench.engine                 # from the repository root
    python -m bench.engine --deals 5000 --repeat 5 --seed 7

For each convention and table size it generates one log with ``tests.support.deallog``
(fixed seed; every deal valid by docs/rules.md, a mix of contracts, all-passes,
misères and remises with their defences and choices) and times, best of
``--repeat`` runs:

- ``apply``: ``apply_deal`` deal after deal from a new table (what posting a deal costs);
- ``replay``: ``replay`` of the whole log (what an undo or a correction costs).

Two log shapes are measured, and the output says which is which:

- ``one table``: pool target 10,000, so that the 1,000 deals never end the game;
- ``new tables``: the convention's default pool target; when a table finishes
  (or a races match ends) the log goes on at a new table, until 1,000 deals in
  all — this exercises overflow, the end of game and the races game rollover.

Deal bodies are parsed once, before timing (``Deal.from_dict`` is timed apart as ``parse``).
Times are the process's CPU time (``time.process_time``), best of the runs: this machine
is shared, and wall-clock figures swing with whatever else runs on it.
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
from typing import Any

from app.rules import Deal, TableState, apply_deal, make_rules, replay
from tests.support.deallog import CONVENTIONS, generate_log

TARGET_US = 25.0


def _tables(
    convention: str, players: int, deals: int, seed: int, shape: str
) -> list[tuple[Any, int, list[dict], list[Deal]]]:
    """(rules, first dealer, bodies, deals) per table, ``deals`` deals in all."""
    rng = random.Random(f"{seed}/{convention}/{players}/{shape}")
    target = 10_000 if shape == "one table" else None
    rules = make_rules(convention, players, target)
    out = []
    left = deals
    while left > 0:
        log = generate_log(rules, rng.randrange(players), rng, left)
        if not log.deals:
            break
        out.append((rules, log.first_dealer, log.bodies, log.deals))
        left -= len(log.deals)
        if shape == "one table" and left > 0:
            raise RuntimeError(f"{convention}: the table finished after {len(log.deals)} deals")
    return out


def _once(fn) -> float:
    gc.collect()  # cheap: the logs were frozen out of the collector (gc.freeze)
    gc.disable()
    try:
        start = time.process_time()
        fn()
        return time.process_time() - start
    finally:
        gc.enable()


class Row:
    """One convention, table size and log shape: its logs and the timed functions."""

    def __init__(self, convention: str, players: int, deals: int, seed: int, shape: str):
        self.convention, self.players, self.shape = convention, players, shape
        self.tables = _tables(convention, players, deals, seed, shape)
        self.count = sum(len(t[3]) for t in self.tables)
        # the timed runs must score what the generator scored
        for rules, first, _, log in self.tables:
            assert len(replay(rules, first, log).entries) == len(log)
        self.best = {"apply": float("inf"), "replay": float("inf"), "parse": float("inf")}

    def stepwise(self) -> None:
        for rules, first, _, log in self.tables:
            state = TableState.new(rules, first)
            for deal in log:
                state = apply_deal(rules, state, deal).state

    def fold(self) -> None:
        for rules, first, _, log in self.tables:
            replay(rules, first, log)

    def parse(self) -> None:
        for _, _, bodies, _ in self.tables:
            for body in bodies:
                Deal.from_dict(body)

    def run_once(self) -> None:
        for name, fn in (("apply", self.stepwise), ("replay", self.fold), ("parse", self.parse)):
            self.best[name] = min(self.best[name], _once(fn))

    def us(self, name: str) -> float:
        return self.best[name] / self.count * 1e6

    def per_s(self, name: str) -> float:
        return self.count / self.best[name]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.engine", description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=1000, help="deals per log (default 1000)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs, the best is shown (default 3)")
    parser.add_argument("--seed", type=int, default=2, help="seed of the deal logs (default 2)")
    parser.add_argument("--convention", action="append", choices=CONVENTIONS, help="only these (repeatable)")
    args = parser.parse_args(argv)

    print(
        f"prefscore rules engine: {args.deals}-deal mixed logs, seed {args.seed}, best of {args.repeat}, "
        f"Python {sys.version.split()[0]}"
    )
    print("one table  = pool target 10,000, the game never ends inside the log")
    print("new tables = default pool target, a new table (or races match) whenever one finishes")
    print("times are CPU time of this process per deal, best of the rounds (each round times every row once)")
    header = (
        f"{'convention':<16}{'n':>2} {'log':<11}{'tables':>6}{'deals':>7}"
        f"{'apply µs':>10}{'deals/s':>10}{'replay µs':>11}{'deals/s':>10}{'parse µs':>10}"
    )
    print(header)
    print("-" * len(header))
    started = time.perf_counter()
    rows = [
        Row(convention, players, args.deals, args.seed, shape)
        for convention in args.convention or CONVENTIONS
        for players in ((4,) if convention == "piter_races" else (3, 4))
        for shape in ("one table", "new tables")
    ]
    gc.collect()
    gc.freeze()
    # rounds over all rows, so that each row's runs are spread over the whole benchmark
    for _ in range(args.repeat):
        for row in rows:
            row.run_once()
    worst = 0.0
    for r in rows:
        worst = max(worst, r.us("apply"), r.us("replay"))
        print(
            f"{r.convention:<16}{r.players:>2} {r.shape:<11}{len(r.tables):>6}{r.count:>7}"
            f"{r.us('apply'):>10.1f}{r.per_s('apply'):>10,.0f}{r.us('replay'):>11.1f}"
            f"{r.per_s('replay'):>10,.0f}{r.us('parse'):>10.1f}"
        )
    verdict = "within" if worst < TARGET_US else "OVER"
    print(
        f"slowest: {worst:.1f} µs per deal ({verdict} the {TARGET_US:.0f} µs target); "
        f"total {time.perf_counter() - started:.1f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
