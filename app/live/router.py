"""Server-sent events: every change of a table pushed to its viewers (app/live).

- ``GET /v1/tables/{id}/events`` (the key), ``GET /v1/shared/{token}/events`` (read-only):
  one table; the event ``id`` is the table's revision. The first event is the current state
  (``sheet``) unless ``Last-Event-ID`` / ``?after=`` is the current revision already; a client
  that missed events gets the current state at once. A deleted table ends the stream.
- ``GET /v1/events`` (``?tables=id,id``): every table of the key's owner, or those listed;
  ids are ``{table}:{revision}``. With ``Last-Event-ID`` (a reconnect) or ``tables`` the
  current state of each table comes first. A tournament's ``tournament.standings`` events
  come on it too.
- ``GET /v1/shared/{token}/tournament/events`` (read-only, the tournament's share link): the
  tournament's ``tournament.standings`` events; the event ``id`` is the tournament's revision.
  The first event is the current revision unless ``Last-Event-ID`` / ``?after=`` is it already.
  A replaced share token ends the stream.

Slots are shared fairly: besides the process's bound (``PREFSCORE_EVENTS_MAX_SUBSCRIPTIONS``,
503), each key, share token, scorer link and client address without a key holds at most its
own number of open streams (``PREFSCORE_EVENTS_MAX_PER_*``, 429 naming the cap); a stream gives
its slot back when it ends, however it ends.

A comment every ``PREFSCORE_EVENTS_HEARTBEAT`` seconds keeps proxies from closing an idle
stream. A keyed stream ends when its key is revoked: at once on the process that revoked it,
within the heartbeat interval on the others (app/live/key_watcher.py). The stream's
connection (disconnects, one heartbeat for the process, shutdown) is app/live/stream.py,
light enough for 10,000 idle streams in a process; events are encoded by sse-starlette.
"""

from __future__ import annotations

import asyncio
import math
import re
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import Response
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.concurrency import run_in_threadpool
from starlette.types import Scope

from app.events.catalogue import STANDINGS
from app.keys.service import Caller
from app.kit.deps import DB, NO_KEY, KeyCaller, ScorerAccess
from app.kit.errors import NotFound, Unprocessable
from app.kit.i18n import N_
from app.kit.problems import problem
from app.live.documents import stream_responses, tournament_stream_responses
from app.live.limits import LAST_EVENT_ID_DIGITS, STREAM_TABLES_MAX
from app.live.live import LiveUpdates
from app.live.reads import current, load_current, load_owner_tables, load_revisions
from app.live.stream import Connection, LiveStream
from app.live.subscription import (
    ADDRESS,
    KEY,
    SCORER_LINK,
    SHARE_TOKEN,
    Holder,
    StreamNotice,
    Subscription,
    TableEvent,
    TooManySubscriptions,
    TournamentEvent,
)
from app.rules import Sentence
from app.tables import service as svc
from app.tables.model import TABLE_ID_RE
from app.tournaments import service as tournaments

router = APIRouter(prefix="/v1", tags=["events"])

# A Last-Event-ID read as a revision; anything else is not one of ours and is ignored.
_REVISION = re.compile(rf"[0-9]{{1,{LAST_EVENT_ID_DIGITS}}}")
# Which setting bounds each holder's streams, and how the refusal names the holder.
_CAPS = {
    SHARE_TOKEN: ("PREFSCORE_EVENTS_MAX_PER_SHARE_TOKEN", Sentence("this share link")),
    SCORER_LINK: ("PREFSCORE_EVENTS_MAX_PER_SCORER_LINK", Sentence("this scorer link")),
    KEY: ("PREFSCORE_EVENTS_MAX_PER_KEY", Sentence("this key")),
    ADDRESS: ("PREFSCORE_EVENTS_MAX_PER_ADDRESS", Sentence("this address")),
}


class StreamRefused(Exception):
    """No slot for the stream: answered as a problem (``response``) instead of a stream."""

    def __init__(self, response: Response):
        super().__init__(response.status_code)
        self.response = response


def live(request: Request) -> LiveUpdates:
    """The process's live updates, started with the first stream (or the app's lifespan)."""
    state = request.app.state
    updates = getattr(state, "live", None)
    if updates is None or (
        updates.hub.loop is not None and updates.hub.loop is not asyncio.get_running_loop()
    ):
        # one per event loop (a test may serve the same app from a second loop)
        updates = state.live = LiveUpdates(state.db, state.settings)
    updates.start()
    return updates


LastEventId = Annotated[
    str | None,
    Header(alias="Last-Event-ID", description="the id of the last event received: resume after it"),
]
After = Annotated[
    int | None, Query(ge=0, le=2**62, description="the revision the client has (as Last-Event-ID)")
]


def resume_revision(last_event_id: str | None, after: int | None) -> int | None:
    """The revision the client has: ``after``, else a ``Last-Event-ID`` of at most LAST_EVENT_ID_DIGITS
    ASCII digits; any other Last-Event-ID (too long, not a number) is ignored: the stream starts
    with the current state."""
    if after is not None:
        return after
    if last_event_id is not None:
        text = last_event_id.strip()
        if _REVISION.fullmatch(text):
            return int(text)
    return None


def _sse(event: TableEvent | StreamNotice, *, owner_wide: bool) -> ServerSentEvent | bytes:
    if isinstance(event, StreamNotice):
        return ServerSentEvent(data=event.data(), event=event.kind)
    wire = event.wire.get(owner_wide)
    if wire is None:  # the same bytes for every stream of the table (bench/events.py)
        event_id = f"{event.table_id}:{event.revision}" if owner_wide else str(event.revision)
        wire = event.wire[owner_wide] = ServerSentEvent(
            data=event.data(), event=event.kind, id=event_id
        ).encode()
    return wire


def _wire(event: TableEvent | StreamNotice, *, owner_wide: bool) -> bytes:
    sse = _sse(event, owner_wide=owner_wide)
    return sse if isinstance(sse, bytes) else sse.encode()


class _TableRender:
    """What a table stream (or an owner-wide one) sends of the items the hub hands it: each
    table's revisions once (not the first state again, nor a signal seen twice); a deleted
    table ends a one-table stream."""

    __slots__ = ("seen", "owner_wide")

    def __init__(self, seen: dict[str, int], owner_wide: bool):
        self.seen, self.owner_wide = seen, owner_wide

    def __call__(self, items: list[Any]) -> tuple[list[bytes], bool]:
        out = []
        for item in items:
            if isinstance(item, TableEvent):
                if item.kind != "table.deleted" and item.revision <= self.seen.get(item.table_id, -1):
                    continue  # already sent (the first state, or a signal seen twice)
                self.seen[item.table_id] = item.revision
            out.append(_wire(item, owner_wide=self.owner_wide))
            if isinstance(item, TableEvent) and item.kind == "table.deleted" and not self.owner_wide:
                return out, True
        return out, False


def _stream(
    updates: LiveUpdates,
    sub: Subscription,
    first: list[TableEvent],
    seen: dict[str, int],
    *,
    owner_wide: bool,
) -> LiveStream:
    """The stream's response: its first events, then the hub's until it ends the stream (its
    key or scorer link revoked, its share link replaced) or the table is deleted; its slots
    are given back however it ends (app/live/stream.py)."""
    conn = Connection(updates.hub, sub, _TableRender(seen, owner_wide), updates.streams)
    return LiveStream(conn, [_wire(e, owner_wide=owner_wide) for e in first])


def _subscribe(updates: LiveUpdates, sub: Subscription, scope: Scope) -> None:
    """Take the stream's slots, or StreamRefused: 503 when the process holds all it may, 429 when
    one of the stream's holders does (``cap`` names which), with Retry-After."""
    try:
        updates.hub.subscribe(sub)
    except TooManySubscriptions as refused:
        retry = {"Retry-After": str(max(1, math.ceil(updates.settings.events_heartbeat)))}
        if refused.cap is None:
            raise StreamRefused(
                problem(
                    503,
                    Sentence(
                        "this server holds {limit} event streams, the most it may (PREFSCORE_EVENTS_MAX_SUBSCRIPTIONS); retry later or poll",
                        limit=refused.limit,
                    ),
                    scope=scope,
                    title="Service unavailable",
                    headers=retry,
                    cap="server",
                    limit=refused.limit,
                )
            ) from None
        setting, who = _CAPS[refused.cap]
        raise StreamRefused(
            problem(
                429,
                Sentence(
                    "{who} holds {limit} open event streams on this server, the most one may ({setting}); close one, or retry later or poll",
                    who=who,
                    limit=refused.limit,
                    setting=setting,
                ),
                scope=scope,
                title=N_("Too many event streams"),
                headers=retry,
                cap=refused.cap,
                limit=refused.limit,
            )
        ) from None


def anonymous_holders(request: Request) -> tuple[Holder, ...]:
    """The client address a stream without a key is counted against (none known: none)."""
    client = request.client
    return ((ADDRESS, client.host),) if client is not None and client.host else ()


def key_holder(caller: Caller) -> Holder:
    """A stored key is counted by its id; the environment's admin key (not stored) by owner."""
    return (KEY, f"id:{caller.key_id}") if caller.key_id is not None else (KEY, f"owner:{caller.owner}")


async def table_stream(
    request: Request, table_id: str, owner: str | None, have: int | None, sub: Subscription
) -> Response:
    """The stream of one table for ``sub`` (its holders, key, link or share token set by the
    route); ``owner``: the table must be this owner's. A problem when no slot is left."""
    updates = live(request)
    try:
        _subscribe(updates, sub, request.scope)  # before the read: no change between the two is missed
    except StreamRefused as refused:
        return refused.response
    try:
        found = (await run_in_threadpool(load_current, updates.db, [table_id])).get(table_id)
        if found is None or (owner is not None and found.owner != owner):
            raise NotFound(Sentence("no table {table_id!r}", table_id=table_id))
    except BaseException:
        updates.hub.unsubscribe(sub)
        raise
    updates.hub.seed([(found.table_id, found.revision, found.deal_count)], found.owner)
    first = [] if have == found.revision else [TableEvent.of("sheet", found)]
    return _stream(updates, sub, first, {table_id: found.revision}, owner_wide=False)


@router.get(
    "/tables/{table_id}/events",
    operation_id="streamTableEvents",
    response_class=EventSourceResponse,
    responses=stream_responses(401, 404, 422, 429, 503),
)
async def stream_table_events(
    table_id: str, request: Request, caller: KeyCaller, last_event_id: LastEventId = None, after: After = None
) -> Response:
    """The table's changes as server-sent events: each deal posted, undone or corrected (and
    the table renamed, archived or deleted), with the revision as the event id and the new
    sheet and ETag. ``Last-Event-ID`` or ``after`` resumes: a client that missed events gets
    the current state at once. A deleted table ends the stream, and so does revoking the key."""
    if not TABLE_ID_RE.fullmatch(table_id):
        raise NotFound(Sentence("no table {table_id!r}", table_id=table_id[:40]))
    sub = Subscription(
        owner=None, tables=frozenset({table_id}), key_id=caller.key_id, holders=(key_holder(caller),)
    )
    return await table_stream(request, table_id, caller.owner, resume_revision(last_event_id, after), sub)


@router.get(
    "/shared/{token}/events",
    operation_id="streamSharedEvents",
    tags=["shared"],
    response_class=EventSourceResponse,
    responses=stream_responses(404, 422, 429, 503),
    openapi_extra={"security": []},
)
async def stream_shared_events(
    token: str, request: Request, db: DB, last_event_id: LastEventId = None, after: After = None
) -> Response:
    """The same stream through the read-only share link (no key). It ends when the table gets
    a new share token."""
    table = await run_in_threadpool(svc.get_shared, db, token)
    sub = Subscription(
        owner=None,
        tables=frozenset({table.id}),
        holders=((SHARE_TOKEN, table.share_token), *anonymous_holders(request)),
        share_token=table.share_token,
    )
    return await table_stream(request, table.id, None, resume_revision(last_event_id, after), sub)


@router.get(
    "/events",
    operation_id="streamOwnerEvents",
    response_class=EventSourceResponse,
    responses=stream_responses(401, 404, 422, 429, 503, owner_wide=True),
)
async def stream_owner_events(
    request: Request,
    caller: KeyCaller,
    tables: Annotated[
        str | None,
        Query(
            max_length=STREAM_TABLES_MAX * 33,
            description=f"comma-separated table ids (at most {STREAM_TABLES_MAX}); all of the key's tables when absent",
        ),
    ] = None,
    last_event_id: LastEventId = None,
) -> Response:
    """The changes of every table of the key's owner (tables created later included), or of
    the tables listed, on one connection; event ids are ``{table}:{revision}``. With ``tables``
    or on a reconnect (``Last-Event-ID``) the current state of each table comes first. A
    deleted table's last event is ``table.deleted``; the stream goes on. Revoking the key ends it."""
    owner = caller.owner
    updates = live(request)
    wanted: frozenset[str] | None = None
    if tables is not None:
        ids = [t.strip() for t in tables.split(",") if t.strip()]
        if not ids or len(ids) > STREAM_TABLES_MAX or not all(TABLE_ID_RE.fullmatch(t) for t in ids):
            raise Unprocessable(
                Sentence(
                    "tables: between 1 and {stream_tables_max} table ids, comma-separated",
                    stream_tables_max=STREAM_TABLES_MAX,
                )
            )
        wanted = frozenset(ids)
    sub = Subscription(owner=owner, tables=wanted, key_id=caller.key_id, holders=(key_holder(caller),))
    try:
        _subscribe(updates, sub, request.scope)
    except StreamRefused as refused:
        return refused.response
    try:
        if wanted is not None:
            found = await run_in_threadpool(load_current, updates.db, sorted(wanted))
            missing = [t for t in sorted(wanted) if t not in found or found[t].owner != owner]
            if missing:
                raise NotFound(Sentence("no table {missing!r}", missing=missing[0]))
            first = [TableEvent.of("sheet", c) for c in found.values()]
            seeds = [(c.table_id, c.revision, c.deal_count) for c in found.values()]
        elif last_event_id is not None:
            found = await run_in_threadpool(load_owner_tables, updates.db, owner)
            first = [TableEvent.of("sheet", c) for c in found.values()]
            seeds = [(c.table_id, c.revision, c.deal_count) for c in found.values()]
        else:
            rows = await run_in_threadpool(load_revisions, updates.db, [], [owner])
            first = []
            seeds = [(t, r, n) for t, (_o, r, n) in rows.items()]
    except BaseException:
        updates.hub.unsubscribe(sub)
        raise
    updates.hub.seed(seeds, owner)
    seen = {t: r for t, r, _n in seeds}
    return _stream(updates, sub, first, seen, owner_wide=True)


class _TournamentRender:
    """What a tournament's share stream sends: each revision of its standings once (not the
    first one again, nor one read twice), and the notices about the stream."""

    __slots__ = ("sent",)

    def __init__(self, revision: int):
        self.sent = revision  # the revision the client has now

    def __call__(self, items: list[Any]) -> tuple[list[bytes], bool]:
        out = []
        for item in items:
            if isinstance(item, TournamentEvent):
                if item.revision <= self.sent:
                    continue
                self.sent = item.revision
                out.append(ServerSentEvent(data=item.data(), event=item.kind, id=str(item.revision)).encode())
            else:
                out.append(_wire(item, owner_wide=False))
        return out, False


@router.get(
    "/shared/{token}/tournament/events",
    operation_id="streamSharedTournamentEvents",
    tags=["shared"],
    response_class=EventSourceResponse,
    responses=tournament_stream_responses(404, 422, 429, 503),
    openapi_extra={"security": []},
)
async def stream_shared_tournament_events(
    token: str,
    request: Request,
    db: DB,
    last_event_id: LastEventId = None,
    after: Annotated[
        int | None,
        Query(ge=0, le=2**62, description="the tournament revision the client has (as Last-Event-ID)"),
    ] = None,
) -> Response:
    """Each change of the tournament's standings (a round drawn, a round closed as its last
    table finishes, an adjustment...) through its read-only share link, without a key: a
    ``tournament.standings`` event with the tournament's revision as its id, as the owner-wide
    stream (``/v1/events``) carries it. The first event is the current revision, unless
    ``Last-Event-ID`` or ``after`` is it already: a client that missed events learns at once.
    Each table's live sheet has its own stream (``/v1/shared/{token}/events``). The stream
    ends when the tournament gets a new share token."""
    found = await run_in_threadpool(tournaments.shared_version, db, token)
    updates = live(request)
    sub = Subscription(
        owner=None,
        tables=frozenset(),
        holders=((SHARE_TOKEN, found.share_token), *anonymous_holders(request)),
        share_token=found.share_token,
        tournament=found.tournament_id,
    )
    try:
        _subscribe(updates, sub, request.scope)  # before the read: no change between the two is missed
    except StreamRefused as refused:
        return refused.response
    try:
        now = await run_in_threadpool(tournaments.versions, updates.db, [found.tournament_id])
        version = now.get(found.tournament_id)
        if version is None or version[1] != found.share_token:
            raise NotFound("no shared tournament with this token")
    except BaseException:
        updates.hub.unsubscribe(sub)
        raise
    revision = version[0]
    updates.hub.seed_tournament(found.tournament_id, revision)
    have = resume_revision(last_event_id, after)
    first = [] if have == revision else [TournamentEvent(STANDINGS, found.tournament_id, revision)]
    conn = Connection(updates.hub, sub, _TournamentRender(revision), updates.streams)
    wire = [ServerSentEvent(data=e.data(), event=e.kind, id=str(e.revision)).encode() for e in first]
    return LiveStream(conn, wire)


__all__ = ["router", "live", "current", "table_stream", "anonymous_holders"]


# --- the stream of a scorer link's page (the link is the credential: no key) ---------------

scorer_router = APIRouter(prefix="/v1/score/{token}", tags=["scorer"])


@scorer_router.get(
    "/events",
    operation_id="streamScorerEvents",
    response_class=EventSourceResponse,
    responses=stream_responses(404, 422, 429, 503),
    openapi_extra=NO_KEY,
)
async def stream_scorer_events(
    scorer: ScorerAccess, request: Request, last_event_id: LastEventId = None, after: After = None
) -> Response:
    """The table's changes as ``/v1/tables/{id}/events`` sends them. The stream ends when
    the link is revoked (the revocation is a change of the table) or the table deleted."""
    # The link's owner, with no key: the hub looks the link up once per change for all of its
    # streams (app/live/hub.py) and ends them when it is revoked.
    sub = Subscription(
        owner=None,
        tables=frozenset({scorer.table_id}),
        holders=((SCORER_LINK, str(scorer.link_id)), *anonymous_holders(request)),
        link_id=scorer.link_id,
    )
    return await table_stream(
        request, scorer.table_id, scorer.owner, resume_revision(last_event_id, after), sub
    )
