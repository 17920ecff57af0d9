"""A long table against a real server: what sheet.svg costs, and how long an undo or a
correction of it holds up another table's writes (SQLite, one server process).

    .venv/bin/python -m bench.bigtable                      # 20,000 deals, then the default limit
    .venv/bin/python -m bench.bigtable --deals 20000 --source /path/to/another/checkout

The server is ``prefscore serve`` from ``--source`` (default: this checkout), so the same
measurement runs against another version of the code. The long table's log is generated
with the engine (tests/support/deallog.py, pool target 1,000,000 so that the game never ends) and
written straight into the database (posting 20,000 deals would only measure posting);
PREFSCORE_MAX_DEALS_PER_TABLE is raised for the run so that the table may be that long.

Printed, per table length:
- ``sheet.svg``: the time of the first request and the median of the next five, the size;
- ``stall``: while a client posts deals to a small table of another owner in a loop, a PUT
  of deal 1 of the long table (its own body: the whole log folded again) and an undo of its
  last deal; their times, and the small table's POST latencies (median before, worst while
  the PUT or the undo runs);
- ``viewers``: the small table's POST median while four anonymous clients fetch the long
  table's shared sheet.svg (of an unchanging revision, fetched once before) in a loop for
  4 s, and how many pictures they got.
"""

from __future__ import annotations

import argparse
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

from bench.attacks_fill import fill

REPO = Path(__file__).resolve().parents[1]
ADMIN = "pk_bench_admin_" + secrets.token_urlsafe(12)
PLAYERS = ["Anna", "Boris", "Vera"]


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env(source: Path, url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFSCORE_") and k != "DATABASE_URL"}
    env.update(
        DATABASE_URL=url,
        PREFSCORE_ADMIN_KEY=ADMIN,
        PREFSCORE_RATE_LIMIT="0",
        PREFSCORE_LOG_LEVEL="WARNING",
        PREFSCORE_MAX_DEALS_PER_TABLE="1000000",
        PREFSCORE_PICTURE_MAX_DEALS="1000000",  # its long table is drawn too
        PYTHONPATH=str(source),
    )
    return env


class Poster(threading.Thread):
    """Posts deals to one table in a loop; keeps (start, seconds) of each POST."""

    def __init__(self, base: str, key: str, table_id: str):
        super().__init__(daemon=True)
        self.client = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=60)
        self.url = f"/v1/tables/{table_id}/deals"
        self.times: list[tuple[float, float]] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            start = time.perf_counter()
            r = self.client.post(self.url, json={"type": "allpass", "tricks": {"0": 3, "1": 3, "2": 4}})
            self.times.append((start, time.perf_counter() - start))
            if r.status_code != 201:
                raise RuntimeError(r.text)
            time.sleep(0.005)


def _during(times: list[tuple[float, float]], start: float, end: float) -> float:
    """The worst POST that overlapped [start, end]."""
    hit = [d for s, d in times if s <= end and s + d >= start]
    return max(hit) if hit else 0.0


def measure(base: str, url: str, deals: int, seed: int) -> dict[str, float]:
    admin = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {ADMIN}"}, timeout=120)
    keys = [
        admin.post("/v1/keys", json={"owner": f"bench-{i}-{secrets.token_hex(3)}"}).json()["key"]
        for i in range(2)
    ]
    owner = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {keys[0]}"}, timeout=120)
    big = owner.post("/v1/tables", json={"players": PLAYERS, "convention": "sochi"}).json()
    fill(url, big["id"], deals, seed)
    out: dict[str, float] = {"deals": deals}

    start = time.perf_counter()
    r = owner.get(f"/v1/tables/{big['id']}/sheet.svg")
    out["svg_first_s"] = time.perf_counter() - start
    assert r.status_code == 200, r.text
    out["svg_bytes"] = len(r.content)
    again = []
    for _ in range(5):
        start = time.perf_counter()
        assert owner.get(f"/v1/shared/{big['share_token']}/sheet.svg").status_code == 200
        again.append(time.perf_counter() - start)
    out["svg_next_median_s"] = statistics.median(again)

    other = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {keys[1]}"}, timeout=60)
    small = other.post(
        "/v1/tables", json={"players": PLAYERS, "convention": "sochi", "pool_target": 1000}
    ).json()
    poster = Poster(base, keys[1], small["id"])
    poster.start()
    time.sleep(1.5)
    before = [d for _s, d in poster.times]
    first = owner.get(f"/v1/tables/{big['id']}/deals/1").json()
    body = {k: v for k, v in first.items() if k not in ("number", "entries", "created_at")}
    start = time.perf_counter()
    r = owner.put(f"/v1/tables/{big['id']}/deals/1", json=body)
    end = time.perf_counter()
    assert r.status_code == 200, r.text
    out["put_s"] = end - start
    time.sleep(0.5)
    out["post_p50_before_s"] = statistics.median(before)
    out["post_worst_during_put_s"] = _during(poster.times, start, end)
    start = time.perf_counter()
    r = owner.delete(f"/v1/tables/{big['id']}/deals/{deals}")
    end = time.perf_counter()
    assert r.status_code == 200, r.text
    out["undo_s"] = end - start
    time.sleep(0.5)
    out["post_worst_during_undo_s"] = _during(poster.times, start, end)
    # four anonymous viewers looping on the shared picture while the other owner posts
    stop = threading.Event()
    fetched: list[int] = []

    def view() -> None:
        with httpx.Client(base_url=base, timeout=120) as anonymous:
            while not stop.is_set():
                assert anonymous.get(f"/v1/shared/{big['share_token']}/sheet.svg").status_code == 200
                fetched.append(1)

    # the picture of this revision drawn first: the viewers poll a table that is not changing
    assert owner.get(f"/v1/shared/{big['share_token']}/sheet.svg").status_code == 200
    viewers = [threading.Thread(target=view, daemon=True) for _ in range(4)]
    start = time.perf_counter()
    for v in viewers:
        v.start()
    time.sleep(4)
    end = time.perf_counter()
    stop.set()
    for v in viewers:
        v.join()
    during = [d for s, d in poster.times if start <= s <= end]
    out["post_p50_viewers_s"] = statistics.median(during) if during else 0.0
    out["viewer_pictures"] = len(fetched)
    poster.stop.set()
    poster.join()
    return out


def run(source: Path, deals: list[int], seed: int) -> list[dict[str, float]]:
    results = []
    with tempfile.TemporaryDirectory(prefix="prefscore-bigtable-") as tmp:
        url = f"sqlite:///{tmp}/bench.db"
        env = _env(source, url)
        cli = [sys.executable, "-c", "from app.cli.main import main; main()"]
        subprocess.run(cli + ["db", "upgrade"], cwd=tmp, env=env, check=True, capture_output=True)
        port = _port()
        log = open(Path(tmp) / "server.log", "wb")
        server = subprocess.Popen(
            cli + ["serve", "--no-upgrade", "--port", str(port)],
            cwd=tmp,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    if httpx.get(base + "/health", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError((Path(tmp) / "server.log").read_text()[-3000:])
                time.sleep(0.1)
            for n in deals:
                results.append(measure(base, url, n, seed))
        finally:
            server.terminate()
            server.wait(10)
            log.close()
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, nargs="+", default=[20_000, 2_000])
    parser.add_argument("--source", type=Path, default=REPO, help="the checkout whose server is measured")
    parser.add_argument("--seed", type=int, default=15)
    args = parser.parse_args(argv)
    print(f"server from {args.source}")
    for r in run(args.source.resolve(), args.deals, args.seed):
        print(
            f"{r['deals']:>6} deals: sheet.svg first {r['svg_first_s'] * 1000:7.0f} ms, next (median of 5) "
            f"{r['svg_next_median_s'] * 1000:7.1f} ms, {r['svg_bytes'] / 1e6:.2f} MB\n"
            f"              PUT deal 1 {r['put_s'] * 1000:6.0f} ms, undo {r['undo_s'] * 1000:6.0f} ms; other table's POST: "
            f"p50 before {r['post_p50_before_s'] * 1000:.1f} ms, worst during the PUT "
            f"{r['post_worst_during_put_s'] * 1000:.0f} ms, during the undo {r['post_worst_during_undo_s'] * 1000:.0f} ms\n"
            f"              4 viewers looping on the shared sheet.svg for 4 s: {r['viewer_pictures']} pictures, "
            f"other table's POST p50 {r['post_p50_viewers_s'] * 1000:.1f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
