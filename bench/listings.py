"""One deal of a long table listed by key, by share link and by scorer link, against a real
server (SQLite): the median latency of ``?after=N-1&limit=1`` and the server's CPU per request.

    .venv/bin/python -m bench.listings --deals 2000 [--source /path/to/another/checkout]

The table is filled by posting all-passes (so that any version's schema is filled as it
stores deals); PREFSCORE_MAX_DEALS_PER_TABLE is raised for the run.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bench.bigtable import ADMIN, PLAYERS, REPO, _env, _port

ROUNDS = 40


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100  # utime + stime, clock ticks of 10 ms


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--source", type=Path, default=REPO)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/bench.db"
        env = _env(args.source, url)
        cli = [sys.executable, "-c", "from app.cli.main import main; main()"]
        subprocess.run(cli + ["db", "upgrade"], cwd=tmp, env=env, check=True, capture_output=True)
        port = _port()
        server = subprocess.Popen(
            cli + ["serve", "--no-upgrade", "--port", str(port)],
            cwd=tmp,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            base = f"http://127.0.0.1:{port}"
            for _ in range(200):
                try:
                    if httpx.get(base + "/health").status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.1)
            admin = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {ADMIN}"}, timeout=60)
            key = admin.post("/v1/keys", json={"owner": "bench-listings"}).json()["key"]
            owner = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=60)
            table = owner.post(
                "/v1/tables", json={"players": PLAYERS, "convention": "sochi", "pool_target": 1000}
            ).json()
            for _ in range(args.deals):
                r = owner.post(
                    f"/v1/tables/{table['id']}/deals",
                    json={"type": "allpass", "tricks": {"0": 3, "1": 3, "2": 4}},
                )
                assert r.status_code == 201, r.text
            token = owner.post(f"/v1/tables/{table['id']}/scorer-link").json()["token"]
            anon = httpx.Client(base_url=base, timeout=60)
            q = f"?after={args.deals - 1}&limit=1"
            routes = {
                "keyed": (owner, f"/v1/tables/{table['id']}/deals{q}"),
                "shared": (anon, f"/v1/shared/{table['share_token']}/deals{q}"),
                "scorer": (anon, f"/v1/score/{token}/deals{q}"),
            }
            for name, (client, path) in routes.items():
                times = []
                cpu0 = _cpu(server.pid)
                for _ in range(ROUNDS):
                    start = time.perf_counter()
                    r = client.get(path)
                    times.append(time.perf_counter() - start)
                    assert r.status_code == 200 and len(r.json()["items"]) == 1, r.text
                cpu = (_cpu(server.pid) - cpu0) / ROUNDS
                print(
                    f"{name:7s} p50 {statistics.median(times) * 1000:7.1f} ms   server CPU {cpu * 1000:7.1f} ms/request"
                )
        finally:
            server.terminate()
            server.wait(10)


if __name__ == "__main__":
    main()
