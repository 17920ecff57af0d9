"""Closing and reopening a round. A round closes in the write that finishes its last table (a
post, the director's penalty, a correction: ``close_finished_round``, run by the tables'
service inside that write), or when the director closes it; its tables are then locked and
their balances stored. The director reopens it with a reason to correct it."""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.kit.db import Database
from app.kit.db.models import utcnow
from app.kit.errors import Conflict, NotFound, Unprocessable
from app.rules import FieldError, Sentence, amounts, settle
from app.tables import service as tables
from app.tables.model import loaded
from app.tournaments import repository as repo
from app.tournaments.model import (
    OPEN,
    TableAtRound,
    Tournament,
)
from app.tournaments.reading import _finished_round, _load, _moved, _read, _round, get_tournament

# What a round's table-finish closes in the audit's "by".
BY_TABLES = "the tables finished"


def _closed_if_finished(db: Database, owner: str, tournament_id: str) -> Tournament:
    """The tournament, its last round closed first (in a write of its own) when every table of
    it has finished but no write closed it (a round stored so before rounds closed in the
    write that finishes them): a write that draws the next round needs it closed."""
    t, now = _read(db, owner, tournament_id)
    done = _finished_round(t, now)
    if done is None:
        return t
    try:
        _close(db, owner, tournament_id, done.number, BY_TABLES, only_if_finished=True)
    except Conflict:
        return t  # a deal undone meanwhile: the round plays on
    with db.read() as session:
        return _load(session, owner, tournament_id)


def close_finished_round(session: Session, table_id: str) -> None:
    """In the write that has just finished ``table_id`` (a post, a penalty, a correction; its
    row locked): when it is a table of its tournament's last round, open and never reopened,
    and every other table of that round has finished too, the round is closed in this write.

    The tournament's row is locked before the other tables are read, so two writes that
    finish a round's last two tables take turns: the second sees the first's table finished
    (the other tables are read, not locked, until the round is closed: a write at one of them
    that is not finishing it never waits on the tournament)."""
    found = repo.tournament_of_table(session, table_id)
    owner = repo.owner_of(session, found.tournament_id) if found is not None else None
    if found is None or owner is None:
        return
    t = _load(session, owner, found.tournament_id, lock=True)
    last = t.last_round
    if last is None or last.number != found.round or last.status != OPEN:
        return
    if all(_finished(session, owner, at, table_id) for at in last.tables):
        _close_in(session, t, last.number, BY_TABLES, only_if_finished=True)


def _finished(session: Session, owner: str, at: TableAtRound, finishing: str) -> bool:
    if at.table_id == finishing:
        return True
    if at.table_id is None:
        return False
    try:
        return loaded(tables.load_row(session, owner, at.table_id, lock=False)).state.finished
    except NotFound:
        return False


tables.watch_finishes(close_finished_round)


def close_round(db: Database, owner: str, tournament_id: str, round_number: int, *, by: str) -> Tournament:
    """The director closes a round: its tables are locked as they stand and their balances
    stored (a table not finished counts as if its game ended now)."""
    _close(db, owner, tournament_id, round_number, by)
    return get_tournament(db, owner, tournament_id)[0]


def _lock_reason(t: Tournament, round_number: int) -> str:
    return (
        f"round {round_number} of tournament {t.name!r} is closed; its director reopens it to change a deal"
    )


# A director's close waits this long at most for a table's lock (PostgreSQL): the write that
# holds it may be finishing the round and waiting for the tournament's row the close holds.
CLOSE_ATTEMPTS = 10


def _close(
    db: Database,
    owner: str,
    tournament_id: str,
    round_number: int,
    by: str,
    *,
    only_if_finished: bool = False,
) -> None:
    """Close the round in a write of its own: the tournament's row locked, then its tables'.
    A table's lock is waited for briefly only, and the close tried again: rather than wait for
    each other, the close gives way to a write that finishes the round meanwhile."""
    for _ in range(CLOSE_ATTEMPTS):
        try:
            with db.write() as session:
                repo.wait_briefly_for_locks(session)
                t = _load(session, owner, tournament_id, lock=True)
                _close_in(session, t, round_number, by, only_if_finished=only_if_finished)
            return
        except Exception as exc:
            if not repo.waited_too_long(exc):
                raise
    raise Conflict("a table of the round is being written; close it again", reason="changed")


def _close_in(session: Session, t: Tournament, round_number: int, by: str, *, only_if_finished: bool) -> None:
    """In the caller's write, the tournament's row locked: the round's tables locked as they
    stand, their balances stored (a table not finished counts as if its game ended now)."""
    r = _round(t, round_number)
    if r.locked:
        if only_if_finished:
            return
        raise Conflict(
            Sentence("round {round_number} is closed already", round_number=round_number),
            [FieldError("round", "closed already")],
            reason="round_closed",
        )
    if only_if_finished and r.reopened:
        return
    ids = []
    for at in r.tables:
        if at.table_id is None:
            continue
        try:
            row = tables.load_row(session, t.owner, at.table_id, lock=True)
        except NotFound:
            continue
        table = loaded(row)
        if only_if_finished and not table.state.finished:
            raise Conflict("a table of the round plays on", reason="changed")
        balances = settle(table.rules, table.state).balances
        repo.set_table(
            session,
            t.id,
            round_number,
            at.number,
            {"balances": [amounts.exact_text(b) for b in balances]},
        )
        ids.append(at.table_id)
    tables.lock_tables(session, ids, _lock_reason(t, round_number))
    repo.set_round(session, t.id, round_number, {"closed_at": utcnow()})
    repo.audit(session, t.id, by, "lock", {"round": round_number})
    _moved(session, t)


def reopen_round(
    db: Database, owner: str, tournament_id: str, round_number: int, reason: str, *, by: str
) -> Tournament:
    """The director reopens a closed round to correct it: its tables unlocked, the stored
    balances dropped; it stays open until the director closes it again."""
    reason = reason.strip()
    if not reason:
        raise Unprocessable("a round is reopened with a reason", [FieldError("reason", "must not be empty")])
    with db.write() as session:
        t = _load(session, owner, tournament_id, lock=True)
        r = _round(t, round_number)
        if not r.locked:
            raise Conflict(
                Sentence("round {round_number} is not closed", round_number=round_number),
                [
                    FieldError(
                        "round",
                        Sentence(
                            "round {round_number} is {status}", round_number=round_number, status=r.status
                        ),
                    )
                ],
                reason="round_open",
            )
        tables.lock_tables(session, [at.table_id for at in r.tables if at.table_id is not None], None)
        repo.clear_balances(session, t.id, round_number)
        repo.set_round(session, t.id, round_number, {"closed_at": None, "reopened": True})
        repo.audit(session, t.id, by, "reopen", {"round": round_number, "reason": reason})
        _moved(session, t)
    return get_tournament(db, owner, tournament_id)[0]
