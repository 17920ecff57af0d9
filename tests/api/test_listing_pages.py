"""Every deal listing pages in SQL (app/deals/service.py ``page_of``): by key, by share link
and by scorer link, a page reads the rows it returns (and one more), never the deals before
it, and nothing folds the log to list it; the dealer of each deal is stored with it."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import event, select

import app.rules.scoring as scoring
from app.deals.orm import DealRow
from app.rules import Deal, replay
from app.tables.orm import TableRow
from app.tables.service import rules_of
from tests.support.deallog import generate_log

DEALS = 60
_LIMIT_RE = re.compile(r"\bLIMIT\b", re.IGNORECASE)


def a_long_table(api, db, players: list[str]) -> dict[str, Any]:
    """A table whose dealer stays through all-passes (sliding_allpass off), with ``DEALS``
    generated deals posted through the API: the dealers are not a plain rotation."""
    table = api.table(players=players, pool_target=1000, options={"sliding_allpass": False})
    with db.read() as session:
        rules = rules_of(session.get(TableRow, table["id"]))
    log = generate_log(rules, table["first_dealer"], random.Random(20), DEALS, close=False)
    assert len(log.bodies) == DEALS
    for body in log.bodies:  # without the dealer it may name: a correction may move the dealers
        api.deal(table["id"], {k: v for k, v in body.items() if k != "dealer"})
    link = api.post(f"/v1/tables/{table['id']}/scorer-link").json()["token"]
    dealers = [s.next_dealer for s in log.states[:-1]]
    assert len(set(b - a for a, b in zip(dealers, dealers[1:]))) > 1, "the log never kept its dealer"
    return {**table, "scorer": link, "dealers": dealers}


@pytest.fixture
def long_table(api, db) -> dict[str, Any]:
    """Four players: the dealer sits out."""
    return a_long_table(api, db, ["Anna", "Boris", "Vera", "Gleb"])


@contextmanager
def deal_reads(db) -> Iterator[list[tuple[str, Any]]]:
    """The statements that read the deals table, with their parameters."""
    seen: list[tuple[str, Any]] = []

    def before(conn, cursor, statement, parameters, context, executemany):  # noqa: ANN001
        if re.search(r"\bFROM deals\b", statement):
            seen.append((statement, parameters))

    event.listen(db.engine, "before_cursor_execute", before)
    try:
        yield seen
    finally:
        event.remove(db.engine, "before_cursor_execute", before)


def _bounded(statements: list[tuple[str, Any]], limit: int) -> None:
    """Each read of the deals table has a LIMIT of at most ``limit`` + 1 rows."""
    assert statements, "no statement read the deals"
    for statement, parameters in statements:
        assert _LIMIT_RE.search(statement), f"a read of the whole log: {statement}"
        values = list(parameters.values() if isinstance(parameters, dict) else parameters)
        assert limit + 1 in values, (statement, parameters)


def _no_fold(monkeypatch) -> list[int]:
    calls: list[int] = []
    real = scoring.apply_deal

    def counting(*args: Any, **kw: Any):
        calls.append(1)
        return real(*args, **kw)

    for module in (
        "app.rules.scoring",
        "app.rules",
        "app.scorer.service",
        "app.sharing.pictures",
        "app.deals.service",
    ):
        monkeypatch.setattr(f"{module}.apply_deal", counting, raising=False)
    return calls


@pytest.mark.parametrize("route", ["keyed", "shared", "scorer"])
@pytest.mark.parametrize("after", [0, DEALS - 1])
def test_one_deal_reads_one_page_of_rows_and_folds_nothing(
    api, client, db, long_table, monkeypatch, route, after
):
    table = long_table
    url = {
        "keyed": f"/v1/tables/{table['id']}/deals",
        "shared": f"/v1/shared/{table['share_token']}/deals",
        "scorer": f"/v1/score/{table['scorer']}/deals",
    }[route]
    keyed = api.get(f"/v1/tables/{table['id']}/deals?after={after}&limit=1").json()
    folds = _no_fold(monkeypatch)
    get = api.get if route == "keyed" else client.get
    with deal_reads(db) as statements:
        r = get(f"{url}?after={after}&limit=1")
    assert r.status_code == 200, r.text
    assert folds == [], "the listing folded the log"
    _bounded(statements, 1)
    items = r.json()["items"]
    assert [item["deal"] if route == "scorer" else item for item in items] == keyed["items"]
    numbers = [i["deal"]["number"] for i in items] if route == "scorer" else [i["number"] for i in items]
    assert numbers == [after + 1]
    if route == "scorer":
        assert items[0]["dealer"] == table["dealers"][after]
    assert (r.json()["next"] is None) == (after == DEALS - 1)


def test_the_scorer_log_gives_each_deals_dealer_as_the_fold_does(client, long_table):
    table = long_table
    out, url = [], f"/v1/score/{table['scorer']}/deals?limit=7"
    while url:
        page = client.get(url).json()
        out += page["items"]
        url = page["next"]
    assert [i["deal"]["number"] for i in out] == list(range(1, DEALS + 1))
    assert [i["dealer"] for i in out] == table["dealers"]


def test_undo_and_correction_keep_the_stored_dealers_those_of_the_fold(api, client, db):
    """A correction that turns the first all-pass of a streak into a contract moves the dealer
    of every later deal: the rows are rewritten with the fold's dealers (and an undo leaves
    them right)."""
    table = a_long_table(api, db, ["Anna", "Boris", "Vera"])
    log = api.log(table["id"])
    for prev, deal in zip(log, log[1 : DEALS - 5]):
        if deal["type"] != "allpass" or prev["type"] == "allpass":
            continue
        n = deal["number"]
        # deal n again as a 6 spades everyone passes
        body = {"type": "contract", "declarer": 0, "contract": "6S", "defenders": {"1": "pass", "2": "pass"}}
        r = api.put(f"/v1/tables/{table['id']}/deals/{n}", json=body)
        if r.status_code == 200:
            break
    assert r.status_code == 200, r.text
    assert api.delete(f"/v1/tables/{table['id']}/deals/{DEALS}").status_code == 200
    bodies = [
        {k: v for k, v in d.items() if k not in ("number", "entries", "created_at")}
        for d in api.log(table["id"])
    ]
    with db.read() as session:
        rules = rules_of(session.get(TableRow, table["id"]))
        stored = session.scalars(
            select(DealRow.dealer).where(DealRow.table_id == table["id"]).order_by(DealRow.number)
        ).all()
    folded = replay(rules, table["first_dealer"], [Deal.from_dict(b) for b in bodies])
    assert list(stored) == list(folded.dealers)
    assert list(stored[n:]) != table["dealers"][n : DEALS - 1], "the correction moved no later dealer"
    listed = client.get(f"/v1/score/{table['scorer']}/deals?after={n}&limit=3").json()["items"]
    assert [i["dealer"] for i in listed] == list(folded.dealers[n : n + 3])


def test_the_migration_gives_the_stored_deals_their_dealers(new_database):
    """0008 fills in the dealer of every stored deal from its table's log folded once, and
    makes the column NOT NULL."""
    from sqlalchemy import create_engine, inspect, text
    from sqlalchemy.pool import NullPool

    from app.deals.service import entries_to_json
    from app.kit.db import migrate
    from app.rules import make_rules

    rules = make_rules("sochi", players=4, pool_target=1000, options={"sliding_allpass": False})
    log = generate_log(rules, 2, random.Random(8), 40, close=False)
    with new_database("dealers") as url:
        migrate.upgrade(url, "0007")
        engine = create_engine(url, poolclass=NullPool)
        try:
            with engine.begin() as conn:
                conn.execute(
                    text(
                        "INSERT INTO tables (id, owner, convention, players, pool_target, options, first_dealer, share_token, "
                        "state, rules_version, deal_count, revision, created_at, updated_at) VALUES ('t1', 'o', 'sochi', "
                        '\'["A","B","C","D"]\', 1000, \'{"sliding_allpass": false}\', 2, \'tok\', \'{}\', :v, 40, 40, '
                        "CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
                    ),
                    {"v": rules.rules_version},
                )
                deals = [
                    {"table_id": "t1", "number": n, "body": d.to_dict(), "entries": entries_to_json(e)}
                    for n, (d, e) in enumerate(zip(log.deals, log.entries), start=1)
                ]
                conn.execute(
                    text(
                        "INSERT INTO deals (table_id, number, body, entries, created_at) "
                        "VALUES (:table_id, :number, :body, :entries, CURRENT_TIMESTAMP)"
                    ),
                    [
                        {**d, "body": json.dumps(d["body"]), "entries": json.dumps(d["entries"])}
                        for d in deals
                    ],
                )
            migrate.upgrade(url, "0008")
            with engine.connect() as conn:
                stored = (
                    conn.execute(text("SELECT dealer FROM deals WHERE table_id = 't1' ORDER BY number"))
                    .scalars()
                    .all()
                )
            assert stored == [s.next_dealer for s in log.states[:-1]]
            assert not {c["name"]: c for c in inspect(engine).get_columns("deals")}["dealer"]["nullable"]
            migrate.downgrade(url, "0007")
            assert "dealer" not in {c["name"] for c in inspect(engine).get_columns("deals")}
        finally:
            engine.dispose()
