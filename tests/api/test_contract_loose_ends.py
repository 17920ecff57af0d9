"""The contract's loose ends, each tied: every date-time served with its offset, 429 declared
on every route that can answer it, the event streams declared event by event, the deprecated
forms refused."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest


@pytest.fixture(scope="module")
def doc(client) -> dict:
    return client.get("/openapi.json").json()


def _date_time_fields(node, path=""):
    if isinstance(node, dict):
        if node.get("format") == "date-time":
            yield path
        for key, value in node.items():
            yield from _date_time_fields(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _date_time_fields(value, f"{path}/{i}")


def _rfc3339_utc(text: str) -> None:
    assert text.endswith("Z"), text  # the form every other answer uses
    assert datetime.fromisoformat(text).utcoffset() == UTC.utcoffset(None), text


# The webhooks' times (tests/api/test_webhooks.py checks each is served with its offset).
WEBHOOK_TIMES = {
    f"/{schema}/properties/{field}"
    for schema in ("WebhookOut", "WebhookWithSecret")
    for field in (
        "created_at",
        "updated_at",
        "disabled_at/anyOf/0",
        "failing_since/anyOf/0",
        "previous_secret_until/anyOf/0",
    )
} | {
    "/AttemptOut/properties/attempted_at",
    "/DeliveryOut/properties/occurred_at",
    "/DeliveryOut/properties/finished_at/anyOf/0",
    "/DeliveryOut/properties/next_attempt_at/anyOf/0",
}


def test_the_keys_times_carry_their_offset(client, admin_headers, doc):
    assert (
        set(_date_time_fields(doc["components"]["schemas"]))
        == {
            "/KeyListed/properties/created_at",
            "/KeyListed/properties/revoked_at/anyOf/0",
        }
        | WEBHOOK_TIMES
    )
    made = client.post("/v1/keys", json={"owner": "olga"}, headers=admin_headers)
    assert made.status_code == 201
    listed = client.get("/v1/keys", headers=admin_headers).json()["items"]
    assert listed
    for key in listed:
        _rfc3339_utc(key["created_at"])
    (olga,) = [k for k in listed if made.json()["key"].startswith(k["prefix"])]
    revoked = client.delete(f"/v1/keys/{olga['id']}", headers=admin_headers).json()
    _rfc3339_utc(revoked["created_at"])
    _rfc3339_utc(revoked["revoked_at"])


def test_every_v1_operation_declares_its_429(doc):
    """The share and scorer links are counted too (per link, per address, the fair share):
    their routes answer 429 as the keyed ones do."""
    linked = 0
    for path, item in doc["paths"].items():
        for method, op in item.items():
            if not path.startswith("/v1/"):
                continue
            linked += op.get("security") == []
            refused = op["responses"].get("429")
            assert refused is not None, (method, path)
            problem = refused["content"]["application/problem+json"]
            assert set(refused["content"]) == {"application/problem+json"}, (method, path)
            assert problem["schema"] == {"$ref": "#/components/schemas/Problem"}, (method, path)
            # Its own example (every error status has one), never another status's.
            assert problem["example"]["status"] == 429, (method, path)
            assert "Retry-After" in refused["headers"], (method, path)
    assert linked >= 12


def _event_fields(wire: bytes) -> dict:
    """One server-sent event as an EventSource reads it: {event, id, data}."""
    fields: dict = {}
    for line in wire.decode().splitlines():
        if line and not line.startswith(":"):
            name, _, value = line.partition(":")
            fields[name] = (
                fields[name] + "\n" + value.removeprefix(" ") if name in fields else value.removeprefix(" ")
            )
    return fields


def test_the_event_streams_declare_each_event_and_its_json(api, doc):
    """An event stream's schema describes one event (a checker validates each against it):
    an object whose ``data`` is JSON of a named component, TableChange or StreamChange; a
    tournament's share stream carries TournamentChange (and the owner-wide stream it too)."""
    from jsonschema import Draft202012Validator
    from sse_starlette import ServerSentEvent

    from app.events.catalogue import RESUMED
    from app.live.router import _sse
    from app.live.subscription import Current, StreamNotice, TableEvent, TournamentEvent

    table = api.table()
    api.deal(table["id"], {"type": "allpass", "tricks": {"0": 4, "1": 3, "2": 3}})
    sheet = api.get(f"/v1/tables/{table['id']}/sheet").json()
    current = Current(table["id"], api.owner, 1, 1, '"5d1e"', sheet)
    wires = {
        "sheet": _sse(TableEvent.of("sheet", current), owner_wide=False),
        "deal.posted (owner-wide)": _sse(TableEvent.of("deal.posted", current), owner_wide=True),
        "table.deleted": _sse(TableEvent("table.deleted", table["id"], 2), owner_wide=False),
        "stream.resumed": _sse(StreamNotice(RESUMED, "back"), owner_wide=False).encode(),
    }
    components = {"components": doc["components"]}
    streams = [
        (path, item["get"]["responses"]["200"]["content"]["text/event-stream"]["schema"])
        for path, item in doc["paths"].items()
        if "text/event-stream" in item.get("get", {}).get("responses", {}).get("200", {}).get("content", {})
    ]
    assert len(streams) == 5
    standings = TournamentEvent("tournament.standings", "7" * 32, 3)
    resumed = wires["stream.resumed"]
    wires_of = {
        "/v1/shared/{token}/tournament/events": {
            "tournament.standings": ServerSentEvent(
                data=standings.data(), event=standings.kind, id="3"
            ).encode(),
            "stream.resumed": resumed,
        },
        "/v1/events": {**wires, "tournament.standings (owner-wide)": _sse(standings, owner_wide=True)},
    }
    for path, schema in streams:
        event = Draft202012Validator({**schema, **components})
        data = schema["properties"]["data"]
        assert data["contentMediaType"] == "application/json"
        payload = Draft202012Validator({**data["contentSchema"], **components})
        for name, wire in wires_of.get(path, wires).items():
            if not isinstance(wire, bytes):
                wire = wire.encode()
            fields = _event_fields(wire)
            assert not list(event.iter_errors(fields)), (path, name, fields)
            assert not list(payload.iter_errors(json.loads(fields["data"]))), (path, name)
    assert {"TableChange", "StreamChange", "Sheet"} <= set(doc["components"]["schemas"])


def test_the_code_cites_the_api_document_by_its_path():
    """The API document is docs/api.md; an "API.md" names no file of the project."""
    from pathlib import Path

    import app

    root = Path(app.__file__).parent
    citing = [
        str(p.relative_to(root)) for p in root.rglob("*.py") if "API.md" in p.read_text(encoding="utf-8")
    ]
    assert citing == []
    assert (root.parent / "docs" / "api.md").is_file()


def test_the_deprecated_forms_are_gone(api, client, doc):
    """The settlement's ``stake`` (a copy of ``stake_exact``) and the share link listing's
    ``deals`` (a copy of ``items``) were kept one version; a stake is a decimal, never a
    fraction."""
    table = api.table()
    api.deal(table["id"], {"type": "allpass", "tricks": {"0": 4, "1": 3, "2": 3}})
    token = table["share_token"]
    settlement = api.get(f"/v1/tables/{table['id']}/settlement", params={"stake": "0.5"}).json()
    assert (
        "stake" not in settlement and settlement["stake_exact"] == "1/2" and settlement["stake_text"] == "0.5"
    )
    shared = client.get(f"/v1/shared/{token}", params={"stake": "0.5"}).json()
    assert "stake" not in shared["settlement"] and shared["settlement"]["stake_exact"] == "1/2"
    listing = client.get(f"/v1/shared/{token}/deals").json()
    assert set(listing) == {"items", "next"} and [d["number"] for d in listing["items"]] == [1]
    schemas = doc["components"]["schemas"]
    assert "stake" not in schemas["SettlementOut"]["properties"]
    assert "deals" not in schemas["SharedDealPage"]["properties"]
    for url in (f"/v1/tables/{table['id']}/settlement", f"/v1/shared/{token}"):
        for fraction in ("1/2", "2/4"):
            refused = api.get(url, params={"stake": fraction})
            assert refused.status_code == 422, refused.text
            assert [e["field"] for e in refused.json()["errors"]] == ["stake"]
