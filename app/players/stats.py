"""Registered players' statistics, kept as one row per (player, table) (``player_tables``).

A row holds what the table's deals add up to for the player's seat (``Tally``), the table's
deal count, whether it is finished and, once it is, the seat's exact balance ("0" while the
table is played: only a finished table's balance is counted, and settling on every post cost
a sixth of the hook). It is written in the same transaction as the deal:

- ``seats_after_deal``: a post adds the deal's contribution to the table's rows, which the
  post's read of the table row brought along (``registered_seats``); the post writes them
  (``on_deal_posted``, or on PostgreSQL as ``SEAT_ROWS_REWRITTEN``, a member of its own
  statement) only when there are some, so a table without one costs nothing more;
- ``on_log_refolded``: an undo or a correction replaces each row with ``recompute`` of the
  log as it now stands (those use cases fold the whole log already).

A player's statistics are the sum of their rows (``player_stats``), filtered by convention
and by the date the table was created; ``recompute`` from the stored deals gives the same
rows, which is what the property test checks. Everything is exact: amounts are ints or
Fractions, stored as app.rules' JSON amounts ("p/q").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from fractions import Fraction
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.orm import Session

from app.players import repository
from app.rules import Deal, Entry, Rules, TableState, amount_from_json, amount_to_json, apply_deal, exact
from app.rules.settlement import balances as final_balances

# An all-pass streak counts once for its players when it reaches this many deals.
LONG_STREAK = 3


@dataclass
class Tally:
    """What one seat's deals at one table add up to (``player_tables.tally``)."""

    # "contract:6", "remise:7": deals declared, made, failed, undertricks
    declared: dict[str, list[int]] = field(default_factory=dict)
    misere: list[int] = field(default_factory=lambda: [0, 0, 0])  # made, failed, tricks taken
    whists_written: Fraction | int = 0
    whists_received: Fraction | int = 0
    allpass: list[int] = field(default_factory=lambda: [0, 0, 0])  # played, tricks, clean (0 tricks)
    long_streaks: int = 0  # all-pass streaks of LONG_STREAK or more at the table

    def to_json(self) -> dict[str, Any]:
        return {
            "declared": {k: list(v) for k, v in sorted(self.declared.items())},
            "misere": list(self.misere),
            "whists_written": amount_to_json(self.whists_written),
            "whists_received": amount_to_json(self.whists_received),
            "allpass": list(self.allpass),
            "long_streaks": self.long_streaks,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Tally:
        return cls(
            declared={k: list(v) for k, v in data["declared"].items()},
            misere=list(data["misere"]),
            whists_written=amount_from_json(data["whists_written"]),
            whists_received=amount_from_json(data["whists_received"]),
            allpass=list(data["allpass"]),
            long_streaks=data["long_streaks"],
        )

    def add(self, other: Tally) -> None:
        for key, counts in other.declared.items():
            mine = self.declared.setdefault(key, [0, 0, 0, 0])
            for i, c in enumerate(counts):
                mine[i] += c
        self.misere = [a + b for a, b in zip(self.misere, other.misere)]
        self.whists_written = exact(self.whists_written + other.whists_written)
        self.whists_received = exact(self.whists_received + other.whists_received)
        self.allpass = [a + b for a, b in zip(self.allpass, other.allpass)]
        self.long_streaks += other.long_streaks


def count_deal(
    tally: Tally, seat: int, deal: Deal, before: TableState, after: TableState, entries: Iterable[Entry]
) -> None:
    """Add one deal to ``seat``'s tally. ``before`` is the state the deal was scored on (its
    dealer is ``before.next_dealer``), ``after`` the state it left."""
    if deal.declarer == seat and deal.type in ("contract", "remise"):
        counts = tally.declared.setdefault(f"{deal.type}:{deal.level}", [0, 0, 0, 0])
        counts[0] += 1
        if deal.type == "remise":  # three undertricks at the level bid, never played
            short = 3
        elif deal.tricks is None:  # nobody whisted, or a half-whist: a made game
            short = 0
        else:
            assert deal.level is not None  # a contract's
            short = max(0, deal.level - deal.tricks_of(seat))
        if short:
            counts[2] += 1
            counts[3] += short
        else:
            counts[1] += 1
    elif deal.declarer == seat and deal.type == "misere":
        taken = deal.tricks_of(seat)
        tally.misere[0 if taken == 0 else 1] += 1
        tally.misere[2] += taken
    elif deal.type == "allpass":
        dealer = before.next_dealer
        if before.players == 3 or seat != dealer:  # at four the dealer sits out
            taken = deal.tricks_of(seat)
            tally.allpass[0] += 1
            tally.allpass[1] += taken
            tally.allpass[2] += taken == 0
        if before.streak < LONG_STREAK <= after.streak:
            tally.long_streaks += 1
    for e in entries:
        if e.kind == "whists":
            if e.seat == seat:
                tally.whists_written = exact(tally.whists_written + e.amount)
            if e.on == seat:
                tally.whists_received = exact(tally.whists_received + e.amount)


@dataclass(frozen=True)
class TableTally:
    """A seat's row as ``recompute`` makes it."""

    seat: int
    deal_count: int
    finished: bool
    balance: Fraction | int
    tally: Tally


def recompute(
    rules: Rules, first_dealer: int, bodies: Iterable[dict[str, Any]], seats: Iterable[int]
) -> dict[int, TableTally]:
    """Each seat's row from the stored deal log alone (a fold of the engine from a new table)."""
    seats = list(seats)
    tallies = {s: Tally() for s in seats}
    state = TableState.new(rules, first_dealer)
    count = 0
    for body in bodies:
        deal = Deal.from_dict(body)
        result = apply_deal(rules, state, deal)
        for s in seats:
            count_deal(tallies[s], s, deal, state, result.state, result.entries)
        state = result.state
        count += 1
    balances = _balances(rules, state)
    return {s: TableTally(s, count, state.finished, balances[s], tallies[s]) for s in seats}


def _balances(rules: Rules, state: TableState) -> list[Fraction | int]:
    """Each seat's stored balance: the exact final one once the table is finished, else 0."""
    if not state.finished:
        return [0] * state.players
    return [exact(b) for b in final_balances(rules, state)]


# --- the hooks of app/deals/service.py ------------------------------------------------

# The column the post's read of the table row carries, and the statement that rewrites the
# seats' rows as a member of the post's own (PostgreSQL; app/deals/repository.py).
registered_seats = repository.registered_seats
SEAT_ROWS_REWRITTEN = repository.SEAT_ROWS_REWRITTEN


@dataclass(frozen=True)
class SeatsAfterDeal:
    """What a post adds to its table's registered seats: the rows' changes (as
    ``repository.rewrite_seat_rows`` takes them) and every seat's balance as stored (exact once
    the table is finished, else 0), so that the post does not settle the table twice."""

    table_id: str
    changes: list[dict[str, Any]]
    balances: list[Fraction | int]

    def param(self) -> dict[str, Any]:
        """The parameters of ``SEAT_ROWS_REWRITTEN``, the changes in the post's own statement
        (PostgreSQL)."""
        return repository.seat_rows_param(self.table_id, self.changes)


def seats_after_deal(
    table_id: str,
    registered: list[list[Any]],
    rules: Rules,
    deal: Deal,
    before: TableState,
    after: TableState,
    entries: Iterable[Entry],
    deal_count: int,
) -> SeatsAfterDeal:
    """The deal (table ``table_id``'s ``deal_count``-th) added to the rows of its registered
    seats, ``registered`` as ``registered_seats`` read them ([row id, seat, tally, player id]):
    written by ``on_deal_posted``, or in the post's own statement."""
    entries = tuple(entries)
    balances = _balances(rules, after)  # once for every seat
    changes = []
    for row_id, seat, stored, _player in registered:
        tally = Tally.from_json(stored)
        count_deal(tally, seat, deal, before, after, entries)
        changes.append(
            {
                "row_id": row_id,
                "new_tally": tally.to_json(),
                "new_count": deal_count,
                "new_finished": after.finished,
                "new_balance": str(balances[seat]),
            }
        )
    return SeatsAfterDeal(table_id, changes, balances)


def on_deal_posted(session: Session | Connection, seats: SeatsAfterDeal) -> None:
    """In a post's transaction: its seats' rows rewritten (``seats_after_deal``)."""
    repository.rewrite_seat_rows(session, seats.changes)


def on_log_refolded(session: Session, table_id: str, rules: Rules, first_dealer: int) -> None:
    """In an undo's or a correction's transaction, once the log is written: each registered
    seat's row made again from the stored log."""
    linked = repository.linked_seat_rows(session, table_id)
    if not linked:
        return
    bodies = repository.deal_bodies(session, table_id)
    rows = recompute(rules, first_dealer, bodies, [r.seat for r in linked])
    repository.rewrite_seat_rows(
        session,
        [
            {
                "row_id": r.id,
                "new_tally": rows[r.seat].tally.to_json(),
                "new_count": rows[r.seat].deal_count,
                "new_finished": rows[r.seat].finished,
                "new_balance": str(rows[r.seat].balance),
            }
            for r in linked
        ],
    )


# --- the statistics of one player ------------------------------------------------------


@dataclass(frozen=True)
class PlayerStats:
    tables: int
    finished: int
    deals: int
    balance: Fraction  # over finished tables, in whists
    tally: Tally


def _start(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


def player_stats(
    session: Session,
    player_id: str,
    *,
    convention: str | None = None,
    since: date | None = None,
    until: date | None = None,
) -> PlayerStats:
    """The sum of the player's rows: tables created from ``since`` to ``until`` (UTC dates,
    both included), of ``convention`` when given."""
    rows = repository.stat_rows(
        session,
        player_id,
        convention=convention,
        since=_start(since) if since is not None else None,
        # up to date.max: no upper bound (and no day after it)
        before=_start(until + timedelta(days=1)) if until is not None and until < date.max else None,
    )
    # Summed as stored (ints, and "p/q" text only where a fraction occurs): a player at a few
    # hundred tables is summed in about a millisecond, no Tally built per row.
    declared: dict[str, list[int]] = {}
    misere = [0, 0, 0]
    allpass = [0, 0, 0]
    streaks = tables = finished = deals = 0
    written: list[Any] = [0]
    received: list[Any] = [0]
    balance: Any = 0
    for row in rows:  # one fetchall, not a fetch per row
        tables += 1
        deals += row.deal_count
        tally = row.tally
        if row.finished:
            finished += 1
            balance += int(row.balance) if "/" not in row.balance else Fraction(row.balance)
        _add_declared(declared, tally["declared"])
        m, a = tally["misere"], tally["allpass"]
        misere[0] += m[0]
        misere[1] += m[1]
        misere[2] += m[2]
        allpass[0] += a[0]
        allpass[1] += a[1]
        allpass[2] += a[2]
        streaks += tally["long_streaks"]
        written.append(tally["whists_written"])
        received.append(tally["whists_received"])
    total = Tally(
        declared=declared,
        misere=misere,
        whists_written=_sum_amounts(written),
        whists_received=_sum_amounts(received),
        allpass=allpass,
        long_streaks=streaks,
    )
    return PlayerStats(tables, finished, deals, Fraction(balance), total)


def _add_declared(declared: dict[str, list[int]], more: dict[str, list[int]]) -> None:
    """A row's declared contracts (by contract, four counts each) added to the sum."""
    for key, c in more.items():
        mine = declared.get(key)
        if mine is None:
            declared[key] = list(c)
        else:
            mine[0] += c[0]
            mine[1] += c[1]
            mine[2] += c[2]
            mine[3] += c[3]


def _sum_amounts(values: list[Any]) -> Fraction | int:
    """JSON amounts (ints, or "p/q") summed exactly."""
    whole = sum(v for v in values if type(v) is int)
    parts = [amount_from_json(v) for v in values if type(v) is not int]
    return exact(whole + sum(parts, Fraction(0))) if parts else whole


def stored_rows(session: Session, table_id: str) -> dict[int, TableTally]:
    """The rows of a table as stored (for the tests' comparison with ``recompute``)."""
    rows = repository.seat_rows(session, table_id)
    return {
        r.seat: TableTally(
            r.seat, r.deal_count, bool(r.finished), exact(Fraction(r.balance)), Tally.from_json(r.tally)
        )
        for r in rows
    }
