"""A director's swap against a deal posted by the table's scorer link at the same moment, on a
real server (app/tournaments ``swap``, app/tables ``drop_unplayed``): the swap drops the old
tables under their row lock, as a deal's post takes it, so either the deal is stored first
and the swap is refused (409 naming the table), or the swap goes through and the post finds
no table. A deal acknowledged (201) is never lost.

Each race draws a round of two tables (6 entrants), then sends the swap of a player of table 1
with one of table 2 and, 0-18 ms after, a deal by table 1's scorer link. Twenty races, a few
seconds in all."""

from __future__ import annotations

import threading
import time
from typing import Any

import httpx

from tests.tournaments.test_api import six_spades

RACES = 20


def _race(url: str, owner: Any, delay: float) -> tuple[int, int, str]:
    """(the swap's status, the post's status, the table posted at) of one race."""
    t = owner.post(
        "/v1/tournaments",
        json={"name": "Race", "convention": "sochi", "rounds": 2, "entrants": [f"P{i}" for i in range(6)]},
    )
    assert t.status_code == 201, t.text
    tid = t.json()["id"]
    r = owner.post(f"/v1/tournaments/{tid}/rounds", json={"seed": 1})
    assert r.status_code == 201, r.text
    tables = r.json()["rounds"][0]["tables"]
    a, b = tables[0]["seats"][1]["entrant"], tables[1]["seats"][1]["entrant"]
    token = tables[0]["scorer_link"].rsplit("/", 1)[1]
    answers: dict[str, int] = {}
    start = threading.Barrier(2)

    def swap() -> None:
        with httpx.Client(base_url=url, timeout=30, headers=owner.headers) as c:
            start.wait()
            answers["swap"] = c.post(
                f"/v1/tournaments/{tid}/rounds/1/swap", json={"a": a, "b": b}
            ).status_code

    def post() -> None:
        with httpx.Client(base_url=url, timeout=30) as c:
            start.wait()
            time.sleep(delay)
            answers["post"] = c.post(f"/v1/score/{token}/deals", json=six_spades(0)).status_code

    threads = [threading.Thread(target=swap), threading.Thread(target=post)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    return answers["swap"], answers["post"], tables[0]["table_id"]


def test_a_deal_posted_while_the_director_swaps_is_never_lost(owner, server):
    lost, outcomes = 0, []
    for i in range(RACES):
        swapped, posted, table_id = _race(server, owner, delay=0.018 * i / (RACES - 1))
        outcomes.append((swapped, posted))
        assert swapped in (200, 409) and posted in (201, 404, 409), (swapped, posted)
        if posted == 201:
            deals = owner.get(f"/v1/tables/{table_id}/deals")
            if deals.status_code != 200 or len(deals.json()["items"]) != 1:
                lost += 1
            else:
                assert swapped == 409, outcomes  # the deal came first: the round had started
    assert lost == 0, f"{lost} of {RACES} acknowledged deals lost; (swap, post) answers: {outcomes}"


def test_a_swap_after_a_deal_is_refused_naming_the_table(owner):
    t = owner.post(
        "/v1/tournaments",
        json={
            "name": "Late swap",
            "convention": "sochi",
            "rounds": 2,
            "entrants": [f"P{i}" for i in range(6)],
        },
    )
    tid = t.json()["id"]
    tables = owner.post(f"/v1/tournaments/{tid}/rounds", json={"seed": 1}).json()["rounds"][0]["tables"]
    assert owner.post(f"/v1/tables/{tables[1]['table_id']}/deals", json=six_spades(0)).status_code == 201
    r = owner.post(
        f"/v1/tournaments/{tid}/rounds/1/swap",
        json={"a": tables[0]["seats"][0]["entrant"], "b": tables[1]["seats"][0]["entrant"]},
    )
    assert r.status_code == 409 and r.headers["content-type"].startswith("application/problem+json")
    body = r.json()
    assert body["table"] == 2 and "table 2" in body["detail"], body
    # both tables stay as they were, the deal with its table
    assert len(owner.get(f"/v1/tables/{tables[1]['table_id']}/deals").json()["items"]) == 1
    assert owner.get(f"/v1/tables/{tables[0]['table_id']}").status_code == 200
