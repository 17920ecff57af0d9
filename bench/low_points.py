"""Before/after behaviour of the small hardening points, against a real server started from a
checkout: ``python -m bench.low_points CHECKOUT [--port N]`` (the checkout's own code is
served with this interpreter, on 127.0.0.1, on a fresh SQLite file; with root, the file is on
a 2 MiB tmpfs so that the disk can be filled). Prints one line per check and the server's
CPU seconds and RSS at the end. Every loop is bounded."""

from __future__ import annotations

import argparse
import os
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

DEAL = {"type": "contract", "declarer": 1, "contract": "6S", "defenders": {"0": "pass", "2": "pass"}}


def _proc(pid: int) -> tuple[float, float]:
    ticks = os.sysconf("SC_CLK_TCK")
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / ticks
    rss = next(int(line.split()[1]) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if line.startswith("VmRSS"))
    return cpu, rss / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("checkout")
    parser.add_argument("--port", type=int, default=18431)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="lowpoints-"))
    disk = work / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(disk)], capture_output=True).returncode == 0
    admin = "pk_bench_" + secrets.token_urlsafe(12)
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{disk / 'p.db'}", "PREFSCORE_ADMIN_KEY": admin}
    server = subprocess.Popen(
        [sys.executable, "-c", "from app.cli import main; main()", "serve", "--port", str(args.port)],
        cwd=args.checkout, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{args.port}"
    try:
        for _ in range(300):
            try:
                if httpx.get(url + "/health", timeout=1).status_code in (200, 503):
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        c = httpx.Client(base_url=url, timeout=10)
        a = {"Authorization": f"Bearer {admin}"}
        key = c.post("/v1/keys", json={"owner": "bench"}, headers=a).json()["key"]
        k = {"Authorization": f"Bearer {key}"}
        anna = c.post("/v1/players", json={"name": "Anna"}, headers=k).json()
        table = c.post("/v1/tables", json={"players": [{"name": "__CONFIG__", "player": anna["id"]}, "B", "C"], "convention": "sochi"}, headers=k).json()
        r = c.get(f"/v1/players/{anna['id']}/stats?to=9999-12-31", headers=k)
        print("12 stats ?to=9999-12-31:", r.status_code)
        r = c.get("/v1/tables/", headers={**k, "Host": "evil.example"})
        print("13 GET /v1/tables/ Host evil.example:", r.status_code, r.headers.get("location"))
        page = c.get(f"/shared/{table['share_token']}?lang=en").text
        title = page.split("<title>", 1)[1].split("</title>", 1)[0]
        print("14 share page title:", title[:60] + ("..." if len(title) > 60 else ""), f"(token shown {page.count(table['share_token'])}x)")
        r = c.post("/v1/keys", json={"owner": "admin"}, headers=a)
        print("16 key for owner admin:", r.status_code)
        link = c.post(f"/v1/tables/{table['id']}/scorer-link", headers=k).json()["link"]
        key_id = next(x["id"] for x in c.get("/v1/keys", headers=a).json()["items"] if x["prefix"] == key[:12])
        c.delete(f"/v1/keys/{key_id}", headers=a)
        print("16 scorer link after the owner's only key was revoked:", c.get("/v1/score/" + link.rsplit("/", 1)[1]).status_code)
        key2 = c.post("/v1/keys", json={"owner": "bench2"}, headers=a).json()["key"]
        t2 = c.post("/v1/tables", json={"players": ["A", "B", "C"], "convention": "sochi"}, headers={"Authorization": f"Bearer {key2}"}).json()
        r = c.patch(f"/v1/tables/{t2['id']}", json={"title": "abc\u202egnp.exe"}, headers={"Authorization": f"Bearer {key2}"})
        print("16 title with U+202E:", r.status_code)
        if mounted:
            fd = os.open(disk / "pad", os.O_WRONLY | os.O_CREAT)
            try:
                for _ in range(1024):
                    os.write(fd, b"\0" * 4096)
            except OSError:
                pass
            os.close(fd)
            posts = [c.post(f"/v1/tables/{t2['id']}/deals", json=DEAL, headers={"Authorization": f"Bearer {key2}"}).status_code for _ in range(3)]
            time.sleep(5.1)  # past the probe's interval
            print("15 disk full: posts", posts, "/health", c.get("/health").status_code)
            os.remove(disk / "pad")
        else:
            print("15 disk full: not measured (no tmpfs here)")
        cpu, rss = _proc(server.pid)
        print(f"server: {cpu:.2f} s CPU, {rss:.0f} MiB RSS")
    finally:
        server.terminate()
        server.wait(10)
        if mounted:
            subprocess.run(["umount", "-l", str(disk)], capture_output=True)


if __name__ == "__main__":
    main()
