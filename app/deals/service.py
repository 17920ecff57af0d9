"""Deals: post (one row read and locked, two writes, on PostgreSQL one statement; a write
more at a table with registered players), list, get, undo the last, correct a past deal
(the log is folded again and later deals re-scored, or nothing changes).

Every write use case locks the table row first, then checks the idempotency key, then
If-Match, then asks the engine, then writes and commits — all in one transaction, before
the caller sends a response. An undo or a correction folds the whole log before it takes
the lock and writes only if the table has not moved since (``_refold``).

The use cases take engine objects (a ``Deal``) and return domain results (``Posted``,
``Changed``, ``DealLogPage``) or raise domain errors (app/kit/errors.py); the routes pick the
status codes and headers and build the answers."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from app.deals import repository as repo
from app.deals.model import Changed, DealInfo, Posted, deal_info, entries_to_json, kept_answer, replayed
from app.deals.refold import correct_deal, outcome, undo_last
from app.deals.refusals import refusal, refuse_archived, refuse_locked
from app.events.changes import committed, hand_over, notification
from app.events.outbox import enqueue, event_params
from app.kit.db import Database
from app.kit.db.models import utcnow
from app.kit.errors import Conflict, NotFound, Unprocessable
from app.kit.etags import sheet_etag
from app.kit.i18n import N_
from app.kit.versions import Expected, Seen, check_expected, still_held
from app.players import service as player_stats
from app.ratings import service as ratings
from app.rules import (
    Deal,
    DealResult,
    FieldError,
    InvalidDeal,
    Rules,
    Sentence,
    TableState,
    apply_deal,
    deal_game,
)
from app.tables.model import DEFAULT_LIMITS, Limits, StoredTable, TableInfo, info, loaded, rules_of, state_of
from app.tables.service import load_row, shared_row, table_finished

__all__ = [
    "Changed",
    "DealInfo",
    "Posted",
    "correct_deal",
    "deal_info",
    "entries_to_json",
    "penalties_at",
    "refuse_archived",
    "refuse_locked",
    "stored_log",
    "undo_last",
]


def expire_idempotency(db: Database, limits: Limits = DEFAULT_LIMITS, *, now: datetime | None = None) -> int:
    """Delete every idempotency record older than the expiry (``prefscore db cleanup``);
    the number deleted. Posts delete a small batch each as they go (``repository.expire_keys``)."""
    if limits.idempotency_ttl is None:
        return 0
    cutoff = (now or utcnow()) - limits.idempotency_ttl
    deleted = 0
    while True:  # in batches, so that no transaction holds the write lock for long
        with db.write() as session:
            done = repo.delete_expired(session, cutoff, 1000)
        deleted += done
        if done < 1000:
            return deleted


def post_deal(
    db: Database,
    owner: str,
    table_id: str,
    deal: Deal,
    *,
    idempotency_key: str | None = None,
    request_hash: str | None = None,
    expected: Expected | None = None,
    limits: Limits = DEFAULT_LIMITS,
    also: Callable[[Any, DealInfo], None] | None = None,
) -> Posted:
    """Post one deal: the table row read and locked, one insert, one update, one commit (on
    PostgreSQL the writes and the notification are one statement). With an Idempotency-Key
    the posted deal and the table after it are kept with the key, in the same statement; a
    retry with the key and the same request (``request_hash``: its fingerprint as sent,
    ``model.request_hash``) gets them back (``Posted.replayed``).

    Core statements, not the ORM's unit of work: the three statements are always the same,
    and the identity map, change tracking and flush planning cost more than all the
    scoring (docs/performance.md).

    ``also``: what the caller writes in the same transaction once the deal is written (the
    connection and the deal; a tournament's audit of a penalty); a retry with the key does not."""
    canonical = deal.to_dict()
    with db.write_core() as conn:
        row = repo.table_to_post_at(conn, owner, table_id)
        now = utcnow()
        if idempotency_key is not None:
            earlier = _kept_post(conn, row.id, idempotency_key, request_hash, limits, now)
            if earlier is not None:
                return earlier
        _refuse_unpostable(row, limits, expected)
        rules = rules_of(row)
        state = state_of(row)
        result = _scored(rules, state, deal)
        number = row.deal_count + 1
        revision = row.revision + 1
        table = replace(info(row, rules, result.state), deal_count=number, revision=revision, updated_at=now)
        written = DealInfo(number, canonical, tuple(result.entries), now, state.next_dealer)
        params = _post_params(conn.dialect.name, row, state, result, table, written, now)
        if idempotency_key is not None:  # the answer kept with the key, in the same statement
            params.update(
                idempotency_key=idempotency_key,
                request_hash=request_hash,
                answer=kept_answer(table, written, params["new_state"]),
            )
        seats, place = _seats_and_place(row, rules, deal, state, result)
        _write(conn, row, params, keyed=idempotency_key is not None, seats=seats, place=place)
        if also is not None:
            also(conn, written)
        _after_post(conn, row, state, result, revision, now)
        # The post that finishes the table: whoever follows its finish writes in this
        # transaction (a tournament closes the table's round).
        later = table_finished(conn, row.id) if result.state.finished and not state.finished else []
    # Committed: this process's streams get the table as stored, without reading it back.
    committed(table.id, table.owner, revision, "deal.posted", table, deliveries=row.hooked)
    hand_over(later)
    return Posted(table, written)


def _refuse_unpostable(row: StoredTable, limits: Limits, expected: Expected | None) -> None:
    """A table that takes no deal now: archived, locked, full, or not the version expected."""
    refuse_archived(row)
    refuse_locked(row)
    _refuse_full(row, limits)
    check_expected(expected, sheet_etag(row.id, row.revision, row.deal_count))


def _scored(rules: Rules, state: TableState, deal: Deal) -> DealResult:
    try:
        return apply_deal(rules, state, deal)
    except InvalidDeal as exc:
        raise refusal(exc, N_("the deal does not fit the table")) from exc


def _post_params(
    dialect: str, row: Any, state: Any, result: Any, table: TableInfo, written: DealInfo, now: datetime
) -> dict[str, Any]:
    """The parameters of the post's writes (app/deals/repository.write_post): the deal, the
    table after it, the notification (PostgreSQL) and the webhooks' deliveries (an owner with
    an endpoint), in the same statement on PostgreSQL (with the seats' rows and the place)."""
    number, revision = written.number, table.revision
    params: dict[str, Any] = {
        "table_id": row.id,
        "number": number,
        "dealer": state.next_dealer,
        "game": deal_game(state, result.state),
        "body": written.body,
        "entries": entries_to_json(result.entries),
        "posted_at": now,
        "new_state": result.state.to_dict(),
        "new_revision": revision,
    }
    if dialect == "postgresql":
        params["notification"] = notification(row.id, row.owner, revision, "deal.posted")
    if row.hooked:
        params.update(
            event_params(row.owner, row.id, revision, "deal.posted", now, deal=number, deal_count=number)
            or {}
        )
    return params


def _kept_post(
    conn: Any, table_id: str, key: str, request_hash: str | None, limits: Limits, now: datetime
) -> Posted | None:
    """The first answer of a post with this Idempotency-Key at the table (its expired records
    deleted first), None when the key is new; the key with another body is refused."""
    if limits.idempotency_ttl is not None:
        repo.expire_keys(conn, table_id, key, now - limits.idempotency_ttl)
    seen = repo.kept_answer(conn, table_id, key)
    if seen is None:
        return None
    if seen.request_hash != request_hash:
        raise Unprocessable(
            "this Idempotency-Key was used with another request body",
            [
                FieldError(
                    "Idempotency-Key",
                    "this Idempotency-Key was already used with another deal; use a new key",
                )
            ],
            field="Idempotency-Key",  # the first version's member, kept one version
        )
    # The deal is stored as answered: an undo or a correction of it deleted this record, a
    # correction of an earlier deal rewrote it.
    return replayed(seen.response)


def _refuse_full(row: Any, limits: Limits) -> None:
    if row.deal_count >= limits.deals_per_table:
        raise Conflict(
            Sentence(
                "table {id} holds {deal_count} deals, the most a table may hold (PREFSCORE_MAX_DEALS_PER_TABLE={deals_per_table}); start a new table",
                id=row.id,
                deal_count=row.deal_count,
                deals_per_table=limits.deals_per_table,
            ),
            reason="deal_limit",
            limit=limits.deals_per_table,
        )


def _write(
    conn: Any,
    row: Any,
    params: dict[str, Any],
    *,
    keyed: bool,
    seats: player_stats.SeatsAfterDeal | None,
    place: dict[str, Any] | None,
) -> None:
    """The post's writes: on PostgreSQL one statement, the seats' rows and the rated table's
    place in it; on SQLite one by one. A place another table's commit took meanwhile is taken
    again, the next one, under the owner's lock."""
    together = conn.dialect.name == "postgresql"
    if together and seats is not None:
        params.update(seats.param())
    if together and place is not None:
        params.update(place)
    placed = repo.write_post(
        conn, params, keyed=keyed, hooked=row.hooked, seats=seats is not None, placed=place is not None
    )
    if not together and seats is not None:
        player_stats.on_deal_posted(conn, seats)
    if place is not None and not placed:
        ratings.take_place(conn, place, tried=together)


def _seats_and_place(
    row: Any, rules: Any, deal: Deal, state: Any, result: Any
) -> tuple[player_stats.SeatsAfterDeal | None, dict[str, Any] | None]:
    """What the post adds to its table's registered seats (none without any), and the place in
    the finishing order of the rated table it finishes with every seat registered (no other
    post does any rating work: the table is rated after the commit)."""
    if not row.registered:
        return None, None
    seats = player_stats.seats_after_deal(
        row.id, row.registered, rules, deal, state, result.state, result.entries, row.deal_count + 1
    )
    if not (row.rated and result.state.finished and len(row.registered) == len(row.players)):
        return seats, None
    seated = {seat: player for _, seat, _, player in row.registered}
    return seats, ratings.place_of(outcome(row.id, row.owner, row.convention, seats.balances, seated))


def _after_post(conn: Any, row: Any, state: Any, result: Any, revision: int, now: datetime) -> None:
    """In the post's transaction, once the deal is written: the webhooks' table.finished."""
    number = row.deal_count + 1
    if row.hooked and result.state.finished and not state.finished:
        enqueue(
            conn,
            event_params(row.owner, row.id, revision, "table.finished", now, deal=number, deal_count=number),
            posted=True,
        )


@dataclass(frozen=True)
class DealLogPage:
    table: TableInfo
    deals: tuple[DealInfo, ...]  # empty when the viewer has this version already (``current``)
    next_after: int | None
    current: bool = False


def page_of(session: Session, row: Any, *, after: int, limit: int, seen: Seen | None = None) -> DealLogPage:
    """Keyset paging by deal number, in SQL: the deals numbered above ``after``, at most
    ``limit`` (and one more row to tell whether a next page exists); the deals before the page
    are never read. Every listing (by key, share link, scorer link) pages here. ``seen``: the
    versions the viewer has (If-None-Match); when they name this version, no deal is read."""
    table = loaded(row)
    if still_held(seen, table.etag):
        return DealLogPage(table, (), None, current=True)
    rows = repo.page_rows(session, row.id, after=after, rows=limit + 1)
    deals = tuple(rows[:limit])
    return DealLogPage(table, deals, deals[-1].number if len(rows) > limit else None)


def list_deals(db: Database, owner: str, table_id: str, *, after: int = 0, limit: int = 50) -> DealLogPage:
    """The owner's table's deals numbered above ``after``, at most ``limit`` (``page_of``)."""
    with db.read() as session:
        return page_of(session, load_row(session, owner, table_id, lock=False), after=after, limit=limit)


def list_shared_deals(
    db: Database, token: str, *, after: int = 0, limit: int = 50, seen: Seen | None = None
) -> DealLogPage:
    """The same through the read-only share token (``page_of``)."""
    with db.read() as session:
        return page_of(session, shared_row(session, token), after=after, limit=limit, seen=seen)


def get_deal(db: Database, owner: str, table_id: str, number: int) -> tuple[TableInfo, DealInfo]:
    with db.read() as session:
        row = load_row(session, owner, table_id, lock=False)
        found = repo.deal_row(session, row.id, number)
        if found is None:
            raise NotFound(
                Sentence("table {table_id} has no deal {number}", table_id=table_id, number=number)
            )
        return loaded(row), found


def penalties_at(db: Database, table_ids: Sequence[str]) -> dict[str, list[DealInfo]]:
    """The judge's penalties standing in these tables' logs, in order, by table (docs/rules.md
    §15): one read of the penalties only, whatever the length of the logs."""
    out: dict[str, list[DealInfo]] = {}
    if not table_ids:
        return out
    with db.read() as session:
        for table_id, penalty in repo.penalty_rows(session, list(table_ids)):
            out.setdefault(table_id, []).append(penalty)
    return out


def stored_log(session: Session, table_id: str) -> list[repo.LoggedDeal]:
    """A table's stored deals in order (``deal_info`` reads one; each has its ``game``), in
    the caller's transaction: what a picture of the table draws."""
    return repo.log(session, table_id)
