"""The ratings read: a player's rating and its changes, the leaderboard of a pool, a table's
forecast and the chances at a round's tables, a table's rating changes."""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.kit.db import Database
from app.kit.errors import NotFound, Unprocessable
from app.kit.versions import strong_etag
from app.ratings import repository as repo
from app.ratings.hooks import _rating, caught_up
from app.ratings.model import (
    ALL_CONVENTIONS,
    Rating,
    chances_first,
    predicted_places,
)
from app.rules import FieldError, Sentence


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
class LeaderboardEntry:
    player_id: str
    name: str
    rating: Rating


@dataclass(frozen=True)
class Leaderboard:
    convention: str | None
    standings: tuple[LeaderboardEntry, ...]
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
    standings = tuple(
        LeaderboardEntry(r.player_id, r.name, Rating(r.mu, r.sigma, r.games)) for r in rows[:limit]
    )
    nxt = encode_cursor(standings[-1].rating.ordinal, standings[-1].player_id) if len(rows) > limit else None
    shown = (f"{s.player_id}:{s.name}:{s.rating.mu!r}:{s.rating.sigma!r}:{s.rating.games}" for s in standings)
    return Leaderboard(
        convention, standings, nxt, strong_etag(convention, after, limit, nxt, *shown, sep="|")
    )


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
class SeatedTable:
    """A table's seats as a forecast takes them: each seat's registered player (None: a
    plain name), seat 0 first, and the table (None: deleted)."""

    table_id: str | None
    players: tuple[str | None, ...]


def chances_at_tables(
    db: Database, owner: str, seatings: Sequence[SeatedTable], *, convention: str | None = None
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


def _seated(
    s: SeatedTable, before: dict[tuple[str, str], Any], stored: dict[str, Any]
) -> list[Rating] | None:
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
