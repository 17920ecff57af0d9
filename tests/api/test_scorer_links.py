"""Scorer links (app/scorer/service.py, app/scorer/router.py): made by the owner,
stored hashed, they post, undo and correct the deals of their one table and read what the
scoring page needs — and nothing else; a revoked one is refused at once."""

from __future__ import annotations

import hashlib
import re

from fastapi.testclient import TestClient
from sqlalchemy import select

from app.deals.orm import DealRow
from app.scorer.orm import ScorerLinkRow

from .samples import PULKA, pass_6s

PROBLEM = "application/problem+json"


def scorer_link(api, table_id):
    r = api.post(f"/v1/tables/{table_id}/scorer-link")
    assert r.status_code == 201, r.text
    return r


def test_a_link_is_shown_once_and_stored_as_a_hash(api, db):
    table = api.table()
    r = scorer_link(api, table["id"])
    body = r.json()
    token = body["token"]
    assert re.fullmatch(r"sc_[A-Za-z0-9_-]{43}", token)
    assert body["link"] == f"/score/{token}" == r.headers["Location"]
    assert body["table_id"] == table["id"] and body["prefix"] == token[:12] and body["revoked_at"] is None
    assert r.headers["Cache-Control"] == "no-store"
    listed = api.get(f"/v1/tables/{table['id']}/scorer-links").json()["items"]
    assert [link["id"] for link in listed] == [body["id"]]
    assert "token" not in listed[0] and "link" not in listed[0]
    with db.read() as session:
        row = session.scalars(select(ScorerLinkRow).where(ScorerLinkRow.id == body["id"])).one()
        assert row.hash == hashlib.sha256(token.encode()).hexdigest()
        assert token not in (row.hash, row.prefix + "x")


def test_only_the_owner_makes_lists_and_revokes_links(api, other_api):
    table = api.table()
    link = scorer_link(api, table["id"]).json()
    for r in (
        other_api.post(f"/v1/tables/{table['id']}/scorer-link"),
        other_api.get(f"/v1/tables/{table['id']}/scorer-links"),
        other_api.delete(f"/v1/tables/{table['id']}/scorer-links/{link['id']}"),
    ):
        assert r.status_code == 404 and r.headers["content-type"].startswith(PROBLEM), r.text
    assert api.client.post(f"/v1/tables/{table['id']}/scorer-link").status_code == 401
    # a link of another table of the same owner is not found under this one
    second = api.table()
    assert api.delete(f"/v1/tables/{second['id']}/scorer-links/{link['id']}").status_code == 404
    assert api.delete(f"/v1/tables/{table['id']}/scorer-links/0").status_code == 422


def test_a_link_posts_undoes_and_corrects_through_the_deal_routes(api, client):
    table = api.table()
    tid = table["id"]
    token = scorer_link(api, tid).json()["token"]
    base = f"/v1/score/{token}"
    r = client.post(f"{base}/deals", json=PULKA[0])
    assert r.status_code == 201, r.text
    assert r.headers["Location"] == f"{base}/deals/1"
    # Boris's unwhisted 6 spades: +2 to his pool, as posted with the key
    assert r.json()["sheet"]["players"][1]["pool"] == 2
    assert api.log(tid)[0]["contract"] == "6S"
    # a retry from a phone with the same Idempotency-Key does not post twice
    first = client.post(f"{base}/deals", json=PULKA[1], headers={"Idempotency-Key": "phone-2"})
    again = client.post(f"{base}/deals", json=PULKA[1], headers={"Idempotency-Key": "phone-2"})
    assert first.status_code == again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true" and again.json() == first.json()
    assert len(api.log(tid)) == 2
    # a deal that does not fit is refused with the field named, and nothing is written
    bad = client.post(f"{base}/deals", json={"type": "allpass", "tricks": {"0": 2, "1": 5, "2": 4}})
    assert bad.status_code == 422 and bad.headers["content-type"].startswith(PROBLEM)
    assert {e["field"] for e in bad.json()["errors"]} == {"tricks"}
    # undo only the last; correct an earlier one
    assert client.delete(f"{base}/deals/1").status_code == 409
    assert client.delete(f"{base}/deals/2").status_code == 200
    fixed = client.put(f"{base}/deals/1", json={**PULKA[0], "contract": "7S"})
    assert fixed.status_code == 200, fixed.text
    # 7 spades unwhisted: +4 to Boris's pool (value 4 for a seven)
    assert fixed.json()["sheet"]["players"][1]["pool"] == 4
    assert [d["contract"] for d in api.log(tid)] == ["7S"]
    # what the page reads: the table without its share token, the choices, the log with dealers
    t = client.get(base)
    assert t.status_code == 200 and "share_token" not in t.json()
    assert t.json()["choices"]["kinds"] == ["contract", "misere", "allpass", "remise"]
    assert t.json()["settlement"]["final"] is False
    log = client.get(f"{base}/deals").json()
    assert [(d["dealer"], d["deal"]["number"]) for d in log["items"]] == [(0, 1)] and log["next"] is None
    svg = client.get(f"{base}/sheet.svg")
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    assert client.get(f"{base}/sheet.svg", headers={"If-None-Match": svg.headers["ETag"]}).status_code == 304


def test_the_log_pages_with_each_deals_dealer(api, client):
    table = api.table(first_dealer=2)
    tid = table["id"]
    for declarer in (0, 1, 2):
        api.deal(tid, pass_6s(declarer))
    token = scorer_link(api, tid).json()["token"]
    page = client.get(f"/v1/score/{token}/deals?limit=2").json()
    # the deal passes to the left: dealers 2, 0, 1
    assert [d["dealer"] for d in page["items"]] == [2, 0]
    assert page["next"] == f"/v1/score/{token}/deals?after=2&limit=2"
    rest = client.get(page["next"]).json()
    assert [(d["dealer"], d["deal"]["number"]) for d in rest["items"]] == [(1, 3)] and rest["next"] is None


def test_a_link_reaches_nothing_but_its_own_table(api, client, app, db):
    """The token as a bearer key on every other route of the API is refused (401, or 404 for
    the routes of a share link); a made-up, a share or an API token in its place is not found;
    nothing is written to either table."""
    table = api.table()
    other = api.table()
    token = scorer_link(api, table["id"]).json()["token"]
    values = {
        "table_id": table["id"],
        "token": token,
        "number": "1",
        "link_id": "1",
        "key_id": "1",
        "player_id": "0" * 32,
        "webhook_id": "1",
        "delivery_id": "1",
        "tournament_id": "0" * 32,
        "round_number": "1",
    }
    tried = 0
    for path, methods in app.openapi()["paths"].items():
        if path.startswith("/v1/score/"):
            continue
        url = re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], path)
        for method in methods:
            if client.request(method.upper(), url, json={}).status_code < 400:
                continue  # a public route (health, conventions): the same for everybody
            r = client.request(method.upper(), url, json={}, headers={"Authorization": f"Bearer {token}"})
            assert r.status_code in (401, 404), (method, path, r.status_code, r.text)
            tried += 1
    assert tried > 30
    for wrong in ("sc_" + "A" * 43, table["share_token"], api.key, token[:-1]):
        assert client.get(f"/v1/score/{wrong}").status_code == 404
        assert client.post(f"/v1/score/{wrong}/deals", json=pass_6s(1)).status_code == 404
    assert client.get(f"/v1/shared/{token}").status_code == 404
    assert client.get(f"/shared/{token}").status_code == 404
    with db.read() as session:
        assert (
            session.scalars(select(DealRow).where(DealRow.table_id.in_([table["id"], other["id"]]))).all()
            == []
        )
    # the other table's link works for it alone
    other_token = scorer_link(api, other["id"]).json()["token"]
    client.post(f"/v1/score/{other_token}/deals", json=pass_6s(1))
    assert client.get(f"/v1/score/{token}").json()["deal_count"] == 0
    assert client.get(f"/v1/score/{other_token}").json()["deal_count"] == 1


def test_a_revoked_link_is_refused_at_once(api, client):
    table = api.table()
    link = scorer_link(api, table["id"]).json()
    keep = scorer_link(api, table["id"]).json()
    assert client.post(f"/v1/score/{link['token']}/deals", json=pass_6s(1)).status_code == 201
    r = api.delete(f"/v1/tables/{table['id']}/scorer-links/{link['id']}")
    assert r.status_code == 200 and r.json()["revoked_at"] is not None
    for url in ("", "/deals", "/sheet.svg"):
        gone = client.get(f"/v1/score/{link['token']}{url}")
        assert gone.status_code == 404 and gone.headers["content-type"].startswith(PROBLEM)
    assert client.post(f"/v1/score/{link['token']}/deals", json=pass_6s(2)).status_code == 404
    assert client.delete(f"/v1/score/{link['token']}/deals/1").status_code == 404
    # revoking again changes nothing; the other link still works
    again = api.delete(f"/v1/tables/{table['id']}/scorer-links/{link['id']}")
    assert again.json()["revoked_at"] == r.json()["revoked_at"]
    assert client.get(f"/v1/score/{keep['token']}").status_code == 200
    listed = {
        x["id"]: x["revoked_at"] for x in api.get(f"/v1/tables/{table['id']}/scorer-links").json()["items"]
    }
    assert listed[link["id"]] is not None and listed[keep["id"]] is None


def test_deleting_a_table_deletes_its_links(api, client, db):
    table = api.table()
    token = scorer_link(api, table["id"]).json()["token"]
    assert api.delete(f"/v1/tables/{table['id']}").status_code == 204
    assert client.get(f"/v1/score/{token}").status_code == 404
    with db.read() as session:
        assert session.scalars(select(ScorerLinkRow).where(ScorerLinkRow.table_id == table["id"])).all() == []


def test_a_table_has_at_most_twenty_working_links(api):
    table = api.table()
    made = [scorer_link(api, table["id"]).json() for _ in range(20)]
    r = api.post(f"/v1/tables/{table['id']}/scorer-link")
    assert r.status_code == 409 and r.json()["reason"] == "scorer_link_limit", r.text
    api.delete(f"/v1/tables/{table['id']}/scorer-links/{made[0]['id']}")
    scorer_link(api, table["id"])


def test_a_link_is_rate_limited_as_a_key_is(settings, db, api, an_hour_long_window):
    from app.main import create_app

    table = api.table()
    token = scorer_link(api, table["id"]).json()["token"]
    limited = create_app(settings.model_copy(update={"rate_limit": 3, "rate_limit_window": 3600}), db=db)
    with TestClient(limited) as c:
        assert [c.get(f"/v1/score/{token}").status_code for _ in range(3)] == [200, 200, 200]
        r = c.get(f"/v1/score/{token}/deals")
        assert r.status_code == 429 and "this scorer link" in r.json()["detail"]
        # a made-up link is counted by address, never in the database
        assert c.get("/v1/score/sc_" + "B" * 43).status_code == 404


def test_a_revoked_link_ends_its_open_event_stream(settings, db, client, admin_headers):
    import httpx

    from app.main import create_app
    from tests.conftest import Api, new_owner_key
    from tests.sse import EventReader
    from tests.support.served import served

    fast = settings.model_copy(
        update={"events_heartbeat": 0.5, "events_poll_interval": 0.1, "events_recheck_interval": 0.3}
    )
    with (
        served(create_app(fast, db=db), lifespan="on") as server,
        httpx.Client(base_url=server, timeout=10) as http,
    ):
        name, key = new_owner_key(client, admin_headers)
        owner = Api(http, key, name)
        table = owner.table()
        link = scorer_link(owner, table["id"]).json()
        stream = EventReader(f"{server}/v1/score/{link['token']}/events")
        try:
            assert stream.status == 200 and stream.next().event == "sheet"
            owner.post(f"/v1/score/{link['token']}/deals", json=pass_6s(1))
            assert stream.next_table_event().event == "deal.posted"
            owner.delete(f"/v1/tables/{table['id']}/scorer-links/{link['id']}")
            assert stream.ended.wait(5), "the stream of a revoked link did not end"
            again = EventReader(f"{server}/v1/score/{link['token']}/events")
            assert again.status == 404
            again.close()
        finally:
            stream.close()


def test_the_choices_are_the_table_rules(api, client):
    """What the page may offer follows the table's rule fields (app/rules/conventions.py):
    remise where the rules have it, Rostov's talon bonuses, VMK's write-offs, the races'
    compulsory all-pass and overbid misère, a 4-player dealer's talon tricks on an all-pass."""

    def choices(**table):
        t = api.table(**table)
        token = scorer_link(api, t["id"]).json()["token"]
        return client.get(f"/v1/score/{token}").json()["choices"]

    four = ["Anna", "Boris", "Vera", "Gleb"]
    piter = choices(convention="piter", players=four)
    assert piter["kinds"] == ["contract", "misere", "allpass", "remise"]
    assert (
        piter["stalingrad"] is True and piter["whisted_tens"] is False and piter["dealer_talon_tricks"] == 2
    )
    assert piter["talon_bonuses"] == [] and piter["over_misere"] is False and piter["help"] is True
    rostov = choices(convention="rostov", players=four)
    assert "remise" not in rostov["kinds"] and rostov["talon_bonuses"] == [
        "ace",
        "marriage",
        "ace_king",
        "two_aces",
    ]
    assert rostov["dealer_talon_tricks"] == 0  # the Rostov talon is closed on an all-pass
    assert rostov["talon_discard"] is True and rostov["misere_talon_bonus"] is True
    fspr = choices(convention="fspr", players=four)
    # the bonus priced by the game: on a contract only, no discard; the dealer plays the open talon
    assert fspr["talon_bonuses"] == ["ace", "marriage", "ace_king", "two_aces"]
    assert fspr["talon_discard"] is False and fspr["misere_talon_bonus"] is False
    assert fspr["dealer_talon_tricks"] == 2 and "remise" not in fspr["kinds"] and fspr["whisted_tens"] is True
    vmk = choices(convention="vmk")
    assert (
        vmk["unwhisted_writeoff"] is True
        and vmk["made_game_writeoff"] is True
        and vmk["dealer_talon_tricks"] == 0
    )
    races = choices(convention="piter_races", players=four)
    assert races["over_misere"] is True and races["clean_writeoff"] is True and races["help"] is False
    assert "remise" not in races["kinds"]
    timed = choices(convention="sochi", options={"end_of_game": "deals", "game_deals": 10})
    assert timed["kinds"][-1] == "close"
    no_remise = choices(convention="sochi", options={"remise": False})
    assert no_remise["kinds"] == ["contract", "misere", "allpass"]


def test_a_correction_that_breaks_a_later_deal_is_refused_and_changes_nothing(api, client):
    table = api.table(pool_target=4)
    for deal in PULKA:
        api.deal(table["id"], deal)
    token = scorer_link(api, table["id"]).json()["token"]
    before = api.log(table["id"])
    # deal 2 as Anna's 10 spades unwhisted: +10 to a pool that closes at 4, the rest helps the
    # others close theirs, so the game is over before deal 3 could be played
    r = client.put(
        f"/v1/score/{token}/deals/2",
        json={"type": "contract", "declarer": 0, "contract": "10S", "defenders": {"1": "pass", "2": "pass"}},
    )
    assert r.status_code == 409 and r.headers["content-type"].startswith(PROBLEM), r.text
    assert r.json()["reason"] == "later_deal_invalid" and r.json()["deal"] == 3
    assert api.log(table["id"]) == before
