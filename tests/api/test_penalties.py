"""A judge's penalty over HTTP (docs/rules.md §15): posted where deals are posted, replayed with
its Idempotency-Key, undone and corrected like a deal, refused naming the field in both
languages, and carried by the open record both ways."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema

from .samples import ALLPASS, pass_6s

PROBLEM = "application/problem+json"
SCHEMA = json.loads((Path(__file__).parents[2] / "docs" / "record.schema.json").read_text())


def penalty(offender: int = 1, amount: int = 10, **extra) -> dict:
    return {
        "type": "penalty",
        "offender": offender,
        "amount": amount,
        "clause": "10.3",
        "reason": "lead out of turn",
        **extra,
    }


def fields(response) -> set[str]:
    assert response.status_code == 422 and response.headers["content-type"].startswith(PROBLEM), response.text
    return {e["field"] for e in response.json()["errors"]}


def test_a_penalty_is_posted_and_stored_like_a_deal(api):
    tid = api.table()["id"]  # sochi, 3 players, first dealer 0
    api.deal(tid, pass_6s(0))  # dealt by 0: seat 1 deals next
    out = api.deal(tid, penalty(violation="lead_out_of_turn"))
    deal = out["deal"]
    assert deal["number"] == 2 and deal["type"] == "penalty"
    assert (deal["offender"], deal["amount"], deal["clause"], deal["violation"]) == (
        1,
        10,
        "10.3",
        "lead_out_of_turn",
    )
    assert deal["reason"] == "lead out of turn" and "destination" not in deal  # the table's: mountain
    assert deal["entries"] == [{"kind": "mountain", "seat": 1, "amount": 10}]
    sheet = out["sheet"]
    assert [p["mountain"] for p in sheet["players"]] == [0, 10, 0]
    assert sheet["next_dealer"] == 1  # not moved
    assert api.get(f"/v1/tables/{tid}/deals/2").json() == {**deal, "created_at": deal["created_at"]}
    # the next deal is dealt by seat 1, as it would have been
    assert api.deal(tid, {**ALLPASS, "dealer": 1})["deal"]["dealer"] == 1


def test_the_tables_penalties_to_and_a_penalty_kept_apart(api):
    tid = api.table(options={"penalties_to": "apart"})["id"]
    out = api.deal(tid, penalty(offender=2, amount=3))
    assert out["deal"]["entries"] == [{"kind": "apart", "seat": 2, "amount": 3}]
    assert [p.get("apart") for p in out["sheet"]["players"]] == [0, 0, 3]
    assert [p["mountain"] for p in out["sheet"]["players"]] == [0, 0, 0]
    # G = (0, 0, 3), mean 1: balances 10, 10, −20 whists (sum 0)
    settlement = api.get(f"/v1/tables/{tid}/settlement").json()
    assert [p["balance_exact"] for p in settlement["players"]] == ["10", "10", "-20"]
    whists = api.deal(tid, penalty(offender=0, amount=2, destination="whists"))
    assert whists["deal"]["entries"] == [
        {"kind": "whists", "seat": 1, "on": 0, "amount": 2},
        {"kind": "whists", "seat": 2, "on": 0, "amount": 2},
    ]


def test_a_penalty_is_replayed_with_its_idempotency_key(api):
    tid = api.table()["id"]
    key = {"Idempotency-Key": "penalty-1"}
    first = api.post(f"/v1/tables/{tid}/deals", json=penalty(), headers=key)
    again = api.post(f"/v1/tables/{tid}/deals", json=penalty(), headers=key)
    assert first.status_code == 201 and again.status_code in (200, 201)
    assert again.json() == first.json()
    assert len(api.log(tid)) == 1
    other = api.post(f"/v1/tables/{tid}/deals", json=penalty(amount=11), headers=key)
    assert fields(other) == {"Idempotency-Key"}


def test_a_penalty_is_undone_and_corrected(api):
    tid = api.table()["id"]
    api.deal(tid, penalty())
    api.deal(tid, pass_6s(0))
    # correct the penalty: 4 whists from each other player instead of 10 to the mountain
    r = api.put(f"/v1/tables/{tid}/deals/1", json=penalty(amount=4, destination="whists"))
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["deal"]["entries"] == [
        {"kind": "whists", "seat": 0, "on": 1, "amount": 4},
        {"kind": "whists", "seat": 2, "on": 1, "amount": 4},
    ]
    assert [p["mountain"] for p in out["sheet"]["players"]] == [0, 0, 0]
    assert out["rescored"] == []  # the 6♠ after it writes the same
    # a deal corrected into a penalty: the deal after it is dealt by the same seat
    r = api.put(f"/v1/tables/{tid}/deals/2", json=penalty(offender=0, amount=1))
    assert r.status_code == 200 and r.json()["sheet"]["next_dealer"] == 0
    # undone, the last
    r = api.delete(f"/v1/tables/{tid}/deals/2")
    assert r.status_code == 200 and r.json()["deal"]["type"] == "penalty"
    r = api.delete(f"/v1/tables/{tid}/deals/1")
    assert r.status_code == 200
    assert api.get(f"/v1/tables/{tid}/sheet").json()["players"][1]["whists"] == {"0": 0, "2": 0}


def test_refusals_name_the_field(api):
    tid = api.table()["id"]
    url = f"/v1/tables/{tid}/deals"
    assert fields(api.post(url, json=penalty(offender=3))) == {"offender"}  # 3 players
    assert fields(api.post(url, json=penalty(offender=4))) == {"offender"}  # not a seat at all
    assert fields(api.post(url, json=penalty(amount=0))) == {"amount"}
    assert fields(api.post(url, json=penalty(amount=2.5))) == {"amount"}
    no_amount = penalty()
    del no_amount["amount"]
    assert fields(api.post(url, json=no_amount)) == {"amount"}
    assert fields(api.post(url, json=penalty(destination="bank"))) == {"destination"}
    assert fields(api.post(url, json=penalty(violation="cheating"))) == {"violation"}
    assert fields(api.post(url, json=penalty(clause="x" * 21))) == {"clause"}
    assert fields(api.post(url, json={"type": "penalty", "offender": 0, "amount": 1})) == {"reason"}
    assert fields(api.post(url, json=penalty(choices={"help": 1}))) == {"choices"}
    assert fields(api.post(url, json=penalty(talon={"bonus": "ace"}))) == {"talon"}
    assert fields(api.post(url, json=penalty(tricks={"0": 1}))) == {"tricks"}
    assert api.log(tid) == []


def test_refusals_in_russian(api):
    tid = api.table()["id"]
    r = api.post(f"/v1/tables/{tid}/deals", json=penalty(offender=3), headers={"Accept-Language": "ru"})
    assert fields(r) == {"offender"}
    assert "должно быть местом за этим столом: от 0 до 2" in r.json()["errors"][0]["reason"]
    no_amount = penalty()
    del no_amount["amount"]
    r = api.post(f"/v1/tables/{tid}/deals", json=no_amount, headers={"Accept-Language": "ru"})
    assert "кодекс не устанавливает размер этого штрафа" in r.json()["errors"][0]["reason"]


def test_penalties_go_through_the_open_record(api, other_api):
    tid = api.table(options={"penalties_to": "whists"})["id"]
    api.deal(tid, pass_6s(0))
    api.deal(tid, penalty(offender=2, amount=5, violation="revoke"))
    kept_apart = penalty(offender=0, amount=3, destination="apart")
    del kept_apart["clause"]
    api.deal(tid, kept_apart)
    api.deal(tid, ALLPASS)
    record = api.get(f"/v1/tables/{tid}/export").json()
    jsonschema.validate(record, SCHEMA)
    assert record["deals"][1]["deal"] == {
        "type": "penalty",
        "offender": 2,
        "amount": 5,
        "violation": "revoke",
        "clause": "10.3",
        "reason": "lead out of turn",
    }
    assert record["deals"][2]["entries"] == [{"kind": "apart", "seat": 0, "on": None, "amount": 3}]
    r = other_api.post("/v1/tables/import", json=record)
    assert r.status_code == 201, r.text
    new = r.json()
    assert new["sheet"] == api.get(f"/v1/tables/{tid}/sheet").json()
    again = other_api.get(f"/v1/tables/{new['id']}/export").json()
    assert again["deals"] == [
        {**d, "created_at": a["created_at"]} for d, a in zip(record["deals"], again["deals"])
    ]
    # a record whose penalty wrote otherwise is refused naming it
    bad = json.loads(json.dumps(record))
    bad["deals"][1]["entries"][0]["amount"] = 6
    assert other_api.post("/v1/tables/import", json=bad).status_code == 422
    csv = api.get(f"/v1/tables/{tid}/export?format=csv").text
    assert ",penalty,," in csv and ",apart," in csv


def test_the_picture_marks_and_lists_penalties_in_both_languages(api):
    t = api.table()
    tid = t["id"]
    api.deal(tid, penalty(offender=1, amount=10))  # Boris: 10 to the mountain, clause 10.3
    api.deal(
        tid,
        penalty(offender=2, amount=4, destination="whists", violation="revoke", reason="did not follow suit"),
    )
    en = api.client.get(f"/v1/shared/{t['share_token']}/sheet.svg?lang=en").text
    assert ">10*<" in en  # Boris's mountain, marked as a penalty's
    assert en.count(">4*<") == 2  # Anna's and Boris's whists on Vera
    assert ">Penalties<" in en and "* written by a penalty." in en
    assert "deal 1: Boris, 10 to the mountain (clause" in en
    ru = api.client.get(f"/v1/shared/{t['share_token']}/sheet.svg?lang=ru").text
    assert ">Штрафы<" in ru and "сдача 2: Vera, 4 вистов от каждого" in ru
    # the heading counts deals played: the penalties are none
    assert "0 deals" in en


def test_the_share_and_scorer_pages_list_penalties(api):
    t = api.table()
    api.deal(t["id"], penalty())
    page = api.client.get(f"/shared/{t['share_token']}?lang=ru").text
    assert '"penalty": "штраф"' in page and 'd.type === "penalty"' in _scripts(api, page)
    shared = api.client.get(f"/v1/shared/{t['share_token']}/deals").json()["items"]
    assert shared[0]["type"] == "penalty" and shared[0]["clause"] == "10.3"
    link = api.post(f"/v1/tables/{t['id']}/scorer-link").json()["link"]
    scorer = api.client.get(f"{link}?lang=ru").text
    assert '"penalty": "штраф"' in scorer and 'd.type === "penalty"' in _scripts(api, scorer)


def _scripts(api, page: str) -> str:
    """The page's scripts, as the browser fetches them (the static files it names)."""
    names = re.findall(r'<script src="(/static/[^"]+)"', page)
    assert names, "the page names its scripts"
    return "\n".join(api.client.get(name).text for name in names)


def test_the_clients_log_writes_a_penalty():
    from app.cli.client.notation import format_deal

    body = {
        "type": "penalty",
        "offender": 1,
        "amount": 10,
        "destination": "apart",
        "clause": "10.3",
        "reason": "late",
    }
    assert format_deal(body) == "penalty 1 amount=10 destination=apart clause=10.3"


def test_a_record_written_before_penalties_imports(api, other_api):
    tid = api.table()["id"]
    api.deal(tid, pass_6s(0))
    record = api.get(f"/v1/tables/{tid}/export").json()
    for name in ("talon_bonus_price", "dealer_half_whist", "penalties_to"):  # as exported before they came
        del record["table"]["rules"][name]
    r = other_api.post("/v1/tables/import", json=record)
    assert r.status_code == 201, r.text
    rules = other_api.get(f"/v1/tables/{r.json()['id']}/export").json()["table"]["rules"]
    assert rules["penalties_to"] == "mountain" and "dealer_half_whist" in rules
