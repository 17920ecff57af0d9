"""Fixtures of the SDK tests: one live ``prefscore serve`` for the module, its /openapi.json,
and the two generator tool chains, installed once from their committed pins and kept:

- TypeScript: ``npm ci`` from sdk/typescript/package-lock.json into sdk/typescript/node_modules
  (git-ignored), again only when the lock file changes;
- Python: openapi-python-client in its own virtualenv sdk/python/.venv (git-ignored), from
  sdk/python/requirements.txt, again only when that file changes. Its own venv because the
  generator pins its dependencies (httpx, typer, ruff, ...) more tightly than the service does.

Node.js and npm come from Debian (scripts/install-system-packages). A missing tool chain skips
the tests on a developer's machine and FAILS them under CI (``CI`` set).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.hardening.harness import REPO, Server, fresh_database
from tests.toolchains import digest, install_once

SDK = REPO / "sdk"
TS_DIR = SDK / "typescript"
PY_DIR = SDK / "python"
ADMIN_KEY = "pk_sdk_admin_" + hashlib.sha256(os.urandom(16)).hexdigest()[:24]


def unavailable(message: str) -> None:
    """Skip on a developer's machine, fail under CI."""
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def run(
    args: list[str], *, cwd: Path, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@dataclass
class Live:
    url: str
    spec_path: Path
    spec: dict

    def new_key(self, owner: str) -> str:
        r = httpx.post(
            self.url + "/v1/keys",
            json={"owner": owner},
            headers={"Authorization": f"Bearer {ADMIN_KEY}"},
            timeout=30,
        )
        assert r.status_code == 201, r.text
        return r.json()["key"]


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    """A migrated database (SQLite, or PostgreSQL under PREFSCORE_TEST_DATABASE_URL), one
    ``prefscore serve`` on it, and the OpenAPI document that server serves."""
    from app.kit.db import migrate

    workdir = tmp_path_factory.mktemp("sdk")
    with fresh_database(workdir, "sdk") as url:
        migrate.upgrade(url)
        server = Server(url, workdir, ADMIN_KEY, upgrade=False, name="sdk").start()
        try:
            r = httpx.get(server.url + "/openapi.json", timeout=30)
            assert r.status_code == 200, r.text
            spec_path = workdir / "openapi.json"
            spec_path.write_bytes(r.content)
            yield Live(server.url, spec_path, r.json())
        finally:
            server.stop(timeout=10)


@pytest.fixture(scope="session")
def node_modules() -> Path:
    """sdk/typescript/node_modules, installed with ``npm ci`` when the lock file changed."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        unavailable("node and npm are not installed: run scripts/install-system-packages")
    version = run([node, "--version"], cwd=TS_DIR).stdout.strip()
    if int(version.lstrip("v").split(".")[0]) < 18:
        unavailable(f"Node.js 18 or newer is needed for the TypeScript client test, found {version}")
    modules = TS_DIR / "node_modules"

    def npm_ci() -> None:
        done = run([npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=TS_DIR)
        if done.returncode != 0:
            unavailable(f"npm ci in sdk/typescript failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")

    install_once(modules, digest(TS_DIR / "package.json", TS_DIR / "package-lock.json"), npm_ci)
    return modules


@pytest.fixture(scope="session")
def generator_python() -> Path:
    """The Python of sdk/python/.venv, with openapi-python-client and the generated client's
    runtime dependencies as pinned in sdk/python/requirements.txt."""
    venv = PY_DIR / ".venv"
    python = venv / "bin" / "python"
    requirements = PY_DIR / "requirements.txt"

    def make_venv() -> None:
        made = run([sys.executable, "-m", "venv", "--clear", str(venv)], cwd=PY_DIR)
        if made.returncode != 0:
            unavailable(f"could not make sdk/python/.venv:\n{made.stderr[-2000:]}")
        done = run(
            [
                str(python),
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "-r",
                str(requirements),
            ],
            cwd=PY_DIR,
        )
        if done.returncode != 0:
            unavailable(
                f"could not install openapi-python-client:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
            )

    install_once(venv, digest(requirements), make_venv)
    return python


def scenario_env(live: Live, key: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFSCORE_")}
    env.update({"PREFSCORE_URL": live.url, "PREFSCORE_KEY": key, **extra})
    return env


def settlement_line(live: Live, key: str, table_id: str) -> str:
    """The line the scenarios print for the settlement, from a plain HTTP read."""
    r = httpx.get(
        f"{live.url}/v1/tables/{table_id}/settlement", headers={"Authorization": f"Bearer {key}"}, timeout=30
    )
    assert r.status_code == 200, r.text
    s = r.json()
    balances = ", ".join(f"{p['name']} {json.dumps(p['balance'])}" for p in s["players"])
    transfers = ", ".join(f"{t['from']}->{t['to']} {json.dumps(t['amount'])}" for t in s["transfers"])
    return f"getSettlement: 200 final={json.dumps(s['final'])}, {balances}; {transfers}"


# What both scenarios print, line by line, after ``createTable: 201 table <id>: ...`` (Sochi,
# pool to 10; the hand computation):
# - deal 1, 6S by Boris, both pass: one entry, +2 to his pool;
# - deal 2, all-pass 2/5/3 tricks at 1 each: three mountain entries (Anna 2, Boris 5, Vera 3);
# - deal 3, 7H by Anna made, Boris whists alone with 3 tricks: +4 to her pool and 3 x 4 = 12
#   whists of Boris on her: two entries;
# - the retry of deal 3 with the same Idempotency-Key is the first answer, replayed;
# - the sheet then: pools 4/2/0, mountains 2/5/3; read again with its ETag: 304;
# - after undoing deal 3: Anna's pool and Boris's whists are gone, 2 deals left;
# - the settlement: mountain less pool is 2, 3, 3 (mean 8/3), at 10 whists a point Anna gets
#   (8/3 - 2) x 10 = 20/3 = 6.67 and Boris and Vera pay 10/3 each, rounded to cents so that
#   the balances sum to 0 (3.33 + 3.34); the fewest transfers are theirs to Anna;
# - Vera renamed "Vera K." and the table titled "Tuesday"; the key's one table is listed with
#   its 2 deals and the new name; listed again with the page's ETag: 304.
EXPECTED_AFTER_CREATE = [
    "postDeal: 201 deal 1 contract, 1 entries, replayed=false",
    "postDeal: 201 deal 2 allpass, 3 entries, replayed=false",
    "postDeal: 201 deal 3 contract, 2 entries, replayed=false",
    "postDeal (retry): 201 deal 3, replayed=true",
    "getSheet: 200 3 deals, Anna pool 4 mountain 2, Boris pool 2 mountain 5, Vera pool 0 mountain 3",
    "getSheet (If-None-Match): 304",
    "undoDeal: 200 deal 3 removed, 2 deals left",
    "getSettlement: 200 final=false, Anna 6.67, Boris -3.33, Vera -3.34; 1->0 3.33, 2->0 3.34",
    "updateTable: 200 players Anna,Boris,Vera K., title Tuesday",
    "listTables: 200 1 tables, Tuesday with 2 deals, players Anna,Boris,Vera K.",
    "listTables (If-None-Match): 304",
]
# Then a player's statistics: Gleb, registered, at seat 0 of a second table plays 6 spades
# unwhisted (a made game of 6): one table, one deal, one contract of 6 made.
EXPECTED_PLAYER_STATS = [
    "createPlayer: 201 Gleb",
    "getPlayerStats: 200 Gleb: 1 tables, 1 deals, contract 6 made 1 failed 0",
]
# Then ratings: Gleb, Iva and Lev at a rated table play the README's pulka (Lev +50 first, Gleb
# -12 second, Iva -38 third): the Plackett-Luce update of three new players (docs/ratings.md)
# gives mu 27.87, 25.72, 21.41 and ordinals 3.25, 1.54, -2.76; the leaderboard, two a page.
EXPECTED_RATINGS = [
    "createPlayer: 201 Iva",
    "createPlayer: 201 Lev",
    "createTable (rated): 201 rated=true",
    "getSettlement (rated): 200 final=true, Gleb 25.00->25.72, Iva 25.00->21.41, Lev 25.00->27.87",
    "getLeaderboard: 200 Lev 3.25, Gleb 1.54, more",
    "getLeaderboard (next): 200 Iva -2.76, last",
]

# Then a short tournament (docs/tournaments.md): Anna, Boris and Vera, one round drawn with
# seed 5 at one table, whose game ends after two deals: 6 spades by seat 0, then by seat 1,
# both passed. Each writes 2 to his pool: G = mountain - pool = (-2, -2, 0), mean -4/3, so
# seats 0 and 1 have 10 x (-4/3 + 2) = 20/3 and seat 2 10 x (-4/3) = -40/3 (gambler.ru's
# transform leaves a balance up to 200 as it is). The two first are equal on every
# tie-break: both place 1. The last deal finished the table, so the round is closed.
EXPECTED_TOURNAMENT = [
    "createTournament: 201 Club night, 3 players, 1 rounds",
    "drawTournamentRound: 201 round 1, 1 tables, seed 5, scorer link yes",
    "postDeal (tournament): 201 deal 2, finished=true",
    "getTournamentStandings: 200 1 of 1 rounds closed: 1. 20/3, 1. 20/3, 3. -40/3",
    "getTournamentStandings (If-None-Match): 304",
]


def check_transcript(live: Live, key: str, output: str) -> None:
    """The scenario's output is the expected game, and its settlement line is what the
    server answers a plain HTTP read of that table."""
    lines = output.strip().splitlines()
    assert lines, "the scenario printed nothing"
    first = lines[0]
    prefix = "createTable: 201 table "
    assert first.startswith(prefix) and first.endswith(": sochi to 10, players Anna,Boris,Vera"), first
    table_id = first[len(prefix) :].split(":")[0]
    assert (
        lines[1:] == EXPECTED_AFTER_CREATE + EXPECTED_PLAYER_STATS + EXPECTED_RATINGS + EXPECTED_TOURNAMENT
    ), "\n".join(lines)
    # The settlement line (read before the rename: the names are the first ones) is what the
    # server answers, but for Vera's new name.
    settled = next(line for line in lines if line.startswith("getSettlement:"))
    assert settled == settlement_line(live, key, table_id).replace("Vera K.", "Vera")


# The operations the scenarios call, by the operationIds they are written against.
SCENARIO_OPERATIONS = (
    "createTable",
    "postDeal",
    "getSheet",
    "undoDeal",
    "getSettlement",
    "updateTable",
    "listTables",
    "createPlayer",
    "getPlayerStats",
    "getLeaderboard",
    "createTournament",
    "drawTournamentRound",
    "getTournamentStandings",
)


def contract_gaps(spec: dict) -> list[str]:
    """What the scenarios rely on that this OpenAPI document does not give: they are
    written against the contract a client developer should get (readable operationIds, the
    deal input a named union whose ``type`` a caller need not repeat, defaulted request
    fields optional for generators). Empty when the document gives all of it."""
    gaps = []
    ids = {
        op.get("operationId")
        for ops in spec.get("paths", {}).values()
        for op in ops.values()
        if isinstance(op, dict)
    }
    missing = [name for name in SCENARIO_OPERATIONS if name not in ids]
    if missing:
        gaps.append(f"operationIds {', '.join(missing)}")
    schemas = spec.get("components", {}).get("schemas", {})
    union = schemas.get("DealInput")
    if union is None:
        gaps.append("a named deal input union DealInput")
    else:
        for ref in union.get("oneOf", union.get("anyOf", [])):
            variant = schemas.get(ref.get("$ref", "").rsplit("/", 1)[-1], {})
            if "type" in variant.get("required", []):
                gaps.append(f"{ref.get('$ref')}: 'type' optional (a constant with its default)")
    table = schemas.get("TableCreate", {})
    for name, prop in table.get("properties", {}).items():
        if "default" in prop and name not in table.get("required", []):
            # openapi-typescript makes a field with a default required (defaultNonNullable).
            gaps.append(f"TableCreate.{name}: optional for generators (no 'default' in the request schema)")
    return gaps


def scenario_failed(what: str, detail: str) -> None:
    """A scenario step failed: say what, with the tool's own words."""
    pytest.fail(f"{what}:\n{detail}")
