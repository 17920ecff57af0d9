"""``./scripts/serve`` prints the address it really serves: the one given with --host/--port,
else PREFSCORE_HOST/PREFSCORE_PORT, else http://127.0.0.1:8000; and that address answers."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from tests.hardening.harness import free_port

REPO = Path(__file__).resolve().parents[1]
SERVING = re.compile(r"prefscore: serving on (http://\S+) \(API documentation")


def serve(tmp_path: Path, args: list[str], env: dict[str, str]) -> str:
    """Run scripts/serve until it has printed its address and /health answers there."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("PREFSCORE_") and k != "DATABASE_URL"}
    base["DATABASE_URL"] = f"sqlite:///{tmp_path / 'serve.db'}"
    log = tmp_path / "serve.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [str(REPO / "scripts" / "serve"), *args],
            cwd=tmp_path,
            env={**base, **env},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 120  # the first run may install .venv
        url = None
        while time.monotonic() < deadline:
            assert proc.poll() is None, log.read_text()
            if url is None and (m := SERVING.search(log.read_text())):
                url = m.group(1)
            if url is not None:
                try:
                    if httpx.get(url + "/health", timeout=2).status_code == 200:
                        return url
                except httpx.HTTPError:
                    pass
            time.sleep(0.2)
        pytest.fail(f"scripts/serve did not serve in time:\n{log.read_text()}")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)


def test_serve_prints_the_port_given_as_options(tmp_path):
    port = free_port()
    assert serve(tmp_path, ["--host", "127.0.0.1", f"--port={port}"], {}) == f"http://127.0.0.1:{port}"


def test_serve_prints_the_address_from_the_environment(tmp_path):
    port = free_port()
    url = serve(tmp_path, [], {"PREFSCORE_HOST": "127.0.0.1", "PREFSCORE_PORT": str(port)})
    assert url == f"http://127.0.0.1:{port}"


def test_options_win_over_the_environment(tmp_path):
    port = free_port()
    url = serve(
        tmp_path,
        ["--host", "127.0.0.1", "--port", str(port)],
        {"PREFSCORE_HOST": "localhost", "PREFSCORE_PORT": "1"},
    )
    assert url == f"http://127.0.0.1:{port}"


def test_all_interfaces_print_an_address_this_machine_answers_on(tmp_path):
    """--host 0.0.0.0 is not a URL to open; the loopback address is. (A database URL the app
    cannot use makes the server stop right after the message, before it listens anywhere.)"""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFSCORE_")}
    env["DATABASE_URL"] = "nosuchdb://"
    done = subprocess.run(
        [str(REPO / "scripts" / "serve"), "--host", "0.0.0.0", "--port", "8123", "--no-upgrade"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    m = SERVING.search(done.stderr)
    assert m and m.group(1) == "http://127.0.0.1:8123", done.stderr
