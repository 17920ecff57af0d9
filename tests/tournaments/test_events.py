"""A tournament's standings changes on the owner-wide event stream (app/live): a
``tournament.standings`` event naming the tournament, for every change of the tournament
itself (a round drawn, closed as its last table finished, an adjustment), beside the
events of its tables. On a real uvicorn (a stream never ends for a test client)."""

from __future__ import annotations

import time

from tests.sse import EventReader

from .test_api import six_spades


def _tournament_events(r: EventReader, count: int) -> list:
    got = []
    deadline = time.monotonic() + 15
    while len(got) < count and time.monotonic() < deadline:
        e = r.next()
        if e.event.startswith("tournament."):
            got.append(e)
    return got


def test_the_owner_wide_stream_carries_standings_changes(owner, server):
    r = EventReader(f"{server}/v1/events", owner.headers)
    try:
        time.sleep(0.2)  # the stream is open (it sends nothing first)
        t = owner.post(
            "/v1/tournaments",
            json={
                "name": "Live",
                "convention": "sochi",
                "rounds": 1,
                "game_end": {"kind": "deals", "deals": 1},
                "entrants": ["A", "B", "C"],
            },
        ).json()
        drawn = owner.post(f"/v1/tournaments/{t['id']}/rounds").json()
        (e,) = _tournament_events(r, 1)  # the round drawn
        assert e.event == "tournament.standings" and e.data["tournament"] == t["id"]
        first = e.data["revision"]
        table = drawn["rounds"][0]["tables"][0]
        assert owner.post(f"/v1/tables/{table['table_id']}/deals", json=six_spades(0)).status_code == 201
        (e,) = _tournament_events(r, 1)  # the table finished: the round closed, the standings moved
        assert e.data["tournament"] == t["id"] and e.data["revision"] > first
        assert owner.get(f"/v1/tournaments/{t['id']}").json()["rounds"][0]["status"] == "closed"
    finally:
        r.close()
