"""The answers as a person and a client read them: refusals in sentences of our own, the
Idempotency-Key refusal in ``errors``, ETag/304 on the settlement and the share JSON, the
share link's paged deal log, and no fraction outside ``*_exact`` fields."""

from __future__ import annotations

import re

import pytest

from .samples import ALLPASS, PASS_6S, pass_6s

PROBLEM = "application/problem+json"
LIBRARY_WORDS = re.compile(
    r"Input should|Field required|Extra inputs|valid integer|Unable to extract|errors\.pydantic"
)


def refusal(r, status: int = 422) -> dict[str, str]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith(PROBLEM)
    body = r.json()
    assert not LIBRARY_WORDS.search(r.text), r.text
    return {e["field"]: e["reason"] for e in body["errors"]}


def test_deal_refusals_are_sentences_naming_the_field_and_its_bound(api):
    tid = api.table()["id"]
    bad = {
        "type": "contract",
        "declarer": 5,
        "contract": "7Z",
        "defenders": {"0": "wist", "9": "pass"},
        "tricks": {"1": 11},
        "colour": "red",
    }
    errors = refusal(api.post(f"/v1/tables/{tid}/deals", json=bad))
    assert errors["declarer"] == "declarer must be a seat number from 0 to 3"
    assert errors["contract"].startswith("contract must be a level 6-10 and a strain")
    assert errors["defenders.0"] == "each defender answers whist, pass or half_whist"
    assert "seat numbers" in errors["defenders.9"]
    assert errors["tricks.1"] == "the tricks of seat 1 must be a number of tricks from 0 to 10"
    assert errors["colour"] == "colour is not a field of this request"


@pytest.mark.parametrize(
    ("body", "field", "reason"),
    [
        (
            {"type": "poker"},
            "type",
            "a deal is contract, misere, remise, allpass, close or penalty, not 'poker'",
        ),
        (
            {"declarer": 1},
            "type",
            "a deal is contract, misere, remise, allpass, close or penalty (type is missing)",
        ),
        ({"type": "misere"}, "declarer", "declarer is required: a seat number"),
        ({"type": "misere", "declarer": "1"}, "declarer", "declarer must be a whole number (a seat number)"),
        ({**ALLPASS, "note": "x" * 501}, "note", "note must be at most 500 characters long"),
        (
            {**ALLPASS, "talon": {"bonus": "king"}},
            "talon.bonus",
            "the talon bonus is ace, marriage, ace_king or two_aces",
        ),
        (
            {**ALLPASS, "choices": {"writeoff": [7]}},
            "choices.writeoff.0",
            "each seat in choices.writeoff must be a seat number from 0 to 3",
        ),
        ({**ALLPASS, "over_misere": 1}, "over_misere", "over_misere must be true or false"),
    ],
)
def test_each_pydantic_error_kind_reads_as_a_sentence(api, body, field, reason):
    tid = api.table()["id"]
    assert refusal(api.post(f"/v1/tables/{tid}/deals", json=body))[field] == reason


def test_table_and_query_refusals_are_sentences(api):
    errors = refusal(api.post("/v1/tables", json={"players": ["A"], "convention": "x", "first_dealer": 9}))
    assert errors == {
        "players": "a table has 3 or 4 players",
        "convention": "the convention is sochi, piter, piter_gentleman, rostov, vmk, piter_races, fspr or classic_1996",
        "first_dealer": "first_dealer must be a seat number from 0 to 3",
    }
    tid = api.table()["id"]
    errors = refusal(api.get(f"/v1/tables/{tid}/deals", params={"limit": 999, "after": -1}))
    assert errors == {
        "limit": "limit must be at most 200 (how many items a page lists)",
        "after": "after must be at least 0 (a deal number)",
    }
    # every listing's limit is said the same way: a page of players lists players, not deals
    errors = refusal(api.get("/v1/players", params={"limit": 0}))
    assert errors == {"limit": "limit must be at least 1 (how many items a page lists)"}


def test_the_idempotency_key_refusals_are_in_errors(api):
    tid = api.table()["id"]
    r = api.post(f"/v1/tables/{tid}/deals", json=PASS_6S, headers={"Idempotency-Key": "k" * 300})
    assert "Idempotency-Key" in refusal(r)
    assert (
        api.post(f"/v1/tables/{tid}/deals", json=PASS_6S, headers={"Idempotency-Key": "same"}).status_code
        == 201
    )
    r = api.post(f"/v1/tables/{tid}/deals", json=ALLPASS, headers={"Idempotency-Key": "same"})
    errors = refusal(r)
    assert errors["Idempotency-Key"].startswith("this Idempotency-Key was already used with another deal")
    assert r.json()["field"] == "Idempotency-Key"  # the first version's member, kept one version


def test_an_idempotent_replay_is_the_same_bytes(api):
    tid = api.table()["id"]
    first = api.post(f"/v1/tables/{tid}/deals", json=PASS_6S, headers={"Idempotency-Key": "once"})
    again = api.post(f"/v1/tables/{tid}/deals", json=PASS_6S, headers={"Idempotency-Key": "once"})
    assert first.status_code == again.status_code == 201
    assert first.content == again.content and again.headers["Idempotent-Replayed"] == "true"
    assert again.headers["Location"] == f"/v1/tables/{tid}/deals/1"


def test_settlement_etag_and_304_with_the_stake_in_it(api):
    tid = api.table()["id"]
    url = f"/v1/tables/{tid}/settlement"
    r = api.get(url)
    etag = r.headers["ETag"]
    assert r.status_code == 200 and r.headers["Cache-Control"] == "private, no-cache"
    again = api.get(url, headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b"" and again.headers["ETag"] == etag
    staked = api.get(url, params={"stake": "0.5"})
    assert staked.headers["ETag"] != etag  # another stake is another answer
    assert api.get(url, params={"stake": "0.5"}, headers={"If-None-Match": etag}).status_code == 200
    assert (
        api.get(url, params={"stake": "0.50"}, headers={"If-None-Match": staked.headers["ETag"]}).status_code
        == 304
    )
    api.deal(tid, PASS_6S)
    assert api.get(url, headers={"If-None-Match": etag}).status_code == 200  # a deal changes it


def test_shared_json_etag_and_304(api, client):
    t = api.table()
    url = f"/v1/shared/{t['share_token']}"
    r = client.get(url)
    etag = r.headers["ETag"]
    assert r.status_code == 200 and "settlement" in r.json()
    assert client.get(url, headers={"If-None-Match": etag}).status_code == 304
    assert client.get(url, params={"stake": "2"}, headers={"If-None-Match": etag}).status_code == 200
    api.deal(t["id"], PASS_6S)
    assert client.get(url, headers={"If-None-Match": etag}).status_code == 200


def test_the_share_links_deal_log_is_paged(api, client):
    t = api.table()
    for number in range(5):
        api.deal(t["id"], pass_6s((number + 1) % 3))  # each deal's first hand declares (sochi, dealer 0)
    base = f"/v1/shared/{t['share_token']}/deals"
    whole = client.get(base).json()
    assert [d["number"] for d in whole["items"]] == [1, 2, 3, 4, 5] and whole["next"] is None
    assert "deals" not in whole  # the first version's field was kept one version only
    numbers, url = [], f"{base}?limit=2"
    while url:
        page = client.get(url).json()
        assert len(page["items"]) <= 2 and set(page) == {"items", "next"}
        numbers += [d["number"] for d in page["items"]]
        url = page["next"]
    assert numbers == [1, 2, 3, 4, 5]
    keyed = api.get(f"/v1/tables/{t['id']}/deals", params={"limit": 2}).json()
    assert set(keyed) == {"items", "next"} and keyed["items"] == whole["items"][:2]
    assert client.get(base, params={"limit": 201}).status_code == 422


def test_stored_deals_carry_only_their_kinds_fields(api):
    tid = api.table()["id"]
    deal = api.deal(tid, ALLPASS)["deal"]
    assert set(deal) == {"number", "type", "tricks", "entries", "created_at"}
    assert api.get(f"/v1/tables/{tid}/deals/1").json() == deal


def _fractions(value, path=""):
    """Every string that looks like a fraction, outside *_exact fields."""
    if isinstance(value, dict):
        for k, v in value.items():
            if not k.endswith("_exact") and k != "stake":  # stake: the deprecated exact echo
                yield from _fractions(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _fractions(v, f"{path}[{i}]")
    elif isinstance(value, str) and re.fullmatch(r"-?\d+/\d+", value):
        yield path


def test_no_fraction_outside_exact_fields(api, client):
    # piter_races shares a bonus three ways: thirds on the sheet and in the balances.
    t = api.table(convention="piter_races", players=["Anna", "Boris", "Vera", "Gleb"], pool_target=2)
    dealer = t["sheet"]["next_dealer"]
    for number in range(16):
        active = [s for s in range(4) if s != dealer]
        r = api.post(
            f"/v1/tables/{t['id']}/deals",
            json={"type": "allpass", "tricks": dict(zip(map(str, active), (1, 4, 5)))},
        )
        if r.status_code != 201:
            break
        dealer = r.json()["sheet"]["next_dealer"]
    assert number > 3
    for url in (
        f"/v1/tables/{t['id']}",
        f"/v1/tables/{t['id']}/sheet",
        f"/v1/tables/{t['id']}/settlement?stake=0.5",
        f"/v1/tables/{t['id']}/deals",
    ):
        body = api.get(url).json()
        assert list(_fractions(body)) == [], url
    shared = client.get(f"/v1/shared/{t['share_token']}", params={"stake": "0.5"}).json()
    assert list(_fractions(shared)) == []
    settlement = shared["settlement"]
    assert settlement["stake_exact"] == "1/2" and settlement["stake_text"] == "0.5"
    assert all(
        "/" in p["balance_exact"] or p["balance_exact"].lstrip("-").isdigit() for p in settlement["players"]
    )


@pytest.mark.parametrize(
    "body",
    [
        None,
        0,
        "x",
        [],
        {},
        {"type": None},
        {"type": "contract", "declarer": True},
        {"type": "allpass", "tricks": []},
        {"type": "allpass", "tricks": {"0": True}},
        {"type": "contract", "declarer": 0, "contract": "6S", "defenders": []},
        {"type": "allpass", "tricks": {"x": 1}},
        {"type": "contract", "declarer": 0, "contract": 7, "defenders": {"1": 1}},
        {"type": "misere", "declarer": 0, "talon": []},
        {"type": "allpass", "tricks": {"0": 10}, "choices": {"writeoff": "0"}},
        {"type": "allpass", "tricks": {"0": 10}, "note": 5},
        {"type": "allpass", "tricks": {"0": 10.5}},
    ],
)
def test_no_library_message_reaches_a_person(api, body):
    tid = api.table()["id"]
    r = api.post(f"/v1/tables/{tid}/deals", json=body)
    errors = refusal(r, r.status_code)
    assert r.status_code in (409, 422) and errors and all(errors.values())


def test_requests_that_are_not_json_objects_read_as_sentences(api):
    tid = api.table()["id"]
    url = f"/v1/tables/{tid}/deals"
    assert refusal(api.post(url, content=b"{", headers={"Content-Type": "application/json"})) == {
        "body": "the body is not valid JSON"
    }
    assert refusal(api.post(url)) == {"body": "body is required"}
    assert refusal(api.get(f"/v1/tables/{tid}/deals/abc")) == {
        "number": "number must be a whole number (a deal number)"
    }
