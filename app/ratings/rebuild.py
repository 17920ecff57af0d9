"""The ratings recomputed from the rated tables in finishing order, compared with the stored
ones (``differences``), and restored from them (``rebuild``: ``prefscore ratings rebuild``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from functools import partial
from typing import Any

from app.kit.db import Database
from app.kit.db.models import utcnow
from app.ratings import rebuild_repository as rebuild_repo
from app.ratings.hooks import _current, caught_up, rate_pending
from app.ratings.model import (
    INITIAL,
    Outcome,
    RateableSeat,
    Rating,
    pools_of,
    rate,
)


@dataclass
class Recomputed:
    """Every rating row of one owner as the rated tables give them."""

    stored: list[Any]  # the rated tables as stored, for the comparison
    rated: list[dict[str, Any]] = field(default_factory=list)
    changes: dict[tuple[str, str, str], tuple[float, float, float, float, int, int]] = field(
        default_factory=dict
    )
    current: dict[tuple[str, str], tuple[float, float, int, int]] = field(default_factory=dict)


def _amount(text: str) -> Fraction | int:
    """A stored balance: an int's text, or "p/q" (an int compares faster than a Fraction)."""
    return int(text) if "/" not in text else Fraction(text)


def _outcomes(conn: Any, owner: str, stored: list[Any]) -> list[Outcome]:
    """The owner's rateable tables (rated, finished, every seat a registered player, from the
    seats' stored balances), in finishing order: the stored order, and any table missing from
    it after, by when it changed last."""
    seats: dict[str, list[RateableSeat]] = {}
    for r in rebuild_repo.rateable_seats(conn, owner):
        seats.setdefault(r.id, []).append(r)
    outcomes: dict[str, Outcome] = {}
    changed_at: dict[str, Any] = {}
    for table_id, rows in seats.items():
        if len(rows) != rows[0].seats or not all(r.finished for r in rows):
            continue
        outcomes[table_id] = Outcome(
            table_id,
            owner,
            rows[0].convention,
            tuple(r.player_id for r in rows),
            tuple(_amount(r.balance) for r in rows),
        )
        changed_at[table_id] = rows[0].updated_at
    order = [r.table_id for r in stored if r.table_id in outcomes]
    known = set(order)
    order += sorted((t for t in outcomes if t not in known), key=lambda t: (changed_at[t], t))
    return [outcomes[t] for t in order]


def recompute(conn: Any, owner: str) -> Recomputed:
    """Every rating of one owner from the rated tables alone, in finishing order."""
    stored = rebuild_repo.all_rated(conn, owner)
    outcomes = _outcomes(conn, owner, stored)
    finished_at = {r.table_id: r.finished_at for r in stored}
    result = Recomputed(stored=stored)
    ratings: dict[tuple[str, str], Rating] = {}
    for seq, o in enumerate(outcomes, start=1):
        result.rated.append(
            {
                "table_id": o.table_id,
                "owner": owner,
                "convention": o.convention,
                "seq": seq,
                "outcome": o.to_json(),
                "finished_at": finished_at.get(o.table_id) or utcnow(),
                "stamp": 0,
            }
        )
        last: tuple[list[Rating], list[Rating]] | None = None
        for pool in pools_of(o.convention):
            before = [ratings.get((pool, p), INITIAL) for p in o.players]
            after = last[1] if last is not None and last[0] == before else rate(before, o.balances)
            last = (before, after)
            for player, old, new in zip(o.players, before, after):
                ratings[(pool, player)] = new
                result.changes[(o.table_id, pool, player)] = (
                    old.mu,
                    old.sigma,
                    new.mu,
                    new.sigma,
                    new.games,
                    seq,
                )
                result.current[(pool, player)] = (new.mu, new.sigma, new.games, seq)
    return result


def differences(conn: Any, owner: str, computed: Recomputed | None = None) -> list[str]:
    """How the stored ratings of one owner differ from ``recompute`` (nothing when they agree
    bit for bit; the finishing order's numbers may have gaps, its order may not)."""
    return [line() for line in _differences(conn, owner, computed or recompute(conn, owner))]


def _worded(template: str, /, **values: Any) -> Callable[[], str]:
    """A difference's words, made only when asked."""
    return partial(template.format, **values)


def _unequal(what: str, stored: dict[Any, Any], recomputed: dict[Any, Any]) -> Iterator[Callable[[], str]]:
    """The keys whose stored value is not the recomputed one, in key order (none compared
    one by one when the two are equal)."""
    if stored == recomputed:
        return
    for key in sorted(set(stored) | set(recomputed)):
        if stored.get(key) != recomputed.get(key):
            yield _worded(
                "{what} {key}: stored {stored}, recomputed {recomputed}",
                what=what,
                key=key,
                stored=stored.get(key),
                recomputed=recomputed.get(key),
            )


def _differences(conn: Any, owner: str, computed: Recomputed) -> Iterator[Callable[[], str]]:
    """Each difference as a function that words it (a rebuild from nothing finds hundreds of
    thousands, and words only the first few)."""
    stored_rated = computed.stored
    order = [r["table_id"] for r in computed.rated]
    stored_order = [r.table_id for r in stored_rated]
    if stored_order != order:
        at = next(
            (i for i, (a, b) in enumerate(zip(stored_order, order)) if a != b),
            min(len(order), len(stored_order)),
        )
        yield (
            lambda: (
                f"owner {owner}: {len(stored_order)} rated tables stored, {len(order)} finished; from place {at + 1} "
                f"the stored order has {stored_order[at : at + 3]}, the finished tables {order[at : at + 3]}"
            )
        )
    places = {r.table_id: i + 1 for i, r in enumerate(stored_rated)}  # the stored order, gaps closed
    outcomes = {r["table_id"]: r["outcome"] for r in computed.rated}
    for r in stored_rated:
        if (
            r.table_id in outcomes
            and r.outcome != outcomes[r.table_id]
            and [[p, str(Fraction(b))] for p, b in r.outcome] != outcomes[r.table_id]
        ):
            yield _worded(
                "table {table}: rated as {rated}, finished as {finished}",
                table=r.table_id,
                rated=r.outcome,
                finished=outcomes[r.table_id],
            )
    yield from _rating_differences(conn, owner, computed, places)


def _rating_differences(
    conn: Any, owner: str, computed: Recomputed, places: dict[str, int]
) -> Iterator[Callable[[], str]]:
    """The stored changes and current ratings that differ from the recomputed ones."""
    stored_rated = computed.stored
    stored_changes = {
        (c.table_id, c.pool, c.player_id): (
            c.mu_before,
            c.sigma_before,
            c.mu,
            c.sigma,
            c.games,
            places.get(c.table_id),
        )
        for c in rebuild_repo.all_changes(conn, owner)
    }
    yield from _unequal("change", stored_changes, computed.changes)
    seq_of = {r.seq: places[r.table_id] for r in stored_rated}
    stored_current = {
        (c.pool, c.player_id): (c.mu, c.sigma, c.games, seq_of.get(c.seq))
        for c in rebuild_repo.all_current(conn, owner)
    }
    yield from _unequal("rating", stored_current, computed.current)
    for c in rebuild_repo.all_current(conn, owner):
        if c.ordinal != c.mu - 3 * c.sigma:
            yield _worded(
                "rating {rated}: ordinal {ordinal!r} is not mu - 3 sigma",
                rated=(c.pool, c.player_id),
                ordinal=c.ordinal,
            )


@dataclass(frozen=True)
class Rebuilt:
    owners: int
    tables: int
    count: int  # differences found
    differences: list[str]  # the first ones (SHOWN_DIFFERENCES per owner)


SHOWN_DIFFERENCES = 100


def rebuild(db: Database, *, write: bool = True) -> Rebuilt:
    """Recompute every owner's ratings from the rated tables, report how the stored ones
    differ, and (``write``) store the recomputed ones, one owner per transaction."""
    with db.read() as session:
        owners = rebuild_repo.owners(session)
    found: list[str] = []
    tables = count = 0
    for owner in owners:
        with db.write() as session:
            rate_pending(session, owner)  # what the rater has not done yet is no difference
            computed = recompute(session, owner)
            tables += len(computed.rated)
            diff = 0
            for line in _differences(session, owner, computed):
                if diff < SHOWN_DIFFERENCES:
                    found.append(line())
                diff += 1
            count += diff
            if write and diff:
                rebuild_repo.forget_owner(session, owner)
                rebuild_repo.insert_all(
                    session,
                    computed.rated,
                    [
                        {
                            "owner": owner,
                            "pool": pool,
                            "seq": v[5],
                            "table_id": t,
                            "player_id": p,
                            "mu_before": v[0],
                            "sigma_before": v[1],
                            "mu": v[2],
                            "sigma": v[3],
                            "games": v[4],
                        }
                        for (t, pool, p), v in computed.changes.items()
                    ],
                    [
                        _current(owner, pool, p, Rating(v[0], v[1], v[2]), v[3])
                        for (pool, p), v in computed.current.items()
                    ],
                )
    return Rebuilt(len(owners), tables, count, found)


def differences_of(db: Database, owner: str) -> list[str]:
    """``differences`` in a read of its own, the pending tables rated first."""
    caught_up(db, owner)
    with db.read() as session:
        return differences(session, owner)
