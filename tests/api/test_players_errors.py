"""Refusals of the player registry: each is problem+json naming the field, and nothing is
written; another owner's players are not found on any route."""

from __future__ import annotations

import pytest

PROBLEM = "application/problem+json"
UNKNOWN = "0" * 32


def _player(api, name="Anna", **body):
    r = api.post("/v1/players", json={"name": name, **body})
    assert r.status_code == 201, r.text
    return r.json()


def _refused(r, status: int, field: str) -> dict:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith(PROBLEM)
    body = r.json()
    assert field in [e["field"] for e in body.get("errors", [])], body
    return body


def _patch(api, url, body):
    return api.client.patch(url, json=body, headers=api.headers)


def _table(api, players):
    return api.post("/v1/tables", json={"players": players, "convention": "sochi"})


def test_unknown_player_id(api):
    for url in (f"/v1/players/{UNKNOWN}", f"/v1/players/{UNKNOWN}/stats", "/v1/players/not-an-id"):
        r = api.get(url)
        assert r.status_code == 404 and r.headers["content-type"].startswith(PROBLEM), url
    assert _patch(api, f"/v1/players/{UNKNOWN}", {"name": "X"}).status_code == 404
    _refused(_table(api, ["Anna", {"name": "Boris", "player": UNKNOWN}, "Vera"]), 422, "players.1.player")


def test_an_external_id_of_another_player_is_refused(api):
    _player(api, "Anna", external_id="u-1")
    _refused(api.post("/v1/players", json={"name": "Boris", "external_id": "u-1"}), 409, "external_id")
    boris = _player(api, "Boris")
    _refused(_patch(api, f"/v1/players/{boris['id']}", {"external_id": "u-1"}), 409, "external_id")
    assert api.get(f"/v1/players/{boris['id']}").json()["external_id"] is None
    # setting a player's own external id again is no conflict
    anna = api.get("/v1/players").json()["items"][0]
    assert _patch(api, f"/v1/players/{anna['id']}", {"external_id": "u-1"}).status_code == 200


def test_one_player_at_two_seats(api):
    anna = _player(api, "Anna", external_id="u-anna")
    _refused(
        _table(api, [{"name": "A", "player": anna["id"]}, {"name": "B", "player": anna["id"]}, "V"]),
        422,
        "players.1.player",
    )
    _refused(
        _table(api, [{"name": "A", "external_id": "x"}, {"name": "B", "external_id": "x"}, "V"]),
        422,
        "players.1.external_id",
    )
    # the same person by id at one seat and by external id at another
    _refused(
        _table(api, [{"name": "A", "player": anna["id"]}, {"name": "B", "external_id": "u-anna"}, "V"]),
        422,
        "players.1",
    )


def test_a_refused_table_registers_nobody(api):
    r = _table(api, [{"name": "A", "external_id": "new-1"}, {"name": "B", "player": UNKNOWN}, "V"])
    _refused(r, 422, "players.1.player")
    assert api.get("/v1/players").json()["items"] == []


@pytest.mark.parametrize(
    "seat, field",
    [
        ({"name": "B"}, "players.1"),
        ({"name": "B", "player": "p", "external_id": "e"}, "players.1"),
        ({"name": "B", "player": "p", "extra": 1}, "players.1.extra"),
        ({"player": "p"}, "players.1.name"),
        ({"name": "B", "external_id": ""}, "players.1.external_id"),
        (5, "players.1"),
    ],
)
def test_a_malformed_seat_is_named(api, seat, field):
    _refused(_table(api, ["Anna", seat, "Vera"]), 422, field)


def test_bad_bodies_and_queries(api):
    p = _player(api)
    _refused(api.post("/v1/players", json={"name": ""}), 422, "name")
    _refused(api.post("/v1/players", json={"name": "A", "nick": "a"}), 422, "nick")
    _refused(_patch(api, f"/v1/players/{p['id']}", {"name": None}), 422, "name")
    _refused(_patch(api, f"/v1/players/{p['id']}", {"colour": "red"}), 422, "colour")
    url = f"/v1/players/{p['id']}/stats"
    _refused(api.get(url + "?from=2026-13-01"), 422, "from")
    _refused(api.get(url + "?from=2026-12-02&to=2026-12-01"), 422, "from")
    _refused(api.get(url + "?stake=lots"), 422, "stake")
    _refused(api.get(url + "?convention=nowhere"), 422, "convention")
    _refused(api.get("/v1/players?limit=0"), 422, "limit")


def test_another_owners_players_are_not_found_route_by_route(api, other_api):
    p = _player(api, "Anna", external_id="u-anna")
    pid = p["id"]
    assert other_api.get(f"/v1/players/{pid}").status_code == 404
    assert other_api.get(f"/v1/players/{pid}/stats").status_code == 404
    assert _patch(other_api, f"/v1/players/{pid}", {"name": "Mallory"}).status_code == 404
    assert other_api.get("/v1/players").json()["items"] == []
    # a seat naming it is an unknown player; the same external id is the other owner's own
    _refused(_table(other_api, [{"name": "A", "player": pid}, "B", "V"]), 422, "players.0.player")
    r = _table(other_api, [{"name": "A", "external_id": "u-anna"}, "B", "V"])
    assert r.status_code == 201
    theirs = other_api.get("/v1/players").json()["items"]
    assert len(theirs) == 1 and theirs[0]["id"] != pid
    assert api.get(f"/v1/players/{pid}/stats").json()["tables"] == 0
    assert api.get(f"/v1/players/{pid}").json()["name"] == "Anna"


def test_no_key_no_players(client):
    for method, url in (
        ("get", "/v1/players"),
        ("post", "/v1/players"),
        ("get", f"/v1/players/{UNKNOWN}"),
        ("patch", f"/v1/players/{UNKNOWN}"),
        ("get", f"/v1/players/{UNKNOWN}/stats"),
    ):
        assert getattr(client, method)(url).status_code == 401, url


def test_the_owners_player_limit_holds_for_players_and_for_tables(api, monkeypatch):
    # With a limit of 3: Anna is registered directly (1); a table that names two new external
    # ids registers Boris and Vera (3); a fourth player, directly or through a table, is refused
    # with nothing written (the refused table is not created and registers nobody).
    monkeypatch.setattr("app.players.service.PLAYERS_PER_OWNER", 3)
    _player(api, "Anna")
    assert (
        _table(
            api, [{"name": "Boris", "external_id": "b"}, {"name": "Vera", "external_id": "v"}, "Gleb"]
        ).status_code
        == 201
    )
    body = _refused(
        _table(api, ["Anna", {"name": "Boris", "external_id": "b"}, {"name": "Dima", "external_id": "d"}]),
        409,
        "players.2.external_id",
    )
    assert body["reason"] == "player_limit"
    r = api.post("/v1/players", json={"name": "Dima"})
    assert r.status_code == 409 and r.headers["content-type"].startswith(PROBLEM), r.text
    assert [p["name"] for p in api.get("/v1/players").json()["items"]] == ["Anna", "Boris", "Vera"]
    assert len(api.get("/v1/tables").json()["items"]) == 1
    # a table of players already registered still opens
    assert (
        _table(
            api, [{"name": "B", "external_id": "b"}, {"name": "V", "external_id": "v"}, "Gleb"]
        ).status_code
        == 201
    )
