"""What one key may store: deals per table, tables per owner, the expiry of idempotency
records (in posts and by ``prefscore db cleanup``), and input bounded and normalised before
it is stored (piter_races games, player names in NFC)."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from sqlalchemy import func, select, update

from app.deals.orm import IdempotencyRow
from app.deals.repository import EXPIRY_BATCH
from app.kit.db.models import utcnow
from app.kit.settings import Settings
from app.main import create_app
from tests.api.samples import ALLPASS, PASS_6S, pass_6s

PROBLEM = "application/problem+json"


@pytest.fixture
def limited(settings, db, admin_headers):
    """A client of an app with small limits (3 deals a table, 2 tables an owner) on the
    session's database, acting as a fresh owner."""
    small = Settings(
        database_url=settings.database_url,
        admin_key=settings.admin_key,
        threads=4,
        max_deals_per_table=3,
        max_tables_per_owner=2,
    )
    with TestClient(create_app(small, db=db)) as client:
        r = client.post("/v1/keys", json={"owner": f"limited-{uuid.uuid4().hex[:8]}"}, headers=admin_headers)
        client.headers["Authorization"] = f"Bearer {r.json()['key']}"
        yield client


def _table(client, **body):
    body = {"players": ["Anna", "Boris", "Vera"], "convention": "sochi", **body}
    return client.post("/v1/tables", json=body)


def test_a_table_holds_at_most_the_deal_limit(limited):
    tid = _table(limited).json()["id"]
    for n in range(3):
        assert (
            limited.post(
                f"/v1/tables/{tid}/deals", json=pass_6s(n), headers={"Idempotency-Key": f"k{n}"}
            ).status_code
            == 201
        )
    r = limited.post(f"/v1/tables/{tid}/deals", json=ALLPASS)
    # before: no limit (20,000 deals and more on one table)
    assert r.status_code == 409 and r.headers["content-type"].startswith(PROBLEM)
    problem = r.json()
    assert problem["reason"] == "deal_limit" and problem["limit"] == 3
    assert "PREFSCORE_MAX_DEALS_PER_TABLE" in problem["detail"]
    assert limited.get(f"/v1/tables/{tid}").json()["deal_count"] == 3
    # a retry of a deal already stored still replays; an undo makes room again
    again = limited.post(f"/v1/tables/{tid}/deals", json=pass_6s(2), headers={"Idempotency-Key": "k2"})
    assert again.status_code == 201 and again.headers["idempotent-replayed"] == "true"
    assert limited.delete(f"/v1/tables/{tid}/deals/3").status_code == 200
    assert limited.post(f"/v1/tables/{tid}/deals", json=ALLPASS).status_code == 201
    # corrections are not posts: allowed at the limit
    assert limited.put(f"/v1/tables/{tid}/deals/1", json=PASS_6S).status_code == 200


def test_an_owner_has_at_most_the_table_limit(limited, client, admin_headers):
    assert _table(limited).status_code == 201
    assert _table(limited).status_code == 201
    r = _table(limited)
    # before: 3,000 tables in 5.6 s from one key, no cap
    assert r.status_code == 409 and r.headers["content-type"].startswith(PROBLEM)
    assert r.json()["reason"] == "table_limit" and r.json()["limit"] == 2
    assert "PREFSCORE_MAX_TABLES_PER_OWNER" in r.json()["detail"]
    # the limit is per owner: another owner still creates tables
    r = client.post("/v1/keys", json={"owner": f"other-{uuid.uuid4().hex[:8]}"}, headers=admin_headers)
    other = {"Authorization": f"Bearer {r.json()['key']}"}
    body = {"players": ["Anna", "Boris", "Vera"], "convention": "sochi"}
    assert limited.post("/v1/tables", json=body, headers=other).status_code == 201


def test_the_limits_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("PREFSCORE_MAX_DEALS_PER_TABLE", "50")
    monkeypatch.setenv("PREFSCORE_MAX_TABLES_PER_OWNER", "7")
    monkeypatch.setenv("PREFSCORE_IDEMPOTENCY_DAYS", "0")
    s = Settings.from_env()
    assert (s.max_deals_per_table, s.max_tables_per_owner, s.idempotency_days) == (50, 7, 0)
    for name in (
        "PREFSCORE_MAX_DEALS_PER_TABLE",
        "PREFSCORE_MAX_TABLES_PER_OWNER",
        "PREFSCORE_IDEMPOTENCY_DAYS",
    ):
        monkeypatch.delenv(name)
    defaults = Settings.from_env()
    assert (defaults.max_deals_per_table, defaults.max_tables_per_owner, defaults.idempotency_days) == (
        2000,
        1000,
        7,
    )


def _age(db, table_id: str, days: float) -> None:
    with db.write() as session:
        session.execute(
            update(IdempotencyRow)
            .where(IdempotencyRow.table_id == table_id)
            .values(created_at=utcnow() - timedelta(days=days))
        )


def _records(db, table_id: str) -> int:
    with db.read() as session:
        return session.scalar(
            select(func.count()).select_from(IdempotencyRow).where(IdempotencyRow.table_id == table_id)
        )


def test_an_expired_key_is_forgotten(api, db):
    tid = api.table()["id"]
    h = {"Idempotency-Key": "old"}
    assert api.post(f"/v1/tables/{tid}/deals", json=PASS_6S, headers=h).status_code == 201
    _age(db, tid, 6.9)  # within the 7 days: still a replay
    r = api.post(f"/v1/tables/{tid}/deals", json=PASS_6S, headers=h)
    assert r.headers.get("idempotent-replayed") == "true"
    _age(db, tid, 7.1)
    r = api.post(f"/v1/tables/{tid}/deals", json=ALLPASS, headers=h)
    # before: kept for ever (and 422 here: the key "was used with another body")
    assert r.status_code == 201 and r.headers.get("idempotent-replayed") is None
    assert api.get(f"/v1/tables/{tid}").json()["deal_count"] == 2
    assert _records(db, tid) == 1


def test_posts_clean_up_expired_records_of_any_table(api, db):
    """A post with a key deletes up to EXPIRY_BATCH expired records, oldest first, of any
    table: an abandoned table's records go too."""
    abandoned = api.table()["id"]
    for n in range(EXPIRY_BATCH + 5):
        body = {"type": "allpass", "tricks": {"0": 2, "1": 5, "2": 3}, "note": str(n)}
        assert (
            api.post(
                f"/v1/tables/{abandoned}/deals", json=body, headers={"Idempotency-Key": f"a{n}"}
            ).status_code
            == 201
        )
    _age(db, abandoned, 10_000)  # older than any record another test ages
    busy = api.table()["id"]
    assert (
        api.post(f"/v1/tables/{busy}/deals", json=PASS_6S, headers={"Idempotency-Key": "b1"}).status_code
        == 201
    )
    assert _records(db, abandoned) <= 5
    assert (
        api.post(f"/v1/tables/{busy}/deals", json=ALLPASS, headers={"Idempotency-Key": "b2"}).status_code
        == 201
    )
    assert _records(db, abandoned) == 0
    assert _records(db, busy) == 2


def test_db_cleanup_deletes_every_expired_record(api, db, settings, monkeypatch):
    from app.cli.main import main

    old, fresh = api.table()["id"], api.table()["id"]
    for tid in (old, fresh):
        for n in range(3):
            assert (
                api.post(
                    f"/v1/tables/{tid}/deals", json=pass_6s(n), headers={"Idempotency-Key": f"c{n}"}
                ).status_code
                == 201
            )
    _age(db, old, 8)
    monkeypatch.setenv("DATABASE_URL", settings.database_url)
    result = CliRunner().invoke(main, ["db", "cleanup"])
    assert result.exit_code == 0, result.output
    assert "expired idempotency records" in result.output
    assert _records(db, old) == 0 and _records(db, fresh) == 3
    # PREFSCORE_IDEMPOTENCY_DAYS=0 keeps them for ever: nothing to delete
    _age(db, fresh, 400)
    monkeypatch.setenv("PREFSCORE_IDEMPOTENCY_DAYS", "0")
    result = CliRunner().invoke(main, ["db", "cleanup"])
    assert result.exit_code == 0 and "deleted 0 " in result.output
    assert _records(db, fresh) == 3


def test_races_games_are_bounded(api):
    body = {"players": ["Anna", "Boris", "Vera", "Gleb"], "convention": "piter_races"}
    r = api.post("/v1/tables", json={**body, "options": {"games": 1_000_000_000}})
    # before: 201, a match of a billion games
    assert r.status_code == 422 and r.headers["content-type"].startswith(PROBLEM)
    assert {e["field"] for e in r.json()["errors"]} == {"options.games"}
    assert "99" in r.text
    assert api.post("/v1/tables", json={**body, "options": {"games": 99}}).status_code == 201


def test_player_names_are_nfc(api):
    # "é" as one code point and as "e" with a combining acute accent are one name
    r = api.post("/v1/tables", json={"players": ["Rene\u0301", "Ren\u00e9", "Vera"], "convention": "sochi"})
    # before: 201, two different players
    assert r.status_code == 422 and {e["field"] for e in r.json()["errors"]} == {"players"}
    assert "distinct" in r.text
    t = api.table(players=["Rene\u0301", "Boris", "Vera"])
    assert t["players"][0]["name"] == "Ren\u00e9"


def test_the_table_limit_holds_under_concurrent_creations(limited):
    """Eight creations at once by one owner with room for two: two tables, six 409s (the
    count is serialised per owner: SQLite's writer, an advisory lock on PostgreSQL)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=8) as pool:
        codes = sorted(pool.map(lambda _i: _table(limited).status_code, range(8)))
    assert codes == [201, 201] + [409] * 6
