"""What a post says to the database: on PostgreSQL the deal, the table row, the kept answer,
the registered seats' rows, a rated table's place and the notification are one statement
after the locked read (each round trip was a good
part of a post's CPU: docs/performance.md); on SQLite, which has no data-modifying CTEs, a
statement each. The stored rows and the notification are what they were."""

from __future__ import annotations

import json
from contextlib import contextmanager

import pytest
from sqlalchemy import event

from .samples import ALLPASS, PASS_6S, PULKA

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


def test_a_rated_tables_posts_write_its_seats_and_its_place_in_the_same_write(api, db):
    """Every post to a table of registered players rewrites their seats' rows; the one that
    finishes a rated table also takes its place in the finishing order. On PostgreSQL both are
    members of the post's one write (a round trip each before); on SQLite a statement each."""
    from tests.ratings.test_api import _players, _rated_table

    ids = _players(api, "Anna", "Boris", "Vera")
    t = _rated_table(api, ids)["id"]
    writes = []
    for body in PULKA:
        with statements(db) as seen:
            api.deal(t, body)
        # (the finishing post also asks whether the table is a tournament's: a read)
        writes.append([s for s in seen[1:] if not s.startswith("SELECT")])
    if db.dialect == "postgresql":
        assert all(len(w) == 1 and w[0].startswith("WITH posted AS (INSERT INTO deals") for w in writes), (
            writes
        )
        assert all("seated AS (UPDATE player_tables SET" in w[0] for w in writes)
        assert ["placed AS (INSERT INTO rated_tables" in w[0] for w in writes] == [False, False, False, True]
    else:
        rewrites = [sum(s.startswith("UPDATE player_tables SET") for s in w) for w in writes]
        assert rewrites == [1, 1, 1, 1]  # one executemany each
        assert [sum(s.startswith("INSERT INTO rated_tables") for s in w) for w in writes] == [0, 0, 0, 1]
    # What was written: the four deals in each seat's row, the table pending in its place.
    for player in ids:
        stats = api.get(f"/v1/players/{player}/stats").json()
        assert (stats["tables"], stats["finished"], stats["deals"]) == (1, 1, 4), stats
    history = api.get(f"/v1/players/{ids[0]}/rating").json()["history"]
    assert [c["table_id"] for c in history] == [t]


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
