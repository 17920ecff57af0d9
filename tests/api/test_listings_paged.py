"""Every listing is paged: a route whose answer is a list takes ``limit`` and answers ``next``
(the URL of the next page, null on the last), unless the list is declared bounded by a limit
of its own. The app's routes are walked, so a new listing cannot forget it.

Before, a tournament's audit was never paged: 100 close/reopen cycles gave 201 entries in
one 40 kB answer, and ``?limit=5`` was ignored; the keys and the scorer links were listed
whole too."""

from __future__ import annotations

import typing
from collections.abc import Iterator
from typing import Any

from tests.conftest import new_owner_key
from tests.tournaments.test_api import draw, tournament

# Lists answered whole, each with what bounds it (a limit of a domain's limits.py, or words).
BOUNDED = {
    "/v1/conventions": "the conventions the code defines",
    "/v1/tournaments/{tournament_id}/standings": "app.tournaments.limits.TOURNAMENT_ENTRANTS_MAX",  # one ranking, with its ETag
    "/v1/webhooks": "app.webhooks.limits.WEBHOOKS_PER_OWNER",
}


def _routes(items: list[Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for route in items:
        inner = getattr(route, "original_router", None)
        if inner is not None:
            context = getattr(route, "include_context", None)
            yield from _routes(inner.routes, prefix + (getattr(context, "prefix", "") or ""))
        else:
            yield prefix + route.path, route


def _is_list(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (list, tuple)


def test_every_list_answer_is_paged(app):
    import importlib

    from fastapi.routing import APIRoute

    listings, unpaged = [], []
    for path, route in _routes(app.router.routes):
        if not isinstance(route, APIRoute) or "GET" not in route.methods or route.response_model is None:
            continue
        model = route.response_model
        fields = getattr(model, "model_fields", {})
        if not (_is_list(model) or ("items" in fields and _is_list(fields["items"].annotation))):
            continue
        listings.append(path)
        paged = "next" in fields and "limit" in {p.name for p in route.dependant.query_params}
        if not paged and path not in BOUNDED:
            unpaged.append(path)
    assert unpaged == [], "a listing without ?limit and next"
    assert len(listings) >= 10
    for path, bound in BOUNDED.items():
        assert path in listings, path
        if bound.startswith("app."):
            module, name = bound.rsplit(".", 1)
            assert isinstance(getattr(importlib.import_module(module), name, None), int), bound


def _follow(api: Any, url: str, most: int = 100) -> list[list[dict[str, Any]]]:
    pages = []
    while url and len(pages) < most:
        r = api.get(url)
        assert r.status_code == 200, r.text
        pages.append(r.json()["items"])
        url = r.json()["next"]
        assert url is None or "limit=" in url
    return pages


def test_the_audit_is_paged(api):
    # a draw, then 6 closes and reopens: 13 entries; pages of 5: 5, 5, 3
    tid = tournament(api)["id"]
    draw(api, tid, seed=1)
    for _ in range(6):
        assert api.post(f"/v1/tournaments/{tid}/rounds/1/close").status_code == 200
        assert (
            api.post(
                f"/v1/tournaments/{tid}/rounds/1/reopen", json={"reason": "a deal written wrongly"}
            ).status_code
            == 200
        )
    pages = _follow(api, f"/v1/tournaments/{tid}/audit?limit=5")
    assert [len(p) for p in pages] == [5, 5, 3]
    entries = [e for p in pages for e in p]
    assert [e["action"] for e in entries] == ["draw"] + ["lock", "reopen"] * 6
    assert [e["id"] for e in entries] == sorted(e["id"] for e in entries)
    whole = api.get(f"/v1/tournaments/{tid}/audit").json()
    assert whole["items"] == entries and whole["next"] is None  # 50 by default
    assert api.get(f"/v1/tournaments/{tid}/audit?limit=0").status_code == 422


def test_the_keys_and_the_scorer_links_are_paged(api, client, admin_headers):
    made = [new_owner_key(client, admin_headers)[1] for _ in range(3)]
    admin = type(api)(client, admin_headers["Authorization"].split()[1], "admin")
    pages = _follow(admin, "/v1/keys?limit=2", most=3)  # the session's other keys are older
    ids = [k["id"] for p in pages for k in p]
    assert ids == sorted(ids, reverse=True) and len(ids) == len(set(ids))  # newest first, each once
    assert [k["prefix"] for k in pages[0] + pages[1][:1]] == [key[:12] for key in reversed(made)]
    table = api.table()
    for _ in range(3):
        assert api.post(f"/v1/tables/{table['id']}/scorer-link").status_code == 201
    pages = _follow(api, f"/v1/tables/{table['id']}/scorer-links?limit=2")
    assert [len(p) for p in pages] == [2, 1]
    assert api.get(f"/v1/tables/{table['id']}/scorer-links").json()["next"] is None
