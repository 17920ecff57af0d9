"""The application factory: settings → database → routers, problem handlers, middleware."""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import AsyncIterator

import anyio.to_thread
from fastapi import FastAPI

from app.db import Database, make_database
from app.settings import Settings

from . import middleware, problems
from .routes import conventions, deals, health, keys, tables, views
from . import docs_ui

API_VERSION = "1.0.0"
ROUTERS = (health.router, conventions.router, keys.router, tables.router, deals.router, views.router)


def create_app(settings: Settings | None = None, db: Database | None = None) -> FastAPI:
    settings = settings or Settings.from_env()
    database = db or make_database(settings)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        # Sync endpoints run in anyio's thread pool; the database pool is sized to it.
        anyio.to_thread.current_default_thread_limiter().total_tokens = max(1, settings.threads)
        yield
        if db is None:  # the app made it, the app closes it
            database.dispose()

    app = FastAPI(
        title="prefscore",
        version=API_VERSION,
        summary="Scoring service for Russian preference: pool, mountain, whists, all-passes and settlement.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.db = database
    problems.install(app)
    middleware.install(app, settings)
    for router in ROUTERS:
        app.include_router(router)
    docs_ui.install(app)  # /docs and /redoc without a CDN
    return app
