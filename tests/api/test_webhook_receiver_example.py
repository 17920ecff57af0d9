"""The worked example of docs/webhooks.md runs: docs/examples/webhook_receiver.py, started as
its docs say, gets a live server's signed deliveries, fetches the PNG of each posted deal,
and refuses a forged one."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import new_owner_key
from tests.support.served import served

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "docs" / "examples" / "webhook_receiver.py"
DEAL = {"type": "contract", "declarer": 1, "contract": "6S", "defenders": {"0": "pass", "2": "pass"}}


@pytest.fixture(scope="module")
def server(settings, db) -> Iterator[str]:
    from app.main import create_app

    live = settings.model_copy(
        update={
            "webhooks_deliver": True,
            "webhooks_allowed_networks": ("127.0.0.0/8",),
            "webhooks_poll_interval": 0.1,
        }
    )
    with served(create_app(live, db=db), lifespan="on") as url:
        yield url


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_example_receiver_verifies_and_fetches_the_png(server, admin_headers, tmp_path):
    with httpx.Client(base_url=server, timeout=30) as client:
        _owner, key = new_owner_key(client, admin_headers)
        auth = {"Authorization": f"Bearer {key}"}
        port = free_port()
        hook = client.post(
            "/v1/webhooks", json={"url": f"http://127.0.0.1:{port}/", "types": ["deal.posted"]}, headers=auth
        )
        assert hook.status_code == 201, hook.text
        env = {
            **os.environ,
            "WEBHOOK_SECRET": hook.json()["secret"],
            "PREFSCORE_URL": server,
            "PREFSCORE_KEY": key,
            "PORT": str(port),
            "OUT_DIR": str(tmp_path / "pictures"),
        }
        receiver = subprocess.Popen(
            [sys.executable, str(EXAMPLE)], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
        try:
            deadline = time.monotonic() + 20
            while True:  # until it listens
                try:
                    forged = httpx.post(
                        f"http://127.0.0.1:{port}/",
                        content=b'{"type":"deal.posted"}',
                        headers={
                            "webhook-id": "msg_1",
                            "webhook-timestamp": str(int(time.time())),
                            "webhook-signature": "v1,AAAA",
                        },
                    )
                    break
                except httpx.ConnectError:
                    assert time.monotonic() < deadline and receiver.poll() is None, (
                        receiver.stdout.read() if receiver.stdout else ""
                    )
                    time.sleep(0.1)
            assert forged.status_code == 400
            table = client.post(
                "/v1/tables", json={"players": ["Anna", "Boris", "Vera"], "convention": "sochi"}, headers=auth
            ).json()
            assert client.post(f"/v1/tables/{table['id']}/deals", json=DEAL, headers=auth).status_code == 201
            picture = tmp_path / "pictures" / f"{table['id']}-1.png"
            deadline = time.monotonic() + 30
            while not picture.exists() or picture.stat().st_size == 0:
                assert time.monotonic() < deadline, "no picture saved"
                assert receiver.poll() is None, receiver.stdout.read() if receiver.stdout else ""
                time.sleep(0.1)
            time.sleep(0.2)
            assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
            log = client.get(f"/v1/webhooks/{hook.json()['id']}/deliveries", headers=auth).json()["items"]
            assert log[0]["state"] == "delivered" and log[0]["attempts"][-1]["status"] == 204
        finally:
            receiver.terminate()
            receiver.wait(10)
            if receiver.stdout is not None:
                receiver.stdout.close()  # its pipe, read only on a failure
