"""The README's curl walk-through, run as written (bash + curl) against a real server started
with `prefscore serve`, on the configured database (for SQLite: the default prefscore.db in
the server's working directory)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
pytestmark = pytest.mark.slow


def walkthrough() -> str:
    text = (ROOT / "README.md").read_text()
    block = text.split("<!-- walkthrough:start -->", 1)[1].split("<!-- walkthrough:end -->", 1)[0]
    return block.split("```bash", 1)[1].rsplit("```", 1)[0]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server(tmp_path, new_database):
    bindir = str(Path(sys.executable).parent)
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "PREFSCORE_ADMIN_KEY")}
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    with new_database("readme") as url:
        if not url.startswith("sqlite"):
            env["DATABASE_URL"] = url  # on SQLite the default file in the working directory is used
        port = free_port()
        log = open(tmp_path / "server.log", "w")
        proc = subprocess.Popen(
            [os.path.join(bindir, "prefscore"), "serve", "--host", "127.0.0.1", "--port", str(port)],
            cwd=tmp_path,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    if httpx.get(base + "/health", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.flush()
                    pytest.fail("the server did not start:\n" + (tmp_path / "server.log").read_text())
                time.sleep(0.2)
            yield base, env, tmp_path
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            log.close()


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_readme_walkthrough(server):
    base, env, cwd = server
    script = "set -euo pipefail\n" + walkthrough()
    result = subprocess.run(
        ["bash", "-c", script], cwd=cwd, env={**env, "API": base}, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = [ln for ln in result.stdout.splitlines() if ln.strip()]
    table, d1, d2, d3, d4, sheet, settlement = (json.loads(ln) for ln in lines)
    assert table["convention"] == "sochi" and table["pool_target"] == 4
    assert [d["deal"]["number"] for d in (d1, d2, d3, d4)] == [1, 2, 3, 4]
    assert sheet["finished"] is True and sheet["deal_count"] == 4
    assert [p["name"] for p in sheet["players"]] == ["Anna", "Boris", "Vera"]
    # exactly what the README shows
    readme = (ROOT / "README.md").read_text()
    shown = readme.split("The last answer is the settlement", 1)[1].split("```json", 1)[1].split("```", 1)[0]
    assert settlement == json.loads(shown)
    if not env.get("DATABASE_URL"):
        assert (cwd / "prefscore.db").exists()  # the embedded default
