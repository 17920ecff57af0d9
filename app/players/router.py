"""The player registry and a player's statistics across the owner's tables."""

from __future__ import annotations

from datetime import date
from typing import Annotated

from fastapi import APIRouter, Path, Query, Response

from app.kit import etags
from app.kit.bodies import BodyRoute
from app.kit.deps import DB, Owner
from app.kit.errors import Unprocessable
from app.kit.headers import ETAG, LOCATION
from app.kit.problem_schemas import problem_responses
from app.kit.schemas import ConventionName
from app.kit.stake import StakeQuery, parse_stake
from app.players import service as svc
from app.players.schemas import PlayerCreate, PlayerPage, PlayerStatsOut, PlayerUpdate, RegisteredPlayer
from app.rules import FieldError

router = APIRouter(prefix="/v1", tags=["players"], route_class=BodyRoute)
PlayerId = Annotated[str, Path(description="the player's id", max_length=64)]


def _tagged(response: Response, player: svc.Player) -> RegisteredPlayer:
    response.headers["ETag"] = etags.player_etag(player.id, player.updated_at)
    return RegisteredPlayer.of(player)


@router.post(
    "/players",
    operation_id="createPlayer",
    status_code=201,
    response_model=RegisteredPlayer,
    responses={201: {"headers": {**LOCATION, **ETAG}}, **problem_responses(401, 409, 422)},
)
def create_player(body: PlayerCreate, db: DB, owner: Owner, response: Response) -> RegisteredPlayer:
    """Register a player; 409 when ``external_id`` is already another player's."""
    player = svc.create_player(db, owner, name=body.name, external_id=body.external_id)
    response.headers["Location"] = f"/v1/players/{player.id}"
    return _tagged(response, player)


@router.get(
    "/players",
    operation_id="listPlayers",
    response_model=PlayerPage,
    responses=problem_responses(401, 422),
)
def list_players(
    db: DB,
    owner: Owner,
    after: Annotated[
        str | None, Query(description="the last player id of the previous page", max_length=64)
    ] = None,
    limit: Annotated[int, Query(ge=1, le=200, description="players per page")] = 50,
) -> PlayerPage:
    """The owner's players in the order they were registered, keyset-paged: follow ``next``."""
    players, last = svc.list_players(db, owner, after=after, limit=limit)
    nxt = f"/v1/players?after={last}&limit={limit}" if last else None
    return PlayerPage(items=[RegisteredPlayer.of(p) for p in players], next=nxt)


@router.get(
    "/players/{player_id}",
    operation_id="getPlayer",
    response_model=RegisteredPlayer,
    responses={200: {"headers": ETAG}, **problem_responses(401, 404)},
)
def get_player(player_id: PlayerId, db: DB, owner: Owner, response: Response) -> RegisteredPlayer:
    """One registered player (another owner's is 404)."""
    return _tagged(response, svc.get_player(db, owner, player_id))


@router.patch(
    "/players/{player_id}",
    operation_id="updatePlayer",
    response_model=RegisteredPlayer,
    responses={200: {"headers": ETAG}, **problem_responses(401, 404, 409, 422)},
)
def update_player(
    player_id: PlayerId, body: PlayerUpdate, db: DB, owner: Owner, response: Response
) -> RegisteredPlayer:
    """Change the display name or the external id (``null`` clears it). The sheets of tables
    already played keep the names written on them."""
    fields = body.model_fields_set
    changes: dict[str, object] = {}
    if "name" in fields:
        if body.name is None:
            raise Unprocessable(
                "name cannot be null", [FieldError("name", "must be text: a player always has a name")]
            )
        changes["name"] = body.name
    if "external_id" in fields:
        changes["external_id"] = body.external_id
    return _tagged(response, svc.update_player(db, owner, player_id, **changes))  # type: ignore[arg-type]


@router.get(
    "/players/{player_id}/stats",
    operation_id="getPlayerStats",
    response_model=PlayerStatsOut,
    responses=problem_responses(401, 404, 422),
)
def get_player_stats(
    player_id: PlayerId,
    db: DB,
    owner: Owner,
    convention: Annotated[
        ConventionName | None, Query(description="only the tables of this convention")
    ] = None,
    from_: Annotated[
        date | None,
        Query(alias="from", description="only tables created on or after this UTC date (2026-12-01)"),
    ] = None,
    to: Annotated[date | None, Query(description="only tables created on or before this UTC date")] = None,
    stake: StakeQuery = None,
) -> PlayerStatsOut:
    """The player's statistics over the owner's tables they sit at: tables played and
    finished, net whists over the finished tables (and money with ``?stake=``), games declared
    by kind and level, misères, whists written and received, all-passes."""
    value = parse_stake(stake)
    if from_ is not None and to is not None and from_ > to:
        raise Unprocessable("from is after to", [FieldError("from", "must be on or before to")])
    player, stats, rating = svc.stats(db, owner, player_id, convention=convention, since=from_, until=to)
    filters = {
        "convention": convention,
        "from": from_.isoformat() if from_ else None,
        "to": to.isoformat() if to else None,
    }
    return PlayerStatsOut.of(player, stats, stake=value, filters=filters, rating=rating)
