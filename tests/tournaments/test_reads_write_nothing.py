"""A tournament's reads write nothing, and a round closes in the write that finishes it.

A round whose every table has finished is closed (its tables locked, their balances stored)
by the write that finished its last table: a post, the director's penalty, or a correction.
The reads (the tournament, its standings, its audit, its export, the share link's answer and
page) then only read: no statement they run writes.

The tables play sochi to a pool of 3: 6♠ by seat 0, then seat 1, then seat 2 leaves the game
open; 8♠ by seat 2 as the third deal ends it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine

from tests.tournaments.test_api import six_spades

WRITES = re.compile(r"^\s*(INSERT|UPDATE|DELETE|REPLACE)\b", re.IGNORECASE)


def contract(declarer: int, level: str) -> dict[str, Any]:
    return {**six_spades(declarer), "contract": level}


def one_table_tournament(api) -> tuple[str, dict[str, Any]]:
    body = {
        "name": "Pool of three",
        "convention": "sochi",
        "pool_target": 3,
        "game_end": {"kind": "pool"},
        "rounds": 2,
        "entrants": ["Anna", "Boris", "Vera"],
    }
    r = api.post("/v1/tournaments", json=body)
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    r = api.post(f"/v1/tournaments/{tid}/rounds", json={"seed": 1})
    assert r.status_code == 201, r.text
    return tid, r.json()


@contextmanager
def writes_seen() -> Iterator[list[str]]:
    """Every writing statement run meanwhile, on any engine (the requests' threads included)."""
    seen: list[str] = []

    def noted(conn, cursor, statement, parameters, context, executemany):  # noqa: ARG001
        if WRITES.match(statement):
            seen.append(statement)

    event.listen(Engine, "before_cursor_execute", noted)
    try:
        yield seen
    finally:
        event.remove(Engine, "before_cursor_execute", noted)


def round_status(db, tid: str) -> str | None:
    """The first round's status as stored, read past the service (no read of it can close it)."""
    from sqlalchemy import text

    with db.read() as session:
        closed_at, reopened = session.execute(
            text("SELECT closed_at, reopened FROM tournament_rounds WHERE tournament_id = :t AND number = 1"),
            {"t": tid},
        ).one()
    return "closed" if closed_at is not None else "reopened" if reopened else "open"


def every_read(api, tid: str, token: str) -> None:
    for path in (
        f"/v1/tournaments/{tid}",
        f"/v1/tournaments/{tid}/standings",
        f"/v1/tournaments/{tid}/audit",
        f"/v1/tournaments/{tid}/export",
        "/v1/tournaments",
    ):
        r = api.get(path)
        assert r.status_code == 200, (path, r.text)
    for path in (f"/v1/shared/{token}/tournament", f"/tournament/{token}"):
        r = api.client.get(path)
        assert r.status_code == 200, (path, r.text)


def test_the_finishing_post_closes_the_round(api, db):
    tid, drawn = one_table_tournament(api)
    table_id = drawn["rounds"][0]["tables"][0]["table_id"]
    api.deal(table_id, six_spades(0))
    api.deal(table_id, six_spades(1))
    assert round_status(db, tid) == "open"
    api.deal(table_id, contract(2, "8S"))
    assert round_status(db, tid) == "closed"
    audit = api.get(f"/v1/tournaments/{tid}/audit").json()["items"]
    assert [(e["action"], e["by"]) for e in audit][-1] == ("lock", "the tables finished")
    r = api.post(f"/v1/tables/{table_id}/deals", json=six_spades(0))
    assert r.status_code == 409 and r.json()["reason"] == "locked", r.text


def test_a_finishing_correction_closes_the_round(api, db):
    tid, drawn = one_table_tournament(api)
    table_id = drawn["rounds"][0]["tables"][0]["table_id"]
    for declarer in (0, 1, 2):
        api.deal(table_id, six_spades(declarer))
    assert round_status(db, tid) == "open"
    r = api.put(f"/v1/tables/{table_id}/deals/3", json=contract(2, "8S"))
    assert r.status_code == 200, r.text
    assert round_status(db, tid) == "closed"
    st = api.get(f"/v1/tournaments/{tid}/standings").json()
    assert st["rounds_closed"] == 1


def test_a_round_of_unfinished_tables_stays_open_after_a_correction(api, db):
    tid, drawn = one_table_tournament(api)
    table_id = drawn["rounds"][0]["tables"][0]["table_id"]
    for declarer in (0, 1, 2):
        api.deal(table_id, six_spades(declarer))
    r = api.put(f"/v1/tables/{table_id}/deals/3", json=contract(2, "7S"))
    assert r.status_code == 200, r.text
    assert round_status(db, tid) == "open"


def test_the_reads_write_nothing(api, db):
    tid, drawn = one_table_tournament(api)
    table_id = drawn["rounds"][0]["tables"][0]["table_id"]
    token = drawn["share_token"]
    for declarer in (0, 1, 2):
        api.deal(table_id, six_spades(declarer))
    with writes_seen() as seen:
        every_read(api, tid, token)  # a round playing
    assert seen == []
    api.put(f"/v1/tables/{table_id}/deals/3", json=contract(2, "8S"))  # finishes the table
    with writes_seen() as seen:
        every_read(api, tid, token)  # its round finished: closed already, nothing to write
        before = api.get(f"/v1/tournaments/{tid}/standings").headers["ETag"]
        every_read(api, tid, token)
    assert seen == []
    assert api.get(f"/v1/tournaments/{tid}/standings").headers["ETag"] == before
    assert round_status(db, tid) == "closed"


def test_two_writes_finishing_a_rounds_last_tables_at_once_close_it(api, db):
    """The last two tables finish at the same moment: whichever write comes second sees the
    first's table finished (the tournament's row taken in turn) and closes the round."""
    from concurrent.futures import ThreadPoolExecutor

    for _ in range(3):
        body = {
            "name": "Two tables",
            "convention": "sochi",
            "pool_target": 3,
            "game_end": {"kind": "pool"},
            "rounds": 2,
            "entrants": [f"P{i}" for i in range(6)],
        }
        tid = api.post("/v1/tournaments", json=body).json()["id"]
        drawn = api.post(f"/v1/tournaments/{tid}/rounds", json={"seed": 2}).json()
        table_ids = [t["table_id"] for t in drawn["rounds"][0]["tables"]]
        for table_id in table_ids:
            api.deal(table_id, six_spades(0))
            api.deal(table_id, six_spades(1))
        with ThreadPoolExecutor(2) as pool:
            posted = list(
                pool.map(lambda x: api.post(f"/v1/tables/{x}/deals", json=contract(2, "8S")), table_ids)
            )
        assert [r.status_code for r in posted] == [201, 201], [r.text for r in posted]
        assert round_status(db, tid) == "closed"
