"""Every kind of event, in one place: its name, who may see it, and how it goes out — by
webhooks (its filter bit and payload), on event streams (which streams, its payload), or
explicitly not, with the reason. The outbox (outbox.py), the webhooks' filters and payloads
(app/webhooks), the streams' event names (app/live) and the API document's components are
made from this list; tests/events/test_catalogue.py holds it to that.

A new kind: one entry here, and the write that emits it (``changes.announce`` for a table's or
a tournament's change, ``outbox.enqueue_with_data`` for one that carries its own data)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from app.events.payloads import (
    Payload,
    RatingData,
    StreamChange,
    TableChange,
    TableData,
    TournamentChange,
    TournamentData,
    WebhookPayload,
    WebhookTestData,
)


class Audience(StrEnum):
    """Who may see an event."""

    OWNER = "owner"  # the owner's keys: its webhooks, its table and owner-wide streams
    SHARE_LINK = "share link"  # anyone with the table's (or tournament's) read-only share link
    SCORER_LINK = "scorer link"  # the table's scorer links (their page's stream)
    ENDPOINT = "endpoint"  # the one webhook endpoint its owner asked it for
    VIEWER = "viewer"  # whoever holds the stream the event is about


class Stream(StrEnum):
    """The event streams (app/live/router.py)."""

    TABLE = "table"  # /v1/tables/{id}/events, /v1/shared/{token}/events, /v1/score/{token}/events
    OWNER = "owner"  # /v1/events: every table of the owner, and its tournaments
    TOURNAMENT = "tournament"  # /v1/shared/{token}/tournament/events


class Subject(StrEnum):
    """What a webhook delivery's outbox row names in its ``table_id`` column."""

    TABLE = "table"
    TOURNAMENT = "tournament"  # the tournament's id (a tournament is no table)
    NOTHING = "nothing"  # a test: the endpoint is the subject


@dataclass(frozen=True)
class ByWebhooks:
    """Delivered by webhooks: ``bit`` is its place in an endpoint's stored filter (never
    reused, never moved: stored filters keep their meaning); None: never subscribed to."""

    bit: int | None
    payload: type[WebhookPayload]
    subject: Subject = Subject.TABLE


@dataclass(frozen=True)
class OnStreams:
    """Sent on these event streams, with this ``data``."""

    streams: frozenset[Stream]
    payload: type[Payload]


@dataclass(frozen=True)
class NotDelivered:
    """Declared not delivered this way, and why."""

    reason: str


@dataclass(frozen=True)
class EventKind:
    name: str
    when: str
    audience: frozenset[Audience]
    webhooks: ByWebhooks | NotDelivered
    streams: OnStreams | NotDelivered


_TABLE_VIEWERS = frozenset({Audience.OWNER, Audience.SHARE_LINK, Audience.SCORER_LINK})
_TABLE_STREAMS = OnStreams(frozenset({Stream.TABLE, Stream.OWNER}), TableChange)
# Events of a stream itself, on every stream, with no id (a reconnecting client resumes from its
# last table event).
_STREAM_ITSELF = OnStreams(frozenset(Stream), StreamChange)
_NO_HOOK_FOR_STREAMS = NotDelivered("about one open stream's connection, not about a change")


def _table(name: str, when: str, bit: int) -> EventKind:
    """A change of a table, on its streams and by its owner's webhooks."""
    return EventKind(name, when, _TABLE_VIEWERS, ByWebhooks(1 << bit, TableData), _TABLE_STREAMS)


CATALOGUE: tuple[EventKind, ...] = (
    EventKind(
        "sheet",
        "the table's current state, without saying what changed: a stream's first event, a "
        "resumed stream, several changes seen at once, a scorer link revoked, a round's tables locked",
        _TABLE_VIEWERS,
        NotDelivered(
            "says no change of its own: a webhook announces what happened, a stream shows the state"
        ),
        _TABLE_STREAMS,
    ),
    _table("deal.posted", "a deal was posted (by a key or a scorer link)", 0),
    _table("deal.undone", "the last deal was undone (deal_number: the deal removed)", 1),
    _table("deal.corrected", "a deal was corrected (deal_number: the deal corrected)", 2),
    EventKind(
        "table.finished",
        "the deal just posted finished the pool (sent beside its deal.posted)",
        frozenset({Audience.OWNER}),
        ByWebhooks(1 << 3, TableData),
        NotDelivered("a stream's deal.posted carries the sheet, which says the pool is finished"),
    ),
    _table("table.renamed", "players, title or note changed, or a new share token", 4),
    _table("table.archived", "archived or unarchived", 5),
    _table("table.deleted", "the table was deleted (its stream ends; the owner-wide one goes on)", 6),
    EventKind(
        "tournament.standings",
        "a tournament's standings changed: a round drawn, closed (by its director, or as its last "
        "table finished), reopened, a swap, an adjustment, an entry, a withdrawal or a new share link",
        frozenset({Audience.OWNER, Audience.SHARE_LINK}),
        ByWebhooks(1 << 7, TournamentData, Subject.TOURNAMENT),
        # The owner's owner-wide streams get it as announced (it names the tournament; its
        # standings are one GET away), its share link's streams after one read of it.
        OnStreams(frozenset({Stream.OWNER, Stream.TOURNAMENT}), TournamentChange),
    ),
    EventKind(
        "rating.changed",
        "a finished rated table moved its players' ratings; or its undo, correction or deletion "
        "rated it (and the tables rated after it) again",
        frozenset({Audience.OWNER}),
        ByWebhooks(1 << 8, RatingData),
        NotDelivered("the streams follow tables and tournaments; a rating is read from its player"),
    ),
    EventKind(
        "webhook.test",
        "asked for with POST /v1/webhooks/{id}/test (never subscribed to)",
        frozenset({Audience.ENDPOINT}),
        ByWebhooks(None, WebhookTestData, Subject.NOTHING),
        NotDelivered("a test of one webhook endpoint, for that endpoint alone"),
    ),
    EventKind(
        "stream.interrupted",
        "the stream's database connection was lost; it resumes when it is back",
        frozenset({Audience.VIEWER}),
        _NO_HOOK_FOR_STREAMS,
        _STREAM_ITSELF,
    ),
    EventKind(
        "stream.resumed",
        "the stream's database connection is back; the changes since are sent",
        frozenset({Audience.VIEWER}),
        _NO_HOOK_FOR_STREAMS,
        _STREAM_ITSELF,
    ),
)

KINDS: dict[str, EventKind] = {kind.name: kind for kind in CATALOGUE}


def hooked() -> Iterator[tuple[EventKind, ByWebhooks]]:
    """The kinds webhooks deliver, with how."""
    for kind in CATALOGUE:
        if isinstance(kind.webhooks, ByWebhooks):
            yield kind, kind.webhooks


# Every kind an endpoint may subscribe to, with its bit in the endpoint's stored ``types``.
WEBHOOK_BITS: dict[str, int] = {kind.name: how.bit for kind, how in hooked() if how.bit is not None}
# The kinds webhooks deliver about a tournament: an endpoint limited to listed tables gets none.
TOURNAMENT_HOOKS: frozenset[str] = frozenset(
    kind.name for kind, how in hooked() if how.subject is Subject.TOURNAMENT
)
# Sent to one endpoint on its owner's request; never subscribed to.
TEST_EVENT = "webhook.test"
assert KINDS[TEST_EVENT].webhooks == ByWebhooks(None, WebhookTestData, Subject.NOTHING)


def on_stream(stream: Stream) -> tuple[str, ...]:
    """The kinds a stream sends, in the catalogue's order."""
    return tuple(
        kind.name
        for kind in CATALOGUE
        if isinstance(kind.streams, OnStreams) and stream in kind.streams.streams
    )


def stream_kinds_carrying(payload: type[Any]) -> tuple[str, ...]:
    """The kinds whose stream events carry ``payload`` as their data."""
    return tuple(
        kind.name
        for kind in CATALOGUE
        if isinstance(kind.streams, OnStreams) and kind.streams.payload is payload
    )


def of_payload(stream: Stream, payload: type[Payload]) -> tuple[str, ...]:
    """The kinds ``stream`` sends with ``payload`` as their data."""
    return tuple(name for name in on_stream(stream) if name in stream_kinds_carrying(payload))


# The kinds a hub sends about a table (its streams' kinds but the stream's own) and about a
# tournament, and those about a stream itself.
TABLE_KINDS = of_payload(Stream.TABLE, TableChange)
TOURNAMENT_KINDS = of_payload(Stream.TOURNAMENT, TournamentChange)
STREAM_NOTICES = of_payload(Stream.TABLE, StreamChange)
INTERRUPTED, RESUMED = STREAM_NOTICES
STANDINGS = "tournament.standings"
assert TOURNAMENT_KINDS == (STANDINGS,)
