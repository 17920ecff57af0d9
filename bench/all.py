"""Every benchmark that holds a target, one after the other, and all their targets in one table.

    bench/run --all            # = python -m bench.all; both databases, every benchmark's own length
    bench/run --all --quick    # each benchmark's quick mode
    bench/run --all --only http physical

Each benchmark writes its figures through bench/targets.py; this runs them in turn (each in its
own process, nothing else of this run's beside it), then reads the figures they wrote and prints
one table, PASS or FAIL per target, and writes it as ``bench/results/targets-all-<time>-<commit>.json``.
A benchmark that fails is reported as such and the others still run.

The machine's speed (bench/machine.py) is read before the first benchmark and after each one;
when its readings spread by more than 15 % the sitting is called unsteady: the table says so,
the JSON records every reading, and the exit status is 3 (``--accept-unsteady``: 0), so that no
CPU-bound figure of a moving machine is read as the code's.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

from bench import machine
from bench.targets import REPO, RESULTS, commit, judged

PYTHON = sys.executable

# name: (arguments of a full run, arguments of a quick run); each a ``python -m`` module.
STEPS: dict[str, tuple[list[str], list[str]]] = {
    "http": (["bench.http", "--rounds", "3"], ["bench.http", "--quick"]),
    "physical": (["bench.physical"], ["bench.physical", "--quick"]),
    "standings": (["bench.tournaments", "--db", "both"], ["bench.tournaments", "--db", "both", "--quick"]),
    "public_views": (
        ["bench.public_views", "--db", "both"],
        ["bench.public_views", "--db", "both", "--quick"],
    ),
    # The streams' targets are for 10,000 streams, even in a quick run (about 2 minutes).
    "streams": (["bench.streams", "--db", "both"], ["bench.streams", "--db", "both", "--deals", "3"]),
    "draw": (["bench.tournament_draw"], ["bench.tournament_draw", "--quick"]),
    "webhooks": (["bench.webhooks", "--db", "both"], ["bench.webhooks", "--db", "both", "--quick"]),
}


def run_step(name: str, argv: list[str]) -> tuple[int, float]:
    print(f"== {name}: python -m {' '.join(argv)}", file=sys.stderr, flush=True)
    start = time.monotonic()
    code = subprocess.run([PYTHON, "-m", *argv], cwd=REPO).returncode
    return code, time.monotonic() - start


def figures_since(start: float) -> list[dict]:
    out = []
    for path in sorted(RESULTS.glob("targets-*.json")):
        if path.stat().st_mtime < start or path.name.startswith("targets-all-"):
            continue
        body = json.loads(path.read_text())
        out.extend({"bench": body["bench"], **f} for f in body["figures"])
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="each benchmark's quick mode")
    p.add_argument("--only", nargs="+", choices=sorted(STEPS), help="these benchmarks only")
    p.add_argument("--accept-unsteady", action="store_true", help="exit 0 though the machine's speed moved")
    args = p.parse_args(argv)
    start = time.time()
    failed = []
    speeds = {"before": machine.speed()}
    for name in args.only or list(STEPS):
        full, quick = STEPS[name]
        code, seconds = run_step(name, quick if args.quick else full)
        speeds[f"after {name}"] = machine.speed()
        print(
            f"== {name}: exit {code} after {seconds:.0f} s; machine {speeds[f'after {name}']:.2f} M steps/s",
            file=sys.stderr,
            flush=True,
        )
        if code != 0:
            failed.append(name)
    figures = figures_since(start)
    print(f"\nevery target, measured at {commit()}{' (quick runs)' if args.quick else ''}:")
    for f in figures:
        where = f" [{f['db']}]" if f["db"] else ""
        print(f"  {f['bench']:14}{where:12} {f['name']}: {f['value']:.3f}{f['unit']} {judged(f)}")
    if failed:
        print(f"  benchmarks that failed to run: {', '.join(failed)}")
    spread = machine.spread(list(speeds.values()))
    steady = spread <= machine.STEADY_SPREAD
    readings = ", ".join(f"{k} {v:.2f}" for k, v in speeds.items())
    print(f"  the machine's speed (M loop steps/s): {readings}; spread {spread:.2f}")
    if not steady:
        print(
            f"  UNSTEADY: the machine's speed moved by more than {machine.STEADY_SPREAD - 1:.0%} during "
            "this sitting; its CPU-bound figures are the machine's as much as the code's"
        )
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    body = {
        "commit": commit(),
        "quick": args.quick,
        "failed": failed,
        "machine_speed": speeds,
        "steady": steady,
        "figures": figures,
    }
    (RESULTS / f"targets-all-{stamp}-{commit()}.json").write_text(json.dumps(body, indent=2) + "\n")
    if failed:
        return 1
    return 0 if steady or args.accept_unsteady else 3


if __name__ == "__main__":
    sys.exit(main())
