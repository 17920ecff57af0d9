"""Deals: post (one row read and locked, two writes, on PostgreSQL one statement; a write
more at a table with registered players), list, get, undo the last, correct a past deal
(the log is folded again and later deals re-scored, or nothing changes).

Every write use case locks the table row first, then checks the idempotency key, then
If-Match, then asks the engine, then writes and commits — all in one transaction, before
the caller sends a response. An undo or a correction folds the whole log before it takes
the lock and writes only if the table has not moved since (``_refold``)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Callable

from sqlalchemy import bindparam, delete, insert, select, update
from sqlalchemy import Connection
from sqlalchemy.orm import Session

from app.kit.db import Database, DealRow, IdempotencyRow, TableRow
from app.kit.db.models import utcnow
from app.live.announce import NOTIFY, announce, committed, notification
from app.rules import (
    Deal,
    Entry,
    FieldError,
    InvalidDeal,
    ReplayError,
    RulesError,
    apply_deal,
    amount_from_json,
    amount_to_json,
    replay,
)

from app.players import stats as player_stats
from app.kit.errors import Conflict, NotFound, PreconditionFailed, Unprocessable
from app.tables.service import DEFAULT_LIMITS, Limits, TableInfo, info, load_row, load_table, rules_of, shared_row, sheet_etag, state_of


@dataclass(frozen=True)
class DealInfo:
    number: int
    body: dict[str, Any]  # canonical (Deal.to_dict())
    entries: tuple[Entry, ...]
    created_at: datetime | None = None
    dealer: int | None = None  # the seat that dealt it (as stored)


@dataclass(frozen=True)
class Written:
    """The outcome of a write: the response to send (already stored for idempotent
    retries when a key was given), its status and headers."""

    status: int
    response: dict[str, Any]
    etag: str | None
    replayed: bool = False


_TABLES = TableRow.__table__
_DEALS = DealRow.__table__
_IDEMPOTENCY = IdempotencyRow.__table__

# The posting path's writes, built once: executed with a dict of parameters, they cost no
# statement construction and no cache-key walk per post (bench/PROFILE.md). The parameters
# that are not the deal row's own columns are named apart from every column: when the writes
# are one statement, a parameter named after a column of another of its tables would be
# taken for a value of that column.
_INSERT_DEAL = insert(_DEALS).values(
    table_id=bindparam("table_id"),
    number=bindparam("number"),
    body=bindparam("body"),
    entries=bindparam("entries"),
    created_at=bindparam("posted_at"),
    dealer=bindparam("dealer"),
)
_UPDATE_TABLE = (
    update(_TABLES)
    .where(_TABLES.c.id == bindparam("table_id"))
    .values(
        state=bindparam("new_state"),
        deal_count=bindparam("number"),
        revision=bindparam("new_revision"),
        updated_at=bindparam("posted_at"),
    )
)
# The answer kept for a retry with the same Idempotency-Key.
_KEEP_ANSWER = insert(_IDEMPOTENCY).values(
    table_id=bindparam("table_id"),
    key=bindparam("idempotency_key"),
    request_hash=bindparam("request_hash"),
    status_code=201,
    response=bindparam("answer"),
    deal_number=bindparam("number"),
    created_at=bindparam("posted_at"),
)
# PostgreSQL: the deal, the table row, the kept answer (with a key) and the notification in
# one statement (data-modifying CTEs, which SQLite does not have): one round trip where
# there were three or four, most of what a post costs this process beyond the framework.
_POSTED_PG = {
    keyed: select(NOTIFY).add_cte(
        _INSERT_DEAL.cte("posted"), _UPDATE_TABLE.cte("moved"), *([_KEEP_ANSWER.cte("kept")] if keyed else [])
    )
    for keyed in (False, True)
}
# The post's read of the table row, locked, with the rows of its registered seats (so that a
# post costs no statement more than before the registry, and one update at a table with some),
# per dialect: the JSON aggregate is each one's own.
_POST_READ = {
    dialect: (
        select(_TABLES, player_stats.registered_seats(dialect, _TABLES))
        .where(_TABLES.c.id == bindparam("table_id"), _TABLES.c.owner == bindparam("owner"))
        .with_for_update(of=_TABLES)
    )
    for dialect in ("postgresql", "sqlite")
}

Renderer = Callable[[TableInfo, DealInfo | None], dict[str, Any]]
# Expired idempotency records deleted by one post (see _expire_keys).
EXPIRY_BATCH = 50


def entries_to_json(entries: tuple[Entry, ...] | list[Entry]) -> list[dict[str, Any]]:
    out = []
    for e in entries:
        d = e.to_dict()
        d["amount"] = amount_to_json(e.amount)
        out.append(d)
    return out


def entries_from_json(data: list[dict[str, Any]]) -> tuple[Entry, ...]:
    return tuple(
        Entry(kind=d["kind"], seat=d["seat"], amount=amount_from_json(d["amount"]), on=d.get("on")) for d in data
    )


def deal_info(row: Any) -> DealInfo:
    """A stored deal (a DealRow, or a row of its columns)."""
    return DealInfo(
        number=row.number, body=row.body, entries=entries_from_json(row.entries), created_at=row.created_at, dealer=row.dealer
    )


def request_hash(body: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()).hexdigest()


def check_if_match(if_match: str | None, current: str) -> None:
    """If-Match with strong comparison; ``*`` matches any current sheet."""
    if if_match is None:
        return
    tags = [t.strip() for t in if_match.split(",") if t.strip()]
    if "*" in tags or current in tags:
        return
    raise PreconditionFailed(
        "the sheet has changed since that ETag (If-Match); fetch it again", current_etag=current
    )


def refuse_archived(row: Any) -> None:
    """An archived table takes no deal (post, undo, correction): read from the row the write
    already locked, no query of its own."""
    if row.archived_at is not None:
        raise Conflict(
            f"table {row.id} is archived; unarchive it (PATCH with \"archived\": false) to change its deals",
            reason="archived",
        )


def _refuse(exc: RulesError, what: str) -> Exception:
    if exc.kind in ("dealer_mismatch", "finished"):
        return Conflict(f"{what}: {exc}", exc.errors, reason=exc.kind)
    return Unprocessable(f"{what}: {exc}", exc.errors)


def _expire_keys(session: Session | Connection, table_id: str, key: str, now: datetime, limits: Limits) -> None:
    """Idempotency records older than the expiry: this key's own (so that it can be used
    again), and a small batch of any table's, so that the cleanup keeps pace with the posts
    that add records without ever making one post slow. PostgreSQL skips rows another
    transaction is deleting at the same moment instead of waiting for it."""
    if limits.idempotency_ttl is None:
        return
    cutoff = now - limits.idempotency_ttl
    session.execute(
        delete(_IDEMPOTENCY).where(
            _IDEMPOTENCY.c.table_id == table_id, _IDEMPOTENCY.c.key == key, _IDEMPOTENCY.c.created_at < cutoff
        )
    )
    batch = (
        select(_IDEMPOTENCY.c.id)
        .where(_IDEMPOTENCY.c.created_at < cutoff)
        .order_by(_IDEMPOTENCY.c.created_at)
        .limit(EXPIRY_BATCH)
        .with_for_update(skip_locked=True)  # SQLite renders no FOR UPDATE: its writer holds the file
    )
    session.execute(delete(_IDEMPOTENCY).where(_IDEMPOTENCY.c.id.in_(batch.scalar_subquery())))


def expire_idempotency(db: Database, limits: Limits = DEFAULT_LIMITS, *, now: datetime | None = None) -> int:
    """Delete every idempotency record older than the expiry (``prefscore db cleanup``);
    the number deleted. Posts delete a small batch each as they go (``_expire_keys``)."""
    if limits.idempotency_ttl is None:
        return 0
    cutoff = (now or utcnow()) - limits.idempotency_ttl
    deleted = 0
    while True:  # in batches, so that no transaction holds the write lock for long
        with db.write() as session:
            batch = select(_IDEMPOTENCY.c.id).where(_IDEMPOTENCY.c.created_at < cutoff).limit(1000)
            done = session.execute(delete(_IDEMPOTENCY).where(_IDEMPOTENCY.c.id.in_(batch.scalar_subquery()))).rowcount
        deleted += done
        if done < 1000:
            return deleted


def post_deal(
    db: Database,
    owner: str,
    table_id: str,
    deal: Deal,
    render: Renderer,
    *,
    idempotency_key: str | None = None,
    digest: str | None = None,
    if_match: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> Written:
    """Post one deal: the table row read and locked, one insert, one update, one commit (on
    PostgreSQL the writes and the notification are one statement).

    Core statements, not the ORM's unit of work: the three statements are always the same,
    and the identity map, change tracking and flush planning cost more than all the
    scoring (bench/PROFILE.md). ``digest``: the body's ``request_hash`` as sent, kept with
    the Idempotency-Key."""
    # A Connection, not a Session: every statement here is Core (Database.write_core).
    with db.write_core() as session:
        row = load_table(session, owner, table_id, lock=True, statement=_POST_READ[session.dialect.name])
        now = utcnow()
        if idempotency_key is not None:
            _expire_keys(session, row.id, idempotency_key, now, limits)
            seen = session.execute(
                select(_IDEMPOTENCY.c.request_hash, _IDEMPOTENCY.c.status_code, _IDEMPOTENCY.c.response).where(
                    _IDEMPOTENCY.c.table_id == row.id, _IDEMPOTENCY.c.key == idempotency_key
                )
            ).one_or_none()
            if seen is not None:
                if seen.request_hash != digest:
                    raise Unprocessable(
                        "this Idempotency-Key was used with another request body",
                        [FieldError("Idempotency-Key", "this Idempotency-Key was already used with another deal; use a new key")],
                        field="Idempotency-Key",  # the first version's member, kept one version
                    )
                # The deal is stored as answered: an undo or a correction of it deleted
                # this record, a correction of an earlier deal rewrote it.
                return Written(seen.status_code, seen.response, None, replayed=True)
        refuse_archived(row)
        if row.deal_count >= limits.deals_per_table:
            raise Conflict(
                f"table {row.id} holds {row.deal_count} deals, the most a table may hold "
                f"(PREFSCORE_MAX_DEALS_PER_TABLE={limits.deals_per_table}); start a new table",
                reason="deal_limit",
                limit=limits.deals_per_table,
            )
        rules = rules_of(row)
        check_if_match(if_match, sheet_etag(row.id, row.revision, row.deal_count))
        state = state_of(row)
        try:
            result = apply_deal(rules, state, deal)
        except InvalidDeal as exc:
            raise _refuse(exc, "the deal does not fit the table") from exc
        number = row.deal_count + 1
        revision = row.revision + 1
        canonical = deal.to_dict()
        table = replace(info(row, rules, result.state), deal_count=number, revision=revision, updated_at=now)
        written = DealInfo(number, canonical, tuple(result.entries), now, state.next_dealer)
        params = {
            "table_id": row.id,
            "number": number,
            "dealer": state.next_dealer,
            "body": canonical,
            "entries": entries_to_json(result.entries),
            "posted_at": now,
            "new_state": result.state.to_dict(),
            "new_revision": revision,
        }
        if idempotency_key is not None:
            response = render(table, written)
            params.update(idempotency_key=idempotency_key, request_hash=digest, answer=response)
        if session.dialect.name == "postgresql":
            params["notification"] = notification(row.id, row.owner, revision, "deal.posted")
            session.execute(_POSTED_PG[idempotency_key is not None], params)
        else:
            session.execute(_INSERT_DEAL, params)
            session.execute(_UPDATE_TABLE, params)
            if idempotency_key is not None:
                session.execute(_KEEP_ANSWER, params)
        if row.registered:  # registered players' statistics, in this transaction
            player_stats.on_deal_posted(session, row.registered, rules, deal, state, result.state, result.entries, number)
    # Committed: this process's streams get the table as stored, without reading it back.
    committed(table.id, table.owner, revision, "deal.posted", table)
    if idempotency_key is None:
        # Rendered once committed: the table's row lock (on SQLite, the database's write
        # lock) is not held while the response is built. Nothing needs it stored then.
        response = render(table, written)
    return Written(201, response, table.etag)


@dataclass(frozen=True)
class DealPage:
    table: TableInfo
    deals: tuple[DealInfo, ...]  # empty when the caller's version is current (``current``)
    next_after: int | None
    current: bool = False


# One page of a table's log: the deal columns, the (table_id, number) unique index in order.
_PAGE = (
    select(_DEALS.c.number, _DEALS.c.body, _DEALS.c.entries, _DEALS.c.created_at, _DEALS.c.dealer)
    .where(_DEALS.c.table_id == bindparam("table_id"), _DEALS.c.number > bindparam("after"))
    .order_by(_DEALS.c.number)
    .limit(bindparam("rows"))
)


def page_of(session: Session, row: Any, *, after: int, limit: int, current: Callable[[TableInfo], bool] | None = None) -> DealPage:
    """Keyset paging by deal number, in SQL: the deals numbered above ``after``, at most
    ``limit`` (and one more row to tell whether a next page exists); the deals before the page
    are never read. Every listing (by key, share link, scorer link) pages here. ``current(table)``
    true means the caller has this version: no deal is read."""
    table = info(row, rules_of(row), state_of(row))
    if current is not None and current(table):
        return DealPage(table, (), None, current=True)
    rows = session.execute(_PAGE, {"table_id": row.id, "after": after, "rows": limit + 1}).all()
    deals = tuple(deal_info(r) for r in rows[:limit])
    return DealPage(table, deals, deals[-1].number if len(rows) > limit else None)


def list_deals(db: Database, owner: str, table_id: str, *, after: int = 0, limit: int = 50) -> DealPage:
    """The owner's table's deals numbered above ``after``, at most ``limit`` (``page_of``)."""
    with db.read() as session:
        return page_of(session, load_row(session, owner, table_id, lock=False), after=after, limit=limit)


def list_shared_deals(
    db: Database, token: str, *, after: int = 0, limit: int = 50, current: Callable[[TableInfo], bool] | None = None
) -> DealPage:
    """The same through the read-only share token (``page_of``)."""
    with db.read() as session:
        return page_of(session, shared_row(session, token), after=after, limit=limit, current=current)


def get_deal(db: Database, owner: str, table_id: str, number: int) -> tuple[TableInfo, DealInfo]:
    with db.read() as session:
        row = load_row(session, owner, table_id, lock=False)
        rules = rules_of(row)
        deal_row = session.scalars(
            select(DealRow).where(DealRow.table_id == row.id, DealRow.number == number)
        ).one_or_none()
        if deal_row is None:
            raise NotFound(f"table {table_id} has no deal {number}")
        return info(row, rules, state_of(row)), deal_info(deal_row)


@dataclass(frozen=True)
class _Refold:
    """An undo or a correction worked out from one consistent read of the table: what to
    write, and the revision it was worked out from."""

    revision: int
    table: TableInfo  # after the change
    deal: DealInfo  # the removed deal (undo) or the corrected one
    remove_id: int | None  # the row an undo deletes
    retire: bool  # the keys that posted ``deal`` are retired (not when a correction changes nothing)
    rewrites: list[dict[str, Any]]  # {"row_id", "new_body", "new_entries"} of deals whose row changes
    rescored: list[int]  # later deals whose entries changed (correction)
    answers: list[dict[str, Any]]  # {"number", "answer"}: stored POST answers rewritten
    state: dict[str, Any]
    kind: str = "deal.corrected"  # what app.live announces


_LOG = select(_DEALS.c.id, _DEALS.c.number, _DEALS.c.body, _DEALS.c.entries, _DEALS.c.created_at, _DEALS.c.dealer)


def _log(session: Session, table_id: str) -> list[Any]:
    return list(session.execute(_LOG.where(_DEALS.c.table_id == table_id).order_by(_DEALS.c.number)).all())


def _refold(
    db: Database,
    owner: str,
    table_id: str,
    plan: Callable[[Session, Any], _Refold],
    *,
    attempts: int = 3,
) -> _Refold:
    """Work out an undo or a correction (the whole log read and folded again) before taking
    the write lock, then write it under the lock if the table's revision has not moved since;
    if it has, again. On SQLite the write lock is the whole database's, so a fold of a long
    log inside it would stall every other table's writes (bench/bigtable.py). The last attempt
    folds under the lock, so that a table written without pause still gets its change."""
    for attempt in range(attempts):
        if attempt < attempts - 1:
            with db.read() as session:
                work = plan(session, load_table(session, owner, table_id, lock=False))
            with db.write() as session:
                row = load_table(session, owner, table_id, lock=True)
                if row.revision != work.revision:
                    continue
                _write(session, row.id, work)
                return work
        with db.write() as session:
            row = load_table(session, owner, table_id, lock=True)
            work = plan(session, row)
            _write(session, row.id, work)
            return work
    raise AssertionError("unreachable")


def _write(session: Session, table_id: str, work: _Refold) -> None:
    # An undo or a correction retires the keys that posted the deal: their answer is not
    # what is stored any more, and a post with one of them is a new deal.
    if work.retire:
        session.execute(
            delete(_IDEMPOTENCY).where(
                _IDEMPOTENCY.c.table_id == table_id, _IDEMPOTENCY.c.deal_number == work.deal.number
            )
        )
    if work.remove_id is not None:
        session.execute(delete(_DEALS).where(_DEALS.c.id == work.remove_id))
    if work.rewrites:
        session.execute(
            update(_DEALS)
            .where(_DEALS.c.id == bindparam("row_id"))
            .values(body=bindparam("new_body"), entries=bindparam("new_entries"), dealer=bindparam("new_dealer")),
            work.rewrites,
        )
    if work.answers:
        # The keys of later deals a correction re-scored keep working (those deals are still
        # stored: a retry must not post them again), with their answers made again.
        session.execute(
            update(_IDEMPOTENCY)
            .where(_IDEMPOTENCY.c.table_id == table_id, _IDEMPOTENCY.c.deal_number == bindparam("number"))
            .values(response=bindparam("answer")),
            work.answers,
        )
    session.execute(
        update(_TABLES)
        .where(_TABLES.c.id == table_id)
        .values(
            state=work.state,
            deal_count=work.table.deal_count,
            revision=work.table.revision,
            updated_at=utcnow(),
        )
    )
    # Registered players' statistics made again from the log as now written.
    player_stats.on_log_refolded(session, table_id, work.table.rules, work.table.first_dealer)
    announce(session, table_id, work.table.owner, work.table.revision, work.kind)


def _after(row: Any, rules: Any, state: Any, deal_count: int) -> TableInfo:
    return replace(info(row, rules, state), deal_count=deal_count, revision=row.revision + 1)


def undo_last(
    db: Database,
    owner: str,
    table_id: str,
    number: int,
    render: Renderer,
    *,
    if_match: str | None = None,
) -> Written:
    """Delete the last deal; the state is the log without it, folded again. The keys that
    posted it are retired in the same transaction."""

    def plan(session: Session, row: Any) -> _Refold:
        refuse_archived(row)
        if not 1 <= number <= row.deal_count:
            raise NotFound(f"table {table_id} has no deal {number}")
        if number != row.deal_count:
            raise Conflict(
                f"only the last deal ({row.deal_count}) can be undone; correct deal {number} with PUT instead",
                last=row.deal_count,
            )
        check_if_match(if_match, sheet_etag(row.id, row.revision, row.deal_count))
        rules = rules_of(row)
        log = _log(session, row.id)
        removed = log.pop()
        folded = replay(rules, row.first_dealer, [Deal.from_dict(r.body) for r in log])
        rewrites = []
        for deal_row, entries, dealer in zip(log, folded.entries, folded.dealers):
            stored = entries_to_json(entries)
            if deal_row.entries != stored or deal_row.dealer != dealer:  # written by another rules version
                rewrites.append({"row_id": deal_row.id, "new_body": deal_row.body, "new_entries": stored, "new_dealer": dealer})
        gone = deal_info(removed)
        return _Refold(
            revision=row.revision,
            table=_after(row, rules, folded.state, len(log)),
            deal=gone,
            remove_id=removed.id,
            retire=True,
            rewrites=rewrites,
            rescored=[],
            answers=[],
            state=folded.state.to_dict(),
            kind="deal.undone",
        )

    work = _refold(db, owner, table_id, plan)
    return Written(200, render(work.table, work.deal), work.table.etag)


def correct_deal(
    db: Database,
    owner: str,
    table_id: str,
    number: int,
    deal: Deal,
    render: Callable[[TableInfo, DealInfo, list[int]], dict[str, Any]],
    *,
    if_match: str | None = None,
    post_render: Renderer | None = None,
) -> Written:
    """Replace deal ``number`` and re-score every later deal. If the corrected deal or a later
    one no longer fits, nothing changes: 422/409 for the deal itself, 409 naming the later deal.

    The keys that posted the corrected deal are retired; the stored answers of the keys of
    re-scored later deals are made again with ``post_render`` (the deal as now stored, the
    sheet after the correction)."""
    canonical = deal.to_dict()

    def plan(session: Session, row: Any) -> _Refold:
        refuse_archived(row)
        if not 1 <= number <= row.deal_count:
            raise NotFound(f"table {table_id} has no deal {number}")
        check_if_match(if_match, sheet_etag(row.id, row.revision, row.deal_count))
        rules = rules_of(row)
        log = _log(session, row.id)
        deals = [Deal.from_dict(r.body) for r in log]
        deals[number - 1] = deal
        try:
            folded = replay(rules, row.first_dealer, deals)
        except ReplayError as exc:
            if exc.number == number:
                raise _refuse(exc, "the corrected deal does not fit the table") from exc
            raise Conflict(
                f"the correction would make deal {exc.number} invalid: {exc}; nothing was changed",
                exc.errors,
                deal=exc.number,
                reason="later_deal_invalid",
            ) from exc
        rewrites = []
        rescored: list[int] = []
        infos: dict[int, DealInfo] = {}
        for deal_row, entries, dealer in zip(log, folded.entries, folded.dealers):
            stored = entries_to_json(entries)
            new_body = canonical if deal_row.number == number else deal_row.body
            if deal_row.entries != stored or new_body != deal_row.body or deal_row.dealer != dealer:
                rewrites.append({"row_id": deal_row.id, "new_body": new_body, "new_entries": stored, "new_dealer": dealer})
                if deal_row.number > number and deal_row.entries != stored:
                    rescored.append(deal_row.number)
            if deal_row.number == number or deal_row.entries != stored:
                infos[deal_row.number] = DealInfo(deal_row.number, new_body, tuple(entries), deal_row.created_at, dealer)
        table = _after(row, rules, folded.state, len(log))
        answers = []
        # The same body again changes no deal: its keys keep replaying (a retry must not post
        # it twice), with its answer made again if its entries changed (another rules version).
        same = canonical == log[number - 1].body
        rescored_itself = log[number - 1].entries != entries_to_json(folded.entries[number - 1])
        remade = rescored + ([number] if same and rescored_itself else [])
        if remade and post_render is not None:
            keyed = session.scalars(
                select(_IDEMPOTENCY.c.deal_number)
                .where(_IDEMPOTENCY.c.table_id == row.id, _IDEMPOTENCY.c.deal_number.in_(remade))
                .distinct()
            ).all()
            answers = [{"number": n, "answer": post_render(table, infos[n])} for n in sorted(keyed)]
        return _Refold(
            revision=row.revision,
            table=table,
            deal=infos[number],
            remove_id=None,
            retire=not same,
            rewrites=rewrites,
            rescored=rescored,
            answers=answers,
            state=folded.state.to_dict(),
        )

    work = _refold(db, owner, table_id, plan)
    return Written(200, render(work.table, work.deal, work.rescored), work.table.etag)
