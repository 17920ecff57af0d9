"""Ratings: every finished rated table moves its players' ratings, in the owner's pool of
every convention and in its convention's pool, in the order the tables finished.

The hooks run in the transaction of the write that changes a table (app/deals, app/tables):

- ``on_table_finished``: the post that finishes a rated table takes its place, last in the
  owner's finishing order, pending; nothing more, so that rating costs the post almost
  nothing. ``rate_pending`` rates the pending tables in order (their players' current
  ratings read, the model run, the changes written): the rater (app/ratings/rater.py) right
  after the commit, and every read of the ratings first (``caught_up``), so that nobody ever
  reads a rating without its latest tables;
- ``on_table_changed``: an undo or a correction of a rated table, or its deletion, compares
  the table's outcome with the one rated; when the ranking moved (or the table is no longer
  finished) every table of its pools from its place on is rated again, from the ratings the
  players had before it.

So the stored ratings, once the pending tables are rated, are always what ``recompute``
gives from the rated tables in finishing order, which the property test checks and
``rebuild`` (``prefscore ratings rebuild``) reports and restores.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from functools import partial
from typing import Any

from app.events.outbox import enqueue_with_data, is_hooked
from app.kit.db import Database
from app.kit.db.models import utcnow
from app.kit.errors import NotFound, Unprocessable
from app.ratings import repository as repo
from app.ratings.model import (
    ALL_CONVENTIONS,
    INITIAL,
    Outcome,
    Rating,
    chances_first,
    pools_of,
    predicted_places,
    rate,
)
from app.rules import FieldError, Sentence

__all__ = [
    "Outcome",
    "Rating",
    "on_table_changed",
    "on_table_finished",
    "rate_pending",
    "caught_up",
    "rate_owner",
    "leaderboard",
    "player_rating",
    "predict",
    "chances_at_tables",
    "Seating",
    "rebuild",
    "rating_summary",
    "table_rating",
    "differences",
    "differences_of",
]


# --- the hooks of the writes ---------------------------------------------------------------


def on_table_finished(conn: Any, outcome: Outcome) -> None:
    """In the transaction of the post that finished a rated table: its place, last in the
    owner's finishing order, pending (``rate_pending`` rates it after the commit)."""
    repo.take_place(conn, outcome.table_id, outcome.owner, outcome.convention, outcome.to_json(), utcnow())


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


# --- reads -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Change:
    """What one rated table did to a player's rating."""

    table_id: str
    seq: int  # the table's place in the owner's finishing order
    finished_at: datetime | None
    before: Rating
    after: Rating


@dataclass(frozen=True)
class PlayerRating:
    player_id: str
    convention: str | None  # None: the pool of every convention
    rating: Rating
    history: tuple[Change, ...]  # the latest first
    next_before: int | None  # the ``before`` of the next page of history, when there is more


def _pool(convention: str | None) -> str:
    return ALL_CONVENTIONS if convention is None else convention


def _check_player(conn: Any, owner: str, player_id: str) -> None:
    if len(player_id) != 32 or player_id not in repo.owned_players(conn, owner, [player_id]):
        raise NotFound(Sentence("no player {player_id!r}", player_id=player_id[:40]))


def player_rating(
    db: Database,
    owner: str,
    player_id: str,
    *,
    convention: str | None = None,
    before: int | None = None,
    limit: int = 20,
) -> PlayerRating:
    """A player's current rating in a pool and its history, the latest table first (another
    owner's player is not found; a player with no rated table has the initial rating)."""
    pool = _pool(convention)
    caught_up(db, owner)
    with db.read() as session:
        _check_player(session, owner, player_id)
        rating = _rating(repo.rating_of(session, pool, player_id))
        rows = repo.history(session, pool, player_id, before=before, rows=limit + 1)
    history = tuple(
        Change(
            r.table_id,
            r.seq,
            r.finished_at,
            Rating(r.mu_before, r.sigma_before, r.games - 1),
            Rating(r.mu, r.sigma, r.games),
        )
        for r in rows[:limit]
    )
    return PlayerRating(
        player_id, convention, rating, history, history[-1].seq if len(rows) > limit else None
    )


def rating_summary(session: Any, player_id: str, convention: str | None) -> tuple[Rating, Change | None]:
    """In the caller's read, after ``caught_up``: a player's rating in a pool and the change of
    their last rated table there (the player's statistics show both)."""
    pool = _pool(convention)
    rating = _rating(repo.rating_of(session, pool, player_id))
    rows = repo.history(session, pool, player_id, before=None, rows=1)
    last = None
    if rows:
        r = rows[0]
        last = Change(
            r.table_id,
            r.seq,
            r.finished_at,
            Rating(r.mu_before, r.sigma_before, r.games - 1),
            Rating(r.mu, r.sigma, r.games),
        )
    return rating, last


@dataclass(frozen=True)
class Standing:
    player_id: str
    name: str
    rating: Rating


@dataclass(frozen=True)
class Leaderboard:
    convention: str | None
    standings: tuple[Standing, ...]
    next_after: str | None  # the cursor of the next page
    etag: str


def encode_cursor(ordinal: float, player_id: str) -> str:
    """The opaque cursor of the leaderboard: the last standing's (ordinal, id); a float's repr
    reads back as the same float."""
    raw = json.dumps([repr(ordinal), player_id], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[float, str]:
    bad = Unprocessable(
        "the cursor is not one this leaderboard gave",
        [FieldError("after", "after must be a cursor from the leaderboard's next link")],
    )
    if len(cursor) > 200:
        raise bad
    try:
        ordinal, player_id = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        value = float(ordinal)
    except (ValueError, TypeError):
        raise bad from None
    if not isinstance(player_id, str) or len(player_id) != 32 or not math.isfinite(value):
        raise bad
    return value, player_id


def leaderboard(
    db: Database, owner: str, *, convention: str | None = None, after: str | None = None, limit: int = 50
) -> Leaderboard:
    """The owner's players by ordinal in a pool, the highest first, keyset-paged. The ETag is
    of the page as read (a 304 saves the client the body)."""
    position = decode_cursor(after) if after is not None else None
    caught_up(db, owner)
    with db.read() as session:
        rows = repo.leaderboard(session, owner, _pool(convention), after=position, rows=limit + 1)
    standings = tuple(Standing(r.player_id, r.name, Rating(r.mu, r.sigma, r.games)) for r in rows[:limit])
    nxt = encode_cursor(standings[-1].rating.ordinal, standings[-1].player_id) if len(rows) > limit else None
    digest = hashlib.sha256()
    digest.update(f"{convention}|{after}|{limit}|{nxt}".encode())
    for s in standings:
        digest.update(f"|{s.player_id}:{s.name}:{s.rating.mu!r}:{s.rating.sigma!r}:{s.rating.games}".encode())
    return Leaderboard(convention, standings, nxt, '"' + digest.hexdigest()[:32] + '"')


@dataclass(frozen=True)
class Prediction:
    player_id: str
    rating: Rating
    chance_first: float
    place: int


def predict(
    db: Database, owner: str, player_ids: Sequence[str], *, convention: str | None = None
) -> list[Prediction]:
    """For a seating of the owner's players: each one's chance to finish first and most likely
    place, from their current ratings in the pool."""
    errors = []
    seen: dict[str, int] = {}
    for i, p in enumerate(player_ids):
        if p in seen:
            errors.append(
                FieldError(
                    f"players.{i}", Sentence("the same player already sits at seat {seen}", seen=seen[p])
                )
            )
        seen.setdefault(p, i)
    if errors:
        raise Unprocessable("one player at two seats", errors)
    pool = _pool(convention)
    caught_up(db, owner)
    with db.read() as session:
        owned = repo.owned_players(session, owner, player_ids)
        missing = [
            FieldError(f"players.{i}", "no such player of this key's owner")
            for i, p in enumerate(player_ids)
            if p not in owned
        ]
        if missing:
            raise Unprocessable("a seat names no player of this key's owner", missing)
        stored = repo.current(session, [pool], player_ids)
    ratings = [_rating(stored.get((pool, p))) for p in player_ids]
    return [
        Prediction(p, r, chance, place)
        for p, r, chance, place in zip(player_ids, ratings, chances_first(ratings), predicted_places(ratings))
    ]


@dataclass(frozen=True)
class Seating:
    """A table's seats as a forecast takes them: each seat's registered player (None: a
    plain name), seat 0 first, and the table (None: deleted)."""

    table_id: str | None
    players: tuple[str | None, ...]


def chances_at_tables(
    db: Database, owner: str, seatings: Sequence[Seating], *, convention: str | None = None
) -> list[tuple[float, ...] | None]:
    """Each seating's chance to finish first, seat by seat (they sum to 1; ``predict``'s
    chance_first), from its players' ratings in the pool: those they had before the table
    when it is rated (a finished table keeps the forecast it was played with), else their
    current ones. None for a seating with a plain name at a seat, or a player with no rated
    table in the pool before it (an initial rating forecasts nothing). One read for them all."""
    pool = _pool(convention)
    complete = [bool(s.players) and all(p is not None for p in s.players) for s in seatings]
    wanted = [s for s, whole in zip(seatings, complete) if whole]
    if wanted:
        caught_up(db, owner)
    with db.read() as session:
        before = (
            repo.before_tables(session, [s.table_id for s in wanted if s.table_id is not None], pool)
            if wanted
            else {}
        )
        stored = (
            repo.current_in_pool(session, pool, {p for s in wanted for p in s.players if p is not None})
            if wanted
            else {}
        )
    out: list[tuple[float, ...] | None] = []
    for s, whole in zip(seatings, complete):
        ratings = _seated(s, before, stored) if whole else None
        out.append(None if ratings is None else tuple(chances_first(ratings)))
    return out


def _seated(s: Seating, before: dict[tuple[str, str], Any], stored: dict[str, Any]) -> list[Rating] | None:
    players = [p for p in s.players if p is not None]  # a complete seating: a player at every seat
    if s.table_id is not None and all((s.table_id, p) in before for p in players):
        rows = [before[(s.table_id, p)] for p in players]
        ratings = [Rating(r.mu_before, r.sigma_before, r.games - 1) for r in rows]
    else:
        ratings = [_rating(stored.get(p)) for p in players]
    return ratings if all(r.games > 0 for r in ratings) else None


@dataclass(frozen=True)
class TableRating:
    stamp: int  # moves whenever the table's changes are written again
    seats: tuple[tuple[str, Change], ...]  # each seat's player and change, in the pool of every convention


def table_etag_part(rating: TableRating | None) -> str:
    """What a rated table's settlement ETag adds: its rating changes' version."""
    return "" if rating is None else f"r{rating.stamp}"


def table_rating(db: Database, table_id: str) -> TableRating | None:
    """What a rated table did to its players' ratings (None when it is not rated). One read,
    unless the table is still pending: then it is rated first and read again."""
    with db.read() as session:
        rated = repo.rated_row(session, table_id)
        if rated is None or not rated.pending:
            return _table_rating(session, rated)
    caught_up(db, rated.owner)
    with db.read() as session:
        return _table_rating(session, repo.rated_row(session, table_id))


def _table_rating(session: Any, rated: Any) -> TableRating | None:
    if rated is None:
        return None
    rows = {r.player_id: r for r in repo.table_changes(session, rated.table_id, ALL_CONVENTIONS)}
    seats = []
    for player, _ in rated.outcome:
        r = rows[player]
        change = Change(
            rated.table_id,
            rated.seq,
            rated.finished_at,
            Rating(r.mu_before, r.sigma_before, r.games - 1),
            Rating(r.mu, r.sigma, r.games),
        )
        seats.append((player, change))
    return TableRating(rated.stamp, tuple(seats))


# --- the recomputation and the rebuild -----------------------------------------------------------


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
    seats: dict[str, list[Any]] = {}
    for r in repo.rateable_seats(
        conn, owner
    ):  # (id, convention, seats, updated_at, seat, player, finished, balance)
        seats.setdefault(r[0], []).append(r)
    outcomes: dict[str, Outcome] = {}
    changed_at: dict[str, Any] = {}
    for table_id, rows in seats.items():
        if len(rows) != rows[0][2] or not all(r[6] for r in rows):
            continue
        outcomes[table_id] = Outcome(
            table_id, owner, rows[0][1], tuple(r[5] for r in rows), tuple(_amount(r[7]) for r in rows)
        )
        changed_at[table_id] = rows[0][3]
    order = [r.table_id for r in stored if r.table_id in outcomes]
    known = set(order)
    order += sorted((t for t in outcomes if t not in known), key=lambda t: (changed_at[t], t))
    return [outcomes[t] for t in order]


def recompute(conn: Any, owner: str) -> Recomputed:
    """Every rating of one owner from the rated tables alone, in finishing order."""
    stored = repo.all_rated(conn, owner)
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
    stored_changes = {
        (c.table_id, c.pool, c.player_id): (
            c.mu_before,
            c.sigma_before,
            c.mu,
            c.sigma,
            c.games,
            places.get(c.table_id),
        )
        for c in repo.all_changes(conn, owner)
    }
    for key in (
        [] if stored_changes == computed.changes else sorted(set(stored_changes) | set(computed.changes))
    ):
        if stored_changes.get(key) != computed.changes.get(key):
            yield _worded(
                "change {key}: stored {stored}, recomputed {recomputed}",
                key=key,
                stored=stored_changes.get(key),
                recomputed=computed.changes.get(key),
            )
    seq_of = {r.seq: places[r.table_id] for r in stored_rated}
    stored_current = {
        (c.pool, c.player_id): (c.mu, c.sigma, c.games, seq_of.get(c.seq))
        for c in repo.all_current(conn, owner)
    }
    for rated in (
        [] if stored_current == computed.current else sorted(set(stored_current) | set(computed.current))
    ):
        if stored_current.get(rated) != computed.current.get(rated):
            yield _worded(
                "rating {rated}: stored {stored}, recomputed {recomputed}",
                rated=rated,
                stored=stored_current.get(rated),
                recomputed=computed.current.get(rated),
            )
    for c in repo.all_current(conn, owner):
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
        owners = repo.owners(session)
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
                repo.forget_owner(session, owner)
                repo.insert_all(
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
