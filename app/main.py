"""The application factory: settings → database → routers, problem handlers, middleware."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import anyio.to_thread
from fastapi import FastAPI

from app import orm  # noqa: F401  (every domain's tables declared on the one metadata, as Alembic sees them)
from app.conventions import router as conventions
from app.deals import router as deals
from app.deals.post_answers import PostAnswers
from app.keys import router as keys
from app.keys import service as key_service
from app.keys.service import configure_key_cache
from app.kit import assets, docs_ui, health, middleware, openapi, problems
from app.kit.callers import Lookups
from app.kit.db import Database, make_database
from app.kit.middleware import Links, trailing_slash
from app.kit.middleware.rate_limit import KIT_PUBLIC_ROUTES, TokenLink
from app.kit.middleware.read_your_writes import ReadYourWrites
from app.kit.settings import Settings
from app.live import router as events
from app.players import router as players
from app.ratings import router as ratings
from app.ratings.rater import Rater
from app.records import router as records
from app.scorer import page as score_page
from app.scorer import router as scorer
from app.scorer import service as scorer_service
from app.scorer.limits import SCORER_LINK_NAME, SCORER_LINK_PATHS
from app.sharing import page as shared_page
from app.sharing import router as sharing
from app.sharing.drawing import Pictures
from app.sharing.limits import SHARE_LINK_NAME, SHARE_LINK_PATHS
from app.tables import router as tables
from app.tables.sheet_answers import SheetAnswers
from app.tournaments import page as tournament_page
from app.tournaments import router as tournaments
from app.tournaments.limits import TOURNAMENT_PAGE_PATHS
from app.webhooks import router as webhooks
from app.webhooks.delivery import Deliverer

API_VERSION = "1.0.0"
ROUTERS = (
    health.router,
    assets.router,
    conventions.router,
    keys.router,
    tables.router,
    deals.router,
    players.router,
    ratings.router,
    sharing.router,
    shared_page.router,
    events.router,
    scorer.owner_router,
    scorer.router,
    sharing.scorer_router,
    events.scorer_router,
    score_page.router,
    webhooks.router,
    tournaments.router,
    tournament_page.router,
)

# The links that carry a token in place of a key, as their domains declare them: a share
# link's (a tournament's page included) is a read capability, counted per token; a scorer
# link's a write one, looked up and counted as a key. The gate counts them and the logs mask
# their tokens (app/kit/middleware).
LINKS = Links(
    read=(TokenLink(SHARE_LINK_PATHS + TOURNAMENT_PAGE_PATHS, SHARE_LINK_NAME),),
    write=(TokenLink(SCORER_LINK_PATHS, SCORER_LINK_NAME),),
)
# Every route answered without a key, and what it is counted against besides its address: a
# share token's budget (the share links, the tournament's page and JSON), a scorer link's
# (counted as a key once it is found), or the address's alone (the kit's own: the API's
# documents and the probes, the probes unbudgeted). tests/hardening/test_public_routes.py
# walks the app's routes against it.
PUBLIC_ROUTES: dict[str, str] = {
    "/v1/shared/{token}": "share link",
    "/v1/shared/{token}/sheet.svg": "share link",
    "/v1/shared/{token}/sheet.png": "share link",
    "/v1/shared/{token}/deals": "share link",
    "/v1/shared/{token}/events": "share link",
    "/v1/shared/{token}/tournament": "share link",
    "/v1/shared/{token}/tournament/events": "share link",
    "/shared/{token}": "share link",
    "/tournament/{token}": "share link",
    "/v1/score/{token}": "scorer link",
    "/v1/score/{token}/deals": "scorer link",
    "/v1/score/{token}/deals/{number}": "scorer link",
    "/v1/score/{token}/sheet.svg": "scorer link",
    "/v1/score/{token}/events": "scorer link",
    "/score/{token}": "scorer link",
    "/score/{token}/manifest.webmanifest": "scorer link",
    "/score/{token}/icon.svg": "scorer link",
    "/score/{token}/sw.js": "scorer link",
    **KIT_PUBLIC_ROUTES,
}


class PrefscoreAPI(FastAPI):
    """FastAPI with the service's outermost middleware around its whole stack: the request
    context, the security headers and the problem+json 413 see every answer, those of the
    framework's own body-size limit and error middleware included (app/kit/middleware)."""

    def build_middleware_stack(self):  # noqa: ANN201
        settings = self.state.settings
        return middleware.wrap(super().build_middleware_stack(), settings, records.body_limits(settings))


# The routes whose reads a replica may serve when PREFSCORE_READ_DATABASE_URL names one (a
# moment behind at most, never behind the client's own write): sheets, listings, share and
# tournament pages and views, standings, pictures. Not the ratings (a read rates what is
# pending first: a write), nor keys and webhooks (an operator's view of them is the leader's),
# nor the event streams (their catch-up follows the leader's notifications).
REPLICA_READS = frozenset(
    {
        "/v1/tables",
        "/v1/tables/{table_id}",
        "/v1/tables/{table_id}/sheet",
        "/v1/tables/{table_id}/sheet.svg",
        "/v1/tables/{table_id}/sheet.png",
        "/v1/tables/{table_id}/deals",
        "/v1/tables/{table_id}/deals/{number}",
        "/v1/shared/{token}",
        "/v1/shared/{token}/sheet.svg",
        "/v1/shared/{token}/sheet.png",
        "/v1/shared/{token}/deals",
        "/v1/shared/{token}/tournament",
        "/shared/{token}",
        "/tournament/{token}",
        "/v1/score/{token}",
        "/v1/score/{token}/deals",
        "/v1/score/{token}/sheet.svg",
        "/v1/players",
        "/v1/tournaments",
        "/v1/tournaments/{tournament_id}",
        "/v1/tournaments/{tournament_id}/standings",
        "/v1/tournaments/{tournament_id}/audit",
    }
)


def _lifespan(
    settings: Settings, database: Database, *, owns_database: bool
) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """The app's start and stop: the workers it starts (webhook deliveries, ratings, the
    tournaments' watch on finished tables) and what it closes after them."""

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        # Sync endpoints run in anyio's thread pool; the database pool is sized to it.
        anyio.to_thread.current_default_thread_limiter().total_tokens = max(1, settings.threads)
        if settings.webhooks_deliver:  # the outbox's deliveries, sent by this process (app/webhooks)
            _app.state.webhooks.start()
        _app.state.rater.start()  # the finished rated tables' ratings, after their posts (app/ratings)
        try:
            yield
        finally:
            await _app.state.rater.stop()
            await _app.state.webhooks.stop()
        await anyio.to_thread.run_sync(_app.state.pictures.close)  # the drawing workers, if started
        if getattr(_app.state, "live", None) is not None:  # the event streams' listener (app/live)
            await _app.state.live.stop()
        await database.close_loop_reads()  # this loop's pooled PostgreSQL connections
        if owns_database:  # the app made it, the app closes it
            database.dispose()

    return lifespan


def create_app(settings: Settings | None = None, db: Database | None = None) -> FastAPI:
    settings = settings or Settings.from_env()
    database = db or make_database(settings)
    lifespan = _lifespan(settings, database, owns_database=db is None)
    app = PrefscoreAPI(
        title="prefscore",
        # The framework's own body-size limit (413 before the body is parsed).
        max_body_size=settings.max_body_bytes,
        version=API_VERSION,
        summary="Scoring service for Russian preference: pool, mountain, whists, all-passes and settlement.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.db = database
    # How the kit's gate and dependencies find a key's caller and a scorer link's table
    # (each looked up in its module when called, as a direct import would be).
    app.state.lookups = Lookups(
        known_caller=lambda db, token, admin_key: key_service.known_caller(db, token, admin_key),
        identify=lambda db, token, admin_key: key_service.identify(db, token, admin_key),
        scorer=lambda db, token: scorer_service.resolve(db, token),
    )
    app.state.webhooks = Deliverer(database, settings)
    app.state.rater = Rater(database)
    app.state.pictures = Pictures(settings)  # their cache and drawing workers (app/sharing/drawing.py)
    configure_key_cache(database, ttl=settings.key_cache_ttl, size=settings.key_cache_size)
    problems.install(app)
    # Innermost: a deal's post before the framework's routing (read-your-writes sees its write).
    app.add_middleware(PostAnswers, db=database, settings=settings, routes=app.router.routes)
    if database.read_engine is not None:
        # Innermost: the client's own writes only (app/kit/db/replicas.py).
        app.add_middleware(ReadYourWrites, routes=REPLICA_READS, cookie_seconds=settings.read_after_seconds)
    # Inside the rate limit: the sheet's 304 and kept 200 before the framework's routing.
    app.add_middleware(SheetAnswers, db=database, routes=app.router.routes)
    middleware.install(app, settings, records.body_limits(settings), LINKS)
    # The record import reads its body under its own limit (app/records/router.py); it is
    # included first, so that /v1/tables/import is not taken for a table's id.
    app.router.include_router(records.router, max_body_size=settings.max_record_bytes)
    for router in ROUTERS:
        app.include_router(router)
    openapi.install(app)
    docs_ui.install(app)  # /docs and /redoc without a CDN
    trailing_slash.install(app)  # "/v1/tables/" redirected to a relative "/v1/tables"
    return app
