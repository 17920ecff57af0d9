"""Concurrent writers on one table: every deal gets a number, no gaps, no "database is
locked", and the stored state equals the log folded again."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from app.deals.service import entries_to_json
from app.rules import Deal, TableState, make_rules, replay

from .samples import ALLPASS


def test_concurrent_posts_are_serialised(api, db):
    tid = api.table()["id"]
    writers, per_writer = 6, 5

    def write(w: int) -> list[int]:
        codes = []
        for i in range(per_writer):
            r = api.post(f"/v1/tables/{tid}/deals", json=ALLPASS, headers={"Idempotency-Key": f"w{w}-{i}"})
            codes.append(r.status_code)
        return codes

    with ThreadPoolExecutor(max_workers=writers) as pool:
        results = [c for codes in pool.map(write, range(writers)) for c in codes]
    assert results == [201] * (writers * per_writer)
    page = api.get(f"/v1/tables/{tid}/deals", params={"limit": 200}).json()
    assert [d["number"] for d in page["items"]] == list(range(1, writers * per_writer + 1))

    # fold == stored
    from app.tables.orm import TableRow

    with db.read() as session:
        row = session.get(TableRow, tid)
        rules = make_rules(row.convention, len(row.players), row.pool_target, row.options)
        stored = TableState.from_dict(row.state)
    folded = replay(
        rules,
        0,
        [
            Deal.from_dict({k: v for k, v in d.items() if k not in ("number", "entries", "created_at")})
            for d in page["items"]
        ],
    )
    assert folded.state == stored
    assert [entries_to_json(e) for e in folded.entries][0] == [
        {"kind": "mountain", "seat": 0, "amount": 2},
        {"kind": "mountain", "seat": 1, "amount": 5},
        {"kind": "mountain", "seat": 2, "amount": 3},
    ]


def test_concurrent_retries_with_one_key_write_once(api):
    tid = api.table()["id"]

    def post(_i: int):
        r = api.post(f"/v1/tables/{tid}/deals", json=ALLPASS, headers={"Idempotency-Key": "same-key"})
        return r.status_code, r.json()

    with ThreadPoolExecutor(max_workers=5) as pool:
        results = list(pool.map(post, range(10)))
    assert {code for code, _ in results} == {201}
    assert len({str(body) for _, body in results}) == 1
    assert api.get(f"/v1/tables/{tid}").json()["deal_count"] == 1
