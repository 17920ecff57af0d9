"""Tournaments (``/v1/tournaments``): create, read, list; entrants and withdrawals; draw a
round, swap players, close and reopen a round; adjustments and the audit; the standings
(ETag, 304); the export; the share link's read-only view (``/v1/shared/{token}/tournament``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Path, Query, Response

from app.deals.answers import IdempotencyKey, checked_key
from app.deals.model import request_hash
from app.kit import etags
from app.kit.bodies import BodyRoute
from app.kit.built import Built
from app.kit.callers import Caller
from app.kit.deps import DB, NO_KEY, KeyCaller, get_settings
from app.kit.headers import CACHE_CONTROL, ETAG, IDEMPOTENT_REPLAYED, LOCATION, not_modified
from app.kit.preconditions import SeenVersions, not_modified_response
from app.kit.problem_schemas import problem_responses
from app.kit.settings import Settings
from app.tables.model import Limits
from app.tournaments import export, standings_answers
from app.tournaments import service as svc
from app.tournaments.limits import (
    AUDIT_PAGE_MAX,
    TOURNAMENT_ENTRANTS_MAX,
    TOURNAMENT_ROUNDS_MAX,
    TOURNAMENTS_PAGE_MAX,
)
from app.tournaments.schemas import (
    AdjustmentIn,
    AdjustmentOut,
    AuditItem,
    AuditList,
    DrawIn,
    EntrantsAdd,
    PenaltyIn,
    PenaltyOut,
    ReopenIn,
    SharedTournament,
    StandingsOut,
    SwapIn,
    TournamentCreate,
    TournamentList,
    TournamentOut,
    entrant_specs,
    exact,
)

router = APIRouter(prefix="/v1", tags=["tournaments"], route_class=BodyRoute)
# The share link's answers, by share token: built once per version of the tournament's view
# (app/tournaments/service.py public_view), bounded by number and size.
_SHARED: Built[bytes] = Built(64, max_bytes=32 * 1024 * 1024, weigh=len)
TournamentId = Annotated[str, Path(max_length=64, description="the tournament's id")]
RoundNumber = Annotated[int, Path(ge=1, le=TOURNAMENT_ROUNDS_MAX, description="the round's number")]
EntrantNumber = Annotated[int, Path(ge=1, le=TOURNAMENT_ENTRANTS_MAX, description="the entrant's number")]
Settings_ = Annotated[Settings, Depends(get_settings)]


def by(caller: Caller) -> str:
    """Who acts, as the audit writes it."""
    return f"key {caller.key_id}" if caller.key_id is not None else "admin key"


def _answer(
    db: DB,
    owner: str,
    tournament_id: str,
    tokens: dict[int, str] | None = None,
    tokens_round: int | None = None,
) -> TournamentOut:
    t, played = svc.get_tournament(db, owner, tournament_id)
    return TournamentOut.of(t, played, tokens, tokens_round)


@router.post(
    "/tournaments",
    operation_id="createTournament",
    status_code=201,
    response_model=TournamentOut,
    responses={201: {"headers": LOCATION}, **problem_responses(401, 409, 422)},
)
def create_tournament(body: TournamentCreate, db: DB, caller: KeyCaller, response: Response) -> TournamentOut:
    """Create a tournament: the rules every table plays, the table sizes (3, 4 or both where
    the rules seat 4), how a table's game ends, the planned rounds, the scoring of a round
    (a preset by name or one given) and the entrants (names or registered players)."""
    fields = body.model_fields_set
    scoring, preset = body.build_scoring()
    t = svc.create_tournament(
        db,
        caller.owner,
        name=body.name,
        convention=body.convention,
        pool_target=body.pool_target if "pool_target" in fields else None,
        options=body.options,
        table_sizes=body.table_sizes,
        game_end=body.game_end.build(),
        rounds=body.rounds,
        scoring=scoring,
        scoring_preset=preset,
        swiss=body.swiss,
        entrants=entrant_specs(body.entrants),
        by=by(caller),
    )
    response.headers["Location"] = f"/v1/tournaments/{t.id}"
    return TournamentOut.of(t, {})


@router.get(
    "/tournaments",
    operation_id="listTournaments",
    response_model=TournamentList,
    responses=problem_responses(401, 422),
)
def list_tournaments(
    db: DB,
    caller: KeyCaller,
    after: Annotated[
        str | None,
        Query(max_length=200, description="the cursor of the page to read, from the last page's next"),
    ] = None,
    limit: Annotated[
        int, Query(ge=1, le=TOURNAMENTS_PAGE_MAX, description="at most this many tournaments")
    ] = 50,
) -> TournamentList:
    """The key owner's tournaments, newest first, keyset-paged: follow ``next`` until it is null."""
    page = svc.list_tournaments(db, caller.owner, after=after, limit=limit)
    nxt = f"/v1/tournaments?after={page.next_cursor}&limit={limit}" if page.next_cursor else None
    return TournamentList.of(page, nxt)


@router.get(
    "/tournaments/{tournament_id}",
    operation_id="getTournament",
    response_model=TournamentOut,
    responses=problem_responses(401, 404),
)
def get_tournament(tournament_id: TournamentId, db: DB, caller: KeyCaller) -> TournamentOut:
    """The tournament: its settings, entrants, rounds with their tables and adjustments."""
    return _answer(db, caller.owner, tournament_id)


@router.post(
    "/tournaments/{tournament_id}/entrants",
    operation_id="addTournamentEntrants",
    response_model=TournamentOut,
    responses=problem_responses(401, 404, 409, 422),
)
def add_entrants(tournament_id: TournamentId, body: EntrantsAdd, db: DB, caller: KeyCaller) -> TournamentOut:
    """Enter players: before the first round, or late (drawn from the next round on; audited)."""
    svc.add_entrants(db, caller.owner, tournament_id, entrant_specs(body.entrants), by=by(caller))
    return _answer(db, caller.owner, tournament_id)


@router.post(
    "/tournaments/{tournament_id}/entrants/{number}/withdrawal",
    operation_id="withdrawTournamentEntrant",
    response_model=TournamentOut,
    responses=problem_responses(401, 404, 409, 422),
)
def withdraw(tournament_id: TournamentId, number: EntrantNumber, db: DB, caller: KeyCaller) -> TournamentOut:
    """Withdraw a player from the next round on; the rounds played stay in the standings."""
    svc.withdraw(db, caller.owner, tournament_id, number, by=by(caller))
    return _answer(db, caller.owner, tournament_id)


@router.post(
    "/tournaments/{tournament_id}/rounds",
    operation_id="drawTournamentRound",
    status_code=201,
    response_model=TournamentOut,
    responses={201: {"headers": {**LOCATION, **CACHE_CONTROL}}, **problem_responses(401, 404, 409, 422)},
)
def draw_round(
    tournament_id: TournamentId,
    db: DB,
    caller: KeyCaller,
    response: Response,
    settings: Settings_,
    body: Annotated[DrawIn, Body()] = None,  # type: ignore[assignment]
) -> TournamentOut:
    """Draw the next round (refused while the last one is open) and open its tables, each
    an ordinary table with a scorer link: the links are in this answer only
    (``rounds[-1].tables[].scorer_link``)."""
    body = body or DrawIn()
    t, r, tokens = svc.draw_round(
        db, caller.owner, tournament_id, by=by(caller), seed=body.seed, limits=Limits.of(settings)
    )
    response.headers["Location"] = f"/v1/tournaments/{t.id}"
    response.headers["Cache-Control"] = "no-store"
    return _answer(db, caller.owner, tournament_id, tokens, r.number)


@router.post(
    "/tournaments/{tournament_id}/rounds/{round_number}/swap",
    operation_id="swapTournamentPlayers",
    response_model=TournamentOut,
    responses={200: {"headers": CACHE_CONTROL}, **problem_responses(401, 404, 409, 422)},
)
def swap(
    tournament_id: TournamentId,
    round_number: RoundNumber,
    body: SwapIn,
    db: DB,
    caller: KeyCaller,
    response: Response,
) -> TournamentOut:
    """Swap two players of a round before it starts: the tables they sit at are made again
    (new tables and scorer links, in this answer only)."""
    _, tokens = svc.swap(db, caller.owner, tournament_id, round_number, body.a, body.b, by=by(caller))
    response.headers["Cache-Control"] = "no-store"
    return _answer(db, caller.owner, tournament_id, tokens, round_number)


@router.post(
    "/tournaments/{tournament_id}/rounds/{round_number}/close",
    operation_id="closeTournamentRound",
    response_model=TournamentOut,
    responses=problem_responses(401, 404, 409),
)
def close_round(
    tournament_id: TournamentId, round_number: RoundNumber, db: DB, caller: KeyCaller
) -> TournamentOut:
    """Close a round: its tables are locked as they stand (an unfinished table counts as if
    its game ended now), their results fixed."""
    svc.close_round(db, caller.owner, tournament_id, round_number, by=by(caller))
    return _answer(db, caller.owner, tournament_id)


@router.post(
    "/tournaments/{tournament_id}/rounds/{round_number}/reopen",
    operation_id="reopenTournamentRound",
    response_model=TournamentOut,
    responses=problem_responses(401, 404, 409, 422),
)
def reopen_round(
    tournament_id: TournamentId, round_number: RoundNumber, body: ReopenIn, db: DB, caller: KeyCaller
) -> TournamentOut:
    """Reopen a closed round, with a reason, to correct its tables; close it again after."""
    svc.reopen_round(db, caller.owner, tournament_id, round_number, body.reason, by=by(caller))
    return _answer(db, caller.owner, tournament_id)


@router.post(
    "/tournaments/{tournament_id}/adjustments",
    operation_id="addTournamentAdjustment",
    status_code=201,
    response_model=AdjustmentOut,
    responses=problem_responses(401, 404, 409, 422),
)
def add_adjustment(
    tournament_id: TournamentId, body: AdjustmentIn, db: DB, caller: KeyCaller
) -> AdjustmentOut:
    """Adjust a player's total (in whists or points) with a reason; shown in the standings.
    One of a closed round is refused until the round is reopened."""
    _, adjustment = svc.add_adjustment(
        db,
        caller.owner,
        tournament_id,
        entrant=body.entrant,
        amount=exact(body.amount),
        reason=body.reason,
        round_number=body.round,
        by=by(caller),
    )
    return AdjustmentOut.of(adjustment)


@router.post(
    "/tournaments/{tournament_id}/penalties",
    operation_id="addTournamentPenalty",
    status_code=201,
    response_model=PenaltyOut,
    responses={
        201: {"headers": {**LOCATION, **IDEMPOTENT_REPLAYED}},
        **problem_responses(401, 404, 409, 422),
    },
)
def add_penalty(
    tournament_id: TournamentId,
    body: PenaltyIn,
    db: DB,
    caller: KeyCaller,
    response: Response,
    settings: Settings_,
    idempotency_key: IdempotencyKey = None,
) -> PenaltyOut:
    """A judge's penalty on an entrant at a round's table (docs/rules.md §15): written in the
    table's log as a deal is (undone and corrected there), audited, shown on the public page.
    Refused at a closed round's table until the round is reopened. A retry with the same
    Idempotency-Key and body gets the first answer."""
    key = checked_key(idempotency_key)
    done = svc.post_penalty(
        db,
        caller.owner,
        tournament_id,
        round_number=body.round,
        table=body.table,
        entrant=body.entrant,
        penalty=body.penalty(),
        by=by(caller),
        idempotency_key=key,
        request_hash=request_hash(body.model_dump(mode="json")) if key is not None else None,
        limits=Limits.of(settings),
    )
    out = PenaltyOut.of(done)
    response.headers["Location"] = f"/v1/tables/{out.table_id}/deals/{out.deal.root.number}"
    if done.posted.replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return out


@router.get(
    "/tournaments/{tournament_id}/audit",
    operation_id="getTournamentAudit",
    response_model=AuditList,
    responses=problem_responses(401, 404),
)
def get_audit(
    tournament_id: TournamentId,
    db: DB,
    caller: KeyCaller,
    after: Annotated[
        int,
        Query(
            ge=0, le=2**62, description="list the entries after this one (its id), from the last page's next"
        ),
    ] = 0,
    limit: Annotated[int, Query(ge=1, le=AUDIT_PAGE_MAX, description="at most this many entries")] = 50,
) -> AuditList:
    """Every draw, lock, reopen, adjustment, swap, withdrawal and late entry, with who and when,
    oldest first, keyset-paged: follow ``next`` until it is null."""
    entries, last = svc.audit(db, caller.owner, tournament_id, after=after, limit=limit)
    nxt = f"/v1/tournaments/{tournament_id}/audit?after={last}&limit={limit}" if last is not None else None
    return AuditList(items=[AuditItem.of(e) for e in entries], next=nxt)


@router.get(
    "/tournaments/{tournament_id}/standings",
    operation_id="getTournamentStandings",
    response_model=StandingsOut,
    responses={
        200: {"headers": {**ETAG, **CACHE_CONTROL}},
        **not_modified(),
        **problem_responses(401, 404, 422),
    },
)
def get_standings(
    tournament_id: TournamentId,
    db: DB,
    caller: KeyCaller,
    response: Response,
    after_round: Annotated[
        int | None, Query(ge=1, le=TOURNAMENT_ROUNDS_MAX, description="the standings after this round")
    ] = None,
    seen: SeenVersions = None,
) -> StandingsOut | Response:
    """The standings: per round and total, with the adjustments and their reasons. ``ETag``;
    ``If-None-Match`` answers 304."""
    result = svc.standings(db, caller.owner, tournament_id, after_round=after_round, seen=seen)
    etag = result if isinstance(result, str) else result.etag
    if (unchanged := not_modified_response(seen, etag)) is not None:
        return unchanged
    headers = {"ETag": etag, "Cache-Control": etags.CACHE}
    body = standings_answers.answer(result)  # type: ignore[arg-type]
    return Response(content=body, media_type="application/json", headers=headers)


@router.post(
    "/tournaments/{tournament_id}/share-token",
    operation_id="rotateTournamentShareToken",
    response_model=TournamentOut,
    responses=problem_responses(401, 404),
)
def rotate_share_token(tournament_id: TournamentId, db: DB, caller: KeyCaller) -> TournamentOut:
    """A new share token: the old tournament share link is not found from now on."""
    svc.rotate_share_token(db, caller.owner, tournament_id)
    return _answer(db, caller.owner, tournament_id)


@router.get(
    "/tournaments/{tournament_id}/export",
    operation_id="exportTournament",
    responses={
        200: {
            "description": "the standings and every round's results (JSON or CSV), or the tournament's record",
            "content": {"application/json": {}, "text/csv": {}},
        },
        **problem_responses(401, 404, 422),
    },
)
def export_tournament(
    tournament_id: TournamentId,
    db: DB,
    caller: KeyCaller,
    format: Annotated[
        export.Format,
        Query(
            description="json or csv: standings and results; record: the tournament with its tables' records"
        ),
    ] = "json",
    part: Annotated[
        export.Part, Query(description="csv only: standings or results (every round's tables)")
    ] = "standings",
) -> Response:
    """The standings and every round's results as JSON or CSV, or the tournament's record
    (its settings, rounds and each table's record, for import elsewhere)."""
    media, text = export.export(db, caller.owner, tournament_id, format, part)
    disposition = f'attachment; filename="tournament-{tournament_id}-{part if format == "csv" else format}.{"csv" if format == "csv" else "json"}"'
    return Response(content=text, media_type=media, headers={"Content-Disposition": disposition})


@router.get(
    "/shared/{token}/tournament",
    operation_id="getSharedTournament",
    response_model=SharedTournament,
    responses={200: {"headers": {**ETAG, **CACHE_CONTROL}}, **not_modified(), **problem_responses(404)},
    tags=["shared"],
    openapi_extra=NO_KEY,
)
def get_shared_tournament(
    token: str, db: DB, response: Response, seen: SeenVersions = None
) -> SharedTournament | Response:
    """The tournament's read-only share link: its settings, rounds, standings and the current
    round's tables with their share pages and live streams (and each seat's chance to finish
    first at a table of rated players), without a key. ``ETag``;
    ``If-None-Match`` answers 304."""
    view = svc.public_view(db, token)
    etag = view.etag
    if (unchanged := not_modified_response(seen, etag)) is not None:
        return unchanged
    headers = {"ETag": etag, "Cache-Control": etags.CACHE}
    body = _SHARED.get_or_build(token, view.built_at, lambda: _shared_body(view))
    return Response(content=body, media_type="application/json", headers=headers)


def _shared_body(view: svc.PublicView) -> bytes:
    return SharedTournament.of(view).model_dump_json().encode()
