"""Creating a tournament and its entries: the rules checked at every table size, the entrants
numbered (names distinct, registered players linked), late entries and withdrawals."""

from __future__ import annotations

import secrets
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.kit.db import Database
from app.kit.db.models import utcnow
from app.kit.errors import Conflict, NotFound, Unprocessable
from app.kit.repository import lock_owner
from app.players.service import get_player, new_player_id, player_name
from app.rules import FieldError, InvalidTable, Sentence, make_rules, sentence
from app.tables.model import check_names
from app.tournaments import repository as repo
from app.tournaments.limits import TOURNAMENT_ENTRANTS_MAX, TOURNAMENTS_PER_OWNER
from app.tournaments.model import (
    SCORING_PRESETS,
    Entrant,
    Tournament,
    TournamentGameEnd,
    scoring_stored,
)
from app.tournaments.reading import _entrant, _load, _moved
from app.tournaments.scoring import Scoring


@dataclass(frozen=True)
class EntrantSpec:
    """An entrant as a request gives it: a name, or a registered player (with a name to
    use instead of the registry's, if given)."""

    name: str | None = None
    player: str | None = None


def _check_rules(
    convention: str,
    pool_target: int | None,
    options: dict[str, Any],
    sizes: frozenset[int],
    game_end: TournamentGameEnd,
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
    if len(taken) + len(specs) > TOURNAMENT_ENTRANTS_MAX:
        most = Sentence(
            "at most {tournament_entrants_max} entrants in all",
            tournament_entrants_max=TOURNAMENT_ENTRANTS_MAX,
        )
        raise Unprocessable(
            Sentence(
                "a tournament has at most {tournament_entrants_max} entrants",
                tournament_entrants_max=TOURNAMENT_ENTRANTS_MAX,
            ),
            [FieldError(field, most)],
        )
    errors: list[FieldError] = []
    seen = {_folded(e.name): e.number for e in taken}
    players = {e.player_id for e in taken if e.player_id is not None}
    rows = []
    number = max((e.number for e in taken), default=0)
    for i, spec in enumerate(specs):
        found = _entrant_named(db, owner, spec, f"{field}.{i}", seen, players)
        if isinstance(found, FieldError):
            errors.append(found)
            continue
        name, player_id = found
        number += 1
        seen[_folded(name)] = number
        rows.append(
            {
                "number": number,
                "name": name,
                "player_id": player_id,
                "joined_round": joined_round,
                "withdrawn_round": None,
            }
        )
    if errors:
        raise Unprocessable("the entrants do not fit the tournament", errors)
    return rows


def _entrant_named(
    db: Database, owner: str, spec: EntrantSpec, at: str, seen: dict[str, int], players: set[str]
) -> tuple[str, str | None] | FieldError:
    """An entrant's name and registered player, or what is wrong with it (a player unknown or
    entered already, a name not allowed or taken). ``players`` gets the player."""
    name = spec.name
    player_id = None
    if spec.player is not None:
        try:
            registered = get_player(db, owner, spec.player)
        except NotFound:
            return FieldError(f"{at}.player", "no such player of this key's owner")
        if registered.id in players:
            return FieldError(f"{at}.player", "this player is an entrant already")
        players.add(registered.id)
        player_id = registered.id
        name = name if name is not None else registered.name
    name = player_name(name or "")
    bad = check_names([name], f"{at}.name")
    if bad:
        return bad[0]
    if _folded(name) in seen:
        return FieldError(
            f"{at}.name", Sentence("{name!r} is an entrant already: names are distinct", name=name)
        )
    return name, player_id


def _folded(name: str) -> str:
    return unicodedata.normalize("NFC", name.casefold())


def _refuse_settings(
    name: str,
    table_sizes: Sequence[int],
    convention: str,
    pool_target: int | None,
    options: dict[str, Any],
    game_end: TournamentGameEnd,
) -> None:
    """A tournament's settings that do not fit are refused, each naming its field."""
    errors: list[FieldError] = []
    if not name:
        errors.append(FieldError("name", "a tournament's name must not be empty"))
    sizes = frozenset(table_sizes)
    if not sizes or len(sizes) != len(table_sizes) or not sizes <= {3, 4}:
        errors.append(FieldError("table_sizes", "3, 4, or both, each once"))
    else:
        errors.extend(_check_rules(convention, pool_target, options, sizes, game_end))
    if errors:
        raise Unprocessable("the tournament's settings do not fit", errors)


def create_tournament(
    db: Database,
    owner: str,
    *,
    name: str,
    convention: str,
    pool_target: int | None = None,
    options: dict[str, Any] | None = None,
    table_sizes: Sequence[int] = (3,),
    game_end: TournamentGameEnd = TournamentGameEnd("pool"),
    rounds: int,
    scoring: Scoring = SCORING_PRESETS["whists"],
    scoring_preset: str | None = "whists",
    swiss: bool = False,
    entrants: Sequence[EntrantSpec] = (),
    by: str,
) -> Tournament:
    options = dict(options or {})
    name = name.strip()
    sizes = frozenset(table_sizes)
    _refuse_settings(name, table_sizes, convention, pool_target, options, game_end)
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
                "table_sizes": sorted(sizes),
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
