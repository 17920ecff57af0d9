"""The anonymous budget (per client address, in memory) is spent before the database is
asked about anything the request presents -- a key, a scorer link, a share link -- and the
share and scorer routes and pages count against it. Before, 3,000 made-up share tokens with
both limits at 10 all got 404 (3,000 lookups), and made-up keys and scorer links were looked
up before the address was counted.

The lookups are counted as the database sees them: statements whose parameters carry the
made-up credential (its lookup prefix)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import event

PROBLEM = "application/problem+json"
N = 10
EXTRA = 25


@contextmanager
def lookups_of(db: Any, marks: list[str]) -> Iterator[list[str]]:
    """The statements run on ``db`` whose parameters contain one of ``marks`` (the list may
    grow while the block runs)."""
    seen: list[str] = []

    def before(_conn, _cursor, statement, parameters, _context, _many) -> None:  # noqa: ANN001
        values = parameters.values() if isinstance(parameters, dict) else (parameters or ())
        text = " ".join(str(v) for v in values)
        if any(mark in text for mark in marks):
            seen.append(statement)

    event.listen(db.engine, "before_cursor_execute", before)
    try:
        yield seen
    finally:
        event.remove(db.engine, "before_cursor_execute", before)


def _limited(settings: Any, db: Any, **changes: Any) -> TestClient:
    from app.main import create_app

    # No per-key limit: nothing here is counted in the database (a key's row of this hour
    # would count against the tests that limit the admin key to a few requests).
    update = {
        "anonymous_rate_limit": N,
        "share_rate_limit": 10_000,
        "rate_limit": 0,
        "rate_limit_window": 3600,
        **changes,
    }
    return TestClient(create_app(settings.model_copy(update=update), db=db))


def _share() -> str:
    return secrets.token_urlsafe(16)


def _scorer() -> str:
    return "sc_" + secrets.token_urlsafe(32)[:43]


def _key() -> str:
    return "pk_" + secrets.token_urlsafe(32)


def _refused(r: Any) -> None:
    assert r.status_code == 429, r.text
    assert r.headers["content-type"].startswith(PROBLEM)
    assert "this address" in r.json()["detail"] and int(r.headers["Retry-After"]) >= 1


def test_made_up_share_tokens_are_held_to_the_address_budget(settings, db, an_hour_long_window):
    marks: list[str] = []
    with _limited(settings, db) as c, lookups_of(db, marks) as seen:
        statuses = []
        for i in range(N + EXTRA):
            marks.append(token := _share())
            path = (
                f"/v1/shared/{token}",
                f"/v1/shared/{token}/deals",
                f"/shared/{token}",
                f"/v1/shared/{token}/sheet.svg",
            )[i % 4]
            r = c.get(path)
            statuses.append(r.status_code)
            if i >= N:
                _refused(r)
    assert statuses == [404] * N + [429] * EXTRA
    assert 0 < len(seen) <= N


def test_made_up_scorer_links_are_held_to_the_address_budget_before_their_lookup(
    settings, db, an_hour_long_window
):
    marks: list[str] = []
    with _limited(settings, db) as c, lookups_of(db, marks) as seen:
        statuses = []
        for i in range(N + EXTRA):
            token = _scorer()
            marks.append(token[:12])
            r = c.get((f"/v1/score/{token}", f"/score/{token}", f"/v1/score/{token}/deals")[i % 3])
            statuses.append(r.status_code)
    assert statuses == [404] * N + [429] * EXTRA
    assert len(seen) == N  # one lookup per link within the budget, none past it


def test_made_up_keys_are_held_to_the_address_budget_before_their_lookup(settings, db, an_hour_long_window):
    marks: list[str] = []
    with _limited(settings, db) as c, lookups_of(db, marks) as seen:
        statuses = []
        for i in range(N + EXTRA):
            key = _key()
            marks.append(key[:12])
            statuses.append(
                c.get(
                    ("/v1/conventions", "/v1/tables")[i % 2], headers={"Authorization": f"Bearer {key}"}
                ).status_code
            )
    assert statuses == [401] * N + [429] * EXTRA
    assert len(seen) == N


def test_one_budget_for_every_anonymous_route(settings, db, api, an_hour_long_window):
    """Share links, scorer links (valid ones too) and made-up keys spend one address budget."""
    table = api.table()
    link = api.post(f"/v1/tables/{table['id']}/scorer-link").json()["token"]
    with _limited(settings, db) as c:
        # the key is looked up (and cached) here: a unit spent and given back
        assert c.get("/v1/conventions", headers=api._h(None)).status_code == 200
        statuses = [c.get(f"/v1/shared/{table['share_token']}").status_code for _ in range(4)]
        statuses += [c.get(f"/v1/score/{link}").status_code for _ in range(3)]
        statuses += [
            c.get("/v1/conventions", headers={"Authorization": f"Bearer {_key()}"}).status_code
            for _ in range(3)
        ]
        assert statuses == [200] * 7 + [401] * 3
        for r in (
            c.get(f"/v1/shared/{table['share_token']}"),
            c.get(f"/v1/score/{link}"),
            c.get(f"/score/{link}"),
            c.get("/v1/conventions", headers={"Authorization": f"Bearer {_key()}"}),
            c.get("/v1/conventions"),
        ):
            _refused(r)
        # a key this process knows to be valid is never refused for its address
        assert (
            c.get("/v1/conventions", headers={"Authorization": f"Bearer {settings.admin_key}"}).status_code
            == 200
        )
        assert c.get("/v1/conventions", headers=api._h(None)).status_code == 200


def test_a_key_that_proves_valid_gives_its_unit_back(
    settings, db, client, admin_headers, an_hour_long_window
):
    from tests.conftest import new_owner_key

    keys = [new_owner_key(client, admin_headers)[1] for _ in range(3)]  # not looked up yet: not cached
    with _limited(settings, db, anonymous_rate_limit=2) as c:
        for key in keys:  # each one is looked up (an address unit) and then counted as a key
            assert c.get("/v1/conventions", headers={"Authorization": f"Bearer {key}"}).status_code == 200
        assert [c.get("/v1/conventions").status_code for _ in range(3)] == [401, 401, 429]
        # known valid now: not refused although the address's budget is spent
        assert c.get("/v1/conventions", headers={"Authorization": f"Bearer {keys[0]}"}).status_code == 200
