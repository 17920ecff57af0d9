"""Every route is budgeted unless declared otherwise (app/kit/middleware/rate_limit.py): a
route answered without a key is public only when ``PUBLIC_ROUTES`` (app/main.py) declares it, and every
public route but the declared ``UNBUDGETED`` probes goes through the anonymous budget. The
app's routes are walked (an included router's, a mount's), so a new route cannot forget it.

Before, the tournament's public page ``/tournament/{token}`` was outside every budget: with
both limits at 10, 300 made-up tokens all got 404, none 429."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.routing import Mount

N = 10
EXTRA = 5


def _routes(items: list[Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for route in items:
        inner = getattr(route, "original_router", None)
        if inner is not None:
            context = getattr(route, "include_context", None)
            yield from _routes(inner.routes, prefix + (getattr(context, "prefix", "") or ""))
        else:
            yield prefix + route.path, route


def _calls(dependant: Any) -> set[Any]:
    out = set()
    for sub in dependant.dependencies:
        out.add(sub.call)
        out |= _calls(sub)
    return out


def _without_a_key(app: Any) -> dict[str, Any]:
    """The app's routes that take no key: path -> route."""
    from app.kit.deps import current_caller

    out = {}
    for path, route in _routes(app.router.routes):
        dependant = getattr(route, "dependant", None)
        if dependant is None or current_caller not in _calls(dependant):
            out.setdefault(path, route)
    return out


def test_a_route_is_public_only_when_declared_so(app):
    from app.kit.deps import current_scorer
    from app.kit.middleware.rate_limit import UNBUDGETED
    from app.main import PUBLIC_ROUTES

    public = _without_a_key(app)
    assert sorted(set(public) - set(PUBLIC_ROUTES)) == [], (
        "a route answered without a key is not declared public"
    )
    assert sorted(set(PUBLIC_ROUTES) - set(public)) == [], "a declared public route is not served"
    assert {p for p, kind in PUBLIC_ROUTES.items() if kind == "unbudgeted"} == set(UNBUDGETED)
    for path, route in public.items():  # a scorer link's route is the one that looks the link up
        scorer = getattr(route, "dependant", None) is not None and current_scorer in _calls(route.dependant)
        assert scorer == (PUBLIC_ROUTES[path] == "scorer link"), path


def _request(path: str, route: Any) -> tuple[str, str]:
    """A method of the route and a path to it with made-up parameters (a token never seen)."""
    methods = sorted(getattr(route, "methods", None) or {"GET"})
    method = "GET" if "GET" in methods else methods[0]
    concrete = re.sub(r"\{token\}", lambda _: secrets.token_urlsafe(24), path)
    concrete = re.sub(r"\{[a-z_]+\}", "1", concrete)
    return method, concrete + ("/made-up.css" if isinstance(route, Mount) else "")


@pytest.mark.parametrize("kind", ["share link", "scorer link", "address"])
def test_every_public_route_spends_the_anonymous_budget(settings, db, app, kind, an_hour_long_window):
    from app.main import PUBLIC_ROUTES, create_app

    limited = create_app(
        settings.model_copy(
            update={
                "anonymous_rate_limit": N,
                "share_rate_limit": N,
                "rate_limit": 0,
                "rate_limit_window": 3600,
            }
        ),
        db=db,
    )
    routes = _without_a_key(app)
    checked = 0
    for i, (path, declared) in enumerate(sorted(PUBLIC_ROUTES.items())):
        if declared != kind:
            continue
        # each route from an address of its own: its own budget of N
        with TestClient(limited, client=(f"10.0.{len(kind)}.{i}", 50000), follow_redirects=False) as c:
            statuses = []
            for _ in range(N + EXTRA):
                method, concrete = _request(path, routes[path])
                statuses.append(
                    c.request(method, concrete, headers={"Accept": "application/json"}).status_code
                )
        assert 429 not in statuses[:N] and statuses[N:] == [429] * EXTRA, (path, statuses)
        checked += 1
    assert checked >= 5


def test_a_path_no_route_serves_is_budgeted_too(settings, db, an_hour_long_window):
    from app.main import create_app

    limited = create_app(
        settings.model_copy(update={"anonymous_rate_limit": N, "rate_limit": 0, "rate_limit_window": 3600}),
        db=db,
    )
    with TestClient(limited, client=("10.1.0.1", 50000)) as c:
        statuses = [c.get(f"/{secrets.token_urlsafe(8)}").status_code for _ in range(N + EXTRA)]
        assert statuses == [404] * N + [429] * EXTRA
        assert c.get("/health").status_code == 200  # declared outside the budget
