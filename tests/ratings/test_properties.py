"""A player's rating is a recomputation from every finished rated table in finishing order
(hypothesis, through HTTP, on the configured database): over random posts, undos,
corrections (valid or refused) and deletions at three tables sharing registered players,
every player's rating in every pool equals, bit for bit, the model run by this test over
the tables it saw finish, in the order they finished (a correction that keeps a table
finished keeps its place; an undo or a correction that un-finishes it, or its deletion,
takes it out; finishing again puts it last), and ``prefscore ratings rebuild``'s comparison
finds no difference."""

from __future__ import annotations

from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st

from app.ratings import service as ratings
from app.ratings.model import INITIAL, rate
from app.rules import Deal, exact, make_rules, replay
from app.rules.settlement import balances
from tests.rules.strategies import randoms
from tests.support.deallog import next_deal

EXAMPLES = settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)
NAMES = ["Anna", "Boris", "Vera", "Gleb", "Dana"]
TABLE = st.tuples(
    st.sampled_from(["sochi", "piter", "rostov"]),
    st.sampled_from([3, 4]),
    st.integers(1, 2),  # a short pool: tables finish within the sequence
    st.sampled_from([True, True, True, False]),  # rated
    st.permutations(range(5)),  # who sits where
    st.sampled_from([False, False, False, True]),  # the last seat a plain name (never rated)
)
OPS = st.lists(
    st.tuples(
        st.sampled_from(["post"] * 14 + ["undo"] * 3 + ["correct"] * 3 + ["delete"]), st.integers(0, 2)
    ),
    min_size=20,
    max_size=80,
)


def _expected(order, tables, logs):
    """The model over the finished rated tables, in finishing order: (pool, player) → rating."""
    out = {}
    for tid in order:
        rules, first_dealer, seats, convention = tables[tid]
        state = replay(rules, first_dealer, [Deal.from_dict(b) for b in logs[tid]]).state
        result = [exact(b) for b in balances(rules, state)]
        for pool in ("", convention):
            before = [out.get((pool, p), INITIAL) for p in seats]
            for p, r in zip(seats, rate(before, result)):
                out[(pool, p)] = r
    return out


def _rateable(tables, tid, state):
    return state.finished and tables[tid][2] is not None


@EXAMPLES
@given(setups=st.lists(TABLE, min_size=3, max_size=3), ops=OPS, rng=randoms, data=st.data())
def test_ratings_are_the_recomputed_finished_tables(api, db, setups, ops, rng, data):
    players = [api.post("/v1/players", json={"name": n}).json()["id"] for n in NAMES]
    tables, logs, ids = {}, {}, []
    for k, (convention, size, target, rated, who, plain) in enumerate(setups):
        if k < 2:  # two tables always count; the third may be unrated, or have a plain name
            rated, plain = True, False
        seats = [{"name": NAMES[w], "player": players[w]} for w in who[:size]]
        if plain:
            seats[-1] = NAMES[who[size - 1]]
        r = api.post(
            "/v1/tables",
            json={"players": seats, "convention": convention, "pool_target": target, "rated": rated},
        )
        assert r.status_code == 201, r.text
        tid = r.json()["id"]
        rules = make_rules(convention, players=size, pool_target=target)
        # the seats' players when the table is rated and every seat registered, else None
        tables[tid] = (
            rules,
            0,
            [players[w] for w in who[:size]] if rated and not plain else None,
            convention,
        )
        logs[tid] = []
        ids.append(tid)
    order: list[str] = []  # the finishing order of the rated tables, as this test saw it
    live = set(ids)
    for op, w in ops:
        tid = ids[w]
        if tid not in live:
            continue
        rules, first_dealer = tables[tid][0], tables[tid][1]
        log = logs[tid]
        state = replay(rules, first_dealer, [Deal.from_dict(b) for b in log]).state
        was = _rateable(tables, tid, state)
        note(f"{op} at table {w} after {len(log)} deals")
        if op == "post" and not state.finished:
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
        elif op == "delete":
            assert api.delete(f"/v1/tables/{tid}").status_code == 204
            live.discard(tid)
            if tid in order:
                order.remove(tid)
            continue
        now = _rateable(tables, tid, replay(rules, first_dealer, [Deal.from_dict(b) for b in log]).state)
        if now and not was:
            order.append(tid)
        elif was and not now:
            order.remove(tid)
            event("a rated table un-finished")
        elif was and now and op == "correct":
            event("a finished rated table corrected")
    event(f"finished rated tables at the end: {len(order)}")
    expected = _expected(order, tables, logs)
    for pool in ("", "sochi", "piter", "rostov"):
        for p in players:
            query = f"?convention={pool}" if pool else ""
            got = api.get(f"/v1/players/{p}/rating{query}").json()["rating"]
            want = expected.get((pool, p), INITIAL)
            assert (got["mu"], got["sigma"], got["games"]) == (want.mu, want.sigma, want.games), (pool, p)
    assert ratings.differences_of(db, api.owner) == []
