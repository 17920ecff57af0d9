"""Fixtures of the event-stream tests (tests/api/test_events.py, test_event_slots.py): an owner
with a key of its own on the module's live ``server``, and the event readers a test opens
(closed after it)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.conftest import Api, new_owner_key
from tests.sse import EventReader


@pytest.fixture
def owner(client, admin_headers, server) -> Iterator[Api]:
    name, key = new_owner_key(client, admin_headers)
    with httpx.Client(base_url=server, timeout=10) as http:
        yield Api(http, key, name)


@pytest.fixture
def readers() -> Iterator[list[EventReader]]:
    opened: list[EventReader] = []
    yield opened
    for r in opened:
        r.close()
