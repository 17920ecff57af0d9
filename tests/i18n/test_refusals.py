"""Refusals in the language asked for: ``?lang=``, else the best of Accept-Language, else
English (the API's answers before it spoke Russian). The translation itself (a Sentence by
its template and parameters), the headers of a problem, and a sweep of real refusals through
the API with ``Accept-Language: ru``: every ``title``, ``detail`` and ``errors[].reason`` in
Russian, no ``{placeholder}`` left."""

from __future__ import annotations

import re

import pytest

from app.kit.i18n import language
from app.kit.lang import language_headers
from app.kit.problems import problem, problem_lang
from app.rules import FieldError, Sentence, joined
from tests.api.samples import ALLPASS, PASS_6S

RU = {"Accept-Language": "ru"}
CYRILLIC = re.compile(r"[А-Яа-яЁё]")
LEFTOVER = re.compile(r"\{\w*(?:![rsa])?(?::[^{}]*)?\}")


def _scope(query: bytes = b"", accept: str | None = None) -> dict:
    headers = [(b"accept-language", accept.encode())] if accept is not None else []
    return {"type": "http", "query_string": query, "headers": headers}


# -- the translation ----------------------------------------------------------------------


def test_a_sentence_is_its_english_text_and_keeps_its_template():
    s = Sentence("must name exactly the defending seats {first} and {second}", first=1, second=2)
    assert s == "must name exactly the defending seats 1 and 2"
    assert s.msgid == "must name exactly the defending seats {first} and {second}"
    assert s.params == {"first": 1, "second": 2}
    assert language("en").sentence(s) == "must name exactly the defending seats 1 and 2"
    assert language("ru").sentence(s) == "должны быть указаны ровно места вистующих 1 и 2"


def test_a_plain_string_is_its_own_msgid_and_an_unknown_one_stays():
    ru = language("ru")
    assert ru.sentence("this API key is not valid") == "этот API-ключ недействителен"
    assert ru.sentence("a sentence no catalogue holds") == "a sentence no catalogue holds"
    assert ru.sentence(Sentence("nobody wrote {this}", this="x")) == "nobody wrote x"
    assert ru.sentence("") == ""


def test_sentence_parameters_are_translated_the_others_written_as_they_are():
    inner = Sentence("seat {dealer} deals now, not seat {named}", dealer=1, named=2)
    outer = joined("; ", [Sentence("{field}: {reason}", field="dealer", reason=inner), "lists a seat twice"])
    assert outer == "dealer: seat 1 deals now, not seat 2; lists a seat twice"
    assert (
        language("ru").sentence(outer) == "dealer: сейчас сдаёт место 1, а не место 2; место указано дважды"
    )
    # a word given as a parameter (a deal type) stays a code
    assert (
        language("ru").sentence(Sentence("not a field of a {kind} deal", kind="misere"))
        == "у сдачи misere нет такого поля"
    )


def test_a_sentence_survives_a_copy():
    import copy
    import pickle

    s = Sentence("no seat {seat} at a table of {n}", seat=3, n=3)
    for again in (copy.deepcopy(s), pickle.loads(pickle.dumps(s))):
        assert again == s and again.msgid == s.msgid and again.params == s.params


# -- the language of a problem --------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "accept", "code"),
    [
        (b"", None, "en"),  # no preference: English, as before
        (b"", "", "en"),
        (b"", "de", "en"),
        (b"", "ru", "ru"),
        (b"", "de, ru;q=0.5", "ru"),
        (b"", "ru;q=0.4, en;q=0.8", "en"),
        (b"lang=ru", "en", "ru"),  # ?lang beats the header
        (b"x=1&lang=en", "ru", "en"),
        (b"lang=de", "ru", "ru"),  # a language we lack: the header decides
        (b"lang=de", None, "en"),
    ],
)
def test_the_language_of_a_problem(query, accept, code):
    assert problem_lang(_scope(query, accept)).code == code


def test_the_accept_language_read_is_bounded():
    from app.kit.limits import ACCEPT_LANGUAGE_MAX

    assert problem_lang(_scope(accept="x" * ACCEPT_LANGUAGE_MAX + ", ru")).code == "en"


def test_a_problem_says_its_language_and_merges_vary():
    r = problem(
        404,
        Sentence("no table {table_id!r}", table_id="t1"),
        scope=_scope(accept="ru"),
        headers={"Vary": "Origin"},
    )
    assert r.headers["content-language"] == "ru"
    assert [v.strip() for v in r.headers["vary"].split(",")] == ["Origin", "Accept-Language"]
    assert b"\\u043d" in r.body or "нет стола 't1'".encode() in r.body
    assert language_headers(language("en"), {"vary": "Accept-Language"}) == {
        "vary": "Accept-Language",
        "Content-Language": "en",
    }
    errors = problem(
        422, "the request is not valid: x", scope=None, errors=[FieldError("x", "lists a seat twice")]
    )
    assert errors.headers["content-language"] == "en" and b"lists a seat twice" in errors.body


# -- real refusals through the API ----------------------------------------------------------


def _russian(r, status: int) -> dict:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    assert r.headers["content-language"] == "ru", r.headers
    assert "accept-language" in r.headers.get("vary", "").lower()
    body = r.json()
    words = [("title", body["title"]), ("detail", body["detail"])]
    words += [(f"errors.{e['field']}", e["reason"]) for e in body.get("errors", [])]
    for where, text in words:
        assert CYRILLIC.search(text), (where, text, r.request.url)
        assert not LEFTOVER.search(text), (where, text)
    return body


def _english(r, status: int) -> dict:
    assert r.status_code == status, r.text
    assert r.headers["content-language"] == "en"
    body = r.json()
    assert not CYRILLIC.search(r.text), r.text
    return body


BAD_DEALS = [
    {"type": "nope"},
    {"type": "allpass"},
    {"type": "allpass", "tricks": {"0": 2, "1": 5, "2": 4}},
    {"type": "allpass", "tricks": {"0": 2, "1": 5, "7": 3}},
    {"type": "allpass", "tricks": {"0": 11, "1": 5, "x": 3}},
    {"type": "contract", "declarer": 0, "contract": "6S", "defenders": {"1": "whist"}},
    {"type": "contract", "declarer": 0, "contract": "6S", "defenders": {"1": "pass", "2": "pass"}, "note": 5},
    {"type": "contract", "declarer": 0, "contract": "5S", "defenders": {"1": "pass", "2": "pass"}},
    {"type": "contract", "declarer": 9, "contract": "6S", "defenders": {"1": "maybe", "2": "pass"}},
    {"type": "contract", "declarer": 0, "contract": "6S", "defenders": {"1": "whist", "2": "pass"}},
    {
        "type": "contract",
        "declarer": 0,
        "contract": "7H",
        "defenders": {"1": "whist", "2": "whist"},
        "tricks": {"0": 7},
        "talon": {"bonus": 1},
    },
    {"type": "misere", "declarer": 0},
    {"type": "misere", "declarer": 0, "tricks": {"0": 1}, "over_misere": True, "extra": 1},
    {"type": "remise", "declarer": 5, "contract": "6S"},
    {"type": "allpass", "tricks": {"0": 2, "1": 5, "2": 3}, "dealer": 2},
    {"type": "close"},
]


@pytest.fixture
def table(api) -> str:
    return api.table()["id"]


@pytest.mark.parametrize("body", BAD_DEALS, ids=[str(i) for i in range(len(BAD_DEALS))])
def test_a_refused_deal_is_worded_in_russian(api, table, body):
    r = api.post(f"/v1/tables/{table}/deals", json=body, headers=RU)
    assert r.status_code in (409, 422), r.text
    _russian(r, r.status_code)


def test_refusals_of_every_kind_are_worded_in_russian(client, api, other_api, table):
    # 401: no key, a key not valid
    _russian(client.get("/v1/tables", headers=RU), 401)
    _russian(client.get("/v1/tables", headers={**RU, "Authorization": "Bearer nope"}), 401)
    # 403: only an admin key manages keys
    _russian(api.post("/v1/keys", json={"owner": "x"}, headers=RU), 403)
    # 404: a route, a table, another owner's table, a deal, a player, a tournament, a share token
    _russian(client.get("/nope", headers=RU), 404)
    _russian(api.get("/v1/tables/nope", headers=RU), 404)
    _russian(other_api.get(f"/v1/tables/{table}", headers=RU), 404)
    _russian(api.get(f"/v1/tables/{table}/deals/7", headers=RU), 404)
    _russian(api.get("/v1/players/nope", headers=RU), 404)
    _russian(api.get("/v1/tournaments/nope", headers=RU), 404)
    _russian(client.get("/v1/shared/nope", headers=RU), 404)
    # 405
    _russian(api.put("/v1/tables", json={}, headers=RU), 405)
    # 409: undo a deal that is not the last
    api.deal(table, ALLPASS)
    api.deal(table, PASS_6S | {"declarer": 1, "defenders": {"0": "pass", "2": "pass"}})
    _russian(api.delete(f"/v1/tables/{table}/deals/1", headers=RU), 409)
    # 412: a stale If-Match
    _russian(api.post(f"/v1/tables/{table}/deals", json=ALLPASS, headers={**RU, "If-Match": '"stale"'}), 412)
    # 413
    big = {**ALLPASS, "note": "x" * 100_000}
    _russian(api.post(f"/v1/tables/{table}/deals", json=big, headers=RU), 413)
    # 422: body (a table's settings, the shape of a body, JSON), query, path, a header
    _russian(
        api.post(
            "/v1/tables", json={"players": ["A", "B"], "convention": "nope", "pool_target": -1}, headers=RU
        ),
        422,
    )
    _russian(
        api.post(
            "/v1/tables",
            json={"players": ["A", "A", "B"], "convention": "sochi", "options": {"nope": 1, "stalingrad": 3}},
            headers=RU,
        ),
        422,
    )
    _russian(
        api.post("/v1/tables", content=b"{not json", headers={**RU, "Content-Type": "application/json"}), 422
    )
    _russian(
        api.post("/v1/tables", json={"players": ["A", "B", "C"], "convention": "sochi", "x": 1}, headers=RU),
        422,
    )
    _russian(api.get(f"/v1/tables/{table}/deals?limit=abc", headers=RU), 422)
    _russian(api.get(f"/v1/tables/{table}/deals?limit=-1", headers=RU), 422)
    _russian(api.get(f"/v1/tables/{table}/settlement?stake=abc", headers=RU), 422)
    _russian(
        api.post(f"/v1/tables/{table}/deals", json=ALLPASS, headers={**RU, "Idempotency-Key": "a b"}), 422
    )
    _russian(
        api.post(
            f"/v1/tables/{table}/deals",
            content=b'{"type": "allpass", "tricks": {"0": 1e999}}',
            headers={**RU, "Content-Type": "application/json"},
        ),
        422,
    )
    _russian(api.post("/v1/players", json={"name": ""}, headers=RU), 422)
    _russian(api.post("/v1/tournaments", json={"name": "", "table_sizes": [5]}, headers=RU), 422)
    # ?lang=ru without a header
    _russian(api.get("/v1/tables/nope?lang=ru"), 404)


def test_without_a_preference_refusals_stay_english(client, api, table):
    body = _english(
        api.post(f"/v1/tables/{table}/deals", json={"type": "allpass", "tricks": {"0": 2, "1": 5, "2": 4}}),
        422,
    )
    assert body["errors"] == [{"field": "tricks", "reason": "tricks add up to 11, not 10"}]
    assert _english(client.get("/v1/tables"), 401)["title"] == "Unauthorized"
    assert (
        _english(api.get("/v1/tables/nope", headers={"Accept-Language": "de"}), 404)["detail"]
        == "no table 'nope'"
    )


def test_a_refused_deal_in_russian_writes_nothing_and_names_the_same_fields(api, table):
    bad = {
        "type": "contract",
        "declarer": 0,
        "contract": "6S",
        "defenders": {"1": "whist", "2": "maybe"},
        "tricks": {"0": 4},
    }
    before = api.get(f"/v1/tables/{table}").json()
    in_russian = _russian(api.post(f"/v1/tables/{table}/deals", json=bad, headers=RU), 422)
    in_english = _english(api.post(f"/v1/tables/{table}/deals", json=bad), 422)
    assert [e["field"] for e in in_russian["errors"]] == [e["field"] for e in in_english["errors"]]
    assert in_russian["type"] == in_english["type"] and in_russian["status"] == in_english["status"]
    assert api.get(f"/v1/tables/{table}").json() == before
    assert api.log(table) == []


def test_a_conflict_keeps_its_codes_in_russian(api, table):
    r = api.post(f"/v1/tables/{table}/deals", json={**ALLPASS, "dealer": 2}, headers=RU)
    body = _russian(r, 409)
    assert body["reason"] == "dealer_mismatch" and body["errors"][0]["field"] == "dealer"
    assert body["detail"].startswith("сдача не подходит к столу: dealer: сейчас сдаёт место 0")
