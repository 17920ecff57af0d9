"""The standings kept from one read to the next (app/tournaments/standings.py ``_Basis``, the
rows' texts in app/tournaments/standings_answers.py) equal a fresh process's after every change: a deal
corrected at one table, a round closed, reopened, corrected and closed again, an adjustment,
a round drawn; and equal the full computation from the stored balances and the tables' logs
(``_standings``)."""

from __future__ import annotations

import pytest

from app.tournaments import standings, standings_answers
from app.tournaments.reading import _read
from app.tournaments.schemas import StandingsOut
from tests.tournaments.test_api import draw, play, six_spades, tournament


def _forget() -> None:
    """What a fresh process has kept: nothing."""
    standings._BASES.clear()
    standings._COMPUTED.clear()
    standings_answers._ANSWERS.clear()
    standings_answers._ROWS.clear()


def _same_as_a_fresh_process(api, db, tid: str) -> None:
    for params in ({}, {"after_round": 1}):
        kept = api.get(f"/v1/tournaments/{tid}/standings", params=params)
        assert kept.status_code == 200, kept.text
        assert tid in standings._BASES  # computed from what was kept
        t, now = _read(db, api.owner, tid)
        full = standings._standings(t, now, params.get("after_round"))
        got = standings.standings(db, api.owner, tid, after_round=params.get("after_round"))
        assert not isinstance(got, str) and list(got.rows) == full
        _forget()
        fresh = api.get(f"/v1/tournaments/{tid}/standings", params=params)
        assert fresh.content == kept.content and fresh.headers["ETag"] == kept.headers["ETag"]


@pytest.mark.parametrize("scoring", ["gambler_ru", "places"])
def test_the_standings_kept_equal_a_fresh_computation_after_every_change(api, db, scoring):
    _forget()
    tid = tournament(api, players=10, scoring=scoring)["id"]  # 3 tables and a bye a round
    first = draw(api, tid, seed=3)["rounds"][0]["tables"]
    for table in first:
        play(api, table)  # the round closes with its last table
    _same_as_a_fresh_process(api, db, tid)
    second = draw(api, tid, seed=4)["rounds"][1]["tables"]
    play(api, second[0])
    api.deal(second[1]["table_id"], six_spades(0))
    _same_as_a_fresh_process(api, db, tid)

    # a correction at one table of the round being played
    r = api.put(f"/v1/tables/{second[0]['table_id']}/deals/1", json=six_spades(2))
    assert r.status_code == 200, r.text
    _same_as_a_fresh_process(api, db, tid)
    # a deal finishing another table
    api.deal(second[1]["table_id"], six_spades(1))
    _same_as_a_fresh_process(api, db, tid)

    # the closed round reopened, corrected at one table and closed again
    r = api.post(f"/v1/tournaments/{tid}/rounds/1/reopen", json={"reason": "table 1 wrote deal 1 wrongly"})
    assert r.status_code == 200, r.text
    _same_as_a_fresh_process(api, db, tid)
    r = api.put(f"/v1/tables/{first[0]['table_id']}/deals/1", json=six_spades(2))
    assert r.status_code == 200, r.text
    _same_as_a_fresh_process(api, db, tid)
    assert api.post(f"/v1/tournaments/{tid}/rounds/1/close").status_code == 200
    _same_as_a_fresh_process(api, db, tid)

    # an adjustment, then the last table of round 2: the round closes
    r = api.post(f"/v1/tournaments/{tid}/adjustments", json={"entrant": 2, "amount": "7/2", "reason": "r"})
    assert r.status_code == 201, r.text
    _same_as_a_fresh_process(api, db, tid)
    play(api, second[2])
    _same_as_a_fresh_process(api, db, tid)
    draw(api, tid, seed=5)
    _same_as_a_fresh_process(api, db, tid)


def test_the_answer_made_of_kept_rows_is_the_answer_written_whole(api, db):
    tid = tournament(api, players=10)["id"]
    tables = draw(api, tid, seed=3)["rounds"][0]["tables"]
    play(api, tables[0])
    r = api.post(
        f"/v1/tournaments/{tid}/adjustments", json={"entrant": 4, "amount": "-5/2", "reason": "late"}
    )
    assert r.status_code == 201, r.text
    for _ in range(2):  # the rows made, then the rows kept
        st = standings.standings(db, api.owner, tid)
        assert not isinstance(st, str)
        assert standings_answers.body_of(st) == StandingsOut.of(st).model_dump_json().encode()
    play(api, tables[1])  # places move, rows' texts are kept
    st = standings.standings(db, api.owner, tid)
    assert not isinstance(st, str)
    assert standings_answers.body_of(st) == StandingsOut.of(st).model_dump_json().encode()


def test_the_rows_texts_kept_stay_bounded_and_right_over_many_changes(api, db):
    """Each answer starts from the last one's rows and texts: the rows the ranking kept are
    carried with no lookup, the texts of contents gone are dropped once they outnumber the
    rows twice (10 entrants: 30 texts at most)."""
    _forget()
    tid = tournament(api, players=10)["id"]
    for seed in (3, 4, 5):
        tables = draw(api, tid, seed=seed)["rounds"][-1]["tables"]
        for table in tables:
            play(api, table)
            st = standings.standings(db, api.owner, tid)
            assert not isinstance(st, str)
            assert standings_answers.body_of(st) == StandingsOut.of(st).model_dump_json().encode()
            kept = standings_answers._ROWS.get((tid, st.rounds))
            assert kept is not None and len(kept.texts) <= 3 * len(st.rows)


def test_an_adjustment_makes_only_the_adjusted_rows_text_again(api, db, monkeypatch):
    """A new revision of the tournament (an adjustment) keeps the last answer's texts: only the
    adjusted player's row, whose content moved, is written again."""
    _forget()
    tid = tournament(api, players=10)["id"]
    for table in draw(api, tid, seed=3)["rounds"][0]["tables"]:
        play(api, table)
    assert api.get(f"/v1/tournaments/{tid}/standings").status_code == 200
    made = []
    real = standings_answers.StandingOut.of
    monkeypatch.setattr(
        standings_answers.StandingOut, "of", lambda *a, **k: made.append(a[0]) or real(*a, **k)
    )
    r = api.post(f"/v1/tournaments/{tid}/adjustments", json={"entrant": 2, "amount": "1/2", "reason": "r"})
    assert r.status_code == 201, r.text
    st = standings.standings(db, api.owner, tid)
    assert not isinstance(st, str)
    body = standings_answers.body_of(st)
    assert [row.player for row in made] == ["2"]
    assert body == StandingsOut.of(st).model_dump_json().encode()


def test_a_deal_at_one_table_writes_no_head_and_only_its_players_rows(api, db, monkeypatch):
    """The same tournament object after a deal at one of its tables: the answer's head and
    entrants are the last answer's, and only the rows of the table's players, whose sums
    moved, are written again (the others carried or found by content)."""
    _forget()
    tid = tournament(api, players=10)["id"]
    tables = draw(api, tid, seed=3)["rounds"][0]["tables"]
    play(api, tables[0])
    assert api.get(f"/v1/tournaments/{tid}/standings").status_code == 200
    heads, rows = [], []
    real_head, real_row = standings_answers.StandingsOut.of, standings_answers.StandingOut.of
    monkeypatch.setattr(
        standings_answers.StandingsOut, "of", lambda *a, **k: heads.append(a) or real_head(*a, **k)
    )
    monkeypatch.setattr(
        standings_answers.StandingOut, "of", lambda *a, **k: rows.append(a[0].player) or real_row(*a, **k)
    )
    play(api, tables[1])
    st = standings.standings(db, api.owner, tid)
    assert not isinstance(st, str)
    body = standings_answers.body_of(st)
    assert heads == []
    assert rows and set(rows) <= {str(seat["entrant"]) for seat in tables[1]["seats"]}, rows
    monkeypatch.undo()
    assert body == StandingsOut.of(st).model_dump_json().encode()


def test_a_repeat_of_the_public_views_is_the_same_bytes(api):
    t = tournament(api, players=10)
    tables = draw(api, t["id"], seed=3)["rounds"][0]["tables"]
    play(api, tables[0])
    for path in (f"/v1/shared/{t['share_token']}/tournament", f"/tournament/{t['share_token']}"):
        first = api.client.get(path)
        again = api.client.get(path)
        assert first.status_code == again.status_code == 200
        assert again.content == first.content


def test_after_a_deal_at_one_table_only_that_table_is_read(api, db, monkeypatch):
    tid = tournament(api, players=9)["id"]
    tables = draw(api, tid, seed=3)["rounds"][0]["tables"]
    play(api, tables[0])
    api.deal(tables[1]["table_id"], six_spades(0))
    assert api.get(f"/v1/tournaments/{tid}/standings").status_code == 200
    read: list[list[str]] = []
    get_tables = standings.tables.get_tables

    def counted(db_, ids):
        read.append(sorted(ids))
        return get_tables(db_, ids)

    monkeypatch.setattr(standings.tables, "get_tables", counted)
    assert api.get(f"/v1/tournaments/{tid}/standings").status_code == 200
    assert read == []  # the versions only: nothing moved
    api.deal(tables[1]["table_id"], six_spades(1))  # the table finishes
    kept = api.get(f"/v1/tournaments/{tid}/standings")
    assert read == [[tables[1]["table_id"]]]
    _forget()
    assert api.get(f"/v1/tournaments/{tid}/standings").content == kept.content
