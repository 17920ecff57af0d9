"""Four ``prefscore serve`` started at the same moment on one empty database (of the kind
the run is configured for) all come up: the upgrade holds a lock (app/kit/db/migrate.py). Before
it, one of two died in 1 of 3 tries on SQLite and 2 of 3 on PostgreSQL. The ten rounds the
issue asks for run in tests/test_migrations.py on the same code path (migrate.upgrade, which
`prefscore serve` calls first), with forked processes, which is much faster."""

from __future__ import annotations

import httpx

from .conftest import HARD_ADMIN_KEY
from .harness import Server, auth, fresh_database


def test_four_servers_start_at_once_on_an_empty_database(tmp_path):
    with fresh_database(tmp_path, "startup") as url:
        servers = [Server(url, tmp_path, HARD_ADMIN_KEY, name=f"start{i}") for i in range(4)]
        try:
            for server in servers:
                server.start(wait=False)
            for server in servers:
                server.wait_ready(60)
            for server in servers:
                r = httpx.get(f"{server.url}/v1/keys", headers=auth(HARD_ADMIN_KEY), timeout=10)
                assert r.status_code == 200, r.text
        finally:
            for server in servers:
                server.stop(10)
