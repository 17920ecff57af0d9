"""When a finished table is rated (docs/ratings.md § When a table is rated): the post that
finishes it only takes its place in the owner's finishing order, pending; the rater of the
process rates it right after the commit, without any read; a read of the ratings that comes
first rates it itself, so that no read ever shows a rating without its latest tables; and a
rater that starts rates what a process that stopped between a post and its rating left."""

from __future__ import annotations

import asyncio
import threading
import time
from contextlib import contextmanager

import pytest
from sqlalchemy import func, select

from app.events import changes
from app.kit.db.models import utcnow
from app.ratings.model import INITIAL, rate
from app.ratings.orm import PlayerRatingRow, RatedTableRow, RatingChangeRow
from app.ratings.rater import Rater
from app.rules import Deal, exact, make_rules, replay
from app.rules.settlement import balances
from tests.api.samples import PULKA
from tests.ratings.test_api import _play, _players, _rated_table


def _finished_rated_table(api, ids):
    t = _rated_table(api, ids)
    _play(api, t["id"])
    return t["id"]


def _stored(db, table_id):
    """(whether the table is pending, how many rating changes it has) as stored."""
    with db.read() as session:
        pending = session.execute(
            select(RatedTableRow.pending).where(RatedTableRow.table_id == table_id)
        ).scalar_one()
        changed = session.execute(
            select(func.count()).where(RatingChangeRow.table_id == table_id)
        ).scalar_one()
        return pending, changed


@pytest.fixture
def no_rater(monkeypatch):
    """The raters of this process not told of any post (as if the process had stopped right
    after the commit): what is pending stays pending until a read or a rater's sweep."""
    monkeypatch.setattr(
        changes, "_sinks", [s for s in changes._sinks if not isinstance(getattr(s, "__self__", None), Rater)]
    )


READS = {
    "the player's rating": lambda api, tid, ids: api.get(f"/v1/players/{ids[0]}/rating").json()["rating"][
        "mu"
    ],
    "the player's statistics": lambda api, tid, ids: api.get(f"/v1/players/{ids[0]}/stats").json()["rating"][
        "mu"
    ],
    "the settlement": lambda api, tid, ids: api.get(f"/v1/tables/{tid}/settlement").json()["rating"][0][
        "after"
    ]["mu"],
    "the leaderboard": lambda api, tid, ids: {
        s["player"]: s["rating"]["mu"] for s in api.get("/v1/ratings").json()["items"]
    }[ids[0]],
    "a prediction": lambda api, tid, ids: api.post("/v1/ratings/predict", json={"players": ids}).json()[
        "players"
    ][0]["rating"]["mu"],
}


@pytest.mark.parametrize("read", list(READS))
def test_a_read_rates_the_pending_tables_first(api, db, no_rater, read):
    ids = _players(api, "Anna", "Boris", "Vera")
    tid = _finished_rated_table(api, ids)
    assert _stored(db, tid) == (True, 0)  # the post took the place only
    # Anna's first rated table, from the initial rating: the model over the pulka's balances
    rules = make_rules("sochi", players=3, pool_target=4)
    state = replay(rules, 0, [Deal.from_dict(b) for b in PULKA]).state
    expected = rate([INITIAL] * 3, [exact(b) for b in balances(rules, state)])
    assert READS[read](api, tid, ids) == expected[0].mu
    assert _stored(db, tid) == (False, 6)  # three players in two pools (every convention's, sochi's)


def test_the_rater_rates_right_after_the_commit_without_a_read(api, db):
    ids = _players(api, "Anna", "Boris", "Vera")
    tid = _finished_rated_table(api, ids)
    deadline = time.monotonic() + 10
    while _stored(db, tid) != (False, 6):
        assert time.monotonic() < deadline, "the rater did not rate the table"
        time.sleep(0.02)
    with db.read() as session:
        games = (
            session.execute(select(PlayerRatingRow.games).where(PlayerRatingRow.player_id.in_(ids)))
            .scalars()
            .all()
        )
    assert sorted(games) == [1] * 6


def test_a_starting_rater_rates_what_was_left_pending(api, db, no_rater):
    ids = _players(api, "Anna", "Boris", "Vera")
    first, second = _finished_rated_table(api, ids), _finished_rated_table(api, ids)
    assert _stored(db, first) == (True, 0) and _stored(db, second) == (True, 0)

    async def run_a_rater():
        rater = Rater(db, sweep_seconds=60)
        rater.start()
        try:
            for _ in range(500):
                if _stored(db, second) == (False, 6):
                    return
                await asyncio.sleep(0.02)
        finally:
            await rater.stop()

    done = threading.Thread(target=asyncio.run, args=(run_a_rater(),))
    done.start()
    done.join(20)
    assert _stored(db, first) == (False, 6) and _stored(db, second) == (False, 6)
    # in finishing order: the second table started from the ratings the first one left
    got = api.get(f"/v1/players/{ids[0]}/rating").json()
    assert [c["table_id"] for c in got["history"]] == [second, first] and got["rating"]["games"] == 2
    assert got["history"][0]["before"]["mu"] == got["history"][1]["after"]["mu"]


def _places(db, tables):
    with db.read() as session:
        rows = session.execute(
            select(RatedTableRow.table_id, RatedTableRow.seq).where(RatedTableRow.table_id.in_(tables))
        ).all()
    return dict(rows)


def test_tables_finishing_at_once_take_a_place_each_and_rate_in_that_order(api, db):
    ids = _players(api, "Anna", "Boris", "Vera")
    tables = [_rated_table(api, ids)["id"] for _ in range(6)]
    for t in tables:
        _play(api, t, PULKA[:3])
    start, failed = threading.Barrier(len(tables)), []

    def finish(table_id):
        start.wait()
        r = api.post(f"/v1/tables/{table_id}/deals", json=PULKA[3])
        if r.status_code != 201:
            failed.append(r.text)

    threads = [threading.Thread(target=finish, args=(t,)) for t in tables]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not failed
    # a new owner's six places: 1 to 6, one each, whatever the order they came in
    assert sorted(_places(db, tables).values()) == [1, 2, 3, 4, 5, 6]
    got = api.get(f"/v1/players/{ids[0]}/rating").json()
    assert got["rating"]["games"] == 6
    history = got["history"]  # the latest first: each table starts from the one before it
    assert [c["table_id"] for c in history] == sorted(tables, key=_places(db, tables).get, reverse=True)
    for later, earlier in zip(history, history[1:]):
        assert later["before"]["mu"] == earlier["after"]["mu"]


def test_a_place_taken_meanwhile_is_taken_again_after_it(api, db):
    """PostgreSQL's first try takes the next place without the lock: a second table that read
    the same last place waits for the first's commit, finds the place taken, and takes the next
    one under the lock. (SQLite: the second waits for the writer and reads the first's place.)"""
    from app.ratings import repository as repo

    ids = _players(api, "Anna", "Boris", "Vera")
    first, second = (_rated_table(api, ids)["id"] for _ in range(2))
    outcome = [[i, b] for i, b in zip(ids, ("10", "-4", "-6"))]
    taken = threading.Event()
    second_done: list[Exception | None] = []

    def take_second():
        taken.wait(10)
        try:
            with db.write() as session:
                repo.take_place(session, repo.place_params(second, api.owner, "sochi", outcome, utcnow()))
            second_done.append(None)
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            second_done.append(exc)

    thread = threading.Thread(target=take_second)
    thread.start()
    with _place_held(db, api, first, outcome):
        taken.set()
        time.sleep(0.3)  # the second is waiting (PostgreSQL: on the place; SQLite: on the writer)
        assert not second_done
    thread.join(20)
    assert second_done == [None]
    assert _places(db, [first, second]) == {first: 1, second: 2}
    _deleted(api, db, [first, second])


@contextmanager
def _place_held(db, api, table_id, outcome):
    """The table's place taken by hand in a transaction held open while the block runs."""
    from app.ratings import repository as repo

    with db.write() as session:
        repo.take_place(session, repo.place_params(table_id, api.owner, "sochi", outcome, utcnow()))
        yield


def _deleted(api, db, tables):
    """Places taken by hand for unfinished tables: deleted, for the suite's other tests that
    recompute every owner's ratings (tests/ratings/test_rebuild.py)."""
    for table_id in tables:
        assert api.delete(f"/v1/tables/{table_id}").status_code == 204
    assert _places(db, tables) == {}


def test_a_post_whose_place_was_taken_meanwhile_takes_the_next(api, db):
    """The post that finishes a rated table tries its place in its own statement (PostgreSQL):
    when another table read the same last place and commits first, the post's try finds it
    taken (its statement does nothing there) and the post takes the next one under the owner's
    lock, still in its transaction. (SQLite: the post waits for the writer and reads the
    other's place.)"""
    ids = _players(api, "Anna", "Boris", "Vera")
    other, posted = (_rated_table(api, ids)["id"] for _ in range(2))
    _play(api, posted, PULKA[:3])
    outcome = [[i, b] for i, b in zip(ids, ("10", "-4", "-6"))]
    answers: list[int] = []
    poster = threading.Thread(
        target=lambda: answers.append(api.post(f"/v1/tables/{posted}/deals", json=PULKA[3]).status_code)
    )
    with _place_held(db, api, other, outcome):
        poster.start()
        time.sleep(0.3)  # the post is waiting (PostgreSQL: on the place; SQLite: on the writer)
        assert not answers
    poster.join(20)
    assert answers == [201]
    assert _places(db, [other, posted]) == {other: 1, posted: 2}
    # The post's table is rated from its place, after the other's (taken by hand, never rated).
    got = api.get(f"/v1/players/{ids[0]}/rating").json()
    assert [c["table_id"] for c in got["history"]] == [posted, other]
    _deleted(api, db, [other, posted])
