"""What the share link shows: the public view (standings, the current round's tables, the
round history, the current round's chances, the penalties), built once per version, and the
versions the share link's event stream follows."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from app.deals import service as deals
from app.kit.built import Built
from app.kit.db import Database
from app.kit.versions import strong_etag
from app.ratings import service as ratings
from app.tables import service as tables
from app.tables.limits import REVISIONS_CHUNK
from app.tables.model import TableInfo
from app.tournaments import repository as repo
from app.tournaments.model import (
    PlayedTable,
    Round,
    TableAtRound,
    Tournament,
)
from app.tournaments.reading import _read, _with_tables_of, played_tables
from app.tournaments.standings import STANDINGS_SHAPE, Standings, _standings_of, standings_etag


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
        return strong_etag(self.standings.etag, shown, sep="|")

    def share_link(self, table: PlayedTable) -> str | None:
        return None if table.share_token is None else f"/shared/{table.share_token}"

    def live_link(self, table: PlayedTable) -> str | None:
        return None if table.share_token is None else f"/v1/shared/{table.share_token}/events"


def _read_shared(db: Database, token: str) -> tuple[Tournament, dict[str, TableInfo]]:
    with db.read() as session:
        row = repo.shared_head(session, token)
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
    read: a view kept at this version was built from these very tables."""
    with db.read() as session:
        row = repo.shared_head(session, token)
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
    return strong_etag(*parts, sep="|").strip('"')


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
        ratings.SeatedTable(at.table_id, tuple(registered.get(n) for n in at.seats)) for at in current.tables
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
        row = repo.shared_head(session, token)
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
