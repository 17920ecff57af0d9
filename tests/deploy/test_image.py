"""The image of the repository's Dockerfile, built and run: as its non-root user, healthy by
its own HEALTHCHECK, a short pulka posted, the container restarted, the same sheet read back
from the SQLite file on its volume.

Runs in the SQLite pass of .ci/run only (the image's default database is SQLite; the
PostgreSQL pass runs the compose stack, tests/deploy/test_compose.py), so each pass builds
and starts only what it needs."""

from __future__ import annotations

import secrets

import httpx
import pytest

from tests.hardening.harness import auth, create_table, free_port, is_postgres_run, verify_table

from . import podman as pm

pytestmark = pytest.mark.skipif(
    is_postgres_run(), reason="the SQLite image runs in the SQLite pass (.ci/run runs tests twice)"
)

# A short pulka at a sochi table: a 6♠ made with both defenders passing, a 7♥ with one
# whister, a misère. Whatever the scores, the sheet after the restart must be the same
# document, and equal to replaying the stored deals (verify_table).
PULKA = [
    {"type": "contract", "declarer": 0, "contract": "6S", "defenders": {"1": "pass", "2": "pass"}},
    {
        "type": "contract",
        "declarer": 1,
        "contract": "7H",
        "defenders": {"2": "whist", "0": "pass"},
        "tricks": {"1": 7, "2": 2, "0": 1},
    },
    {"type": "misere", "declarer": 2, "tricks": {"2": 0}},
]


def test_the_image_runs_healthy_as_its_user_and_keeps_the_sheet_on_its_volume(app_image: str):
    name = f"prefscore-test-{secrets.token_hex(4)}"
    volume = f"{name}-data"
    admin = "pk_image_admin_" + secrets.token_urlsafe(12)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    image = pm.inspect(app_image)
    assert image["Config"]["User"] == "prefscore" and "/health" in " ".join(image["Healthcheck"]["Test"])
    pm.podman("volume", "create", volume)
    try:
        pm.podman(
            "run",
            "-d",
            "--name",
            name,
            "-p",
            f"127.0.0.1:{port}:8000",
            "-v",
            f"{volume}:/data",
            "-e",
            f"PREFSCORE_ADMIN_KEY={admin}",
            app_image,
        )
        pm.wait_healthy(name)
        uid = pm.process_uid(name)
        assert uid == 10001, f"the service runs as uid {uid}"
        assert pm.podman("exec", name, "id", "-un").stdout.strip() == "prefscore"

        table = create_table(base, admin)
        for deal in PULKA:
            r = httpx.post(
                f"{base}/v1/tables/{table['id']}/deals", json=deal, headers=auth(admin), timeout=30
            )
            assert r.status_code == 201, r.text
        before = httpx.get(f"{base}/v1/tables/{table['id']}/sheet", headers=auth(admin), timeout=30)
        assert before.status_code == 200

        pm.podman("restart", "--time", "20", name, timeout=60)
        pm.wait_healthy(name)
        after = httpx.get(f"{base}/v1/tables/{table['id']}/sheet", headers=auth(admin), timeout=30)
        assert after.status_code == 200 and after.json() == before.json()
        verdict = verify_table(base, admin, table["id"])
        assert verdict.stored == len(PULKA) and verdict.problems == []
        # The picture as PNG through the share link: the image has the renderer and its fonts.
        png = httpx.get(f"{base}/v1/shared/{table['share_token']}/sheet.png?lang=en", timeout=60)
        assert png.status_code == 200 and png.headers["content-type"] == "image/png", png.text
        assert png.content.startswith(b"\x89PNG\r\n\x1a\n")
        again = httpx.get(
            f"{base}/v1/shared/{table['share_token']}/sheet.png?lang=en",
            headers={"If-None-Match": png.headers["etag"]},
            timeout=30,
        )
        assert again.status_code == 304
        pm.podman("exec", name, "test", "-f", "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf")
        # The database is the file on the volume, written by the non-root user.
        listing = pm.podman("exec", name, "ls", "-ln", "/data").stdout
        assert "prefscore.db" in listing and " 10001 " in listing
        # The backup of docs/deployment.md: SQLite's online backup of the live file, taken in the container.
        backup = (
            "import sqlite3; sqlite3.connect('/data/prefscore.db').backup(sqlite3.connect('/data/backup.db'))"
        )
        pm.podman("exec", name, "python", "-c", backup)
        count = "import sqlite3; print(sqlite3.connect('/data/backup.db').execute('SELECT count(*) FROM deals').fetchone()[0])"
        assert pm.podman("exec", name, "python", "-c", count).stdout.strip() == str(len(PULKA))
    finally:
        pm.podman("rm", "--force", "--volumes", "--time", "5", name, check=False)
        pm.podman("volume", "rm", "--force", volume, check=False)


def test_the_image_builds_and_runs_on_the_python_slim_layout(slim_app_image: str):
    """The Dockerfile's default base is the official python:3.11-slim: CPython under
    /usr/local, no Debian python3 or python3-venv. On a base laid out the same way the image
    installs into its own venv, runs healthy as its user and scores a deal."""
    name = f"prefscore-test-{secrets.token_hex(4)}"
    admin = "pk_image_admin_" + secrets.token_urlsafe(12)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    try:
        pm.podman(
            "run",
            "-d",
            "--name",
            name,
            "-p",
            f"127.0.0.1:{port}:8000",
            "-e",
            f"PREFSCORE_ADMIN_KEY={admin}",
            slim_app_image,
        )
        pm.wait_healthy(name)
        assert pm.process_uid(name) == 10001
        where = "import sys; print(sys.prefix, sys.base_prefix)"
        assert pm.podman("exec", name, "python", "-c", where).stdout.split() == [
            "/opt/prefscore",
            "/usr/local",
        ]
        assert (
            pm.podman(
                "exec", name, "sh", "-c", "dpkg -s python3 >/dev/null 2>&1 && echo debian || echo none"
            ).stdout.strip()
            == "none"
        )
        table = create_table(base, admin)
        r = httpx.post(
            f"{base}/v1/tables/{table['id']}/deals", json=PULKA[0], headers=auth(admin), timeout=30
        )
        assert r.status_code == 201, r.text
        assert verify_table(base, admin, table["id"]).problems == []
        # its fonts came from Debian too: the picture is drawn as PNG
        png = httpx.get(f"{base}/v1/shared/{table['share_token']}/sheet.png", timeout=60)
        assert png.status_code == 200 and png.content.startswith(b"\x89PNG"), png.text
    finally:
        pm.podman("rm", "--force", "--time", "5", name, check=False)
