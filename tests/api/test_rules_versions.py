"""A table keeps the rules version it was made under (docs/rules.md, "Rules versions"): a
later version that reads a seed passage anew changes new tables only. And the caller's
``close`` deal ends a game played for a number of deals."""

from __future__ import annotations

from sqlalchemy import select, update

from app.rules import RULES_VERSION
from app.tables.orm import TableRow

# Piter with sliding all-passes off, dealer 0: an all-pass (streak 1, the dealer stays 0),
# then an unwhisted 7 of seat 1, which does not end a Piter streak.
#   version 2: "в распасах все время сдает один и тот же игрок" (seed 001) -- the dealer stays
#              for the whole streak, so seat 0 deals deal 3;
#   version 1: only an all-pass deal kept the dealer, so the deal passes on to seat 1.
LOG = [
    {"type": "allpass", "tricks": {"0": 2, "1": 5, "2": 3}},
    {"type": "contract", "declarer": 1, "contract": "7S", "defenders": {"0": "pass", "2": "pass"}},
]
FIXED_DEALER = {
    "players": ["Anna", "Boris", "Vera"],
    "convention": "piter",
    "options": {"sliding_allpass": False},
}


def _version(db, table_id: str) -> int:
    with db.read() as session:
        return session.scalar(select(TableRow.rules_version).where(TableRow.id == table_id))


def test_a_new_table_is_scored_under_the_current_version(api, db):
    tid = api.table(**FIXED_DEALER)["id"]
    for body in LOG:
        sheet = api.deal(tid, body)["sheet"]
    assert sheet["next_dealer"] == 0 and sheet["allpass"]["streak"] == 1
    assert _version(db, tid) == RULES_VERSION == 2


def test_a_table_stored_under_version_1_keeps_its_reading(api, db):
    tid = api.table(**FIXED_DEALER)["id"]
    with db.write() as session:  # as the code before version 2 stored it
        session.execute(update(TableRow).where(TableRow.id == tid).values(rules_version=1))
    for body in LOG:
        sheet = api.deal(tid, body)["sheet"]
    assert sheet["next_dealer"] == 1
    assert api.get(f"/v1/tables/{tid}/sheet").json()["next_dealer"] == 1
    # a write keeps the table on its version; an undo re-folds under it too
    assert _version(db, tid) == 1
    assert api.delete(f"/v1/tables/{tid}/deals/2").status_code == 200
    assert api.deal(tid, LOG[1])["sheet"]["next_dealer"] == 1 and _version(db, tid) == 1


def test_the_caller_closes_a_game_played_for_a_number_of_deals(api):
    tid = api.table(
        players=["Anna", "Boris", "Vera"],
        convention="sochi",
        options={"end_of_game": "deals", "game_deals": 100},
    )["id"]
    api.deal(tid, {"type": "allpass", "tricks": {"0": 2, "1": 5, "2": 3}})
    closed = api.deal(tid, {"type": "close"})
    # the close writes nothing and ends the game; the settlement is final with pools unclosed
    assert closed["deal"] == {
        "number": 2,
        "type": "close",
        "entries": [],
        "created_at": closed["deal"]["created_at"],
    }
    assert closed["sheet"]["finished"] is True
    assert api.get(f"/v1/tables/{tid}/settlement").json()["final"] is True
    refused = api.post(
        f"/v1/tables/{tid}/deals", json={"type": "allpass", "tricks": {"0": 2, "1": 5, "2": 3}}
    )
    assert refused.status_code == 409


def test_close_is_refused_where_the_game_ends_by_its_pools(api):
    tid = api.table(players=["Anna", "Boris", "Vera"], convention="sochi")["id"]
    r = api.post(f"/v1/tables/{tid}/deals", json={"type": "close"})
    assert r.status_code == 422 and [e["field"] for e in r.json()["errors"]] == ["type"]
