"""Ratings: a player's rating and history, the leaderboard, a prediction for a seating."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Path, Query, Response

from app.kit import etags
from app.kit.bodies import BodyRoute
from app.kit.deps import DB, Owner
from app.kit.headers import CACHE_CONTROL, ETAG, not_modified
from app.kit.preconditions import IfNoneMatch, not_modified_response
from app.kit.problem_schemas import problem_responses
from app.kit.schemas import ConventionName
from app.ratings import service as svc
from app.ratings.limits import RATING_HISTORY_MAX, RATINGS_PAGE_MAX
from app.ratings.schemas import LeaderboardOut, PlayerRatingOut, PredictIn, PredictionOut, PredictOut

router = APIRouter(prefix="/v1", tags=["ratings"], route_class=BodyRoute)
PlayerId = Annotated[str, Path(description="the player's id", max_length=64)]
Convention = Annotated[
    ConventionName | None,
    Query(description="the convention's pool; the pool of every convention when left out"),
]


@router.get(
    "/players/{player_id}/rating",
    operation_id="getPlayerRating",
    response_model=PlayerRatingOut,
    responses=problem_responses(401, 404, 422),
)
def get_player_rating(
    player_id: PlayerId,
    db: DB,
    owner: Owner,
    convention: Convention = None,
    before: Annotated[
        int | None,
        Query(
            ge=1, le=2**31 - 1, description="history before this place of the finishing order (a next link's)"
        ),
    ] = None,
    limit: Annotated[
        int, Query(ge=1, le=RATING_HISTORY_MAX, description="rated tables of history per page")
    ] = 20,
) -> PlayerRatingOut:
    """The player's current rating (mu, sigma, ordinal = mu − 3·sigma, rated tables,
    provisional while under 6) and its history, a change per rated table, the latest first.
    Another owner's player is 404."""
    found = svc.player_rating(db, owner, player_id, convention=convention, before=before, limit=limit)
    nxt = None
    if found.next_before is not None:
        query = {"convention": convention, "before": found.next_before, "limit": limit}
        nxt = f"/v1/players/{player_id}/rating?" + urlencode(
            {k: v for k, v in query.items() if v is not None}
        )
    return PlayerRatingOut.of(found, nxt)


@router.get(
    "/ratings",
    operation_id="getLeaderboard",
    response_model=LeaderboardOut,
    responses={200: {"headers": {**ETAG, **CACHE_CONTROL}}, **not_modified(), **problem_responses(401, 422)},
)
def get_leaderboard(
    db: DB,
    owner: Owner,
    response: Response,
    convention: Convention = None,
    after: Annotated[
        str | None, Query(description="the cursor of the next page (from next)", max_length=200)
    ] = None,
    limit: Annotated[int, Query(ge=1, le=RATINGS_PAGE_MAX, description="players per page")] = 50,
    if_none_match: IfNoneMatch = None,
) -> LeaderboardOut | Response:
    """The owner's rated players by ordinal (mu − 3·sigma), the highest first, keyset-paged:
    follow ``next``. ``ETag``; ``If-None-Match`` answers 304."""
    board = svc.leaderboard(db, owner, convention=convention, after=after, limit=limit)
    if (unchanged := not_modified_response(if_none_match, board.etag)) is not None:
        return unchanged
    response.headers["ETag"] = board.etag
    response.headers["Cache-Control"] = etags.CACHE
    nxt = None
    if board.next_after is not None:
        query = {"convention": convention, "after": board.next_after, "limit": limit}
        nxt = "/v1/ratings?" + urlencode({k: v for k, v in query.items() if v is not None})
    return LeaderboardOut.of(board, nxt)


@router.post(
    "/ratings/predict",
    operation_id="predictSeating",
    response_model=PredictOut,
    responses=problem_responses(401, 422),
)
def predict(body: PredictIn, db: DB, owner: Owner) -> PredictOut:
    """For a seating of 3 or 4 of the owner's players: each one's chance to finish first and
    most likely place, from their current ratings (the model's predict_win and predict_rank)."""
    found = svc.predict(db, owner, body.players, convention=body.convention)
    return PredictOut(convention=body.convention, players=[PredictionOut.of(p) for p in found])
