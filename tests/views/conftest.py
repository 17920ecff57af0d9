"""Fixtures of the view tests: the test app served by a real uvicorn on a free 127.0.0.1
port (for the command-line client and the browser), and game logs made with the engine."""

from __future__ import annotations

import random
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import pytest

from tests.support.served import served


@pytest.fixture(scope="session")
def live_url(app) -> Iterator[str]:
    with served(app) as url:
        yield url


@pytest.fixture
def owner_key(client, admin_headers) -> str:
    """A fresh owner's API key."""
    r = client.post("/v1/keys", json={"owner": f"viewer-{random.randrange(10**9)}"}, headers=admin_headers)
    assert r.status_code == 201, r.text
    return r.json()["key"]


def _jsonable(value: Any) -> Any:
    if isinstance(value, Fraction):
        return float(value)
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def random_log(
    convention: str, players: int, deals: int, *, seed: int = 1, pool_target: int = 1000
) -> dict[str, Any]:
    """A valid log of ``deals`` deals made with the engine (a high target keeps the game
    going; a low one ends it, and the log stops there), with what the API would show: the
    sheet with names, each deal's body and entries, the settlement."""
    from app.rules import Deal, RulesError, TableState, apply_deal, make_rules, settle, sheet

    rules = make_rules(convention, players=players, pool_target=pool_target, options={})
    state = TableState.new(rules, first_dealer=0)
    rnd = random.Random(seed)
    bodies, history = [], []
    while len(bodies) < deals and not state.finished:
        active = [s for s in range(players) if not (players == 4 and s == state.next_dealer)]
        if rnd.random() < 0.25:
            tricks = [0] * players
            for _ in range(10):
                tricks[rnd.choice(active)] += 1
            body: dict[str, Any] = {"type": "allpass", "tricks": {str(s): tricks[s] for s in active}}
        else:
            declarer = rnd.choice(active)
            level = rnd.choice([7, 8, 9])
            first, second = [s for s in active if s != declarer]
            took = rnd.randint(level - 2, 10)
            a = rnd.randint(0, 10 - took)
            body = {
                "type": "contract",
                "declarer": declarer,
                "contract": f"{level}{rnd.choice(['C', 'D', 'H', 'NT'])}",
                "defenders": {str(first): "whist", str(second): rnd.choice(["whist", "pass"])},
                "tricks": {str(declarer): took, str(first): a, str(second): 10 - took - a},
            }
        try:
            result = apply_deal(rules, state, Deal.from_dict(body))
        except RulesError:
            continue
        state = result.state
        bodies.append(body)
        history.append([e.to_dict() for e in result.entries])
    names = ["Anna", "Boris", "Vera", "Gleb"][:players]
    out = sheet(rules, state)
    out["players"] = [{**p, "name": names[p["seat"]]} for p in out["players"]]
    s = settle(rules, state)
    settlement = {
        "final": s.final,
        "players": [{"seat": i, "name": names[i], "balance": c / 100} for i, c in enumerate(s.cents)],
        "transfers": [],
    }
    return {
        "sheet": out,
        "history": history,
        "bodies": bodies,
        "settlement": settlement,
        "pool_target": pool_target,
    }
