"""Deals: post (one row read and locked, two writes), list, get, undo the last, correct a
past deal (the log is folded again and later deals re-scored, or nothing changes).

Every write use case locks the table row first, then checks the idempotency key, then
If-Match, then asks the engine, then writes and commits — all in one transaction, before
the caller sends a response."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Callable

from sqlalchemy import insert, select, update
from sqlalchemy.orm import Session

from app.db import Database, DealRow, IdempotencyRow, TableRow
from app.db.models import utcnow
from app.rules import (
    RULES_VERSION,
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

from .errors import Conflict, NotFound, PreconditionFailed, Unprocessable
from .tables import TableInfo, info, load_row, load_table, rules_of, sheet_etag, state_of


@dataclass(frozen=True)
class DealInfo:
    number: int
    body: dict[str, Any]  # canonical (Deal.to_dict())
    entries: tuple[Entry, ...]
    created_at: datetime | None = None


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

Renderer = Callable[[TableInfo, DealInfo | None], dict[str, Any]]


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


def deal_info(row: DealRow) -> DealInfo:
    return DealInfo(number=row.number, body=row.body, entries=entries_from_json(row.entries), created_at=row.created_at)


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


def _refuse(exc: RulesError, what: str) -> Exception:
    if exc.kind in ("dealer_mismatch", "finished"):
        return Conflict(f"{what}: {exc}", exc.errors, reason=exc.kind)
    return Unprocessable(f"{what}: {exc}", exc.errors)


def _parse(body: dict[str, Any]) -> Deal:
    try:
        return Deal.from_dict(body)
    except InvalidDeal as exc:
        raise _refuse(exc, "the deal is not valid") from exc


def _touch(row: TableRow, state_dict: dict[str, Any], deal_count: int) -> None:
    row.state = state_dict
    row.rules_version = RULES_VERSION
    row.deal_count = deal_count
    row.revision = row.revision + 1
    row.updated_at = utcnow()


def post_deal(
    db: Database,
    owner: str,
    table_id: str,
    body: dict[str, Any],
    render: Renderer,
    *,
    idempotency_key: str | None = None,
    if_match: str | None = None,
) -> Written:
    """Post one deal: the table row read and locked, one insert, one update, one commit.

    Core statements, not the ORM's unit of work: the three statements are always the same,
    and the identity map, change tracking and flush planning cost more than all the
    scoring (bench/PROFILE.md)."""
    deal = _parse(body)
    digest = request_hash(body) if idempotency_key is not None else None
    with db.write() as session:
        row = load_table(session, owner, table_id, lock=True)
        if idempotency_key is not None:
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
                return Written(seen.status_code, seen.response, None, replayed=True)
        rules = rules_of(row)
        check_if_match(if_match, sheet_etag(row.id, row.revision, row.deal_count))
        state = state_of(session, row, rules, persist=False)
        try:
            result = apply_deal(rules, state, deal)
        except InvalidDeal as exc:
            raise _refuse(exc, "the deal does not fit the table") from exc
        number = row.deal_count + 1
        canonical = deal.to_dict()
        now = utcnow()
        session.execute(
            insert(_DEALS).values(
                table_id=row.id, number=number, body=canonical, entries=entries_to_json(result.entries), created_at=now
            )
        )
        session.execute(
            update(_TABLES)
            .where(_TABLES.c.id == row.id)
            .values(
                state=result.state.to_dict(),
                rules_version=RULES_VERSION,
                deal_count=number,
                revision=row.revision + 1,
                updated_at=now,
            )
        )
        table = replace(info(row, rules, result.state), deal_count=number, revision=row.revision + 1)
        written = DealInfo(number, canonical, tuple(result.entries), now)
        if idempotency_key is not None:
            response = render(table, written)
            session.execute(
                insert(_IDEMPOTENCY).values(
                    table_id=row.id,
                    key=idempotency_key,
                    request_hash=digest,
                    status_code=201,
                    response=response,
                    created_at=now,
                )
            )
    if idempotency_key is None:
        # Rendered once committed: the table's row lock (on SQLite, the database's write
        # lock) is not held while the response is built. Nothing needs it stored then.
        response = render(table, written)
    return Written(201, response, table.etag)


@dataclass(frozen=True)
class DealPage:
    table: TableInfo
    deals: tuple[DealInfo, ...]
    next_after: int | None


def list_deals(db: Database, owner: str, table_id: str, *, after: int = 0, limit: int = 50) -> DealPage:
    """Keyset paging by deal number: the deals numbered above ``after``, at most ``limit``."""
    with db.read() as session:
        row = load_row(session, owner, table_id, lock=False)
        rules = rules_of(row)
        rows = session.scalars(
            select(DealRow)
            .where(DealRow.table_id == row.id, DealRow.number > after)
            .order_by(DealRow.number)
            .limit(limit + 1)
        ).all()
        deals = tuple(deal_info(r) for r in rows[:limit])
        next_after = deals[-1].number if len(rows) > limit else None
        return DealPage(info(row, rules, state_of(session, row, rules, persist=False)), deals, next_after)


def get_deal(db: Database, owner: str, table_id: str, number: int) -> tuple[TableInfo, DealInfo]:
    with db.read() as session:
        row = load_row(session, owner, table_id, lock=False)
        rules = rules_of(row)
        deal_row = session.scalars(
            select(DealRow).where(DealRow.table_id == row.id, DealRow.number == number)
        ).one_or_none()
        if deal_row is None:
            raise NotFound(f"table {table_id} has no deal {number}")
        return info(row, rules, state_of(session, row, rules, persist=False)), deal_info(deal_row)


def _log(session: Session, table_id: str) -> list[DealRow]:
    return list(session.scalars(select(DealRow).where(DealRow.table_id == table_id).order_by(DealRow.number)).all())


def undo_last(
    db: Database, owner: str, table_id: str, number: int, render: Renderer, *, if_match: str | None = None
) -> Written:
    """Delete the last deal; the state is the log without it, folded again."""
    with db.write() as session:
        row = load_row(session, owner, table_id, lock=True)
        rules = rules_of(row)
        if not 1 <= number <= row.deal_count:
            raise NotFound(f"table {table_id} has no deal {number}")
        if number != row.deal_count:
            raise Conflict(
                f"only the last deal ({row.deal_count}) can be undone; correct deal {number} with PUT instead",
                last=row.deal_count,
            )
        check_if_match(if_match, sheet_etag(row.id, row.revision, row.deal_count))
        log = _log(session, row.id)
        removed = log.pop()
        folded = replay(rules, row.first_dealer, [Deal.from_dict(r.body) for r in log])
        for deal_row, entries in zip(log, folded.entries):
            stored = entries_to_json(entries)
            if deal_row.entries != stored:
                deal_row.entries = stored
        gone = deal_info(removed)
        session.delete(removed)
        _touch(row, folded.state.to_dict(), len(log))
        session.flush()
        table = info(row, rules, folded.state)
        response = render(table, gone)
    return Written(200, response, table.etag)


def correct_deal(
    db: Database,
    owner: str,
    table_id: str,
    number: int,
    body: dict[str, Any],
    render: Callable[[TableInfo, DealInfo, list[int]], dict[str, Any]],
    *,
    if_match: str | None = None,
) -> Written:
    """Replace deal ``number`` and re-score every later deal. If the corrected deal or a later
    one no longer fits, nothing changes: 422/409 for the deal itself, 409 naming the later deal."""
    deal = _parse(body)
    with db.write() as session:
        row = load_row(session, owner, table_id, lock=True)
        rules = rules_of(row)
        if not 1 <= number <= row.deal_count:
            raise NotFound(f"table {table_id} has no deal {number}")
        check_if_match(if_match, sheet_etag(row.id, row.revision, row.deal_count))
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
        canonical = deal.to_dict()
        log[number - 1].body = canonical
        rescored: list[int] = []
        for deal_row, entries in zip(log, folded.entries):
            stored = entries_to_json(entries)
            if deal_row.entries != stored:
                deal_row.entries = stored
                if deal_row.number > number:
                    rescored.append(deal_row.number)
        _touch(row, folded.state.to_dict(), len(log))
        session.flush()
        table = info(row, rules, folded.state)
        response = render(table, deal_info(log[number - 1]), rescored)
    return Written(200, response, table.etag)
