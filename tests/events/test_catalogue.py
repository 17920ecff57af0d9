"""The catalogue of event kinds (app/events/catalogue.py) is the one place the events are
spelled: every kind goes out by webhooks and on streams, or says why not; the webhook filter
bits are unique and never move (endpoints' stored filters keep their meaning, with no
migration of data); what the webhooks, the streams and the API document use is made from it."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from app.events import catalogue
from app.events.catalogue import (
    CATALOGUE,
    KINDS,
    TEST_EVENT,
    WEBHOOK_BITS,
    ByWebhooks,
    NotDelivered,
    OnStreams,
    Stream,
    on_stream,
)
from app.events.outbox import event_params, mask, names
from app.events.payloads import Payload, StreamChange

# The bits endpoints have stored since each kind was added: a bit is never reused nor moved.
STORED_BITS = {
    "deal.posted": 1 << 0,
    "deal.undone": 1 << 1,
    "deal.corrected": 1 << 2,
    "table.finished": 1 << 3,
    "table.renamed": 1 << 4,
    "table.archived": 1 << 5,
    "table.deleted": 1 << 6,
    "tournament.standings": 1 << 7,
    "rating.changed": 1 << 8,
}


@pytest.mark.parametrize("kind", CATALOGUE, ids=lambda k: k.name)
def test_every_kind_is_delivered_or_says_why_not(kind):
    for how, delivered in ((kind.webhooks, ByWebhooks), (kind.streams, OnStreams)):
        assert isinstance(how, delivered | NotDelivered), kind.name
        if isinstance(how, NotDelivered):
            assert how.reason.strip(), f"{kind.name}: a kind not delivered says why"
        else:
            assert issubclass(how.payload, Payload), kind.name
    assert not (isinstance(kind.webhooks, NotDelivered) and isinstance(kind.streams, NotDelivered)), (
        f"{kind.name} goes nowhere"
    )
    assert kind.audience and kind.when.strip()
    if isinstance(kind.streams, OnStreams):
        assert kind.streams.streams, kind.name


def test_a_kind_that_goes_nowhere_undeclared_fails_the_check():
    """The check above on a kind that neither goes out nor says why: it fails."""
    bad = catalogue.EventKind("table.painted", "never", frozenset(), None, None)  # type: ignore[arg-type]
    with pytest.raises(AssertionError):
        test_every_kind_is_delivered_or_says_why_not(bad)


def test_names_are_unique_and_dotted():
    assert len(KINDS) == len(CATALOGUE)
    for name in KINDS:
        subject, _, verb = name.partition(".")
        # "sheet" alone: a stream's current state, which names no change
        assert (subject and verb or name == "sheet") and name == name.lower(), name


def test_the_webhook_bits_are_unique_and_stable():
    assert WEBHOOK_BITS == STORED_BITS  # a new kind takes the next bit; none moves
    bits = list(WEBHOOK_BITS.values())
    assert len(set(bits)) == len(bits) and all(bit & (bit - 1) == 0 for bit in bits)
    # What an endpoint stored means what it meant: every subset of the kinds round-trips.
    for stored in (0, 1, 0b1011, 0b1_1000_0000, 0b1_1111_1111):
        assert mask(names(stored)) == stored
    assert names(0b1000_1001) == ["deal.posted", "table.finished", "tournament.standings"]


def test_a_test_delivery_is_no_subscription():
    how = KINDS[TEST_EVENT].webhooks
    assert isinstance(how, ByWebhooks) and how.bit is None and TEST_EVENT not in WEBHOOK_BITS


def test_the_outbox_writes_only_what_webhooks_deliver():
    from datetime import UTC, datetime

    at = datetime(2026, 12, 4, tzinfo=UTC)
    for kind in CATALOGUE:
        params = event_params("o", "t", 1, kind.name, at)
        subscribable = isinstance(kind.webhooks, ByWebhooks) and kind.webhooks.bit is not None
        assert (params is not None) == subscribable, kind.name
        if params is not None:
            assert params["event_bit"] == STORED_BITS[kind.name]


def _row(kind: str, **values: Any) -> SimpleNamespace:
    from datetime import datetime

    fields = {
        "type": kind,
        "occurred_at": datetime(2026, 12, 4, 7),
        "table_id": "a" * 32,
        "revision": 3,
        "deal_number": 2,
        "deal_count": 2,
        "endpoint_id": 9,
        "data": {"rated": True, "players": [{"player_id": "p", "before": 0.0, "after": 1.5, "games": 1}]},
    }
    return SimpleNamespace(**{**fields, **values})


@pytest.mark.parametrize("kind", [k for k, _ in catalogue.hooked()], ids=lambda k: k.name)
def test_each_webhook_payload_is_its_declared_type(kind):
    import json

    from app.webhooks.sending import payload

    how = kind.webhooks
    body = json.loads(payload(_row(kind.name), "https://score.example.org"))
    assert set(body) == {"type", "timestamp", "data"} and body["type"] == kind.name
    assert body["timestamp"] == "2026-12-04T07:00:00Z"
    assert how.payload.model_validate(body["data"]).wire() == body["data"]


def test_the_webhook_bodies_are_the_bytes_they_were():
    """The payloads as the deliverer built them before the catalogue (a redelivery of an old
    row sends what its first attempt sent)."""
    from app.webhooks.sending import payload

    table = "a" * 32
    assert payload(_row("deal.undone"), "") == (
        '{"type":"deal.undone","timestamp":"2026-12-04T07:00:00Z","data":{"table_id":"' + table + '",'
        '"revision":3,"deal_number":2,"etag":' + _etag(table) + ","
        '"links":{"table":"/v1/tables/' + table + '","sheet":"/v1/tables/' + table + '/sheet",'
        '"png":"/v1/tables/' + table + '/sheet.png"}}}'
    )
    assert payload(_row("table.deleted", deal_number=None, deal_count=None), "") == (
        '{"type":"table.deleted","timestamp":"2026-12-04T07:00:00Z","data":{"table_id":"' + table + '",'
        '"revision":3,"deal_number":null,"etag":null}}'
    )
    assert payload(_row("webhook.test"), "") == (
        '{"type":"webhook.test","timestamp":"2026-12-04T07:00:00Z","data":{"webhook":9}}'
    )
    assert payload(_row("rating.changed", revision=0), "") == (
        '{"type":"rating.changed","timestamp":"2026-12-04T07:00:00Z","data":{"table_id":"' + table + '",'
        '"version":0,"rated":true,"players":[{"player_id":"p","before":0.0,"after":1.5,"games":1,'
        '"links":{"rating":"/v1/players/p/rating"}}],"links":{"table":"/v1/tables/' + table + '",'
        '"settlement":"/v1/tables/' + table + '/settlement"}}}'
    )


def _etag(table: str) -> str:
    import json

    from app.kit.etags import sheet_etag

    return json.dumps(sheet_etag(table, 3, 2))


def test_the_streams_send_the_catalogues_kinds():
    from app.live import hub

    assert on_stream(Stream.TABLE) == (
        "sheet",
        "deal.posted",
        "deal.undone",
        "deal.corrected",
        "table.renamed",
        "table.archived",
        "table.deleted",
        "stream.interrupted",
        "stream.resumed",
    )
    assert "tournament.standings" in on_stream(Stream.OWNER)
    assert on_stream(Stream.TOURNAMENT) == ("tournament.standings", "stream.interrupted", "stream.resumed")
    assert hub.TOURNAMENT_KINDS == ("tournament.standings",)


def test_the_api_document_declares_every_kind(client):
    doc = client.get("/openapi.json").json()
    hooked = {kind.name: how for kind, how in catalogue.hooked()}
    assert set(doc["webhooks"]) == set(hooked)
    schemas = doc["components"]["schemas"]
    for name, how in hooked.items():
        body = doc["webhooks"][name]["post"]["requestBody"]["content"]["application/json"]["schema"]
        assert body["properties"]["type"]["const"] == name
        assert body["properties"]["data"]["$ref"].rsplit("/", 1)[1] == how.payload.__name__
        assert how.payload.__name__ in schemas
    create = schemas["WebhookCreate"]["properties"]["types"]["items"]
    assert set(create.get("enum") or schemas[create["$ref"].rsplit("/", 1)[1]]["enum"]) == set(WEBHOOK_BITS)
    for stream_path, stream in (
        ("/v1/tables/{table_id}/events", Stream.TABLE),
        ("/v1/events", Stream.OWNER),
        ("/v1/shared/{token}/tournament/events", Stream.TOURNAMENT),
    ):
        event = doc["paths"][stream_path]["get"]["responses"]["200"]["content"]["text/event-stream"]["schema"]
        assert event["properties"]["event"]["enum"] == list(on_stream(stream))
    carried = {
        name
        for payload in ("TableChange", "StreamChange", "TournamentChange")
        for name in schemas[payload]["properties"]["kind"]["enum"]
    }
    assert carried == {k.name for k in CATALOGUE if isinstance(k.streams, OnStreams)}


# Who a way of delivery reaches: a kind's audience must name them.
_REACHES = {
    Stream.TABLE: {catalogue.Audience.OWNER, catalogue.Audience.SHARE_LINK, catalogue.Audience.SCORER_LINK},
    Stream.OWNER: {catalogue.Audience.OWNER},
    Stream.TOURNAMENT: {catalogue.Audience.SHARE_LINK},
}


@pytest.mark.parametrize("kind", CATALOGUE, ids=lambda k: k.name)
def test_the_audience_is_who_its_deliveries_reach(kind):
    reached: set[catalogue.Audience] = set()
    if isinstance(kind.webhooks, ByWebhooks):
        reached.add(
            catalogue.Audience.OWNER if kind.webhooks.bit is not None else catalogue.Audience.ENDPOINT
        )
    if isinstance(kind.streams, OnStreams) and kind.streams.payload is not StreamChange:
        for stream in kind.streams.streams:
            reached |= _REACHES[stream]
    if kind.name in catalogue.STREAM_NOTICES:
        reached.add(catalogue.Audience.VIEWER)
    assert reached == set(kind.audience), kind.name


def test_the_webhooks_guide_lists_every_kind_webhooks_deliver():
    """docs/webhooks.md's table of events is the catalogue's kinds that webhooks deliver."""
    import re
    from pathlib import Path

    guide = (Path(__file__).resolve().parents[2] / "docs" / "webhooks.md").read_text(encoding="utf-8")
    section = guide.split("## Events", 1)[1].split("\n\n", 2)[1]
    listed = re.findall(r"^\| `([a-z.]+)` \|", section, flags=re.MULTILINE)
    assert listed == [kind.name for kind, _ in catalogue.hooked()]
