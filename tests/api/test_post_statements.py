"""What a post says to the database: on PostgreSQL the deal, the table row, the kept answer
and the notification are one statement after the locked read (each round trip was a good
part of a post's CPU: docs/performance.md); on SQLite, which has no data-modifying CTEs, a
statement each. The stored rows and the notification are what they were."""

from __future__ import annotations

import json
from contextlib import contextmanager

import pytest
from sqlalchemy import event

from .samples import ALLPASS, PASS_6S

# The rate limit and the key cache may touch the database during any request: not the post's;
# nor SQLite's BEGIN IMMEDIATE, the writer's lock (app/kit/db/engine.py).
NOT_THE_POSTS = ("rate_limits", "api_keys", "BEGIN IMMEDIATE")


@contextmanager
def statements(db):
    seen: list[str] = []

    def on_query(_conn, _cursor, statement, *_args) -> None:
        if not any(t in statement for t in NOT_THE_POSTS):
            seen.append(" ".join(statement.split()))

    event.listen(db.engine, "before_cursor_execute", on_query)
    try:
        yield seen
    finally:
        event.remove(db.engine, "before_cursor_execute", on_query)


def test_a_post_is_a_locked_read_and_one_write_on_postgresql(api, db):
    t = api.table()
    api.deal(t["id"], PASS_6S)
    with statements(db) as seen:
        out = api.deal(t["id"], ALLPASS)
    assert out["deal"]["number"] == 2
    assert seen[0].startswith("SELECT")
    assert ("FOR UPDATE" in seen[0]) == (db.dialect == "postgresql")  # SQLite's writer holds the file
    writes = seen[1:]
    if db.dialect == "postgresql":
        assert len(writes) == 1, writes
        (write,) = writes
        assert write.startswith("WITH posted AS (INSERT INTO deals")
        assert "UPDATE tables SET" in write and "pg_notify" in write
        assert "idempotency_keys" not in write
    else:
        assert [w.split(" (")[0] for w in writes] == [
            "INSERT INTO deals",
            "UPDATE tables SET state=?, deal_count=?, revision=?, updated_at=? WHERE tables.id = ?",
        ]
    # What was written: the deal as the second of the log, the table moved on by one.
    got = api.get(f"/v1/tables/{t['id']}").json()
    assert got["deal_count"] == 2
    assert [d["number"] for d in api.log(t["id"])] == [1, 2]


def test_a_keyed_post_keeps_its_answer_in_the_same_write(api, db):
    t = api.table()
    key = {"Idempotency-Key": "post-statements-1"}
    with statements(db) as seen:
        first = api.post(f"/v1/tables/{t['id']}/deals", json=PASS_6S, headers=key)
    assert first.status_code == 201, first.text
    kept = [s for s in seen if s.startswith(("INSERT INTO idempotency_keys", "WITH posted"))]
    if db.dialect == "postgresql":
        assert len(kept) == 1 and "kept AS (INSERT INTO idempotency_keys" in kept[0], seen
    else:
        assert [s.split(" (")[0] for s in kept] == ["INSERT INTO idempotency_keys"], seen
    # The retry is answered from what that write kept: the same answer, nothing new stored.
    again = api.post(f"/v1/tables/{t['id']}/deals", json=PASS_6S, headers=key)
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert api.get(f"/v1/tables/{t['id']}").json()["deal_count"] == 1


def test_the_posts_own_statement_notifies_every_listener(api, db, database_url):
    """PostgreSQL only: a listening connection (as every process's listener is) receives the
    post's notification, with the table, owner, new revision, kind and writing process."""
    if db.dialect != "postgresql":
        pytest.skip("PostgreSQL only: SQLite's processes learn of a change from the revision column")
    import psycopg
    from sqlalchemy.engine import make_url

    from app.events.changes import origin
    from app.live import CHANNEL

    t = api.table()
    url = make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(url, autocommit=True) as listener:
        listener.execute(f"LISTEN {CHANNEL}")
        api.deal(t["id"], PASS_6S)
        got = [json.loads(n.payload) for n in listener.notifies(timeout=5, stop_after=1)]
    # The last member names the process that wrote it: its own listener skips it (the post
    # handed its hub the stored table already; tests/api/test_events_hub.py).
    assert got == [[t["id"], api.owner, 1, "deal.posted", origin()]]
