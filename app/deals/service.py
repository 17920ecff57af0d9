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
from fractions import Fraction
from typing import Any

from sqlalchemy.orm import Session

from app.deals import repository as repo
from app.deals.model import Changed, DealInfo, Posted, deal_info, entries_to_json, kept_answer, replayed
from app.events.changes import announce, committed, notification
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
    FieldError,
    InvalidDeal,
    ReplayError,
    RulesError,
    Sentence,
    apply_deal,
    deal_game,
    exact,
    replay,
    sentence,
)
from app.rules.settlement import balances as final_balances
from app.tables.model import DEFAULT_LIMITS, Limits, TableInfo, info, loaded, rules_of, state_of
from app.tables.service import load_row, load_table, shared_row

__all__ = ["Changed", "DealInfo", "Posted", "deal_info", "entries_to_json", "penalties_at", "stored_log"]


def refuse_archived(row: Any) -> None:
    """An archived table takes no deal (post, undo, correction): read from the row the write
    already locked, no query of its own."""
    if row.archived_at is not None:
        raise Conflict(
            Sentence(
                'table {id} is archived; unarchive it (PATCH with "archived": false) to change its deals',
                id=row.id,
            ),
            reason="archived",
        )


def refuse_locked(row: Any) -> None:
    """A locked table (its tournament round is closed: app/tournaments) takes no deal, undo or
    correction until the director reopens the round: read from the row the write already
    locked, no query of its own (the post's read selects every column of the table row)."""
    if row.locked is not None:
        raise Conflict(
            Sentence("table {id} is locked: {locked}", id=row.id, locked=row.locked), reason="locked"
        )


def refusal(exc: RulesError, what: str) -> Exception:
    """The domain error of an engine's refusal of a deal."""
    if exc.kind in ("dealer_mismatch", "finished"):
        return Conflict(
            Sentence("{what}: {reasons}", what=sentence(what), reasons=exc.sentence),
            exc.errors,
            reason=exc.kind,
        )
    return Unprocessable(Sentence("{what}: {reasons}", what=sentence(what), reasons=exc.sentence), exc.errors)


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

    ``also``: what the caller writes in the same transaction, once the deal is written (the
    connection and the deal): a tournament's audit of a director's penalty. A retry with the
    key replays the first answer and writes nothing again."""
    canonical = deal.to_dict()
    with db.write_core() as conn:
        row = repo.table_to_post_at(conn, owner, table_id)
        now = utcnow()
        if idempotency_key is not None:
            if limits.idempotency_ttl is not None:
                repo.expire_keys(conn, row.id, idempotency_key, now - limits.idempotency_ttl)
            seen = repo.kept_answer(conn, row.id, idempotency_key)
            if seen is not None:
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
                # The deal is stored as answered: an undo or a correction of it deleted
                # this record, a correction of an earlier deal rewrote it.
                return replayed(seen.response)
        refuse_archived(row)
        refuse_locked(row)
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
        rules = rules_of(row)
        check_expected(expected, sheet_etag(row.id, row.revision, row.deal_count))
        state = state_of(row)
        try:
            result = apply_deal(rules, state, deal)
        except InvalidDeal as exc:
            raise refusal(exc, N_("the deal does not fit the table")) from exc
        number = row.deal_count + 1
        revision = row.revision + 1
        table = replace(info(row, rules, result.state), deal_count=number, revision=revision, updated_at=now)
        written = DealInfo(number, canonical, tuple(result.entries), now, state.next_dealer)
        new_state = result.state.to_dict()
        params = {
            "table_id": row.id,
            "number": number,
            "dealer": state.next_dealer,
            "game": deal_game(state, result.state),
            "body": canonical,
            "entries": entries_to_json(result.entries),
            "posted_at": now,
            "new_state": new_state,
            "new_revision": revision,
        }
        if idempotency_key is not None:
            params.update(
                idempotency_key=idempotency_key,
                request_hash=request_hash,
                answer=kept_answer(table, written, new_state),
            )
        if conn.dialect.name == "postgresql":
            params["notification"] = notification(row.id, row.owner, revision, "deal.posted")
        if row.hooked:  # the webhooks' deliveries of the deal, in the same statement on PostgreSQL
            params.update(
                event_params(row.owner, row.id, revision, "deal.posted", now, deal=number, deal_count=number)
                or {}
            )
        repo.write_post(conn, params, keyed=idempotency_key is not None, hooked=row.hooked)
        if also is not None:
            also(conn, written)
        if row.hooked and result.state.finished and not state.finished:
            enqueue(
                conn,
                event_params(
                    row.owner, row.id, revision, "table.finished", now, deal=number, deal_count=number
                ),
                posted=True,
            )
        if row.registered:  # registered players' statistics, in this transaction
            balances = player_stats.on_deal_posted(
                conn, row.registered, rules, deal, state, result.state, result.entries, number
            )
            # The post that finishes a rated table with every seat registered gives it its
            # place in the finishing order (rated after the commit); no other post does any
            # rating work.
            if row.rated and result.state.finished and len(row.registered) == len(row.players):
                seated = {seat: player for _, seat, _, player in row.registered}
                ratings.on_table_finished(conn, _outcome(row.id, row.owner, row.convention, balances, seated))
    # Committed: this process's streams get the table as stored, without reading it back.
    committed(table.id, table.owner, revision, "deal.posted", table)
    return Posted(table, written)


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


@dataclass(frozen=True)
class _Refold:
    """An undo or a correction worked out from one consistent read of the table: what to
    write, and the revision it was worked out from."""

    revision: int
    table: TableInfo  # after the change
    deal: DealInfo  # the removed deal (undo) or the corrected one
    remove_id: int | None  # the row an undo deletes
    retire: bool  # the keys that posted ``deal`` are retired (not when a correction changes nothing)
    rewrites: list[
        dict[str, Any]
    ]  # {"row_id", "new_body", "new_entries", "new_dealer", "new_game"} of deals whose row changes
    rescored: list[int]  # later deals whose entries changed (correction)
    answers: list[dict[str, Any]]  # {"number", "answer"}: kept answers of posts made again
    state: dict[str, Any]
    kind: str = "deal.corrected"  # what app.live announces


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
    # what is stored any more, and a post with one of them is a new deal. The keys of later
    # deals a correction re-scored keep working (those deals are still stored: a retry must
    # not post them again), with their answers made again.
    repo.write_refold(
        session,
        table_id,
        retire=work.deal.number if work.retire else None,
        remove_id=work.remove_id,
        rewrites=work.rewrites,
        answers=work.answers,
        state=work.state,
        deal_count=work.table.deal_count,
        revision=work.table.revision,
    )
    # Registered players' statistics made again from the log as now written.
    player_stats.on_log_refolded(session, table_id, work.table.rules, work.table.first_dealer)
    if work.table.rated:
        _rerate(session, work.table)
    announce(session, table_id, work.table.owner, work.table.revision, work.kind, deal=work.deal.number)


def _outcome(
    table_id: str, owner: str, convention: str, balances: Sequence[Fraction | int], seated: dict[int, str]
) -> ratings.Outcome:
    """A finished table as its players' ratings take it: each seat's player and exact balance."""
    return ratings.Outcome(
        table_id, owner, convention, tuple(seated[s] for s in range(len(balances))), tuple(balances)
    )


def _rerate(session: Session, table: TableInfo) -> None:
    """After an undo or a correction of a rated table: its players' ratings follow (nothing
    changes unless its finish or its ranking did)."""
    seated = player_stats.seated_players(session, table.id)
    outcome = None
    if table.state.finished and len(seated) == len(table.players):
        balances = [exact(b) for b in final_balances(table.rules, table.state)]
        outcome = _outcome(table.id, table.owner, table.convention, balances, seated)
    ratings.on_table_changed(session, table.id, outcome)


def _after(row: Any, rules: Any, state: Any, deal_count: int) -> TableInfo:
    return replace(info(row, rules, state), deal_count=deal_count, revision=row.revision + 1)


def undo_last(
    db: Database, owner: str, table_id: str, number: int, *, expected: Expected | None = None
) -> Changed:
    """Delete the last deal; the state is the log without it, folded again. The keys that
    posted it are retired in the same transaction. Returns the removed deal."""

    def plan(session: Session, row: Any) -> _Refold:
        refuse_archived(row)
        refuse_locked(row)
        if not 1 <= number <= row.deal_count:
            raise NotFound(
                Sentence("table {table_id} has no deal {number}", table_id=table_id, number=number)
            )
        if number != row.deal_count:
            raise Conflict(
                Sentence(
                    "only the last deal ({deal_count}) can be undone; correct deal {number} with PUT instead",
                    deal_count=row.deal_count,
                    number=number,
                ),
                last=row.deal_count,
            )
        check_expected(expected, sheet_etag(row.id, row.revision, row.deal_count))
        rules = rules_of(row)
        log = repo.log(session, row.id)
        removed = log.pop()
        folded = replay(rules, row.first_dealer, [Deal.from_dict(r.body) for r in log])
        rewrites = []
        for deal_row, entries, dealer, game in zip(log, folded.entries, folded.dealers, folded.games):
            stored = entries_to_json(entries)
            if (
                deal_row.entries != stored or deal_row.dealer != dealer or deal_row.game != game
            ):  # another rules version
                rewrites.append(
                    {
                        "row_id": deal_row.id,
                        "new_body": deal_row.body,
                        "new_entries": stored,
                        "new_dealer": dealer,
                        "new_game": game,
                    }
                )
        return _Refold(
            revision=row.revision,
            table=_after(row, rules, folded.state, len(log)),
            deal=deal_info(removed),
            remove_id=removed.id,
            retire=True,
            rewrites=rewrites,
            rescored=[],
            answers=[],
            state=folded.state.to_dict(),
            kind="deal.undone",
        )

    work = _refold(db, owner, table_id, plan)
    return Changed(work.table, work.deal)


def correct_deal(
    db: Database, owner: str, table_id: str, number: int, deal: Deal, *, expected: Expected | None = None
) -> Changed:
    """Replace deal ``number`` and re-score every later deal. If the corrected deal or a later
    one no longer fits, nothing changes: Unprocessable/Conflict for the deal itself, Conflict
    naming the later deal. Returns the corrected deal and the later deals re-scored.

    The keys that posted the corrected deal are retired; the kept answers of the keys of
    re-scored later deals are made again (the deal as now stored, the sheet after the
    correction)."""
    canonical = deal.to_dict()

    def plan(session: Session, row: Any) -> _Refold:
        refuse_archived(row)
        refuse_locked(row)
        if not 1 <= number <= row.deal_count:
            raise NotFound(
                Sentence("table {table_id} has no deal {number}", table_id=table_id, number=number)
            )
        check_expected(expected, sheet_etag(row.id, row.revision, row.deal_count))
        rules = rules_of(row)
        log = repo.log(session, row.id)
        deals = [Deal.from_dict(r.body) for r in log]
        deals[number - 1] = deal
        try:
            folded = replay(rules, row.first_dealer, deals)
        except ReplayError as exc:
            if exc.number == number:
                raise refusal(exc, N_("the corrected deal does not fit the table")) from exc
            raise Conflict(
                Sentence(
                    "the correction would make deal {number} invalid: {reasons}; nothing was changed",
                    number=exc.number,
                    reasons=exc.sentence,
                ),
                exc.errors,
                deal=exc.number,
                reason="later_deal_invalid",
            ) from exc
        rewrites = []
        rescored: list[int] = []
        infos: dict[int, DealInfo] = {}
        for deal_row, entries, dealer, game in zip(log, folded.entries, folded.dealers, folded.games):
            stored = entries_to_json(entries)
            new_body = canonical if deal_row.number == number else deal_row.body
            if (
                deal_row.entries != stored
                or new_body != deal_row.body
                or deal_row.dealer != dealer
                or deal_row.game != game
            ):
                rewrites.append(
                    {
                        "row_id": deal_row.id,
                        "new_body": new_body,
                        "new_entries": stored,
                        "new_dealer": dealer,
                        "new_game": game,
                    }
                )
                if deal_row.number > number and deal_row.entries != stored:
                    rescored.append(deal_row.number)
            if deal_row.number == number or deal_row.entries != stored:
                infos[deal_row.number] = DealInfo(
                    deal_row.number, new_body, tuple(entries), deal_row.created_at, dealer
                )
        table = _after(row, rules, folded.state, len(log))
        answers = []
        # The same body again changes no deal: its keys keep replaying (a retry must not post
        # it twice), with its answer made again if its entries changed (another rules version).
        same = canonical == log[number - 1].body
        rescored_itself = log[number - 1].entries != entries_to_json(folded.entries[number - 1])
        remade = rescored + ([number] if same and rescored_itself else [])
        if remade:
            state = folded.state.to_dict()
            answers = [
                {"number": n, "answer": kept_answer(table, infos[n], state)}
                for n in sorted(repo.keyed_numbers(session, row.id, remade))
            ]
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
    return Changed(work.table, work.deal, tuple(work.rescored))


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
