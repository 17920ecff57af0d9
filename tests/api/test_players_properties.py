"""A player's statistics are what the stored deals say (hypothesis, through HTTP, on the
configured database): over random sequences of posts, undos, corrections (valid or refused),
renames of the table's players, archives and unarchives, and deletions at two tables sharing
registered players, each player's GET .../stats equals the sum of ``player_stats.recompute``
over the stored deal logs of the tables they sit at, and each table's stored rows equal its
recomputation.

A rename changes the names written on the sheet, not who sits at a seat: the stats follow the
seat. An archived table still counts (it is the owner's), and refuses every deal (409, nothing
changed) until it is brought back. A table is deleted either through the API (DELETE
/v1/tables/{id}) or as a DELETE of its row in the database (its players' rows go with it by
the foreign key's cascade)."""

from __future__ import annotations

from datetime import UTC, datetime
from fractions import Fraction

from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from sqlalchemy import delete

from app.players import stats as player_stats
from app.players.schemas import PlayerStatsOut
from app.players.service import Player
from app.players.stats import PlayerStats, Tally
from app.rules import Deal, replay
from app.tables.orm import TableRow
from tests.rules.strategies import randoms, tables
from tests.support.deallog import next_deal

EXAMPLES = settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)
OPS = st.lists(
    # weighted: deals mostly, a deletion seldom (it ends the table's part of the sequence)
    st.sampled_from(
        ["post"] * 5 + ["undo", "correct", "rename", "archive", "archive", "unarchive", "delete", "drop"]
    ),
    min_size=1,
    max_size=14,
)


def _stored_bodies(api, tid) -> list[dict]:
    out, url = [], f"/v1/tables/{tid}/deals?limit=200"
    while url:
        page = api.get(url).json()
        out += [
            {k: v for k, v in d.items() if k not in ("number", "entries", "created_at")}
            for d in page["items"]
        ]
        url = page["next"]
    return out


def _expected(api, player: dict, seats: dict[str, tuple], live: set[str]) -> dict:
    """The player's stats recomputed from the stored deals of the live tables they sit at."""
    total, tables, finished, deals, balance = Tally(), 0, 0, 0, Fraction(0)
    for tid, (rules, first_dealer, seat) in seats.items():
        if tid not in live:
            continue
        row = player_stats.recompute(rules, first_dealer, _stored_bodies(api, tid), [seat])[seat]
        tables += 1
        deals += row.deal_count
        finished += row.finished
        balance += row.balance if row.finished else 0
        total.add(row.tally)
    now = datetime.now(UTC)
    p = Player(player["id"], player["name"], player["external_id"], now, now)
    out = PlayerStatsOut.of(p, PlayerStats(tables, finished, deals, balance, total)).model_dump(
        mode="json", by_alias=True
    )
    out.pop("player")
    return out


@EXAMPLES
@given(
    first=tables(),
    second=tables(),
    ops=OPS,
    which=st.lists(st.integers(0, 1), min_size=14, max_size=14),
    rng=randoms,
    data=st.data(),
)
def test_stats_are_the_recomputed_stored_deals(api, db, first, second, ops, which, rng, data):
    names = ["Anna", "Boris", "Vera", "Gleb"]
    players = [api.post("/v1/players", json={"name": n}).json() for n in names]
    setups, seats_of = {}, {p["id"]: {} for p in players}
    for k, (rules, first_dealer) in enumerate((first, second)):
        # the first table links every seat, the second only seat 0 and seat 2 (in another order)
        order = list(range(rules.players)) if k == 0 else [2, 0]
        seats = [names[s] for s in range(rules.players)]
        for i, seat in enumerate(order):
            seats[seat] = {"name": names[seat], "player": players[i]["id"]}
        body = {
            "players": seats,
            "convention": rules.convention.name,
            "pool_target": rules.pool_target,
            "first_dealer": first_dealer,
            "options": rules.options,
        }
        r = api.post("/v1/tables", json=body)
        assert r.status_code == 201, r.text
        tid = r.json()["id"]
        setups[tid] = (rules, first_dealer)
        for i, seat in enumerate(order):
            seats_of[players[i]["id"]][tid] = (rules, first_dealer, seat)
    ids = list(setups)
    live = set(ids)
    archived: set[str] = set()
    logs: dict[str, list[dict]] = {tid: [] for tid in ids}
    for step, (op, w) in enumerate(zip(ops, which)):
        tid = ids[w]
        if tid not in live:
            continue
        rules, first_dealer = setups[tid]
        log = logs[tid]
        state = replay(rules, first_dealer, [Deal.from_dict(b) for b in log]).state
        note(f"{op} at table {w} after {len(log)} deals{' (archived)' if tid in archived else ''}")
        if op in ("post", "undo", "correct") and tid in archived and (log or op == "post"):
            # an archived table refuses every deal, and nothing changes
            r = {
                "post": lambda: api.post(
                    f"/v1/tables/{tid}/deals", json=next_deal(rules, state, rng, close=False)
                ),
                "undo": lambda: api.delete(f"/v1/tables/{tid}/deals/{len(log)}"),
                "correct": lambda: api.put(f"/v1/tables/{tid}/deals/1", json=log[0]),
            }[op]()
            assert r.status_code == 409 and r.json()["reason"] == "archived", r.text
        elif op == "post" and not state.finished:
            body = next_deal(rules, state, rng, close=False)
            assert api.post(f"/v1/tables/{tid}/deals", json=body).status_code == 201
            log.append(body)
        elif op == "undo" and log:
            assert api.delete(f"/v1/tables/{tid}/deals/{len(log)}").status_code == 200
            log.pop()
        elif op == "correct" and log:
            k = data.draw(st.integers(1, len(log)), label="corrected deal")
            before = replay(rules, first_dealer, [Deal.from_dict(b) for b in log[: k - 1]]).state
            body = next_deal(rules, before, rng, close=False)
            r = api.put(f"/v1/tables/{tid}/deals/{k}", json=body)
            assert r.status_code in (200, 409), r.text  # 409: a later deal no longer fits; nothing changed
            if r.status_code == 200:
                log[k - 1] = body
        elif op == "rename":
            # every seat gets a new name; the registered players stay where they sit
            renamed = [f"{names[s]} {step}" for s in range(rules.players)]
            r = api.client.patch(f"/v1/tables/{tid}", json={"players": renamed}, headers=api.headers)
            assert r.status_code == 200 and [p["name"] for p in r.json()["players"]] == renamed, r.text
        elif op in ("archive", "unarchive"):
            r = api.client.patch(f"/v1/tables/{tid}", json={"archived": op == "archive"}, headers=api.headers)
            assert r.status_code == 200 and r.json()["archived"] is (op == "archive"), r.text
            (archived.add if op == "archive" else archived.discard)(tid)
        elif op == "delete":
            assert api.delete(f"/v1/tables/{tid}").status_code == 204
            live.discard(tid)
        elif op == "drop":
            with db.write() as session:
                session.execute(delete(TableRow).where(TableRow.id == tid))
            live.discard(tid)
    for tid in live:
        rules, first_dealer = setups[tid]
        with db.read() as session:
            stored = player_stats.stored_rows(session, tid)
        again = player_stats.recompute(rules, first_dealer, _stored_bodies(api, tid), list(stored))
        assert stored == again
    for p in players:
        shown = api.get(f"/v1/players/{p['id']}/stats").json()
        shown.pop("player")
        assert shown == _expected(api, p, seats_of[p["id"]], live)
