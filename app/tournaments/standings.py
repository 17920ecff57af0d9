"""The standings: the pure scoring (app/tournaments/scoring.py) of the closed rounds' stored
balances and the finished tables of the round being played, with their ETag, kept per
version."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from app.kit.caching import Kept
from app.kit.db import Database
from app.kit.versions import Seen, still_held, strong_etag
from app.rules import settle
from app.tables import service as tables
from app.tables.model import TableInfo
from app.tournaments import repository as repo
from app.tournaments import scoring as scoring_core
from app.tournaments import tally
from app.tournaments.model import Round, TableAtRound, Tournament, key
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


# The (revision, deal count) of tables by id: a table's version (every change of it moves one).
Versions = dict[str, tuple[int, int]]


def standings_etag(t: Tournament, now: dict[str, TableInfo], after_round: int | None) -> str:
    """The standings' version: the tournament's revision and the version of every table of
    a round not closed (a closed round's are locked; closing and reopening move the
    revision)."""
    return _etag(t.id, t.revision, _versions_of(now), after_round)


def _versions_of(now: dict[str, TableInfo]) -> Versions:
    return {i: (x.revision, x.deal_count) for i, x in now.items()}


def _etag(tournament_id: str, revision: int, versions: Versions, after_round: int | None) -> str:
    parts = [tournament_id, str(revision), str(after_round), str(STANDINGS_SHAPE)]
    parts += [f"{i}:{v[0]}:{v[1]}" for i, v in sorted(versions.items())]
    return strong_etag(*parts, sep="|")


@dataclass(frozen=True)
class Standings:
    tournament: Tournament
    rounds: int  # the rounds the standings count
    rows: tuple[Standing, ...]
    etag: str
    # each row's content but its place, in small values (app/tournaments/tally.py ``Ranked``):
    # what an answer makes of a row is kept by it
    keys: tuple[Hashable, ...] = ()


# The standings last computed, by tournament and version (their ETag): the version is made of
# the tournament's revision (every change of the tournament moves it) and the version of each
# table of a round not closed (a closed round's tables are locked), so standings found here
# are the standings a recomputation gives. Per process, bounded.
_COMPUTED: Kept[tuple[str, str], Standings] = Kept(32)


@dataclass(frozen=True)
class _Basis:
    """What a tournament's standings were last computed from in this process, each part kept
    by the version it was read or scored at, so that a change costs what it changed: the
    tournament at its revision, each closed round's scores by its closing (its tables do not
    change until it is reopened), each table being played scored at its (revision, deals), and
    the sums of the closed rounds by their closings."""

    tournament: Tournament
    closed: dict[repo.ClosedRound, tally.RoundScores]
    tables: dict[Hashable, tally.Scored | None]  # None: a table playing at that version
    folded: dict[tuple[repo.ClosedRound, ...], dict[str, tally.Sums]]
    playing: tally.Folded | None = None  # the rounds being played added to the closed rounds' sums
    players: tuple[str, ...] = ()  # the tournament's entrants as the scoring names them
    ranked: tally.Ranked | None = None  # the last ranking, patched by the next one

    def closed_tables(self) -> dict[repo.ClosedRound, tuple[TableAtRound, ...]]:
        return {(r.number, r.closed_at): r.tables for r in self.tournament.rounds if r.closed_at is not None}


def _seat_rounds(basis: _Basis) -> int:
    """A basis's weight: its entrants times its rounds (what its scores and sums hold)."""
    return len(basis.tournament.entrants) * max(1, len(basis.tournament.rounds))


# By tournament id; per process, bounded by number and weight (100,000 entrant-rounds: a few
# tens of MB; five tournaments of the largest size, or thirty-two of 200 players and 10
# rounds). Every part is kept by versions read from the database, so a basis another
# process's writes have outdated only misses.
_BASES: Kept[str, _Basis] = Kept(32, max_weight=100_000, weigh=_seat_rounds)
# the closed rounds' sums kept per tournament (one per ``after_round`` asked lately)
_FOLDS_KEPT = 4


def standings(
    db: Database, owner: str, tournament_id: str, *, after_round: int | None = None, seen: Seen | None = None
) -> Standings | str:
    """The standings after every round drawn (or after ``after_round``), with their ETag;
    only the ETag when the viewer holds that version (``seen``).

    The version is read first (the tournament's row, its rounds' states, the tables of the
    rounds not closed), with the tournament when it moved since this process last read it
    (the closed rounds' tables it read then are not read again); standings computed at that
    version before are answered as they were, else computed from what changed since the last
    computation (``_Basis``)."""
    basis = _BASES.get(tournament_id)
    with db.read() as session:
        row = repo.head_of(session, owner, tournament_id)
        _, open_tables = repo.version(session, row.id)
        if basis is not None and basis.tournament.revision == row.revision:
            t = basis.tournament  # unchanged: only its tables being played may have moved
        else:
            t = repo.load_knowing(session, owner, row.id, basis.closed_tables() if basis else {})
    ids = [r.table_id for r in open_tables if r.table_id is not None]
    versions = tables.versions(db, ids) if ids else {}
    etag = _etag(row.id, row.revision, versions, after_round)
    if still_held(seen, etag):
        return etag
    found = _COMPUTED.get((row.id, etag))
    if found is not None:
        return found
    return _computed(db, t, versions, after_round, seen)


def _computed(
    db: Database, t: Tournament, versions: Versions, after_round: int | None, seen: Seen | None
) -> Standings | str:
    """The standings at these versions of the tables being played, only the tables not
    scored at their version read (as they are now: their versions with them)."""
    basis = _BASES.get(t.id)
    kept = basis.tables if basis is not None else {}
    missing = [
        at.table_id
        for r in t.rounds
        if not r.locked
        for at in r.tables
        if at.table_id in versions and (at.table_id, at.seats, *versions[at.table_id]) not in kept
    ]
    now = tables.get_tables(db, missing) if missing else {}
    if missing:  # moved on (or gone) since their versions were read: the standings of them as read
        versions = {i: v for i, v in versions.items() if i not in missing} | _versions_of(now)
        etag = _etag(t.id, t.revision, versions, after_round)
        if still_held(seen, etag):
            return etag
    else:
        etag = _etag(t.id, t.revision, versions, after_round)
    result = _standings_at(t, versions, now, after_round, etag)
    _COMPUTED.put((t.id, etag), result)
    return result


def _standings_of(t: Tournament, now: dict[str, TableInfo], after_round: int | None, etag: str) -> Standings:
    """The standings of ``t`` with its tables being played as ``now`` holds them, computed
    from the parts this process keeps (the same as ``_standings``: the tests hold them equal)."""
    return _standings_at(t, _versions_of(now), now, after_round, etag)


def _standings_at(
    t: Tournament, versions: Versions, now: dict[str, TableInfo], after_round: int | None, etag: str
) -> Standings:
    """The standings of ``t``, its tables being played at ``versions``: those scored at their
    version kept, the others as ``now`` holds them."""
    rounds = len(t.rounds) if after_round is None else min(after_round, len(t.rounds))
    basis = _BASES.get(t.id)
    ranked, basis = _ranked(t, _Tables(versions, now), rounds, basis)
    _BASES.put(t.id, basis)
    return Standings(t, rounds, ranked.rows, etag, ranked.keys)


@dataclass(frozen=True)
class _Tables:
    """The tables being played: their versions, and those read whole."""

    versions: Versions
    now: dict[str, TableInfo]


def _ranked(t: Tournament, now: _Tables, count: int, basis: _Basis | None) -> tuple[tally.Ranked, _Basis]:
    """The standings of ``count`` rounds from the parts ``basis`` kept, and the new basis."""
    scoring = t.scoring
    closed = basis.closed if basis is not None else {}
    kept_tables = basis.tables if basis is not None else {}
    new_closed: dict[repo.ClosedRound, tally.RoundScores] = {}
    new_tables: dict[Hashable, tally.Scored | None] = {}
    counted: list[repo.ClosedRound] = []
    playing: list[tally.RoundScores] = []
    for r in t.rounds:
        if r.closed_at is not None:
            version = (r.number, r.closed_at)
            scores = closed.get(version)
            if scores is None and r.number <= count:
                scores = _closed_round(scoring, r)
            if scores is not None:
                new_closed[version] = scores
            if r.number <= count:
                counted.append(version)
        elif r.number <= count:
            scored = [_table(scoring, at, now, kept_tables, new_tables) for at in r.tables]
            byes = [key(n) for n in r.byes]
            playing.append(tally.round_scores(scoring, r.number, [s for s in scored if s is not None], byes))
    folds = basis.folded if basis is not None else {}
    closed_key = tuple(counted)
    sums = folds.get(closed_key)
    if sums is None:
        sums = tally.fold({}, [new_closed[v] for v in closed_key])
    kept_folds = {k: v for k, v in folds.items() if k != closed_key and all(c in new_closed for c in k)}
    kept_folds = dict(list(kept_folds.items())[-(_FOLDS_KEPT - 1) :]) if _FOLDS_KEPT > 1 else {}
    kept_folds[closed_key] = sums
    folded = tally.refold(sums, playing, basis.playing if basis is not None else None)
    if basis is not None and basis.tournament is t:
        players = basis.players
    else:
        players = tuple(e.key for e in t.entrants)
    adjustments = [
        scoring_core.Adjustment(key(a.entrant), a.amount, a.reason, a.round)
        for a in t.adjustments
        if a.round is None or a.round <= count
    ]
    ranked = tally.ranked(
        scoring,
        players,
        folded.sums,
        [new_closed[v] for v in closed_key] + playing,
        adjustments,
        count,
        basis.ranked if basis is not None else None,
    )
    return ranked, _Basis(t, new_closed, new_tables, kept_folds, folded, players, ranked)


def _closed_round(scoring: scoring_core.Scoring, r: Round) -> tally.RoundScores:
    """A closed round's scores, from the balances stored with its tables."""
    scored = [
        tally.score_table(scoring, {key(n): b for n, b in zip(at.seats, at.balances)})
        for at in r.tables
        if at.balances is not None
    ]
    return tally.round_scores(scoring, r.number, scored, [key(n) for n in r.byes])


def _table(
    scoring: scoring_core.Scoring,
    at: TableAtRound,
    now: _Tables,
    kept: dict[Hashable, tally.Scored | None],
    scored: dict[Hashable, tally.Scored | None],
) -> tally.Scored | None:
    """A table's scores in a round being played (None while it plays, or gone): scored once
    per version of the table (its revision and deals), else kept."""
    if at.balances is not None:
        return tally.score_table(scoring, {key(n): b for n, b in zip(at.seats, at.balances)})
    if at.table_id is None or at.table_id not in now.versions:
        return None
    version = (at.table_id, at.seats, *now.versions[at.table_id])
    if version in kept:
        found = kept[version]
    else:
        table = now.now.get(at.table_id)
        if table is None:
            return None
        finished = table.state.finished
        balances = settle(table.rules, table.state).balances if finished else None
        found = (
            None if balances is None else tally.score_table(scoring, dict(zip(map(key, at.seats), balances)))
        )
    scored[version] = found
    return found
