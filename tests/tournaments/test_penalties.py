"""A director's penalties in a tournament (docs/rules.md §15): posted on an entrant at a
round's table from the director's tools, written in that table's log (its sheet, its
balances, hence the standings), idempotent with an Idempotency-Key, refused at a closed
round, listed in the audit, and shown with their clause on the public page and its JSON.

The tables play sochi for 2 deals (game_end "deals"), 3 players."""

from __future__ import annotations

from typing import Any

import pytest

from app.rules import CONVENTION_NAMES

from .test_api import draw, refused, tournament

PENALTY = {"amount": 10, "clause": "10.3", "violation": "lead_out_of_turn", "reason": "led out of turn"}


def seated(t_round: dict[str, Any]) -> tuple[dict[str, Any], list[int]]:
    """The first table of a drawn round, and its entrants by seat."""
    table = t_round["tables"][0]
    return table, [s["entrant"] for s in sorted(table["seats"], key=lambda s: s["seat"])]


def post(api, tid: str, **body: Any):
    return api.post(f"/v1/tournaments/{tid}/penalties", json={**PENALTY, **body})


def test_the_director_posts_a_penalty_at_a_table(api):
    t = tournament(api)
    table, entrants = seated(draw(api, t["id"])["rounds"][-1])
    offender = entrants[1]  # seat 1
    r = post(api, t["id"], round=1, table=table["number"], entrant=offender)
    assert r.status_code == 201, r.text
    out = r.json()
    assert (out["round"], out["table"], out["entrant"], out["seat"]) == (1, table["number"], offender, 1)
    assert (
        out["deal"]["type"] == "penalty" and out["deal"]["offender"] == 1 and out["deal"]["clause"] == "10.3"
    )
    assert out["deal"]["entries"] == [{"kind": "mountain", "seat": 1, "amount": 10}]
    assert r.headers["Location"] == f"/v1/tables/{out['table_id']}/deals/1"
    sheet = api.get(f"/v1/tables/{out['table_id']}/sheet").json()
    assert [p["mountain"] for p in sheet["players"]] == [0, 10, 0] and sheet["next_dealer"] == 0
    # the audit lists it
    items = api.get(f"/v1/tournaments/{t['id']}/audit").json()["items"]
    penalties = [i for i in items if i["action"] == "penalty"]
    assert len(penalties) == 1
    assert penalties[0]["detail"] == {
        "round": 1,
        "table": table["number"],
        "entrant": offender,
        "seat": 1,
        "deal": 1,
        "amount": 10,
        "to": "mountain",
        "violation": "lead_out_of_turn",
        "clause": "10.3",
        "reason": "led out of turn",
    }
    # the table's balance moved: G = (0, 10, 0), mean 10/3; seat 1: 10·(10/3 − 10) = −200/3
    settlement = api.get(f"/v1/tables/{out['table_id']}/settlement").json()
    assert [p["balance_exact"] for p in settlement["players"]] == ["100/3", "-200/3", "100/3"]


def test_a_retry_with_the_key_posts_and_audits_once(api):
    t = tournament(api)
    table, entrants = seated(draw(api, t["id"])["rounds"][-1])
    body = {**PENALTY, "round": 1, "table": table["number"], "entrant": entrants[0]}
    key = {"Idempotency-Key": "director-1"}
    first = api.post(f"/v1/tournaments/{t['id']}/penalties", json=body, headers=key)
    again = api.post(f"/v1/tournaments/{t['id']}/penalties", json=body, headers=key)
    assert first.status_code == again.status_code == 201
    assert again.headers.get("Idempotent-Replayed") == "true" and again.json() == first.json()
    assert len(api.log(first.json()["table_id"])) == 1
    audit = api.get(f"/v1/tournaments/{t['id']}/audit").json()["items"]
    assert [i["action"] for i in audit].count("penalty") == 1
    other = api.post(f"/v1/tournaments/{t['id']}/penalties", json={**body, "amount": 11}, headers=key)
    refused(other, 422, "Idempotency-Key")


def test_the_tournament_chooses_where_penalties_go(api):
    t = tournament(api, options={"penalties_to": "apart"})
    table, entrants = seated(draw(api, t["id"])["rounds"][-1])
    out = post(api, t["id"], round=1, table=table["number"], entrant=entrants[2]).json()
    assert out["deal"]["entries"] == [{"kind": "apart", "seat": 2, "amount": 10}]
    whists = post(
        api, t["id"], round=1, table=table["number"], entrant=entrants[2], destination="whists"
    ).json()
    assert [e["kind"] for e in whists["deal"]["entries"]] == ["whists", "whists"]


def test_refusals_name_the_field(api):
    t = tournament(api)
    table, entrants = seated(draw(api, t["id"])["rounds"][-1])
    other = next(n for n in range(1, 10) if n not in entrants)
    refused(post(api, t["id"], round=2, table=1, entrant=entrants[0]), 422, "round")
    refused(post(api, t["id"], round=1, table=9, entrant=entrants[0]), 422, "table")
    refused(post(api, t["id"], round=1, table=table["number"], entrant=other), 422, "entrant")
    refused(post(api, t["id"], round=1, table=table["number"], entrant=entrants[0], amount=0), 422, "amount")
    refused(
        post(api, t["id"], round=1, table=table["number"], entrant=entrants[0], destination="bank"),
        422,
        "destination",
    )
    refused(post(api, t["id"], round=1, table=table["number"], entrant=entrants[0], reason=""), 422, "reason")
    ru = api.post(
        f"/v1/tournaments/{t['id']}/penalties",
        json={**PENALTY, "round": 1, "table": table["number"], "entrant": other},
        headers={"Accept-Language": "ru"},
    )
    assert "не сидит за столом" in ru.json()["detail"]
    # a closed round's table takes no penalty until the round is reopened
    assert api.post(f"/v1/tournaments/{t['id']}/rounds/1/close").status_code == 200
    r = post(api, t["id"], round=1, table=table["number"], entrant=entrants[0])
    assert r.status_code == 409, r.text
    assert (
        api.post(f"/v1/tournaments/{t['id']}/rounds/1/reopen", json={"reason": "a penalty"}).status_code
        == 200
    )
    assert post(api, t["id"], round=1, table=table["number"], entrant=entrants[0]).status_code == 201


def test_the_public_page_shows_penalties_with_their_clause(api):
    t = tournament(api)
    table, entrants = seated(draw(api, t["id"])["rounds"][-1])
    post(api, t["id"], round=1, table=table["number"], entrant=entrants[1])
    name = f"Player {entrants[1]}"
    en = api.client.get(f"/tournament/{t['share_token']}", params={"lang": "en"}).text
    assert (
        ">Penalties<" in en
        and f"round 1, table {table['number']}: <strong>{name}: 10 to the mountain</strong> (clause 10.3): led out of turn"
        in en
    )
    ru = api.client.get(f"/tournament/{t['share_token']}", params={"lang": "ru"}).text
    assert (
        ">Штрафы<" in ru
        and f"тур 1, стол {table['number']}: <strong>{name}: 10 в гору</strong> (пункт 10.3)" in ru
    )
    shared = api.client.get(f"/v1/shared/{t['share_token']}/tournament").json()
    assert shared["penalties"] == [
        {
            "round": 1,
            "table": table["number"],
            "deal": 1,
            "entrant": entrants[1],
            "amount": 10,
            "to": "mountain",
            "violation": "lead_out_of_turn",
            "clause": "10.3",
            "reason": "led out of turn",
        }
    ]
    # undone at the table, it is no longer shown (the audit keeps it)
    assert api.delete(f"/v1/tables/{table['table_id']}/deals/1").status_code == 200
    assert api.client.get(f"/v1/shared/{t['share_token']}/tournament").json()["penalties"] == []


@pytest.mark.skipif("fspr" not in CONVENTION_NAMES, reason="the fspr preset is not in this build")
def test_an_fspr_tournament_at_four_player_tables_takes_penalties(api):
    t = tournament(api, players=8, convention="fspr", table_sizes=[4])
    table, entrants = seated(draw(api, t["id"])["rounds"][-1])
    assert len(entrants) == 4
    out = post(api, t["id"], round=1, table=table["number"], entrant=entrants[3], destination="whists").json()
    # each of the three others, the dealer (seat 0) too, writes 10 whists on seat 3
    assert out["deal"]["entries"] == [{"kind": "whists", "seat": s, "on": 3, "amount": 10} for s in (0, 1, 2)]


def test_a_tournament_at_four_player_tables_takes_penalties(api):
    t = tournament(api, players=8, table_sizes=[4])
    table, entrants = seated(draw(api, t["id"])["rounds"][-1])
    out = post(api, t["id"], round=1, table=table["number"], entrant=entrants[3], destination="whists").json()
    assert out["deal"]["entries"] == [{"kind": "whists", "seat": s, "on": 3, "amount": 10} for s in (0, 1, 2)]
