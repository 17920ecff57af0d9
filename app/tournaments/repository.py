"""The tournaments' SQL: a tournament with its entrants, rounds, round tables and adjustments
(Core reads: the standings of a large tournament read a few hundred rows); the listing by
id; the writes of entries, withdrawals, rounds, swaps, closings, adjustments and the audit."""

from __future__ import annotations

import base64
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from functools import lru_cache
from typing import Any

from sqlalchemy import Connection, Row, bindparam, func, insert, select, text, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from app.kit.db.models import utcnow
from app.kit.errors import NotFound, Unprocessable
from app.rules import FieldError, Sentence
from app.tournaments.model import (
    AdjustmentInfo,
    AuditEntry,
    Entrant,
    Round,
    TableAtRound,
    Tournament,
    TournamentGameEnd,
    scoring_of,
)
from app.tournaments.orm import (
    TournamentAdjustmentRow,
    TournamentAuditRow,
    TournamentEntrantRow,
    TournamentRoundRow,
    TournamentRow,
    TournamentTableRow,
)

_T = TournamentRow.__table__
_ENTRANTS = TournamentEntrantRow.__table__
_ROUNDS = TournamentRoundRow.__table__
_TABLES = TournamentTableRow.__table__
_ADJUSTMENTS = TournamentAdjustmentRow.__table__
_AUDIT = TournamentAuditRow.__table__

TOURNAMENT_ID_RE = re.compile(r"^[0-9a-f]{32}$")
SHARE_TOKEN_RE = re.compile(r"^[A-Za-z0-9_-]{16,64}$")

_BY_ID = {
    lock: (
        select(_T).where(_T.c.id == bindparam("tid"), _T.c.owner == bindparam("owner")).with_for_update()
        if lock
        else select(_T).where(_T.c.id == bindparam("tid"), _T.c.owner == bindparam("owner"))
    )
    for lock in (False, True)
}
_ENTRANTS_OF = (
    select(_ENTRANTS).where(_ENTRANTS.c.tournament_id == bindparam("tid")).order_by(_ENTRANTS.c.number)
)
_ROUNDS_OF = select(_ROUNDS).where(_ROUNDS.c.tournament_id == bindparam("tid")).order_by(_ROUNDS.c.number)
_TABLES_OF = (
    select(_TABLES.c.round, _TABLES.c.number, _TABLES.c.table_id, _TABLES.c.seats, _TABLES.c.balances)
    .where(_TABLES.c.tournament_id == bindparam("tid"))
    .order_by(_TABLES.c.round, _TABLES.c.number)
)
_ADJUSTMENTS_OF = (
    select(_ADJUSTMENTS).where(_ADJUSTMENTS.c.tournament_id == bindparam("tid")).order_by(_ADJUSTMENTS.c.id)
)


def _row_of(session: Session, owner: str, tournament_id: str, *, lock: bool = False) -> Row:
    """The owner's tournament row, locked for update when asked; another owner's is not found."""
    if not TOURNAMENT_ID_RE.fullmatch(tournament_id):
        raise NotFound(Sentence("no tournament {tournament_id!r}", tournament_id=tournament_id[:40]))
    row = session.execute(_BY_ID[lock], {"tid": tournament_id, "owner": owner}).one_or_none()
    if row is None:
        raise NotFound(Sentence("no tournament {tournament_id!r}", tournament_id=tournament_id))
    return row


def _shared_row(session: Session, token: str) -> Row:
    if not SHARE_TOKEN_RE.fullmatch(token):
        raise NotFound("no shared tournament with this token")
    row = session.execute(select(_T).where(_T.c.share_token == token)).one_or_none()
    if row is None or not secrets.compare_digest(row.share_token, token):
        raise NotFound("no shared tournament with this token")
    return row


@dataclass(frozen=True)
class TournamentHead:
    """A tournament as its version and its share link need it, read without its rounds."""

    id: str
    owner: str
    revision: int
    share_token: str


def _head(row: Row) -> TournamentHead:
    return TournamentHead(row.id, row.owner, row.revision, row.share_token)


def head_of(session: Session, owner: str, tournament_id: str) -> TournamentHead:
    """The owner's tournament without its rounds; another owner's is not found."""
    return _head(_row_of(session, owner, tournament_id))


def shared_head(session: Session, token: str) -> TournamentHead:
    """The tournament of a share token without its rounds (an unknown token is not found)."""
    return _head(_shared_row(session, token))


def load(session: Session, owner: str, tournament_id: str, *, lock: bool = False) -> Tournament:
    """The owner's whole tournament, its row locked for update when asked."""
    return _tournament(session, _row_of(session, owner, tournament_id, lock=lock))


def versions(session: Session, tournament_ids: list[str]) -> dict[str, tuple[int, str]]:
    """(revision, share_token) of the tournaments ``tournament_ids`` (a tournament gone is absent)."""
    rows = session.execute(
        select(_T.c.id, _T.c.revision, _T.c.share_token).where(_T.c.id.in_(tournament_ids))
    )
    return {r.id: (r.revision, r.share_token) for r in rows}


def _entrant(r: Row[*tuple[Any, ...]]) -> Entrant:
    return Entrant(r.number, r.name, r.player_id, r.joined_round, r.withdrawn_round, r.created_at)


@lru_cache(maxsize=8192)
def _exact(text: str) -> Fraction:
    # The stored balances repeat (a few dozen values over a whole tournament): each text is
    # read once, not once per seat per read of the standings.
    return Fraction(text)


def _balances(stored: list[Any] | None) -> tuple[Fraction, ...] | None:
    return None if stored is None else tuple(_exact(b) for b in stored)


# A closed round as it was closed: (number, closed_at). Its tables do not change while it is
# closed (a swap, a deal, a penalty are refused at them; reopening it clears closed_at and
# moves the tournament's revision), so tables read at one closing are its tables until the next.
ClosedRound = tuple[int, datetime]


def load_knowing(
    session: Session, owner: str, tournament_id: str, known: Mapping[ClosedRound, tuple[TableAtRound, ...]]
) -> Tournament:
    """The owner's whole tournament, the tables of a closed round taken from ``known`` when
    they were read at that same closing (the standings of a large tournament read only the
    tables of its rounds not closed since)."""
    return _tournament(session, _row_of(session, owner, tournament_id), known)


_TABLES_OF_ROUNDS = _TABLES_OF.where(_TABLES.c.round.in_(bindparam("rounds", expanding=True)))


def _rounds(
    session: Session, tid: str, known: Mapping[ClosedRound, tuple[TableAtRound, ...]] | None
) -> tuple[Round, ...]:
    """The tournament's rounds with their tables, a closed round's taken from ``known`` when
    read at that same closing."""
    round_rows = list(session.execute(_ROUNDS_OF, {"tid": tid}))
    kept = {
        r.number: known[(r.number, r.closed_at)]
        for r in round_rows
        if known and r.closed_at is not None and (r.number, r.closed_at) in known
    }
    by_round: dict[int, list[TableAtRound]] = {}
    if len(kept) < len(round_rows):
        tables = (
            session.execute(
                _TABLES_OF_ROUNDS,
                {"tid": tid, "rounds": [r.number for r in round_rows if r.number not in kept]},
            )
            if kept
            else session.execute(_TABLES_OF, {"tid": tid})
        )
        for r in tables:
            by_round.setdefault(r.round, []).append(
                TableAtRound(r.round, r.number, r.table_id, tuple(r.seats), _balances(r.balances))
            )
    return tuple(
        Round(
            r.number,
            r.seed,
            tuple(r.byes),
            r.created_at,
            r.closed_at,
            r.reopened,
            kept[r.number] if r.number in kept else tuple(by_round.get(r.number, ())),
        )
        for r in round_rows
    )


def _tournament(
    session: Session, row: Row, known: Mapping[ClosedRound, tuple[TableAtRound, ...]] | None = None
) -> Tournament:
    """The whole tournament of its row: entrants, rounds with their tables, adjustments."""
    tid = row.id
    entrants = tuple(_entrant(r) for r in session.execute(_ENTRANTS_OF, {"tid": tid}))
    rounds = _rounds(session, tid, known)
    adjustments = tuple(
        AdjustmentInfo(r.id, r.entrant, Fraction(r.amount), r.reason, r.round, r.created_at, r.by)
        for r in session.execute(_ADJUSTMENTS_OF, {"tid": tid})
    )
    return Tournament(
        id=row.id,
        owner=row.owner,
        name=row.name,
        convention=row.convention,
        pool_target=row.pool_target,
        options=dict(row.options),
        table_sizes=tuple(row.table_sizes),
        game_end=TournamentGameEnd.of(row.game_end),
        rounds_planned=row.rounds,
        scoring=scoring_of(row.scoring),
        scoring_stored=dict(row.scoring),
        swiss=row.swiss,
        share_token=row.share_token,
        revision=row.revision,
        created_at=row.created_at,
        updated_at=row.updated_at,
        entrants=entrants,
        rounds=rounds,
        adjustments=adjustments,
    )


def add_tournament(session: Session, values: dict[str, Any]) -> None:
    session.execute(insert(_T).values(**values))


def count_tournaments(session: Session, owner: str) -> int:
    return session.scalars(select(func.count()).select_from(_T).where(_T.c.owner == owner)).one()


def changed(session: Session, tournament_id: str, revision: int) -> None:
    """The tournament moved to ``revision`` (its standings' ETag with it)."""
    session.execute(update(_T).where(_T.c.id == tournament_id).values(revision=revision, updated_at=utcnow()))


def new_share_token(session: Session, tournament_id: str) -> None:
    session.execute(update(_T).where(_T.c.id == tournament_id).values(share_token=secrets.token_urlsafe(24)))


def add_entrants(session: Session, tournament_id: str, entrants: list[dict[str, Any]]) -> None:
    if entrants:
        now = utcnow()
        session.execute(
            insert(_ENTRANTS), [{"tournament_id": tournament_id, "created_at": now, **e} for e in entrants]
        )


def withdraw(session: Session, tournament_id: str, number: int, from_round: int | None) -> None:
    session.execute(
        update(_ENTRANTS)
        .where(_ENTRANTS.c.tournament_id == tournament_id, _ENTRANTS.c.number == number)
        .values(withdrawn_round=from_round)
    )


def add_round(
    session: Session,
    tournament_id: str,
    number: int,
    seed: int,
    byes: list[int],
    tables: list[dict[str, Any]],
) -> None:
    session.execute(
        insert(_ROUNDS).values(
            tournament_id=tournament_id,
            number=number,
            seed=seed,
            byes=byes,
            created_at=utcnow(),
            reopened=False,
        )
    )
    session.execute(
        insert(_TABLES),
        [{"tournament_id": tournament_id, "round": number, "balances": None, **t} for t in tables],
    )


def set_round(session: Session, tournament_id: str, number: int, values: dict[str, Any]) -> None:
    session.execute(
        update(_ROUNDS)
        .where(_ROUNDS.c.tournament_id == tournament_id, _ROUNDS.c.number == number)
        .values(**values)
    )


def set_table(
    session: Session, tournament_id: str, round_number: int, table_number: int, values: dict[str, Any]
) -> None:
    session.execute(
        update(_TABLES)
        .where(
            _TABLES.c.tournament_id == tournament_id,
            _TABLES.c.round == round_number,
            _TABLES.c.number == table_number,
        )
        .values(**values)
    )


def clear_balances(session: Session, tournament_id: str, round_number: int) -> None:
    session.execute(
        update(_TABLES)
        .where(_TABLES.c.tournament_id == tournament_id, _TABLES.c.round == round_number)
        .values(balances=None)
    )


def add_adjustment(session: Session, tournament_id: str, values: dict[str, Any]) -> None:
    session.execute(insert(_ADJUSTMENTS).values(tournament_id=tournament_id, created_at=utcnow(), **values))


def audit(
    session: Session | Connection, tournament_id: str, by: str, action: str, detail: dict[str, Any]
) -> None:
    """One entry of the audit, in the caller's transaction (a session, or the connection of a
    deal's post: a director's penalty is audited in the deal's own transaction)."""
    session.execute(
        insert(_AUDIT).values(tournament_id=tournament_id, at=utcnow(), by=by, action=action, detail=detail)
    )


def audit_of(session: Session, tournament_id: str, *, after: int, rows: int) -> list[AuditEntry]:
    """At most ``rows`` entries of the audit after the entry ``after``, oldest first (keyset
    paging on the entry's id)."""
    query = select(_AUDIT).where(_AUDIT.c.tournament_id == tournament_id, _AUDIT.c.id > after)
    found = session.execute(query.order_by(_AUDIT.c.id).limit(rows))
    return [AuditEntry(r.id, r.at, r.by, r.action, dict(r.detail)) for r in found]


# --- the listing: the owner's tournaments, newest first, keyset-paged on the time-ordered id


def encode_cursor(tournament_id: str) -> str:
    return base64.urlsafe_b64encode(tournament_id.encode()).decode().rstrip("=")


def _decode_cursor(cursor: str) -> str:
    try:
        value = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (ValueError, UnicodeDecodeError):
        value = ""
    if not TOURNAMENT_ID_RE.fullmatch(value):
        raise Unprocessable(
            "the cursor is not one this listing gave",
            [FieldError("after", "after must be a cursor from a listing's next link")],
        )
    return value


def listed(session: Session, owner: str, *, after: str | None, limit: int) -> tuple[list[Tournament], bool]:
    """A page of the owner's tournaments, newest first, after the cursor ``after``; and whether
    more follow."""
    query = select(_T).where(_T.c.owner == owner)
    if after is not None:
        query = query.where(_T.c.id < _decode_cursor(after))
    rows = list(session.execute(query.order_by(_T.c.id.desc()).limit(limit + 1)).all())
    return [_tournament(session, r) for r in rows[:limit]], len(rows) > limit


@dataclass(frozen=True)
class RoundState:
    number: int
    closed_at: datetime | None
    reopened: bool


@dataclass(frozen=True)
class OpenTable:
    """A table of a round not closed."""

    round: int
    table_id: str | None


@dataclass(frozen=True)
class TableOfTournament:
    tournament_id: str
    round: int
    number: int


_ROUND_STATES = (
    select(_ROUNDS.c.number, _ROUNDS.c.closed_at, _ROUNDS.c.reopened)
    .where(_ROUNDS.c.tournament_id == bindparam("tid"))
    .order_by(_ROUNDS.c.number)
)
_OPEN_TABLES = (
    select(_TABLES.c.round, _TABLES.c.table_id)
    .join(
        _ROUNDS, (_ROUNDS.c.tournament_id == _TABLES.c.tournament_id) & (_ROUNDS.c.number == _TABLES.c.round)
    )
    .where(_TABLES.c.tournament_id == bindparam("tid"), _ROUNDS.c.closed_at.is_(None))
)


def version(session: Session, tournament_id: str) -> tuple[list[RoundState], list[OpenTable]]:
    """What the standings' version is made of, without the tournament: its rounds' states
    (number, closed_at, reopened) and the (round, table_id) of the rounds not closed."""
    params = {"tid": tournament_id}
    rounds = [RoundState(r.number, r.closed_at, r.reopened) for r in session.execute(_ROUND_STATES, params)]
    return rounds, [OpenTable(r.round, r.table_id) for r in session.execute(_OPEN_TABLES, params)]


def round_table_ids(session: Session, tournament_id: str, round_number: int) -> list[str]:
    """The ordinary tables played at a round (a table deleted since is absent)."""
    rows = session.execute(
        select(_TABLES.c.table_id).where(
            _TABLES.c.tournament_id == tournament_id, _TABLES.c.round == round_number
        )
    )
    return [r.table_id for r in rows if r.table_id is not None]


def owner_of(session: Session, tournament_id: str) -> str | None:
    return session.scalar(select(_T.c.owner).where(_T.c.id == tournament_id))


def tournament_of_table(session: Session, table_id: str) -> TableOfTournament | None:
    """The tournament, round and number of the round table played at ``table_id``, if any."""
    found = session.execute(
        select(_TABLES.c.tournament_id, _TABLES.c.round, _TABLES.c.number).where(
            _TABLES.c.table_id == table_id
        )
    ).first()
    return None if found is None else TableOfTournament(found.tournament_id, found.round, found.number)


# How long a director's close waits for a table's lock on PostgreSQL before it gives way
# (app/tournaments/closing.py ``_close``); SQLite has one writer, and nobody to wait for.
_LOCK_WAIT = text("SET LOCAL lock_timeout = '200ms'")
_LOCK_NOT_AVAILABLE = "55P03"


def wait_briefly_for_locks(session: Session) -> None:
    if session.get_bind().dialect.name == "postgresql":
        session.execute(_LOCK_WAIT)


def waited_too_long(exc: BaseException) -> bool:
    """Whether ``exc`` is PostgreSQL's refusal to wait longer for a lock (lock_timeout)."""
    return isinstance(exc, OperationalError) and getattr(exc.orig, "sqlstate", None) == _LOCK_NOT_AVAILABLE
