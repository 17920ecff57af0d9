"""Benchmark of the tournament core: the seating draw's time and quality, and the standings.

    python -m bench.tournament_draw                # from the repository root, about 1 min
    python -m bench.tournament_draw --quick        # one run of each, about 20 s of CPU
    python -m bench.tournament_draw --repeat 5 --seeds 5
    python -m bench.tournament_draw --against main # and the draw of another commit, side by side

Three parts, all pure (app/tournaments/draw.py and scoring.py; no database, no HTTP):

- ``draw time``: one draw of 120 players at 3-player, 4-player and mixed 3/4 tables, plain and
  Swiss, after 0 to 9 rounds of history (and of 600 players, the service's largest field, at
  mixed tables after 0 to 4 rounds, one run) (each round drawn by the draw itself and fed back, the
  Swiss standing from random zero-sum results at the tables); the slowest round and each round's
  time, best of ``--repeat``. Targets (issue 36): a 600-entrant Swiss draw in at most 1 s of CPU
  in its slowest round, a 120-player one too. ``history_of`` (the history rebuilt from the rounds
  so far, what the service does before a draw) is timed apart. With ``--against REV`` the draw of
  app/tournaments/draw.py at that commit is timed too, on the same inputs round after round,
  and each round's seatings compared (the draw's speed-ups keep its seatings).
- ``quality``: repeated meetings per round (pairs seated together who had met before) for 9,
  24 and 120 players over 10 rounds, each size of table, plain and Swiss; the worst and the best
  over ``--seeds`` tournaments.
- ``standings``: ``standings()`` of a 200-player, 10-round tournament (64 tables of 3 and 2 of 4
  a round, random zero-sum balances) under each scoring; p50 and the best of ``--repeat`` × 10
  calls. The service's end-to-end figure (reads and answer included) is measured apart.

Times are CPU time of this process (``time.process_time``): the machine is shared, and
wall-clock figures swing with whatever else runs on it. Results go to
``bench/results/tournament-<time>-<commit>.json``, the targets through bench/targets.py.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import time
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from app.tournaments.draw import Seating, draw, history_of, repeated_meetings
from app.tournaments.scoring import TRANSFORMS, Scoring, TableResult, standings
from bench.targets import Figure, report

REPO = Path(__file__).resolve().parent.parent
TARGET_S = 1.0
SIZES = {"3": frozenset({3}), "4": frozenset({4}), "3/4": frozenset({3, 4})}
WHISTS = Scoring("whists")


def names(count: int) -> list[str]:
    return [f"p{i:03}" for i in range(count)]


def random_results(seating: Seating, number: int, rng: random.Random) -> list[TableResult]:
    """Zero-sum integer balances for each table of a round."""
    out = []
    for index, table in enumerate(seating.tables, 1):
        values = [rng.randrange(-300, 301) for _ in table[1:]]
        values.insert(0, -sum(values))
        out.append(TableResult(number, index, {p: Fraction(v) for p, v in zip(table, values)}))
    return out


@dataclass
class Run:
    """A tournament's rounds and each round's CPU seconds (of the other draw too, if any)."""

    seatings: list[Seating] = field(default_factory=list)
    draw_s: list[float] = field(default_factory=list)
    history_s: list[float] = field(default_factory=list)
    against_s: list[float] = field(default_factory=list)
    same: bool = True  # the other draw seated every round alike


def tournament(
    players: list[str],
    sizes: frozenset[int],
    rounds: int,
    seed: int,
    swiss: bool,
    against: Callable[..., Any] | None = None,
) -> Run:
    """Draw ``rounds`` rounds in a row, each fed back; ``against`` draws each round too."""
    rng = random.Random(seed)
    run = Run()
    results: list[TableResult] = []
    for number in range(rounds):
        start = time.process_time()
        history = history_of(run.seatings)
        run.history_s.append(time.process_time() - start)
        order = [s.player for s in standings(WHISTS, players, results)] if swiss else None
        start = time.process_time()
        seating = draw(players, sizes, history, seed=seed * 1000 + number, swiss=order)
        run.draw_s.append(time.process_time() - start)
        if against is not None:
            start = time.process_time()
            theirs = against(players, sizes, history, seed=seed * 1000 + number, swiss=order)
            run.against_s.append(time.process_time() - start)
            run.same &= (theirs.tables, theirs.byes) == (seating.tables, seating.byes)
        run.seatings.append(seating)
        results += random_results(seating, number + 1, rng)
    return run


def draw_at(rev: str) -> Callable[..., Any]:
    """The draw function of app/tournaments/draw.py at commit ``rev`` (its own module)."""
    source = subprocess.run(
        ["git", "-C", str(REPO), "show", f"{rev}:app/tournaments/draw.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    module = types.ModuleType(f"draw_at_{rev.replace('-', '_')}")
    sys.modules[module.__name__] = module  # its dataclasses look their module up
    exec(compile(source, f"{rev}:app/tournaments/draw.py", "exec"), module.__dict__)
    return module.draw


def quality(seatings: list[Seating]) -> list[int]:
    return [repeated_meetings(s, history_of(seatings[:n])) for n, s in enumerate(seatings)]


def time_draws(repeat: int, against: Callable[..., Any] | None) -> list[dict[str, Any]]:
    rows = []
    # 120 players, every table size, 10 rounds; then the largest field the service takes
    # (600 entrants) at mixed tables, 5 rounds, once
    cases = [(120, label, sizes, 10, repeat) for label, sizes in SIZES.items()] + [
        (600, "3/4", SIZES["3/4"], 5, 1)
    ]
    for players, label, sizes, rounds, runs in cases:
        for swiss in (False, True):
            best_draw = [float("inf")] * rounds
            best_history = [float("inf")] * rounds
            best_against = [float("inf")] * rounds
            same = True
            for attempt in range(runs):
                gc.collect()
                run = tournament(names(players), sizes, rounds, seed=attempt, swiss=swiss, against=against)
                best_draw = [min(a, b) for a, b in zip(best_draw, run.draw_s)]
                best_history = [min(a, b) for a, b in zip(best_history, run.history_s)]
                best_against = [min(a, b) for a, b in zip(best_against, run.against_s)]
                same &= run.same
            row = {
                "players": players,
                "tables": label,
                "swiss": swiss,
                "runs": runs,
                "draw_s": best_draw,
                "history_of_s": best_history,
                "slowest_s": max(best_draw),
            }
            other = ""
            if against is not None:
                row |= {"against_s": best_against, "against_slowest_s": max(best_against), "same": same}
                other = f"{max(best_against):>9.3f} {'same' if same else 'DIFFERENT':>9} "
            rows.append(row)
            print(
                f"{players:>7} {label:>6} {'swiss' if swiss else 'plain':>6} {max(best_draw):>9.3f} {other}"
                f"{max(best_history):>10.4f}  " + " ".join(f"{s:.3f}" for s in best_draw)
            )
    return rows


def measure_quality(seeds: int) -> list[dict[str, Any]]:
    rows = []
    for players in (9, 24, 120):
        for label, sizes in SIZES.items():
            for swiss in (False, True):
                per_seed = [
                    quality(tournament(names(players), sizes, 10, seed=s, swiss=swiss).seatings)
                    for s in range(seeds)
                ]
                worst = [max(q[n] for q in per_seed) for n in range(10)]
                best = [min(q[n] for q in per_seed) for n in range(10)]
                rows.append(
                    {"players": players, "tables": label, "swiss": swiss, "worst": worst, "best": best}
                )
                print(
                    f"{players:>7} {label:>6} {'swiss' if swiss else 'plain':>6}  "
                    f"{' '.join(f'{w:>3}' for w in worst)}   (best {' '.join(str(b) for b in best)})"
                )
    return rows


def time_standings(repeat: int) -> list[dict[str, Any]]:
    players = names(200)
    rng = random.Random(7)
    seatings = tournament(players, frozenset({3, 4}), 10, seed=7, swiss=False).seatings
    results = [r for n, s in enumerate(seatings, 1) for r in random_results(s, n, rng)]
    scorings = {
        "whists": WHISTS,
        "whists+gambler_ru": Scoring("whists", transform=TRANSFORMS["gambler_ru"]),
        "whists+playelephant_lt": Scoring("whists", transform=TRANSFORMS["playelephant_lt"]),
        "places": Scoring("places"),
    }
    rows = []
    for label, scoring in scorings.items():
        times = []
        for _ in range(repeat * 10):
            start = time.process_time()
            standings(scoring, players, results)
            times.append(time.process_time() - start)
        rows.append(
            {
                "scoring": label,
                "p50_ms": statistics.median(times) * 1e3,
                "best_ms": min(times) * 1e3,
                "tables": len(results),
            }
        )
        print(f"{label:<24}{statistics.median(times) * 1e3:>9.2f}{min(times) * 1e3:>9.2f}")
    return rows


def commit_of() -> str:
    try:
        rev = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
        return (rev or "unknown") + ("-dirty" if dirty else "")
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.tournament_draw", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--repeat", type=int, default=3, help="timed runs, the best is shown (default 3)")
    parser.add_argument("--seeds", type=int, default=3, help="tournaments per quality row (default 3)")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results", help="where the JSON goes")
    parser.add_argument(
        "--quick", action="store_true", help="one timed run and one quality seed (about 20 s of CPU)"
    )
    parser.add_argument(
        "--against", metavar="REV", help="also time the draw at this commit on the same inputs, side by side"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.repeat, args.seeds = 1, 1
    against = draw_at(args.against) if args.against else None

    started = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    commit = commit_of()
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3]) if Path("/proc/loadavg").exists() else "?"
    print(
        f"prefscore tournament core at {commit}, {started}, Python {sys.version.split()[0]}, "
        f"load {load}, {os.cpu_count()} cores"
    )
    print(
        f"\n## draw time: CPU s per round after 0..9 rounds (600 players: 0..4), best of {args.repeat} (600: 1)"
    )
    other = f"{'at ' + args.against:>9} {'seatings':>9} " if against else ""
    print(f"{'players':>7} {'tables':>6} {'draw':>6} {'slowest':>9} {other}{'history_of':>10}  rounds 1..10")
    draws = time_draws(args.repeat, against)
    slowest = max(r["slowest_s"] for r in draws)
    print(
        f"slowest draw: {slowest:.3f} s ({'within' if slowest < TARGET_S else 'OVER'} the {TARGET_S:.0f} s target)"
    )
    print(f"\n## quality: repeated meetings in rounds 1..10, worst over {args.seeds} tournaments")
    print(f"{'players':>7} {'tables':>6} {'draw':>6}  rounds 1..10")
    quality_rows = measure_quality(args.seeds)
    print(f"\n## standings(): 200 players, 10 rounds, ms per call over {args.repeat * 10} calls")
    print(f"{'scoring':<24}{'p50':>9}{'best':>9}")
    standings_rows = time_standings(args.repeat)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"tournament-{started}-{commit}.json"
    path.write_text(
        json.dumps(
            {
                "commit": commit,
                "started": started,
                "load": load,
                "python": sys.version.split()[0],
                "draw_time": draws,
                "quality": quality_rows,
                "standings": standings_rows,
            },
            indent=1,
        )
        + "\n"
    )
    print(f"\nresults: {path}")
    report_targets(draws, args.against)
    return 0


def report_targets(draws: list[dict[str, Any]], against: str | None) -> None:
    """Issue 36's target: the slowest round of a 600-entrant Swiss draw; 120 players alongside."""
    swiss = [r for r in draws if r["swiss"]]
    large = max(r["slowest_s"] for r in swiss if r["players"] == 600)
    small = max(r["slowest_s"] for r in swiss if r["players"] == 120)
    extra: dict[str, object] = {}
    if against is not None:
        extra = {
            "against": against,
            "against_600_swiss_s": max(r["against_slowest_s"] for r in swiss if r["players"] == 600),
            "against_120_swiss_s": max(r["against_slowest_s"] for r in swiss if r["players"] == 120),
            "same_seatings": all(r["same"] for r in draws),
        }
        print(
            f"at {against}: 600-entrant Swiss {extra['against_600_swiss_s']:.3f} s, "
            f"120-player Swiss {extra['against_120_swiss_s']:.3f} s; "
            f"seatings {'the same' if extra['same_seatings'] else 'DIFFERENT'} in every round"
        )
    report(
        "tournament_draw",
        [
            Figure("600-entrant Swiss draw, worst round CPU", large, TARGET_S, at_least=False, unit=" s"),
            Figure("120-player Swiss draw, worst round CPU", small, TARGET_S, at_least=False, unit=" s"),
        ],
        extra,
    )


if __name__ == "__main__":
    raise SystemExit(main())
