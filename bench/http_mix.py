"""The posting mix of bench/http.py, and its finishing posts (issue 36).

The mix: each client posts in turn to four tables of its own, as a deployment sees them:

- a plain table (three names, no registered player);
- a rated table whose three seats are registered players (of the client's own, so that no
  two clients write the same players' statistics): every post writes their statistics;
- a table of a second owner who has one webhook endpoint (``deal.posted`` and
  ``table.finished``), on a receiver on 127.0.0.1 that answers 204 at once (bench/webhooks.py's):
  every post writes a delivery, which the service's deliverer sends;
- a table of a tournament's round (drawn by the service, played "for time", so that posting
  never ends it), posted to with the owner's key.

The finishing posts: pairs of tables, one rated and one not, both with three registered
players, three deals posted to each; then the fourth deal (which finishes both) is timed at
the client (wall clock, over keep-alive), the rated one first in one pair and second in the
next, with a pause after each so that the rater's work after a rated table's commit does not
fall on the next timed post (it does fall, as in service, on the rated post itself). The
server's CPU time during each timed post is taken too (every thread of its process, from
/proc/<pid>/task/*/schedstat: nanoseconds), its median by kind.
"""

from __future__ import annotations

import random
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.http import ALLPASS_BODY, PYTHON, ROOT, Client, free_port, new_table

# PULKA: the README's short pulka (sochi, pool 4); its fourth deal finishes the table.
from tests.api.samples import PULKA

NAMES = ("Anna", "Boris", "Vera")


class Receiver:
    """The webhook receiver of bench/webhooks.py (204 at once), a process of its own."""

    def __init__(self) -> None:
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def __enter__(self) -> Receiver:
        self.proc = subprocess.Popen([PYTHON, "-m", "bench.webhooks", "--receiver", str(self.port)], cwd=ROOT)
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("the webhook receiver did not start") from None
                time.sleep(0.05)

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(10)


def thread_cpu_ns(pid: int) -> int:
    """CPU nanoseconds used so far by every live thread of process ``pid``."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue  # a thread that ended meanwhile
    return total


def players(client: Client, count: int, prefix: str) -> list[str]:
    return [
        client.expect(201, "POST", "/v1/players", {"name": f"{prefix} {k}"})[1]["id"] for k in range(count)
    ]


def rated_table(client: Client, seats: list[str], *, rated: bool = True) -> str:
    body = {
        "players": [{"name": n, "player": p} for n, p in zip(NAMES, seats)],
        "convention": "sochi",
        "pool_target": 4,
        "first_dealer": 0,
        "rated": rated,
    }
    return client.expect(201, "POST", "/v1/tables", body)[1]["id"]


def tournament_tables(client: Client, count: int) -> list[str]:
    """``count`` tables of one round of a tournament played for time (3 entrants a table)."""
    body = {
        "name": "Bench",
        "convention": "sochi",
        "rounds": 1,
        "game_end": {"kind": "director"},
        "entrants": [f"Entrant {k}" for k in range(3 * count)],
    }
    _, made = client.expect(201, "POST", "/v1/tournaments", body)
    _, drawn = client.expect(201, "POST", f"/v1/tournaments/{made['id']}/rounds")
    return [t["table_id"] for t in drawn["rounds"][0]["tables"]]


@dataclass
class Mix:
    """Per client, its four tables' paths (the hooked owner's with that owner's key)."""

    paths: list[str]  # one entry per client: its paths, "," between, as bench/wrk/load.lua takes them


def mix(client: Client, hooked: Client, hooked_key: str, receiver: str, clients: int) -> Mix:
    hooked.expect(201, "POST", "/v1/webhooks", {"url": receiver, "types": ["deal.posted", "table.finished"]})
    seats = players(client, 3 * clients, "Mix")
    at_tournament = tournament_tables(client, clients)
    groups = []
    for c in range(clients):
        plain = new_table(client)
        rated = rated_table(client, seats[3 * c : 3 * c + 3])
        owned = new_table(hooked)
        groups.append(
            ",".join(
                [
                    f"/v1/tables/{plain}/deals",
                    f"/v1/tables/{rated}/deals",
                    f"/v1/tables/{owned}/deals {hooked_key}",
                    f"/v1/tables/{at_tournament[c]}/deals",
                ]
            )
        )
    # Every kind of table takes a deal once before it is measured.
    for group in groups:
        for entry in group.split(","):
            path, _, key = entry.partition(" ")
            (hooked if key else client).expect(201, "POST", path, ALLPASS_BODY)
    return Mix(groups)


def finishing(port: int, key: str, server_pid: int, pairs: int, seed: int = 36) -> dict[str, Any]:
    """The post that finishes a rated table against one that finishes an unrated one, at the
    client (module docstring)."""
    rng = random.Random(seed)
    client = Client(port, key)
    pool = players(client, 30, "Finisher")
    wall: dict[str, list[float]] = {"rated": [], "unrated": []}
    cpu: dict[str, list[float]] = {"rated": [], "unrated": []}
    for k in range(pairs):
        tables = {}
        for kind in ("rated", "unrated"):
            tables[kind] = rated_table(client, rng.sample(pool, 3), rated=kind == "rated")
            for body in PULKA[:3]:
                client.expect(201, "POST", f"/v1/tables/{tables[kind]}/deals", body)
        for kind in ("rated", "unrated") if k % 2 == 0 else ("unrated", "rated"):
            time.sleep(0.05)  # the previous post's after-work (the rater) done
            before = thread_cpu_ns(server_pid)
            start = time.perf_counter()
            _, answer = client.expect(201, "POST", f"/v1/tables/{tables[kind]}/deals", PULKA[3])
            wall[kind].append((time.perf_counter() - start) * 1000)
            cpu[kind].append((thread_cpu_ns(server_pid) - before) / 1e6)
            if not answer["sheet"]["finished"]:
                raise RuntimeError("the fourth deal of the pulka did not finish the table")
    time.sleep(0.2)
    _, board = client.expect(200, "GET", "/v1/ratings?limit=200")
    client.close()
    if sum(s["rating"]["games"] for s in board["items"]) != 3 * pairs:
        raise RuntimeError("the rated tables were not all rated")
    rated, unrated = statistics.median(wall["rated"]), statistics.median(wall["unrated"])
    return {
        "pairs": pairs,
        "median_ms_rated": round(rated, 3),
        "median_ms_unrated": round(unrated, 3),
        "ratio": round(rated / unrated, 3),
        "server_cpu_ms_rated": round(statistics.median(cpu["rated"]), 3),
        "server_cpu_ms_unrated": round(statistics.median(cpu["unrated"]), 3),
        "server_cpu_ratio": round(statistics.median(cpu["rated"]) / statistics.median(cpu["unrated"]), 3),
    }


if __name__ == "__main__":  # pragma: no cover - a helper module of bench/http.py
    sys.exit("run python -m bench.http")
