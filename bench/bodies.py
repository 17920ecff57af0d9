"""What one hostile request body costs the server: an import whose deals are a long list of
1s, and a deal body whose choices.writeoff is a 64 KiB list of 9s (keyed, and through a
scorer link with no key). For each: the server process's CPU seconds and RSS growth (from
/proc), the answer's bytes, and the worst /health latency while the request ran.

    .venv/bin/python -m bench.bodies [--repo DIR] [--import-mib 4]

``--repo`` serves another checkout (its app package, this interpreter), to compare before
and after. Serves on 127.0.0.1 only, on a fresh SQLite file; every loop is bounded.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ADMIN = "bench-admin-key-0123456789abcdef"
TICK = os.sysconf("SC_CLK_TCK")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _call(base: str, method: str, path: str, body: bytes | None = None, key: str | None = None, timeout: float = 600):
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    req = urllib.request.Request(base + path, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def _measure(base: str, pid: int, label: str, send) -> dict:
    worst = [0.0]
    done = threading.Event()

    def health() -> None:
        for _ in range(100_000):  # bounded; ends with the request
            if done.is_set():
                return
            t = time.perf_counter()
            try:
                _call(base, "GET", "/health", timeout=300)
            except OSError:
                pass
            worst[0] = max(worst[0], time.perf_counter() - t)
            time.sleep(0.05)

    cpu, rss = _cpu(pid), _rss_mib(pid)
    watcher = threading.Thread(target=health, daemon=True)
    watcher.start()
    t = time.perf_counter()
    try:
        status, answer = send()
    except OSError as exc:
        status, answer = repr(exc), b""
    elapsed = time.perf_counter() - t
    done.set()
    watcher.join(timeout=310)
    out = {
        "attack": label,
        "status": status,
        "seconds": round(elapsed, 2),
        "cpu_s": round(_cpu(pid) - cpu, 2),
        "rss_before_mib": round(rss, 1),
        "rss_after_mib": round(_rss_mib(pid), 1),
        "answer_bytes": len(answer),
        "health_worst_ms": round(worst[0] * 1000, 1),
    }
    try:
        out["errors_listed"] = len(json.loads(answer).get("errors", []))
    except ValueError:
        pass
    print(json.dumps(out), flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--import-mib", type=float, default=4.0)
    args = parser.parse_args()
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "DATABASE_URL": f"sqlite:///{tmp}/bench.db",
            "PREFSCORE_ADMIN_KEY": ADMIN,
            "PREFSCORE_RATE_LIMIT": "0",
            "PREFSCORE_ANONYMOUS_RATE_LIMIT": "0",
        }
        server = subprocess.Popen(
            [sys.executable, "-c", "from app.cli import main; main()", "serve", "--host", "127.0.0.1", "--port", str(port)],
            cwd=args.repo, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        try:
            for _ in range(200):
                try:
                    if _call(base, "GET", "/health", timeout=2)[0] == 200:
                        break
                except OSError:
                    time.sleep(0.1)
            _, body = _call(base, "POST", "/v1/keys", json.dumps({"owner": "bench"}).encode(), ADMIN)
            key = json.loads(body)["key"]
            _, body = _call(base, "POST", "/v1/tables", json.dumps({"players": ["A", "B", "C"], "convention": "sochi"}).encode(), key)
            table = json.loads(body)["id"]
            _, body = _call(base, "POST", f"/v1/tables/{table}/scorer-link", b"", key)
            token = json.loads(body)["token"]
            _, record = _call(base, "GET", f"/v1/tables/{table}/export", key=key)
            doc = json.loads(record)
            # "1," per deal, a little under the size asked for (4 MiB: the import's limit)
            doc["deals"] = [1] * (int(args.import_mib * 1024 * 1024 * 0.98) // 2)
            big = json.dumps(doc, separators=(",", ":")).encode()
            head = b'{"type": "contract", "declarer": 0, "contract": "6S", "defenders": {"1": "pass", "2": "pass"}, "choices": {"writeoff": ['
            writeoff = head + b", ".join([b"9"] * ((60 * 1024 - len(head)) // 3)) + b"]}}"
            pid = server.pid
            _measure(base, pid, f"import, deals = {args.import_mib} MiB of 1s", lambda: _call(base, "POST", "/v1/tables/import", big, key))
            _measure(base, pid, "deal, 64 KiB writeoff, keyed", lambda: _call(base, "POST", f"/v1/tables/{table}/deals", writeoff, key))
            _measure(base, pid, "deal, 64 KiB writeoff, scorer link", lambda: _call(base, "POST", f"/v1/score/{token}/deals", writeoff))
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
