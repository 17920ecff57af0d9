"""The benchmarks' targets in one shape: a figure, its target, and whether it holds.

Each benchmark that measures a target builds ``Figure``s and hands them to ``report``, which
prints them as one table and writes them as JSON under ``bench/results/`` (with the commit
measured), so that ``bench/run --all`` can put every target of every benchmark in one table.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"


@dataclass(frozen=True)
class Figure:
    """One measured figure against its target (``at_least`` or at most); a figure the issue
    asks only to report (the physical limit's ratio) has a target of None and always holds."""

    name: str
    value: float
    target: float | None
    at_least: bool = True
    unit: str = ""
    db: str = ""

    @property
    def ok(self) -> bool:
        if self.target is None:
            return True
        return self.value >= self.target if self.at_least else self.value <= self.target

    def line(self) -> str:
        where = f"[{self.db}] " if self.db else ""
        return f"{where}{self.name}: {self.value:.3f}{self.unit} {judged(asdict(self) | {'ok': self.ok})}"


def judged(figure: dict[str, Any]) -> str:
    """ "(target >= 0.8) PASS", or "(reported)" for a figure without a target."""
    if figure["target"] is None:
        return "(reported)"
    sign = ">=" if figure["at_least"] else "<="
    return f"(target {sign} {figure['target']:g}{figure['unit']}) {'PASS' if figure['ok'] else 'FAIL'}"


def source_tree(ref: str, into: Path, *paths: str) -> Path:
    """The files of commit ``ref`` (only ``paths`` when given, e.g. "app", "migrations") in the
    new directory ``into``, for a benchmark to run that commit's code beside this checkout's."""
    into.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "archive", ref, *paths], cwd=REPO, capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def commit() -> str:
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "app", "migrations"],
            cwd=REPO,
            capture_output=True,
            text=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


def report(bench: str, figures: list[Figure], extra: dict[str, object] | None = None) -> Path:
    """Print the figures and write them to ``bench/results/targets-<bench>-<time>-<commit>.json``."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    measured = commit()
    print(f"targets of {bench} at {measured}:")
    for figure in figures:
        print("  " + figure.line())
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"targets-{bench}-{stamp}-{measured}.json"
    body = {
        "bench": bench,
        "commit": measured,
        "time": stamp,
        "figures": [asdict(f) | {"ok": f.ok} for f in figures],
        **(extra or {}),
    }
    path.write_text(json.dumps(body, indent=2) + "\n")
    return path
