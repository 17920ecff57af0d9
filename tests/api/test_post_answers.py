"""A deal's post answered before the framework's routing (app/deals/post_answers.py): the
route's answers byte for byte, success and refusals alike, logged by the route's template;
every request it cannot answer goes on to the route with its body, and gets the route's
answer."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from app.deals import answers
from app.deals.post_answers import PostAnswers
from tests.conftest import Api

from .samples import PASS_6S

PROBLEM = "application/problem+json"
ALLPASS = {"type": "allpass", "tricks": {"0": 4, "1": 3, "2": 3}}
# Times and ids differ between two tables; every other byte of the answers is compared.
_VARIES = re.compile(rb'"\d{4}-\d\d-\d\dT[^"]*"|[0-9a-f]{32}|"[0-9a-f]{16,64}"')


@pytest.fixture
def by_the_route(monkeypatch) -> Callable[[], None]:
    """Makes every later post the route's, as it was before the layer."""

    def through() -> None:
        async def call(self: PostAnswers, scope: Any, receive: Any, send: Any) -> None:
            await self.app(scope, receive, send)

        monkeypatch.setattr(PostAnswers, "__call__", call)

    return through


@pytest.fixture
def route_taken(monkeypatch) -> Iterator[list[str]]:
    """The posts the route answered (its endpoint calls ``answers.post``; the layer does not)."""
    taken: list[str] = []
    post = answers.post

    async def counted(*args: Any, **kw: Any) -> Any:
        taken.append(args[2])
        return await post(*args, **kw)

    monkeypatch.setattr(answers, "post", counted)
    yield taken


def _steps(api: Api, tid: str, etag_before: str) -> list[Any]:
    """The same requests to a table, whichever answers them."""
    url = f"/v1/tables/{tid}/deals"
    return [
        api.post(url, json=PASS_6S),
        api.post(url, json=ALLPASS, headers={"Idempotency-Key": "deal-2"}),
        api.post(url, json=ALLPASS, headers={"Idempotency-Key": "deal-2"}),  # the replay
        api.post(url, json=PASS_6S, headers={"Idempotency-Key": "deal-2"}),  # another body, same key
        api.post(url, json=PASS_6S, headers={"If-Match": etag_before}),  # an old version
        api.post(url, json=PASS_6S, headers={"If-Match": etag_before, "Accept-Language": "ru"}),
        api.post(url, json={**PASS_6S, "declarer": 7}),  # not a seat: the body's 422
        api.post(url, json={**PASS_6S, "contract": "6S", "defenders": {"1": "whist"}}),  # one defender's word
        api.post(url, json=PASS_6S, headers={"Idempotency-Key": "has space"}),
        api.post(url, content=b"{not json", headers={"Content-Type": "application/json"}),
        api.post(url, json=PASS_6S, headers={"Content-Type": "text/plain"}),
        api.post("/v1/tables/0123456789abcdef0123456789abcdef/deals", json=PASS_6S),
    ]


def test_the_answers_are_the_route_s_byte_for_byte(api, by_the_route):
    first, second = api.table(), api.table()
    etags = [api.get(f"/v1/tables/{t['id']}/sheet").headers["etag"] for t in (first, second)]
    layer = _steps(api, first["id"], etags[0])
    by_the_route()
    route = _steps(api, second["id"], etags[1])
    assert [r.status_code for r in layer] == [201, 201, 201, 422, 412, 412, 422, 422, 422, 422, 422, 404]
    for ours, theirs in zip(layer, route, strict=True):
        assert ours.status_code == theirs.status_code
        assert _VARIES.sub(b"~", ours.content) == _VARIES.sub(b"~", theirs.content), ours.content
        named = ("content-type", "content-length", "location", "idempotent-replayed", "content-language")
        for name in named:
            assert (ours.headers.get(name) is None) == (theirs.headers.get(name) is None), name
        assert ("etag" in ours.headers) == ("etag" in theirs.headers)
        assert [k for k in ours.headers if k not in ("date",)] == [k for k in theirs.headers if k != "date"]
    assert layer[2].headers["idempotent-replayed"] == "true" and layer[2].content == layer[1].content
    now = api.get(f"/v1/tables/{first['id']}/sheet")
    assert layer[1].headers["etag"] == now.headers["etag"]
    assert layer[1].headers["location"] == f"/v1/tables/{first['id']}/deals/2"


def test_a_plain_post_is_answered_before_the_route_and_logged_by_its_template(api, route_taken, caplog):
    tid = api.table()["id"]
    with caplog.at_level(logging.INFO, logger="prefscore.access"):
        r = api.post(f"/v1/tables/{tid}/deals", json=PASS_6S, headers={"X-Request-ID": "post-1"})
    assert r.status_code == 201 and r.json()["sheet"]["deal_count"] == 1
    assert r.headers["x-request-id"] == "post-1" and r.headers["x-content-type-options"] == "nosniff"
    assert route_taken == []  # fails before the layer: the route answered every post
    line = [rec for rec in caplog.records if rec.name == "prefscore.access" and "post-1" == rec.request_id]
    assert len(line) == 1 and line[0].route == "/v1/tables/{table_id}/deals" and line[0].status == 201


def test_what_it_cannot_answer_goes_to_the_route_with_its_body(api, route_taken, client):
    tid = api.table()["id"]
    url = f"/v1/tables/{tid}/deals"
    assert api.post(url, json={"type": "nonsense"}).status_code == 422  # refused before the endpoint
    assert api.post(url, json=PASS_6S, headers={"Idempotency-Key": "a key"}).status_code == 422
    # Any type the framework reads as JSON is the layer's too.
    r = api.post(url, content=b'{"type":"contract","declarer":0,"contract":"6S","defenders":{"1":"pass","2":"pass"}}',
                 headers={"Content-Type": "application/vnd.deal+json"})  # fmt: skip
    assert r.status_code == 201 and r.json()["deal"]["number"] == 1
    for headers in ({}, {"Authorization": "Bearer pk_made_up"}):
        assert client.post(url, json=PASS_6S, headers=headers).status_code == 401
    assert route_taken == [tid]  # the refused key: the route's own 422
