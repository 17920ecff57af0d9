"""The deliverer looks for due deliveries when a write of this process wrote some, not after
every write: a post of an owner without an endpoint costs it no look (a read in a thread of
its own, once a post, before), while one with an endpoint, and a change written through a
Session (a rename), is delivered at once, long before the next poll."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import Api, new_owner_key

from .samples import PASS_6S
from .test_webhooks import LOOPBACK, receiver, register  # noqa: F401 (receiver: a fixture)


@pytest.fixture(scope="module")
def slow_poll(settings, db) -> Iterator[Any]:
    """A delivering app whose poll comes once a minute: what is sent sooner was woken."""
    from fastapi.testclient import TestClient

    from app.main import create_app

    app = create_app(
        settings.model_copy(
            update={
                "webhooks_deliver": True,
                "webhooks_allowed_networks": LOOPBACK,
                "webhooks_poll_interval": 60.0,
            }
        ),
        db=db,
    )
    with TestClient(app) as client:
        looks = []
        deliverer = app.state.webhooks
        look = deliverer._look

        def counted() -> bool:
            looks.append(time.monotonic())
            return look()

        claims = []
        claim = deliverer._claim

        def counted_claim(rows: int) -> Any:
            claims.append(rows)
            return claim(rows)

        deliverer._look = counted
        deliverer._claim = counted_claim
        client.looks, client.claims = looks, claims
        yield client


def _owner(client: Any, admin_headers: dict[str, str]) -> Api:
    name, key = new_owner_key(client, admin_headers)
    return Api(client, key, name)


def test_posts_of_an_owner_without_an_endpoint_wake_no_look(slow_poll, admin_headers):
    owner = _owner(slow_poll, admin_headers)
    table = owner.table()
    time.sleep(0.2)  # the looks the start and the table's creation may have asked for
    before = len(slow_poll.looks)
    for _ in range(8):
        assert owner.post(f"/v1/tables/{table['id']}/deals", json=PASS_6S).status_code == 201
    time.sleep(0.2)
    assert len(slow_poll.looks) == before  # 8 more before the delivery sinks


def test_a_post_and_a_rename_with_an_endpoint_are_sent_before_the_poll(slow_poll, admin_headers, receiver):
    owner = _owner(slow_poll, admin_headers)
    register(owner, receiver.url, ["deal.posted", "table.renamed"])
    table = owner.table()
    assert owner.post(f"/v1/tables/{table['id']}/deals", json=PASS_6S).status_code == 201
    receiver.wait_for(1, timeout=10)
    renamed = owner.client.patch(f"/v1/tables/{table['id']}", json={"title": "Friday"}, headers=owner.headers)
    assert renamed.status_code == 200
    receiver.wait_for(2, timeout=10)
    assert sorted(e["type"] for e in receiver.events()) == ["deal.posted", "table.renamed"]


def test_a_burst_of_posts_is_claimed_together_without_looks(slow_poll, admin_headers, receiver):
    owner = _owner(slow_poll, admin_headers)
    register(owner, receiver.url, ["deal.posted"])
    table = owner.table()
    assert owner.post(f"/v1/tables/{table['id']}/deals", json=PASS_6S).status_code == 201
    receiver.wait_for(1, timeout=10)  # a first round: it looks, having never looked
    looks, claims = len(slow_poll.looks), len(slow_poll.claims)
    for _ in range(8):
        assert owner.post(f"/v1/tables/{table['id']}/deals", json=PASS_6S).status_code == 201
    receiver.wait_for(9, timeout=10)
    # Before: a look and a claim for nearly every post; now the writes say what is due, and a
    # round waits 200 ms to claim a burst's deliveries at once (a delivery that empties its
    # endpoint's queue still asks for a round, which looks first).
    made = (len(slow_poll.looks) - looks, len(slow_poll.claims) - claims)
    assert made[0] <= 3 and made[1] <= 4, made
