"""A tournament read as stored, and what every use case of it shares: its row loaded (locked
for a write), its unclosed rounds' tables as they are now, a change announced. A read writes
nothing: a round whose tables have all finished was closed by the write that finished the
last of them (app/tournaments/closing.py)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.orm import Session

from app.events.changes import announce
from app.kit.db import Database
from app.kit.errors import NotFound
from app.rules import Sentence, settle
from app.tables import service as tables
from app.tables.model import TableInfo
from app.tournaments import repository as repo
from app.tournaments.model import (
    OPEN,
    AuditEntry,
    Entrant,
    PlayedTable,
    Round,
    TableAtRound,
    Tournament,
    TournamentPage,
)

# The kind of event a change of a tournament's standings is announced with (app/live).
STANDINGS_CHANGED = "tournament.standings"


def _load(session: Session, owner: str, tournament_id: str, *, lock: bool = False) -> Tournament:
    return repo.load(session, owner, tournament_id, lock=lock)


def _tables_now(db: Database, t: Tournament) -> dict[str, TableInfo]:
    """The ordinary tables of the rounds not closed, as they are now (the closed rounds'
    results are stored with them)."""
    ids = [at.table_id for r in t.rounds if not r.locked for at in r.tables if at.table_id is not None]
    return tables.get_tables(db, ids) if ids else {}


def _played(at: TableAtRound, now: dict[str, TableInfo], locked: bool) -> PlayedTable:
    table = now.get(at.table_id) if at.table_id is not None else None
    if table is None:  # not read (a closed round's: its balances stored), or deleted since
        return PlayedTable(at, None, None, 0, 0, at.balances is not None, locked, at.balances)
    finished = table.state.finished
    if locked:
        balances = at.balances
    else:
        balances = settle(table.rules, table.state).balances if finished else None
    return PlayedTable(
        at, table.title, table.share_token, table.deal_count, table.revision, finished, locked, balances
    )


def _with_tables_of(
    db: Database, t: Tournament, now: dict[str, TableInfo], rounds: Sequence[Round]
) -> dict[str, TableInfo]:
    """``now`` with the tables of these rounds read too (their titles and share links)."""
    ids = [
        at.table_id for r in rounds for at in r.tables if at.table_id is not None and at.table_id not in now
    ]
    return {**now, **tables.get_tables(db, ids)} if ids else now


def played_tables(t: Tournament, now: dict[str, TableInfo]) -> dict[int, list[PlayedTable]]:
    return {r.number: [_played(at, now, r.locked) for at in r.tables] for r in t.rounds}


def _finished_round(t: Tournament, now: dict[str, TableInfo]) -> Round | None:
    """The last round when it is open (never reopened) and every table of it has finished."""
    last = t.last_round
    if last is None or last.status != OPEN or not last.tables:
        return None
    for at in last.tables:
        table = now.get(at.table_id) if at.table_id is not None else None
        if table is None or not table.state.finished:
            return None
    return last


def _read(db: Database, owner: str, tournament_id: str) -> tuple[Tournament, dict[str, TableInfo]]:
    """The tournament and its unclosed tables, as stored: a read writes nothing (a round whose
    tables have all finished was closed by the write that finished the last of them)."""
    with db.read() as session:
        t = _load(session, owner, tournament_id)
    return t, _tables_now(db, t)


def get_tournament(
    db: Database, owner: str, tournament_id: str
) -> tuple[Tournament, dict[int, list[PlayedTable]]]:
    """The tournament with every round's tables as they are now."""
    t, now = _read(db, owner, tournament_id)
    return t, played_tables(t, _with_tables_of(db, t, now, t.rounds))


def list_tournaments(
    db: Database, owner: str, *, after: str | None = None, limit: int = 50
) -> TournamentPage:
    with db.read() as session:
        found, more = repo.listed(session, owner, after=after, limit=limit)
        items = tuple(found)
    nxt = repo.encode_cursor(items[-1].id) if more and items else None
    return TournamentPage(items, nxt)


def audit(
    db: Database, owner: str, tournament_id: str, *, after: int = 0, limit: int = 50
) -> tuple[list[AuditEntry], int | None]:
    """A page of the audit, oldest first: at most ``limit`` entries after the entry ``after``,
    and the entry a next page starts after (None on the last)."""
    with db.read() as session:
        row = repo.head_of(session, owner, tournament_id)
        entries = repo.audit_of(session, row.id, after=after, rows=limit + 1)
    page = entries[:limit]
    return page, (page[-1].id if len(entries) > limit and page else None)


def _moved(session: Session, t: Tournament) -> None:
    """The tournament moved on (its ETag with it), announced on the owner's event streams."""
    repo.changed(session, t.id, t.revision + 1)
    announce(session, t.id, t.owner, t.revision + 1, STANDINGS_CHANGED)


def _round(t: Tournament, number: int) -> Round:
    for r in t.rounds:
        if r.number == number:
            return r
    raise NotFound(Sentence("tournament {id} has no round {number}", id=t.id, number=number))


def _entrant(t: Tournament, number: int) -> Entrant:
    try:
        return t.entrant(number)
    except KeyError:
        raise NotFound(Sentence("tournament {id} has no entrant {number}", id=t.id, number=number)) from None
