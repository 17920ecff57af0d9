"""Tournaments: rounds of ordinary tables, a fair draw, standings, the director's tools.

A tournament is owned like a table. Its rounds are drawn by the pure draw
(app/tournaments/draw.py) and played at ordinary tables (app/tables), each with a scorer
link (app/scorer); its standings are the pure scoring's (app/tournaments/scoring.py) of the
tables' balances. A round is closed when every table of it has finished, or when the
director closes it: its tables are then locked (app/tables ``lock_tables``; the deals'
service refuses a post, an undo or a correction at a locked table) and their balances are
stored with the round's tables, so that the standings of closed rounds read no table. The
director reopens a round with a reason to correct it (its tables unlocked, the stored
balances dropped) and closes it again.

Who did what is a text the routes give (``by``: "key 12", "admin key"); the director's
tools write it to the audit with the moment."""

from __future__ import annotations

import hashlib
import logging
import secrets
import threading
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from cachetools import LRUCache
from sqlalchemy.orm import Session

from app.deals import service as deals
from app.events.changes import add_sink, announce, remove_sink
from app.kit.built import Built
from app.kit.db import Database
from app.kit.db.models import utcnow
from app.kit.errors import Conflict, NotFound, Unprocessable
from app.kit.repository import lock_owner
from app.players.service import SeatLink, get_player, new_player_id, player_name
from app.ratings import service as ratings
from app.rules import FieldError, InvalidTable, PenaltyDeal, Sentence, amounts, make_rules, sentence, settle
from app.scorer import service as scorer_links
from app.tables import service as tables
from app.tables.limits import REVISIONS_CHUNK
from app.tables.model import DEFAULT_LIMITS, Limits, TableInfo, check_names, loaded
from app.tournaments import draw as drawing
from app.tournaments import repository as repo
from app.tournaments import scoring as scoring_core
from app.tournaments.limits import TOURNAMENT_ADJUSTMENTS_MAX, TOURNAMENT_ENTRANTS_MAX, TOURNAMENTS_PER_OWNER
from app.tournaments.model import (
    CLOSED,
    OPEN,
    REOPENED,
    SCORING_PRESETS,
    AdjustmentInfo,
    AuditEntry,
    Entrant,
    GameEnd,
    PlayedTable,
    Round,
    TableAtRound,
    Tournament,
    TournamentPage,
    key,
    scoring_stored,
)
from app.tournaments.scoring import Scoring, Standing

log = logging.getLogger("prefscore.tournaments")
# What a round's table-finish closes in the audit's "by".
BY_TABLES = "the tables finished"
# The kind of event a change of a tournament's standings is announced with (app/live).
STANDINGS_CHANGED = "tournament.standings"


@dataclass(frozen=True)
class EntrantSpec:
    """An entrant as a request gives it: a name, or a registered player (with a name to
    use instead of the registry's, if given)."""

    name: str | None = None
    player: str | None = None


# --- reading ---------------------------------------------------------------------------------


def _load(session: Session, owner: str, tournament_id: str, *, lock: bool = False) -> Tournament:
    return repo.tournament(session, repo.row_of(session, owner, tournament_id, lock=lock))


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
    """The tournament and its unclosed tables; a round whose tables have all finished is
    closed first (so that its results are locked from the moment anyone looks)."""
    with db.read() as session:
        t = _load(session, owner, tournament_id)
    now = _tables_now(db, t)
    done = _finished_round(t, now)
    if done is None:
        return t, now
    try:
        _close(db, owner, tournament_id, done.number, BY_TABLES, only_if_finished=True)
    except Conflict:
        pass  # a deal undone meanwhile: the round plays on
    with db.read() as session:
        t = _load(session, owner, tournament_id)
    return t, _tables_now(db, t)


def close_if_finished(db: Database, table_id: str) -> None:
    """After a deal finished ``table_id``: if it is a tournament's table and every table of
    its round has finished, the round is closed now (its results locked)."""
    with db.read() as session:
        found = repo.tournament_of_table(session, table_id)
        owner = repo.owner_of(session, found.tournament_id) if found is not None else None
    if found is not None and owner is not None:
        _read(db, owner, found.tournament_id)


def watch_finished_tables(db: Database) -> Callable[[], None]:
    """Close a round as soon as its last table finishes: a sink of the committed changes
    (app/events/changes.py) that looks at a posted deal's table as stored (no read unless the
    deal finished the table). Returns the function that stops watching."""

    def sink(table_id: str, owner: str, revision: int, kind: str, stored: Any = None) -> None:
        if kind != "deal.posted" or stored is None or not stored.state.finished:
            return
        try:
            close_if_finished(db, table_id)
        except Exception:  # noqa: BLE001 - the deal is stored; the next read of the tournament closes the round
            log.exception("tournaments: the round of table %s could not be closed", table_id)

    add_sink(sink)
    return lambda: remove_sink(sink)


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
        rows = repo.listed_rows(session, owner, after=after, rows=limit + 1)
        items = tuple(repo.tournament(session, r) for r in rows[:limit])
    nxt = repo.encode_cursor(items[-1].id) if len(rows) > limit and items else None
    return TournamentPage(items, nxt)


def audit(
    db: Database, owner: str, tournament_id: str, *, after: int = 0, limit: int = 50
) -> tuple[list[AuditEntry], int | None]:
    """A page of the audit, oldest first: at most ``limit`` entries after the entry ``after``,
    and the entry a next page starts after (None on the last)."""
    with db.read() as session:
        row = repo.row_of(session, owner, tournament_id)
        entries = repo.audit_of(session, row.id, after=after, rows=limit + 1)
    page = entries[:limit]
    return page, (page[-1].id if len(entries) > limit and page else None)


# --- creating --------------------------------------------------------------------------------


def _check_rules(
    convention: str,
    pool_target: int | None,
    options: dict[str, Any],
    sizes: frozenset[int],
    game_end: GameEnd,
) -> list[FieldError]:
    """The tournament's rules at every table size it seats: a size the convention does not
    seat names ``table_sizes``; an option of the game's end names ``game_end``."""
    errors: list[FieldError] = []
    for name in ("end_of_game", "game_deals"):
        if name in options:
            errors.append(
                FieldError(
                    f"options.{name}", "a tournament's tables end as its game_end says; leave this option out"
                )
            )
    if errors:
        return errors
    for size in sorted(sizes):
        try:
            make_rules(
                convention, players=size, pool_target=pool_target, options={**options, **game_end.options()}
            )
        except InvalidTable as exc:
            for e in exc.errors:
                if e.field == "players":
                    errors.append(
                        FieldError(
                            "table_sizes",
                            Sentence(
                                "{reason}: a table of {size} is not played under these rules",
                                reason=sentence(e.reason),
                                size=size,
                            ),
                        )
                    )
                elif e.field in ("options.end_of_game", "options.game_deals", "options.match_bonuses"):
                    errors.append(
                        FieldError(
                            "game_end",
                            Sentence("{field}: {reason}", field=e.field, reason=sentence(e.reason)),
                        )
                    )
                else:
                    errors.append(e)
    unique: dict[tuple[str, str], FieldError] = {}
    for e in errors:
        unique.setdefault((e.field, e.reason), e)
    return list(unique.values())


def _entrant_rows(
    db: Database,
    owner: str,
    specs: Sequence[EntrantSpec],
    taken: Sequence[Entrant],
    joined_round: int,
    field: str = "entrants",
) -> list[dict[str, Any]]:
    """The rows of new entrants numbered after ``taken``; names distinct in the tournament,
    registered players of the owner's registry."""
    errors: list[FieldError] = []
    seen = {_folded(e.name): e.number for e in taken}
    players = {e.player_id for e in taken if e.player_id is not None}
    if len(taken) + len(specs) > TOURNAMENT_ENTRANTS_MAX:
        raise Unprocessable(
            Sentence(
                "a tournament has at most {tournament_entrants_max} entrants",
                tournament_entrants_max=TOURNAMENT_ENTRANTS_MAX,
            ),
            [
                FieldError(
                    field,
                    Sentence(
                        "at most {tournament_entrants_max} entrants in all",
                        tournament_entrants_max=TOURNAMENT_ENTRANTS_MAX,
                    ),
                )
            ],
        )
    rows = []
    number = max((e.number for e in taken), default=0)
    for i, spec in enumerate(specs):
        name = spec.name
        if spec.player is not None:
            try:
                registered = get_player(db, owner, spec.player)
            except NotFound:
                errors.append(FieldError(f"{field}.{i}.player", "no such player of this key's owner"))
                continue
            if registered.id in players:
                errors.append(FieldError(f"{field}.{i}.player", "this player is an entrant already"))
                continue
            players.add(registered.id)
            name = name if name is not None else registered.name
        name = player_name(name or "")
        bad = check_names([name], f"{field}.{i}.name")
        if bad:
            errors.extend(bad)
            continue
        if _folded(name) in seen:
            errors.append(
                FieldError(
                    f"{field}.{i}.name",
                    Sentence("{name!r} is an entrant already: names are distinct", name=name),
                )
            )
            continue
        number += 1
        seen[_folded(name)] = number
        rows.append(
            {
                "number": number,
                "name": name,
                "player_id": spec.player and registered.id,
                "joined_round": joined_round,
                "withdrawn_round": None,
            }
        )
    if errors:
        raise Unprocessable("the entrants do not fit the tournament", errors)
    return rows


def _folded(name: str) -> str:
    return unicodedata.normalize("NFC", name.casefold())


def create_tournament(
    db: Database,
    owner: str,
    *,
    name: str,
    convention: str,
    pool_target: int | None = None,
    options: dict[str, Any] | None = None,
    table_sizes: Sequence[int] = (3,),
    game_end: GameEnd = GameEnd("pool"),
    rounds: int,
    scoring: Scoring = SCORING_PRESETS["whists"],
    scoring_preset: str | None = "whists",
    swiss: bool = False,
    entrants: Sequence[EntrantSpec] = (),
    by: str,
) -> Tournament:
    options = dict(options or {})
    errors: list[FieldError] = []
    name = name.strip()
    if not name:
        errors.append(FieldError("name", "a tournament's name must not be empty"))
    sizes = frozenset(table_sizes)
    if not sizes or len(sizes) != len(table_sizes) or not sizes <= {3, 4}:
        errors.append(FieldError("table_sizes", "3, 4, or both, each once"))
    else:
        errors.extend(_check_rules(convention, pool_target, options, sizes, game_end))
    if errors:
        raise Unprocessable("the tournament's settings do not fit", errors)
    rows = _entrant_rows(db, owner, entrants, (), 1)
    tid = new_player_id()  # time-ordered hex: the listing pages by id
    now = utcnow()
    with db.write() as session:
        lock_owner(session, owner)
        count = repo.count_tournaments(session, owner)
        if count >= TOURNAMENTS_PER_OWNER:
            raise Conflict(
                Sentence(
                    "this key's owner has {count} tournaments, the most one owner may have", count=count
                ),
                reason="tournament_limit",
                limit=TOURNAMENTS_PER_OWNER,
            )
        repo.add_tournament(
            session,
            {
                "id": tid,
                "owner": owner,
                "name": name,
                "convention": convention,
                "pool_target": pool_target,
                "options": options,
                "table_sizes": sorted(sizes),  # type: ignore[arg-type]
                "game_end": game_end.stored(),
                "rounds": rounds,
                "scoring": scoring_stored(scoring, scoring_preset),
                "swiss": swiss,
                "share_token": secrets.token_urlsafe(24),
                "revision": 0,
                "created_at": now,
                "updated_at": now,
            },
        )
        repo.add_entrants(session, tid, rows)
        return _load(session, owner, tid)


# --- entrants --------------------------------------------------------------------------------


def _moved(session: Session, t: Tournament) -> None:
    """The tournament moved on (its ETag with it), announced on the owner's event streams."""
    repo.changed(session, t.id, t.revision + 1)
    announce(session, t.id, t.owner, t.revision + 1, STANDINGS_CHANGED)


def add_entrants(
    db: Database, owner: str, tournament_id: str, specs: Sequence[EntrantSpec], *, by: str
) -> Tournament:
    """Entries before the first round, or late entries: drawn from the next round on."""
    with db.read() as session:
        t = _load(session, owner, tournament_id)
    rows = _entrant_rows(db, owner, specs, t.entrants, t.next_round)
    with db.write() as session:
        t2 = _load(session, owner, tournament_id, lock=True)
        if t2.next_round != t.next_round or len(t2.entrants) != len(t.entrants):
            raise Conflict("the tournament changed meanwhile; send the entries again", reason="changed")
        repo.add_entrants(session, t.id, rows)
        if t.rounds:
            for r in rows:
                repo.audit(
                    session,
                    t.id,
                    by,
                    "late_entry",
                    {"entrant": r["number"], "name": r["name"], "from_round": t.next_round},
                )
        _moved(session, t2)
        return _load(session, owner, tournament_id)


def withdraw(db: Database, owner: str, tournament_id: str, number: int, *, by: str) -> Tournament:
    """The entrant is not drawn from the next round on (the rounds played stay in the standings)."""
    with db.write() as session:
        t = _load(session, owner, tournament_id, lock=True)
        entrant = _entrant(t, number)
        if entrant.withdrawn_round is not None:
            raise Conflict(
                Sentence(
                    "entrant {number} withdrew from round {withdrawn_round}",
                    number=number,
                    withdrawn_round=entrant.withdrawn_round,
                ),
                reason="withdrawn",
            )
        repo.withdraw(session, t.id, number, t.next_round)
        repo.audit(
            session,
            t.id,
            by,
            "withdrawal",
            {"entrant": number, "name": entrant.name, "from_round": t.next_round},
        )
        _moved(session, t)
        return _load(session, owner, tournament_id)


def _entrant(t: Tournament, number: int) -> Entrant:
    try:
        return t.entrant(number)
    except KeyError:
        raise NotFound(Sentence("tournament {id} has no entrant {number}", id=t.id, number=number)) from None


# --- rounds ----------------------------------------------------------------------------------


def _seatings(t: Tournament) -> list[drawing.Seating]:
    return [
        drawing.Seating(
            tables=tuple(tuple(key(n) for n in at.seats) for at in r.tables),
            byes=tuple(key(n) for n in r.byes),
        )
        for r in t.rounds
    ]


def _refuse_open_round(t: Tournament) -> None:
    last = t.last_round
    if last is not None and not last.locked:
        raise Conflict(
            Sentence(
                "round {number} is {status}: every table of it finishes, or the director closes it (POST /v1/tournaments/{id}/rounds/{number}/close), before the next round is drawn",
                number=last.number,
                status=last.status,
                id=t.id,
            ),
            [
                FieldError(
                    "round",
                    Sentence("round {number} is still {status}", number=last.number, status=last.status),
                )
            ],
            reason="round_open",
            round=last.number,
        )


def draw_round(
    db: Database,
    owner: str,
    tournament_id: str,
    *,
    by: str,
    seed: int | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> tuple[Tournament, Round, dict[int, str]]:
    """Draw the next round and open its tables, each with a scorer link. Returns the
    tournament, the round, and each table's scorer link token (shown this once)."""
    t, _ = _read(db, owner, tournament_id)
    _refuse_open_round(t)
    number = t.next_round
    if number > t.rounds_planned:
        raise Conflict(
            Sentence(
                "the tournament's {rounds_planned} planned rounds are drawn", rounds_planned=t.rounds_planned
            ),
            [
                FieldError(
                    "rounds",
                    Sentence("the tournament plans {rounds_planned} rounds", rounds_planned=t.rounds_planned),
                )
            ],
            reason="rounds_done",
        )
    roster = [e.key for e in t.entrants if e.plays(number)]
    sizes = frozenset(t.table_sizes)
    try:
        drawing.table_plan(len(roster), sizes)
    except ValueError:
        raise Unprocessable(
            Sentence("{roster} players cannot fill a table", roster=len(roster)),
            [
                FieldError(
                    "entrants",
                    Sentence(
                        "round {number} has {roster} players; a table seats {sizes} at least",
                        number=number,
                        roster=len(roster),
                        sizes=min(sizes),
                    ),
                )
            ],
        ) from None
    seed = secrets.randbelow(2**53) if seed is None else seed  # exact in every client's JSON numbers
    swiss = None
    if t.swiss and t.rounds:
        swiss = [s.player for s in _standings(t, _tables_now(db, t), None)]
    seating = drawing.draw(roster, sizes, drawing.history_of(_seatings(t)), seed, swiss=swiss)
    made = open_round_tables(db, t, number, seating, limits=limits)
    try:
        with db.write() as session:
            now_t = _load(session, owner, tournament_id, lock=True)
            _refuse_open_round(now_t)
            if now_t.next_round != number:
                raise Conflict(
                    Sentence("round {number} was drawn meanwhile", number=number), reason="changed"
                )
            repo.add_round(
                session,
                t.id,
                number,
                seed,
                [int(p) for p in seating.byes],
                [
                    {"number": i, "table_id": table_id, "seats": [int(p) for p in seats]}
                    for i, (seats, table_id, _) in enumerate(made, 1)
                ],
            )
            repo.audit(
                session,
                t.id,
                by,
                "draw",
                {"round": number, "seed": seed, "tables": len(made), "byes": [int(p) for p in seating.byes]},
            )
            _moved(session, now_t)
            final = _load(session, owner, tournament_id)
    except Exception:
        for _, table_id, _ in made:
            _drop_table(db, owner, table_id)
        raise
    return final, final.rounds[-1], {i: token for i, (_, _, token) in enumerate(made, 1)}


def _drop_table(db: Database, owner: str, table_id: str) -> None:
    """A table made for a change that failed: dropped unless it got a deal meanwhile."""
    tables.drop_unplayed_table(db, owner, table_id)


def open_round_tables(
    db: Database,
    t: Tournament,
    round_number: int,
    seating: drawing.Seating,
    *,
    limits: Limits = DEFAULT_LIMITS,
) -> list[tuple[tuple[str, ...], str, str]]:
    """The one place a round's tables are made: an ordinary table per drawn table (named
    "<tournament> · round R · table T", seat 0 dealing first) with a scorer link each.
    Returns (seats, table id, scorer link token) per table, in table order. Each table is
    its own transaction (the tables' service); on a refusal the tables made are deleted."""
    made: list[tuple[tuple[str, ...], str, str]] = []
    try:
        for number, seats in enumerate(seating.tables, 1):
            made.append((seats, *_open_table(db, t, round_number, number, seats, limits)))
    except Exception:
        for _, table_id, _ in made:
            _drop_table(db, t.owner, table_id)
        raise
    return made


def _open_table(
    db: Database, t: Tournament, round_number: int, number: int, seats: Sequence[str], limits: Limits
) -> tuple[str, str]:
    entrants = {e.key: e for e in t.entrants}
    players: list[str | SeatLink] = [
        SeatLink(entrants[p].name, player=entrants[p].player_id)
        if entrants[p].player_id
        else entrants[p].name
        for p in seats
    ]
    table = tables.create_table(
        db,
        t.owner,
        players=players,
        convention=t.convention,
        pool_target=t.pool_target,
        first_dealer=0,
        options=t.table_options(),
        rated=True,  # a tournament's tables count for ratings (those of registered players only)
        title=table_title(t.name, round_number, number),
        limits=limits,
    )
    try:
        _, token = scorer_links.create_link(db, t.owner, table.id)
    except Exception:
        _drop_table(db, t.owner, table.id)
        raise
    return table.id, token


def table_title(tournament: str, round_number: int, table: int) -> str:
    return f"{tournament} · round {round_number} · table {table}"


def _round(t: Tournament, number: int) -> Round:
    for r in t.rounds:
        if r.number == number:
            return r
    raise NotFound(Sentence("tournament {id} has no round {number}", id=t.id, number=number))


def _swapped(r: Round, a: int, b: int) -> tuple[dict[int, list[int]], list[int], list[int]]:
    """The round's seats and byes with ``a`` and ``b`` changing places, and the tables whose
    players change (both at one table: its seat order changes)."""
    where: dict[int, int | None] = {}
    for n, name in ((a, "a"), (b, "b")):
        found = [at.number for at in r.tables if n in at.seats]
        if not found and n not in r.byes:
            raise Unprocessable(
                Sentence("entrant {n} is not in round {number}", n=n, number=r.number),
                [FieldError(name, "not drawn in this round")],
            )
        where[n] = found[0] if found else None
    seats = {at.number: list(at.seats) for at in r.tables}
    byes = list(r.byes)
    # where each one sits (or sits out), found before either place is written
    places = {
        n: (seats[where[n]], seats[where[n]].index(n)) if where[n] is not None else (byes, byes.index(n))
        for n in (a, b)
    }
    for n, other in ((a, b), (b, a)):
        row, index = places[n]
        row[index] = other
    return seats, byes, sorted({x for x in where.values() if x is not None})


def _refuse_started(round_number: int, table: int) -> None:
    raise Conflict(
        Sentence(
            "round {round_number} has started (a deal at table {started}); players are swapped before a round starts",
            round_number=round_number,
            started=table,
        ),
        [FieldError("round", Sentence("round {round_number} has started", round_number=round_number))],
        reason="round_started",
        table=table,
    )


def swap(
    db: Database, owner: str, tournament_id: str, round_number: int, a: int, b: int, *, by: str
) -> tuple[Tournament, dict[int, str]]:
    """The director swaps two players of a round before it starts (no deal at any of its
    tables). The tables they sit at are made again with the players swapped (new tables,
    new scorer links: a registered player's seat is linked when a table is made); a player
    with a bye changes places with one at a table. Returns the new links by table number.

    The old tables are dropped in the transaction that puts the new ones in the round, each
    row locked as a deal's post locks it: a deal stored at one first refuses the swap (409
    naming the table), a deal posted after waits and finds its table gone."""
    with db.read() as session:
        t = _load(session, owner, tournament_id)
    r = _round(t, round_number)
    if a == b:
        raise Unprocessable("a swap names two players", [FieldError("b", "must name another entrant than a")])
    for n in (a, b):
        _entrant(t, n)
    if r.locked:
        raise Conflict(
            Sentence("round {round_number} is closed", round_number=round_number),
            [FieldError("round", "a closed round's seats stay")],
            reason="round_closed",
        )
    now = _tables_now(db, t)
    started = [
        at.number
        for at in r.tables
        if at.table_id is None or now.get(at.table_id) is None or now[at.table_id].deal_count > 0
    ]
    if started:
        _refuse_started(round_number, started[0])
    seats, byes, changed_tables = _swapped(r, a, b)
    made: dict[int, tuple[str, str]] = {}
    try:
        for number in changed_tables:
            made[number] = _open_table(
                db, t, round_number, number, [key(x) for x in seats[number]], DEFAULT_LIMITS
            )
        with db.write() as session:
            t2 = _load(session, owner, tournament_id, lock=True)
            if t2.revision != t.revision:
                raise Conflict("the tournament changed meanwhile; swap again", reason="changed")
            for at in r.tables:
                if (
                    at.number in made
                    and at.table_id is not None
                    and tables.drop_unplayed(session, owner, at.table_id) is not None
                ):
                    _refuse_started(round_number, at.number)
            for number, (table_id, _) in made.items():
                repo.set_table(
                    session, t.id, round_number, number, {"table_id": table_id, "seats": seats[number]}
                )
            repo.set_round(session, t.id, round_number, {"byes": byes})
            repo.audit(
                session, t.id, by, "swap", {"round": round_number, "a": a, "b": b, "tables": changed_tables}
            )
            _moved(session, t2)
    except Exception:
        for table_id, _ in made.values():
            _drop_table(db, owner, table_id)
        raise
    with db.read() as session:
        return _load(session, owner, tournament_id), {n: token for n, (_, token) in made.items()}


def close_round(db: Database, owner: str, tournament_id: str, round_number: int, *, by: str) -> Tournament:
    """The director closes a round: its tables are locked as they stand and their balances
    stored (a table not finished counts as if its game ended now)."""
    _close(db, owner, tournament_id, round_number, by)
    return get_tournament(db, owner, tournament_id)[0]


def _lock_reason(t: Tournament, round_number: int) -> str:
    return (
        f"round {round_number} of tournament {t.name!r} is closed; its director reopens it to change a deal"
    )


def _close(
    db: Database,
    owner: str,
    tournament_id: str,
    round_number: int,
    by: str,
    *,
    only_if_finished: bool = False,
) -> None:
    with db.write() as session:
        t = _load(session, owner, tournament_id, lock=True)
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
                row = tables.load_row(session, owner, at.table_id, lock=True)
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


# --- the director's adjustments ---------------------------------------------------------------


def add_adjustment(
    db: Database,
    owner: str,
    tournament_id: str,
    *,
    entrant: int,
    amount: Fraction,
    reason: str,
    round_number: int | None,
    by: str,
) -> tuple[Tournament, AdjustmentInfo]:
    """An adjustment of one player's total, in the scoring's unit, with its reason; one of a
    round is refused while that round is closed (the director reopens it first)."""
    reason = reason.strip()
    if not reason:
        raise Unprocessable(
            "an adjustment is made with a reason", [FieldError("reason", "must not be empty")]
        )
    with db.write() as session:
        t = _load(session, owner, tournament_id, lock=True)
        if len(t.adjustments) >= TOURNAMENT_ADJUSTMENTS_MAX:
            raise Conflict(
                Sentence(
                    "tournament {id} has {adjustments} adjustments, the most one may have",
                    id=t.id,
                    adjustments=len(t.adjustments),
                ),
                reason="adjustment_limit",
                limit=TOURNAMENT_ADJUSTMENTS_MAX,
            )
        if not any(e.number == entrant for e in t.entrants):
            raise Unprocessable(
                Sentence("no entrant {entrant}", entrant=entrant),
                [
                    FieldError(
                        "entrant",
                        Sentence("tournament {id} has no entrant {entrant}", id=t.id, entrant=entrant),
                    )
                ],
            )
        if round_number is not None:
            if round_number > len(t.rounds):
                raise Unprocessable(
                    Sentence("no round {round_number}", round_number=round_number),
                    [FieldError("round", Sentence("{rounds} rounds are drawn", rounds=len(t.rounds)))],
                )
            r = _round(t, round_number)
            if r.locked:
                raise Conflict(
                    Sentence(
                        "round {round_number} is closed: its director reopens it (with a reason) before adjusting it",
                        round_number=round_number,
                    ),
                    [
                        FieldError(
                            "round", Sentence("round {round_number} is closed", round_number=round_number)
                        )
                    ],
                    reason="round_closed",
                )
        repo.add_adjustment(
            session,
            t.id,
            {
                "entrant": entrant,
                "amount": amounts.exact_text(amount),
                "reason": reason,
                "round": round_number,
                "by": by,
            },
        )
        repo.audit(
            session,
            t.id,
            by,
            "adjustment",
            {
                "entrant": entrant,
                "amount": amounts.exact_text(amount),
                "reason": reason,
                "round": round_number,
            },
        )
        _moved(session, t)
        t = _load(session, owner, tournament_id)
    return t, t.adjustments[-1]


# --- the director's penalties (docs/rules.md §15) -----------------------------------------------


@dataclass(frozen=True)
class PenaltyPosted:
    """A director's penalty as posted at a round's table: where, on whom, and the deal."""

    round: int
    table: int
    table_id: str
    entrant: int
    seat: int
    posted: deals.Posted


def post_penalty(
    db: Database,
    owner: str,
    tournament_id: str,
    *,
    round_number: int,
    table: int,
    entrant: int,
    penalty: dict[str, Any],
    by: str,
    idempotency_key: str | None = None,
    request_hash: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> PenaltyPosted:
    """The director writes a penalty on an entrant at a round's table: posted in that table's
    log as a deal is (the table row locked, refused at a locked table: a closed round is
    reopened first), with its Idempotency-Key, and audited in the same transaction. A retry
    with the key replays the first answer and audits nothing again. ``penalty``: the
    penalty's own fields (amount, destination, violation, clause, reason)."""
    with db.read() as session:
        t = _load(session, owner, tournament_id)
    if not 1 <= round_number <= len(t.rounds):
        raise Unprocessable(
            Sentence("no round {round_number}", round_number=round_number),
            [FieldError("round", Sentence("{rounds} rounds are drawn", rounds=len(t.rounds)))],
        )
    r = _round(t, round_number)
    at = next((x for x in r.tables if x.number == table), None)
    if at is None or at.table_id is None:
        raise Unprocessable(
            Sentence("round {round_number} has no table {table}", round_number=round_number, table=table),
            [
                FieldError(
                    "table",
                    Sentence(
                        "round {round_number} has {tables} tables",
                        round_number=round_number,
                        tables=len(r.tables),
                    ),
                )
            ],
        )
    if entrant not in at.seats:
        raise Unprocessable(
            Sentence(
                "entrant {entrant} does not sit at table {table} of round {round_number}",
                entrant=entrant,
                table=table,
                round_number=round_number,
            ),
            [
                FieldError(
                    "entrant",
                    Sentence(
                        "table {table} seats entrants {seats}",
                        table=table,
                        seats=", ".join(str(s) for s in at.seats),
                    ),
                )
            ],
        )
    seat = at.seats.index(entrant)
    deal = PenaltyDeal(offender=seat, **penalty)
    table_id = at.table_id

    def audited(conn: Any, written: deals.DealInfo) -> None:
        entry = written.entries[0] if written.entries else None
        repo.audit(
            conn,
            t.id,
            by,
            "penalty",
            {
                "round": round_number,
                "table": table,
                "entrant": entrant,
                "seat": seat,
                "deal": written.number,
                "amount": deal.amount,
                "to": entry.kind if entry is not None else None,
                "violation": deal.violation,
                "clause": deal.clause,
                "reason": deal.reason,
            },
        )

    posted = deals.post_deal(
        db,
        owner,
        table_id,
        deal,
        idempotency_key=idempotency_key,
        request_hash=request_hash,
        limits=limits,
        also=audited,
    )
    return PenaltyPosted(round_number, table, table_id, entrant, seat, posted)


def penalties_shown(db: Database, t: Tournament) -> list[dict[str, Any]]:
    """The penalties standing in the tournament's tables' logs, round and table first, as the
    public page lists them (an undone or corrected penalty as the log now holds it)."""
    where: dict[str, TableAtRound] = {
        at.table_id: at for r in t.rounds for at in r.tables if at.table_id is not None
    }
    found = deals.penalties_at(db, list(where))
    out = []
    for table_id, infos in found.items():
        at = where[table_id]
        for d in infos:
            body = d.body
            offender = body["offender"]
            out.append(
                {
                    "round": at.round,
                    "table": at.number,
                    "deal": d.number,
                    "entrant": at.seats[offender] if offender < len(at.seats) else None,
                    "amount": body.get("amount"),
                    "to": d.entries[0].kind if d.entries else None,
                    "violation": body.get("violation"),
                    "clause": body.get("clause"),
                    "reason": body.get("reason"),
                }
            )
    out.sort(key=lambda p: (p["round"], p["table"], p["deal"]))
    return out


# --- standings -------------------------------------------------------------------------------


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
    return '"' + hashlib.sha256("|".join(parts).encode()).hexdigest()[:32] + '"'


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
_COMPUTED: LRUCache[tuple[str, str], Standings] = LRUCache(maxsize=32)
_COMPUTED_LOCK = threading.Lock()


def standings(
    db: Database, owner: str, tournament_id: str, *, after_round: int | None = None, seen: str | None = None
) -> Standings | str:
    """The standings after every round drawn (or after ``after_round``), with their ETag;
    only the ETag when the viewer has that version (``seen``: If-None-Match).

    The version is read first (the tournament's row, its rounds' states, the tables of the
    rounds not closed); standings computed at that version before are answered as they were,
    else the tournament is read whole and its standings computed."""
    from app.kit.etags import none_match

    with db.read() as session:
        row = repo.row_of(session, owner, tournament_id)
        rounds, open_tables = repo.version(session, row.id)
    now = (
        tables.get_tables(db, [r.table_id for r in open_tables if r.table_id is not None])
        if open_tables
        else {}
    )
    last = rounds[-1] if rounds else None
    if last is not None and last.closed_at is None and not last.reopened:
        ids = [r.table_id for r in open_tables if r.round == last.number]
        if ids and all(i is not None and i in now and now[i].state.finished for i in ids):
            return _computed(db, owner, tournament_id, after_round, seen)  # closes the round first
    etag = _etag(row.id, row.revision, now, after_round)
    if none_match(seen, etag):
        return etag
    with _COMPUTED_LOCK:
        found = _COMPUTED.get((row.id, etag))
    return found if found is not None else _computed(db, owner, tournament_id, after_round, seen)


def _computed(
    db: Database, owner: str, tournament_id: str, after_round: int | None, seen: str | None
) -> Standings | str:
    from app.kit.etags import none_match

    t, now = _read(db, owner, tournament_id)
    etag = standings_etag(t, now, after_round)
    if none_match(seen, etag):
        return etag
    result = _standings_of(t, now, after_round, etag)
    with _COMPUTED_LOCK:
        _COMPUTED[(t.id, etag)] = result
    return result


def _standings_of(t: Tournament, now: dict[str, TableInfo], after_round: int | None, etag: str) -> Standings:
    rows = _standings(t, now, after_round)
    rounds = len(t.rounds) if after_round is None else min(after_round, len(t.rounds))
    return Standings(t, rounds, tuple(rows), etag)


# --- the share link and the public page ---------------------------------------------------------


@dataclass(frozen=True)
class PublicView:
    """Everything a public page of the tournament shows: the standings, the current round's
    tables (with their share links and live sheets' event streams), the round history."""

    tournament: Tournament
    standings: Standings
    current: Round | None
    current_tables: tuple[PlayedTable, ...]
    history: tuple[tuple[Round, tuple[PlayedTable, ...]], ...]  # every round, latest first
    # The current round's tables whose players are all registered and rated: each seat's
    # chance to finish first (app/ratings, in the tournament's convention's pool), by table.
    chances: dict[int, tuple[float, ...]] = field(default_factory=dict)
    # The judges' penalties standing in the tables' logs (``penalties_shown``).
    penalties: tuple[dict[str, Any], ...] = ()
    # The tournament's version it was built at (``_public_version``): with the ETag, the
    # revision of what is built from the view (the page, the JSON).
    version: str = ""

    @property
    def built_at(self) -> str:
        """What a page or an answer made of this view is kept by: its version and its ETag."""
        return f"{self.version}|{self.etag}"

    @property
    def etag(self) -> str:
        """The share link's version: the standings', and the chances shown (a player's
        rating moves with a table outside the tournament too)."""
        if not self.chances:
            return self.standings.etag
        shown = repr(sorted(self.chances.items()))
        return '"' + hashlib.sha256(f"{self.standings.etag}|{shown}".encode()).hexdigest()[:32] + '"'

    def share_link(self, table: PlayedTable) -> str | None:
        return None if table.share_token is None else f"/shared/{table.share_token}"

    def live_link(self, table: PlayedTable) -> str | None:
        return None if table.share_token is None else f"/v1/shared/{table.share_token}/events"


def _read_shared(db: Database, token: str) -> tuple[Tournament, dict[str, TableInfo]]:
    with db.read() as session:
        row = repo.shared_row(session, token)
    return _read(db, row.owner, row.id)


# The public views built, by share token: one per version of its tournament (``_public_version``),
# built once however many anonymous viewers poll it. Bounded: a view of a 600-player
# tournament is a few MB of objects.
PUBLIC_VIEWS_KEPT = 16
_PUBLIC_VIEWS: Built[PublicView] = Built(PUBLIC_VIEWS_KEPT)


def _public_version(db: Database, token: str) -> str:
    """The version of the share token's tournament as its public view shows it, read without
    the tournament (404 for an unknown token): its revision (every change of the tournament
    moves it: a round drawn, closed or reopened, a swap, an adjustment, an entry) and the
    (revision, deals) of every table of a round not closed and of the current round (a deal,
    an undo, a rename, a new share link of a table move them). Its tables' states are not
    read: a view kept at this version was built from these very tables, and the build
    closed the last round if they had all finished (``_read``)."""
    with db.read() as session:
        row = repo.shared_row(session, token)
        rounds, open_tables = repo.version(session, row.id)
        last = rounds[-1] if rounds else None
        current = (
            repo.round_table_ids(session, row.id, last.number)
            if last is not None and last.closed_at is not None
            else []
        )
    ids = [r.table_id for r in open_tables if r.table_id is not None] + current
    now = tables.versions(db, ids) if ids else {}
    parts = [row.id, str(row.revision), str(STANDINGS_SHAPE)] + [
        f"{i}:{v[0]}:{v[1]}" for i, v in sorted(now.items())
    ]
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:32]


def public_view(db: Database, token: str) -> PublicView:
    """The tournament of a share token (404 for an unknown one), as a public page shows it:
    built once per version of the tournament (``_public_version``), the current round's
    chances read anew (a player's rating moves with tables outside the tournament)."""
    version = _public_version(db, token)
    view = _PUBLIC_VIEWS.get_or_build(token, version, lambda: _build_public_view(db, token, version))
    return replace(view, chances=_chances(db, view.tournament, view.current))


def _build_public_view(db: Database, token: str, version: str) -> PublicView:
    t, now = _read_shared(db, token)
    current = t.last_round
    table_stand = _standings_of(t, now, None, standings_etag(t, now, None))
    played = played_tables(t, _with_tables_of(db, t, now, [current] if current else []))
    return PublicView(
        tournament=t,
        standings=table_stand,
        current=current,
        current_tables=tuple(played[current.number]) if current else (),
        history=tuple((r, tuple(played[r.number])) for r in reversed(t.rounds)),
        version=version,
        penalties=tuple(penalties_shown(db, t)),
    )


def _chances(db: Database, t: Tournament, current: Round | None) -> dict[int, tuple[float, ...]]:
    """The current round's forecasts (one read of the ratings for the whole round); none for
    a table with a plain name at a seat."""
    if current is None:
        return {}
    registered = {e.number: e.player_id for e in t.entrants}
    seatings = [
        ratings.Seating(at.table_id, tuple(registered.get(n) for n in at.seats)) for at in current.tables
    ]
    found = ratings.chances_at_tables(db, t.owner, seatings, convention=t.convention)
    return {at.number: c for at, c in zip(current.tables, found) if c is not None}


@dataclass(frozen=True)
class SharedVersion:
    """What a share link's event stream needs of its tournament: which it is, its revision
    (every change of its standings moves it) and the share token it is read with now."""

    tournament_id: str
    revision: int
    share_token: str


def shared_version(db: Database, token: str) -> SharedVersion:
    """The tournament of a share token (404 for an unknown or replaced one), read without its rounds."""
    with db.read() as session:
        row = repo.shared_row(session, token)
    return SharedVersion(row.id, row.revision, row.share_token)


def versions(db: Database, tournament_ids: list[str]) -> dict[str, tuple[int, str]]:
    """(revision, share_token) of these tournaments, in one read per chunk (a tournament gone is absent)."""
    out: dict[str, tuple[int, str]] = {}
    with db.read() as session:
        for i in range(0, len(tournament_ids), REVISIONS_CHUNK):
            out.update(repo.versions(session, tournament_ids[i : i + REVISIONS_CHUNK]))
    return out


def shared_etag(db: Database, token: str) -> str:
    t, now = _read_shared(db, token)
    return standings_etag(t, now, -1)


def rotate_share_token(db: Database, owner: str, tournament_id: str) -> Tournament:
    with db.write() as session:
        t = _load(session, owner, tournament_id, lock=True)
        repo.new_share_token(session, t.id)
        _moved(session, t)
        return _load(session, owner, tournament_id)


__all__ = [
    "BY_TABLES",
    "CLOSED",
    "OPEN",
    "REOPENED",
    "STANDINGS_CHANGED",
    "EntrantSpec",
    "PublicView",
    "SharedVersion",
    "Standings",
    "add_adjustment",
    "add_entrants",
    "audit",
    "close_round",
    "create_tournament",
    "draw_round",
    "get_tournament",
    "list_tournaments",
    "open_round_tables",
    "public_view",
    "reopen_round",
    "results_of",
    "rotate_share_token",
    "shared_version",
    "standings",
    "swap",
    "versions",
    "withdraw",
]
