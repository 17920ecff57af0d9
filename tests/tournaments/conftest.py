"""Fixtures of the tournament stream tests (test_events.py, test_share_stream.py): a real
uvicorn per module with quick event timings (a stream never ends for a test client), and an
owner with a key of its own on it."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.conftest import Api, new_owner_key
from tests.support.served import served


@pytest.fixture(scope="module")
def server(settings, db) -> Iterator[str]:
    from app.main import create_app

    app = create_app(
        settings.model_copy(
            update={"events_heartbeat": 0.5, "events_poll_interval": 0.1, "events_recheck_interval": 0.3}
        ),
        db=db,
    )
    with served(app, lifespan="on") as url:
        yield url


@pytest.fixture
def owner(client, admin_headers, server) -> Iterator[Api]:
    name, key = new_owner_key(client, admin_headers)
    with httpx.Client(base_url=server, timeout=20) as c:
        yield Api(c, key, name)
