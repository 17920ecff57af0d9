"""Every benchmark that holds a target, one after the other, and all their targets in one table.

    bench/run --all            # = python -m bench.all; both databases, every benchmark's own length
    bench/run --all --quick    # each benchmark's quick mode
    bench/run --all --only http physical

Each benchmark writes its figures through bench/targets.py; this runs them in turn (each in its
own process, nothing else of this run's beside it), then reads the figures they wrote and prints
one table, PASS or FAIL per target, and writes it as ``bench/results/targets-all-<time>-<commit>.json``.
A benchmark that fails is reported as such and the others still run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

from bench.targets import REPO, RESULTS, commit

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
    args = p.parse_args(argv)
    start = time.time()
    failed = []
    for name in args.only or list(STEPS):
        full, quick = STEPS[name]
        code, seconds = run_step(name, quick if args.quick else full)
        print(f"== {name}: exit {code} after {seconds:.0f} s", file=sys.stderr, flush=True)
        if code != 0:
            failed.append(name)
    figures = figures_since(start)
    print(f"\nevery target, measured at {commit()}{' (quick runs)' if args.quick else ''}:")
    for f in figures:
        sign = ">=" if f["at_least"] else "<="
        where = f" [{f['db']}]" if f["db"] else ""
        print(
            f"  {f['bench']:14}{where:12} {f['name']}: {f['value']:.3f}{f['unit']} "
            f"(target {sign} {f['target']:g}{f['unit']}) {'PASS' if f['ok'] else 'FAIL'}"
        )
    if failed:
        print(f"  benchmarks that failed to run: {', '.join(failed)}")
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    body = {"commit": commit(), "quick": args.quick, "failed": failed, "figures": figures}
    (RESULTS / f"targets-all-{stamp}-{commit()}.json").write_text(json.dumps(body, indent=2) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
