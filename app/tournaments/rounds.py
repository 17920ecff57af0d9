"""Drawing a round (the pure draw, app/tournaments/draw.py) and opening its tables, each an
ordinary table with a scorer link; the director's swap of two players before a round starts."""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from sqlalchemy.orm import Session

from app.kit.db import Database
from app.kit.errors import Conflict, Unprocessable
from app.players.service import SeatLink
from app.rules import FieldError, Sentence
from app.scorer import service as scorer_links
from app.tables import service as tables
from app.tables.model import DEFAULT_LIMITS, Limits
from app.tournaments import draw as drawing
from app.tournaments import repository as repo
from app.tournaments.closing import _closed_if_finished
from app.tournaments.model import (
    Round,
    Tournament,
    key,
)
from app.tournaments.reading import _entrant, _load, _moved, _round, _tables_now
from app.tournaments.standings import _standings


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
    t = _closed_if_finished(db, owner, tournament_id)
    _refuse_open_round(t)
    number = t.next_round
    roster = _roster(t, number)
    seed = secrets.randbelow(2**53) if seed is None else seed  # exact in every client's JSON numbers
    swiss = None
    if t.swiss and t.rounds:
        swiss = [s.player for s in _standings(t, _tables_now(db, t), None)]
    sizes = frozenset(t.table_sizes)
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
            _store_round(session, now_t, number, seed, seating.byes, made, by)
            final = _load(session, owner, tournament_id)
    except Exception:
        for _, table_id, _ in made:
            _drop_table(db, owner, table_id)
        raise
    return final, final.rounds[-1], {i: token for i, (_, _, token) in enumerate(made, 1)}


def _roster(t: Tournament, number: int) -> list[str]:
    """The players of round ``number``; refused when the planned rounds are drawn, or when they
    cannot fill the tables."""
    if number > t.rounds_planned:
        planned = Sentence("the tournament plans {rounds_planned} rounds", rounds_planned=t.rounds_planned)
        raise Conflict(
            Sentence(
                "the tournament's {rounds_planned} planned rounds are drawn", rounds_planned=t.rounds_planned
            ),
            [FieldError("rounds", planned)],
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
    return roster


def _store_round(
    session: Session,
    t: Tournament,
    number: int,
    seed: int,
    byes: Sequence[str],
    made: list[tuple[tuple[str, ...], str, str]],
    by: str,
) -> None:
    """The round drawn, its tables made, written with its audit entry."""
    bye_numbers = [int(p) for p in byes]
    tables = [
        {"number": i, "table_id": table_id, "seats": [int(p) for p in seats]}
        for i, (seats, table_id, _) in enumerate(made, 1)
    ]
    repo.add_round(session, t.id, number, seed, bye_numbers, tables)
    detail = {"round": number, "seed": seed, "tables": len(made), "byes": bye_numbers}
    repo.audit(session, t.id, by, "draw", detail)
    _moved(session, t)


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
    places: dict[int, tuple[list[int], int]] = {}
    for n in (a, b):
        at = where[n]
        row = seats[at] if at is not None else byes
        places[n] = (row, row.index(n))
    for n, other in ((a, b), (b, a)):
        row, index = places[n]
        row[index] = other
    return seats, byes, sorted({x for x in where.values() if x is not None})


def _refuse_swap(db: Database, t: Tournament, r: Round, a: int, b: int) -> None:
    """A swap of one player with himself, of an entrant the tournament has not, in a closed
    round or in one started (a deal at one of its tables) is refused."""
    if a == b:
        raise Unprocessable("a swap names two players", [FieldError("b", "must name another entrant than a")])
    for n in (a, b):
        _entrant(t, n)
    if r.locked:
        raise Conflict(
            Sentence("round {round_number} is closed", round_number=r.number),
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
        _refuse_started(r.number, started[0])


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
    _refuse_swap(db, t, r, a, b)
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
