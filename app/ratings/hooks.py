"""The ratings' hooks in the writes that change a table (app/deals, app/tables): a finished
rated table takes its place in the owner's finishing order, pending, and is rated after the
commit (``rate_pending``); an undo or a correction rates its pools again from its place."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.events.outbox import enqueue_with_data, is_hooked
from app.kit.db import Database
from app.kit.db.models import utcnow
from app.ratings import repository as repo
from app.ratings.model import (
    ALL_CONVENTIONS,
    INITIAL,
    Outcome,
    Rating,
    pools_of,
    rate,
)


def place_of(outcome: Outcome) -> dict[str, Any]:
    """The parameters of a finished rated table's place in its owner's finishing order
    (``on_table_finished``; on PostgreSQL the post tries it in its own statement,
    ``PLACE_TRIED``)."""
    return repo.place_params(outcome.table_id, outcome.owner, outcome.convention, outcome.to_json(), utcnow())


def on_table_finished(conn: Any, outcome: Outcome) -> None:
    """In the transaction of the post that finished a rated table: its place, last in the
    owner's finishing order, pending (``rate_pending`` rates it after the commit)."""
    repo.take_place(conn, place_of(outcome))


def take_place(conn: Any, place: dict[str, Any], *, tried: bool = False) -> None:
    """``on_table_finished`` with the place's parameters (``place_of``); ``tried``: the post's
    own statement tried the place (``PLACE_TRIED``) and another table's commit had taken it,
    so the next free one is taken under the owner's ratings lock."""
    repo.take_place(conn, place, tried=tried)


def rate_pending(conn: Any, owner: str) -> int:
    """In a write transaction, under the owner's ratings lock: rate the owner's pending tables
    in finishing order, each announced to the owner's webhooks (rating.changed). Returns how
    many were rated (none when another process rated them first)."""
    repo.lock_pools(conn, owner)
    pending = repo.pending_tables(conn, owner)
    hooked = bool(pending) and is_hooked(conn, owner)
    for row in pending:
        outcome = Outcome.from_json(row.table_id, owner, row.convention, row.outcome)
        _rate_last(conn, outcome, row.seq)
        repo.mark_rated(conn, row.table_id)
        if hooked:
            _announce(conn, owner, row.table_id, outcome.players)
    return len(pending)


def caught_up(db: Database, owner: str) -> None:
    """Before a read of the owner's ratings: the pending tables rated (normally the rater has
    done it; a read that comes first does it itself). A read with none pending pays one index
    lookup."""
    with db.read() as session:
        if not repo.any_pending(session, owner):
            return
    rate_owner(db, owner)


def rate_owner(db: Database, owner: str) -> int:
    """``rate_pending`` in a write transaction of its own (the rater's, told of a finished table)."""
    with db.write() as session:
        return rate_pending(session, owner)


def _announce(conn: Any, owner: str, table_id: str, players: Sequence[str]) -> None:
    """The webhooks' rating.changed of ``table_id``, in this transaction: each of its players'
    ordinal before and after it in the pool of every convention, as just written (none when
    the table no longer counts: not finished any more, or deleted), and the table's version
    of its changes (its settlement's ETag part). Nothing is written for an owner without an
    endpoint that wants it."""
    rows = {r.player_id: r for r in repo.table_changes(conn, table_id, ALL_CONVENTIONS)}
    entries = []
    for player in players:
        r = rows.get(player)
        before = Rating(r.mu_before, r.sigma_before).ordinal if r is not None else None
        after = Rating(r.mu, r.sigma).ordinal if r is not None else None
        entries.append(
            {
                "player_id": player,
                "before": before,
                "after": after,
                "games": r.games if r is not None else None,
            }
        )
    data = {"rated": bool(rows), "players": entries}
    enqueue_with_data(
        conn, owner, table_id, "rating.changed", utcnow(), data, revision=repo.rated_stamp(conn, table_id)
    )


def _rate_last(conn: Any, outcome: Outcome, seq: int) -> None:
    """Rate ``outcome``, place ``seq`` of its owner's finishing order, every table before it
    rated: its players' current ratings are the ones it starts from."""
    pools = pools_of(outcome.convention)
    stored = repo.current(conn, pools, outcome.players)
    changes, current = [], []
    last: tuple[list[Rating], list[Rating]] | None = None
    for pool in pools:
        before = [_rating(stored.get((pool, p))) for p in outcome.players]
        # The same ratings in both pools (an owner who plays one convention) rate once.
        after = last[1] if last is not None and last[0] == before else rate(before, outcome.balances)
        last = (before, after)
        for player, old, new in zip(outcome.players, before, after):
            changes.append(_change(outcome, pool, seq, player, old, new))
            current.append(_current(outcome.owner, pool, player, new, seq))
    repo.insert_changes(conn, changes)
    repo.write_current(conn, current)


def on_table_changed(conn: Any, table_id: str, outcome: Outcome | None) -> None:
    """In the transaction of an undo, a correction or a deletion of a rated table:
    ``outcome`` is the table as it now stands when it is finished with only registered
    players, else None (not finished any more, or deleted)."""
    rated = repo.rated_row(conn, table_id)
    if rated is None:
        if outcome is not None:  # finished by a correction of its last deal
            on_table_finished(conn, outcome)
            rate_pending(conn, outcome.owner)
        return
    rate_pending(conn, rated.owner)  # under the owner's lock, every table before this one rated
    was = Outcome.from_json(table_id, rated.owner, rated.convention, rated.outcome)
    if outcome is not None and outcome.players == was.players and outcome.ranks == was.ranks:
        if outcome.balances != was.balances:  # the same ranking: the same ratings
            repo.set_outcome(conn, table_id, outcome.to_json())
        return
    if outcome is None:
        repo.delete_rated(conn, table_id)
    else:
        repo.set_outcome(conn, table_id, outcome.to_json())
    for pool in pools_of(rated.convention):
        _rate_again(conn, rated.owner, pool, rated.seq)
    repo.bump_stamps(conn, rated.owner, rated.seq)
    _announce(conn, rated.owner, table_id, was.players if outcome is None else outcome.players)


def _rate_again(conn: Any, owner: str, pool: str, seq: int) -> None:
    """Rate every table of ``pool`` from place ``seq`` of the finishing order on again, from
    the ratings their players had before it."""
    tables = repo.rated_from(conn, owner, pool, seq)
    touched = repo.players_changed_from(conn, owner, pool, seq)
    repo.delete_changes_from(conn, owner, pool, seq)
    outcomes = [Outcome.from_json(t.table_id, owner, t.convention, t.outcome) for t in tables]
    for o in outcomes:
        touched.update(o.players)
    standing = repo.last_changes(conn, pool, touched)
    ratings = {p: _rating(r) for p, r in standing.items()}
    last_seq = {p: r.seq for p, r in standing.items()}
    changes = []
    for table, o in zip(tables, outcomes):
        before = [ratings.get(p, INITIAL) for p in o.players]
        for player, old, new in zip(o.players, before, rate(before, o.balances)):
            changes.append(_change(o, pool, table.seq, player, old, new))
            ratings[player] = new
            last_seq[player] = table.seq
    repo.insert_changes(conn, changes)
    repo.delete_current(conn, pool, touched)
    repo.write_current(conn, [_current(owner, pool, p, r, last_seq[p]) for p, r in sorted(ratings.items())])


def _rating(row: Any) -> Rating:
    return INITIAL if row is None else Rating(row.mu, row.sigma, row.games)


def _change(outcome: Outcome, pool: str, seq: int, player: str, old: Rating, new: Rating) -> dict[str, Any]:
    return {
        "owner": outcome.owner,
        "pool": pool,
        "seq": seq,
        "table_id": outcome.table_id,
        "player_id": player,
        "mu_before": old.mu,
        "sigma_before": old.sigma,
        "mu": new.mu,
        "sigma": new.sigma,
        "games": new.games,
    }


def _current(owner: str, pool: str, player: str, r: Rating, seq: int) -> dict[str, Any]:
    return {
        "pool": pool,
        "player_id": player,
        "owner": owner,
        "mu": r.mu,
        "sigma": r.sigma,
        "ordinal": r.ordinal,
        "games": r.games,
        "seq": seq,
    }
