"""The standings: the pure scoring (app/tournaments/scoring.py) of the closed rounds' stored
balances and the finished tables of the round being played, with their ETag, kept per
version."""

from __future__ import annotations

from dataclasses import dataclass

from app.kit.caching import Kept
from app.kit.db import Database
from app.kit.versions import Seen, still_held, strong_etag
from app.rules import settle
from app.tables import service as tables
from app.tables.model import TableInfo
from app.tournaments import repository as repo
from app.tournaments import scoring as scoring_core
from app.tournaments.model import (
    Tournament,
    key,
)
from app.tournaments.reading import _read
from app.tournaments.scoring import Standing


def results_of(t: Tournament, now: dict[str, TableInfo]) -> list[scoring_core.TableResult]:
    """The results that count: a closed round's tables' stored balances, and every finished
    table of a round being played."""
    results = []
    for r in t.rounds:
        for at in r.tables:
            balances = at.balances
            if balances is None and at.table_id is not None and not r.locked:
                table = now.get(at.table_id)
                if table is not None and table.state.finished:
                    balances = settle(table.rules, table.state).balances
            if balances is not None:
                results.append(
                    scoring_core.TableResult(
                        r.number, at.number, {key(n): b for n, b in zip(at.seats, balances)}
                    )
                )
    return results


def _standings(t: Tournament, now: dict[str, TableInfo], after_round: int | None) -> list[Standing]:
    rounds = len(t.rounds) if after_round is None else min(after_round, len(t.rounds))
    return scoring_core.standings(
        t.scoring,
        [e.key for e in t.entrants],
        results_of(t, now),
        byes={r.number: [key(n) for n in r.byes] for r in t.rounds},
        adjustments=[
            scoring_core.Adjustment(key(a.entrant), a.amount, a.reason, a.round) for a in t.adjustments
        ],
        rounds=rounds,
    )


STANDINGS_SHAPE = 1


def standings_etag(t: Tournament, now: dict[str, TableInfo], after_round: int | None) -> str:
    """The standings' version: the tournament's revision and the version of every table of
    a round not closed (a closed round's are locked; closing and reopening move the
    revision)."""
    return _etag(t.id, t.revision, now, after_round)


def _etag(tournament_id: str, revision: int, now: dict[str, TableInfo], after_round: int | None) -> str:
    parts = [tournament_id, str(revision), str(after_round), str(STANDINGS_SHAPE)]
    parts += [f"{i}:{x.revision}:{x.deal_count}" for i, x in sorted(now.items())]
    return strong_etag(*parts, sep="|")


@dataclass(frozen=True)
class Standings:
    tournament: Tournament
    rounds: int  # the rounds the standings count
    rows: tuple[Standing, ...]
    etag: str


# The standings last computed, by tournament and version (their ETag): the version is made of
# the tournament's revision (every change of the tournament moves it) and the version of each
# table of a round not closed (a closed round's tables are locked), so standings found here
# are the standings a recomputation gives. Per process, bounded.
_COMPUTED: Kept[tuple[str, str], Standings] = Kept(32)


def standings(
    db: Database, owner: str, tournament_id: str, *, after_round: int | None = None, seen: Seen | None = None
) -> Standings | str:
    """The standings after every round drawn (or after ``after_round``), with their ETag;
    only the ETag when the viewer holds that version (``seen``).

    The version is read first (the tournament's row, its rounds' states, the tables of the
    rounds not closed); standings computed at that version before are answered as they were,
    else the tournament is read whole and its standings computed."""
    with db.read() as session:
        row = repo.head_of(session, owner, tournament_id)
        _, open_tables = repo.version(session, row.id)
    now = (
        tables.get_tables(db, [r.table_id for r in open_tables if r.table_id is not None])
        if open_tables
        else {}
    )
    etag = _etag(row.id, row.revision, now, after_round)
    if still_held(seen, etag):
        return etag
    found = _COMPUTED.get((row.id, etag))
    return found if found is not None else _computed(db, owner, tournament_id, after_round, seen)


def _computed(
    db: Database, owner: str, tournament_id: str, after_round: int | None, seen: Seen | None
) -> Standings | str:
    t, now = _read(db, owner, tournament_id)
    etag = standings_etag(t, now, after_round)
    if still_held(seen, etag):
        return etag
    result = _standings_of(t, now, after_round, etag)
    _COMPUTED.put((t.id, etag), result)
    return result


def _standings_of(t: Tournament, now: dict[str, TableInfo], after_round: int | None, etag: str) -> Standings:
    rows = _standings(t, now, after_round)
    rounds = len(t.rounds) if after_round is None else min(after_round, len(t.rounds))
    return Standings(t, rounds, tuple(rows), etag)
