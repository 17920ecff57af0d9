"""The player registry: an owner's players (create, list, read, rename, set the external id)
and the seats of a new table linked to them.

A seat is linked only when asked: ``{"name", "player"}`` names a registered player,
``{"name", "external_id"}`` an online client's own id for the person (a known one links its
player, an unknown one registers a new player under the seat's name). A plain name links
nothing, so a table made with names only is what it always was.
"""

from __future__ import annotations

import os
import re
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import Any

from sqlalchemy.orm import Session

from app.kit.db import Database
from app.kit.db.models import utcnow
from app.kit.errors import Conflict, NotFound, Unprocessable
from app.kit.repository import lock_owner
from app.players import repository
from app.players import stats as player_stats
from app.players.limits import PLAYERS_PER_OWNER
from app.players.repository import Player

# What the deals' use cases do to the registered players' rows, in their own transaction: the
# post's read of the seats (a column of its one statement), a posted deal, a refolded log.
from app.players.stats import (
    SEAT_ROWS_REWRITTEN,
    PlayerStats,
    SeatsAfterDeal,
    Tally,
    on_deal_posted,
    on_log_refolded,
    registered_seats,
    seats_after_deal,
)
from app.ratings import service as ratings
from app.rules import FieldError, Sentence

PLAYER_ID_RE = re.compile(r"^[0-9a-f]{32}$")
# The most players one owner may register: a registry, not a store one key can fill for ever.


@dataclass(frozen=True)
class SeatLink:
    """A seat of a new table given as a registered player (``player``) or an external id."""

    name: str
    player: str | None = None
    external_id: str | None = None


def new_player_id() -> str:
    """32 hex digits, time-ordered (nanoseconds, then random): ids sort in creation order, so
    that the listing pages by id alone."""
    return f"{time.time_ns():016x}{os.urandom(8).hex()}"


def player_name(raw: str) -> str:
    """A player's name as stored, at a table's seat as in the registry: trimmed and in
    Unicode NFC, so that "é" typed as one code point or as "e" and a combining accent is one
    name."""
    return unicodedata.normalize("NFC", raw.strip())


def _load(session: Session, owner: str, player_id: str) -> Player:
    """One owner's player; another owner's is not found."""
    if not PLAYER_ID_RE.fullmatch(player_id):
        raise NotFound(Sentence("no player {player_id!r}", player_id=player_id[:40]))
    player = repository.find_player(session, owner, player_id)
    if player is None:
        raise NotFound(Sentence("no player {player_id!r}", player_id=player_id))
    return player


def _name(raw: str, field: str) -> str:
    name = player_name(raw)
    if not name:
        raise Unprocessable("the player's name is empty", [FieldError(field, "must not be empty")])
    if not name.isprintable():
        raise Unprocessable(
            "the player's name is not valid", [FieldError(field, "must not contain control characters")]
        )
    return name


def _external_taken(
    session: Session, owner: str, external_id: str, field: str, but: str | None = None
) -> None:
    other = repository.player_of_external_id(session, owner, external_id)
    if other is not None and other != but:
        raise Conflict(
            Sentence(
                "the external id {external_id!r} is already another player's ({other})",
                external_id=external_id,
                other=other,
            ),
            [FieldError(field, Sentence("already the external id of player {other}", other=other))],
            reason="external_id_taken",
        )


def _check_player_limit(registered: int, field: str | None = None) -> None:
    """The owner's cap on registered players, whether a player is made directly or by a new
    table's seat (``field`` names that seat)."""
    if registered >= PLAYERS_PER_OWNER:
        raise Conflict(
            Sentence(
                "this key's owner has {registered} players, the most one owner may register",
                registered=registered,
            ),
            [FieldError(field, "registering this player would pass the owner's limit")] if field else None,
            reason="player_limit",
        )


def create_player(db: Database, owner: str, *, name: str, external_id: str | None = None) -> Player:
    name = _name(name, "name")
    with db.write() as session:
        lock_owner(session, owner)  # an external id is checked and taken under the owner's lock
        _check_player_limit(repository.count_players(session, owner))
        if external_id is not None:
            _external_taken(session, owner, external_id, "external_id")
        now = utcnow()
        player = Player(new_player_id(), name, external_id, now, now)
        repository.insert_player(
            session, player_id=player.id, owner=owner, name=name, external_id=external_id, now=now
        )
        return player


def get_player(db: Database, owner: str, player_id: str) -> Player:
    with db.read() as session:
        return _load(session, owner, player_id)


def list_players(
    db: Database, owner: str, *, after: str | None = None, limit: int = 50
) -> tuple[list[Player], str | None]:
    """Keyset paging in creation order: the players after id ``after``; the last id when more follow."""
    with db.read() as session:
        rows = repository.players_after(session, owner, after, limit + 1)
        players = rows[:limit]
        return players, (players[-1].id if len(rows) > limit else None)


_UNSET = object()


def update_player(
    db: Database, owner: str, player_id: str, *, name: str | None = None, external_id: object = _UNSET
) -> Player:
    """Rename a player (the tables' sheets keep the names they were played under) or set or
    clear (None) the external id."""
    if name is not None:
        name = _name(name, "name")
    with db.write() as session:
        lock_owner(session, owner)
        player = _load(session, owner, player_id)
        if external_id is not _UNSET and external_id is not None:
            _external_taken(session, owner, external_id, "external_id", but=player.id)  # type: ignore[arg-type]
        changes: dict[str, Any] = {"updated_at": utcnow()}
        if name is not None:
            changes["name"] = name
        if external_id is not _UNSET:
            changes["external_id"] = external_id
        repository.change_player(session, player.id, **changes)
        return replace(player, **changes)


def seated_players(session: Any, table_id: str) -> dict[int, str]:
    """In the caller's transaction: the table's seats linked to a registered player, seat → id."""
    return repository.seated_players(session, table_id)


def stats(
    db: Database,
    owner: str,
    player_id: str,
    *,
    convention: str | None = None,
    since: date | None = None,
    until: date | None = None,
) -> tuple[Player, PlayerStats, tuple[ratings.Rating, ratings.Change | None]]:
    """The player's statistics, with their rating in the pool of ``convention`` (of every
    convention when None) and its last change: a rating is of every rated table, whatever
    the dates asked."""
    ratings.caught_up(db, owner)
    with db.read() as session:
        player = _load(session, owner, player_id)
        found = player_stats.player_stats(session, player.id, convention=convention, since=since, until=until)
        return player, found, ratings.rating_summary(session, player.id, convention)


# --- the seats of a new table (app/tables/service.create_table) -------------------------


def check_links(links: dict[int, SeatLink]) -> list[FieldError]:
    """What can be refused before the database is read: one player or external id at two seats."""
    errors = []
    seen: dict[tuple[str, str], int] = {}
    for seat, link in sorted(links.items()):
        key = ("player", link.player) if link.player is not None else ("external_id", link.external_id or "")
        if key in seen:
            errors.append(
                FieldError(
                    f"players.{seat}.{key[0]}",
                    Sentence("the same player already sits at seat {seen}", seen=seen[key]),
                )
            )
        else:
            seen[key] = seat
    return errors


def _owned_player(session: Session, owner: str, seat: int, player: str) -> str:
    """A seat's registered player, one of the owner's."""
    found = repository.owned_player_id(session, owner, player) if PLAYER_ID_RE.fullmatch(player) else None
    if found is None:
        raise Unprocessable(
            Sentence("no player {player!r}", player=player[:40]),
            [FieldError(f"players.{seat}.player", "no such player of this key's owner")],
        )
    return found


def _refuse_twice_seated(ids: dict[int, str]) -> None:
    """A player linked to two seats (an id and an external id of the same player) is refused."""
    dup: dict[str, int] = {}
    for seat, pid in sorted(ids.items()):
        if pid in dup:
            raise Unprocessable(
                "one player at two seats",
                [
                    FieldError(
                        f"players.{seat}",
                        Sentence("player {pid} already sits at seat {dup}", pid=pid, dup=dup[pid]),
                    )
                ],
            )
        dup[pid] = seat


def link_seats(
    session: Session,
    owner: str,
    table_id: str,
    convention: str,
    created_at: datetime,
    links: dict[int, SeatLink],
) -> dict[int, str]:
    """In the new table's transaction (the owner's lock held): each linked seat's player id,
    registering the players of unknown external ids, and the seats' empty tally rows."""
    if not links:
        return {}
    ids: dict[int, str] = {}
    registered: int | None = None  # the owner's players, counted once a seat registers one
    for seat, link in sorted(links.items()):
        if link.player is not None:
            ids[seat] = _owned_player(session, owner, seat, link.player)
        else:
            found = repository.player_of_external_id(session, owner, link.external_id)  # type: ignore[arg-type]
            if found is None:
                registered = repository.count_players(session, owner) if registered is None else registered
                _check_player_limit(registered, f"players.{seat}.external_id")
                registered += 1
                found = new_player_id()
                repository.insert_player(
                    session,
                    player_id=found,
                    owner=owner,
                    name=link.name,
                    external_id=link.external_id,
                    now=utcnow(),
                )
            ids[seat] = found
    _refuse_twice_seated(ids)
    empty = Tally().to_json()
    repository.insert_seat_rows(
        session,
        [
            {
                "player_id": pid,
                "table_id": table_id,
                "seat": seat,
                "convention": convention,
                "table_created_at": created_at,
                "deal_count": 0,
                "finished": False,
                "balance": "0",
                "tally": empty,
            }
            for seat, pid in sorted(ids.items())
        ],
    )
    return ids


__all__: Sequence[str] = [
    "PLAYERS_PER_OWNER",
    "SEAT_ROWS_REWRITTEN",
    "Player",
    "SeatLink",
    "SeatsAfterDeal",
    "check_links",
    "create_player",
    "get_player",
    "link_seats",
    "list_players",
    "on_deal_posted",
    "on_log_refolded",
    "player_name",
    "registered_seats",
    "seated_players",
    "seats_after_deal",
    "stats",
    "update_player",
]
