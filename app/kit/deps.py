"""Dependencies: the database and settings of the running app, and the caller's owner.

The caller (a key, a scorer link) is identified before the request's body is read, by the
gate in app/kit/middleware/rate_limit.py, which answers a request without a valid one; the
dependencies here take its answer from the request's scope, and make the same checks
themselves for an app served without that layer.

No dependency here holds a transaction across the endpoint: each use case opens and commits
its own (code after ``yield`` in a dependency runs after the response is sent)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool

from app.kit.callers import Caller
from app.kit.db import Database
from app.kit.errors import Forbidden, NotFound, Unauthorized
from app.kit.middleware.rate_limit import (
    CALLER_SCOPE_KEY,
    KEY_NOT_VALID,
    KEY_REQUIRED,
    NO_SCORER_LINK,
    SCORER_SCOPE_KEY,
)
from app.kit.settings import Settings

_bearer = HTTPBearer(auto_error=False, description="an API key: `Authorization: Bearer pk_...`")


# The dependencies are ``async def`` although they mostly do no I/O: FastAPI runs a plain
# ``def`` dependency in the thread pool, a round trip through it for each dependency of each
# request. Only the key lookup that needs the database goes to the thread pool.


async def get_db(request: Request) -> Database:
    db: Database = request.app.state.db
    return db


async def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def current_caller(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Caller:
    if credentials is None or credentials.scheme.lower() != "bearer":
        raise Unauthorized(KEY_REQUIRED)
    db = request.app.state.db
    token = credentials.credentials.strip()
    admin_key = request.app.state.settings.admin_key
    seen = request.scope.get(CALLER_SCOPE_KEY)
    # The rate limit identified this key already (app/kit/middleware/rate_limit.py).
    lookups = request.app.state.lookups
    caller = seen[1] if seen is not None and seen[0] == token else lookups.known_caller(db, token, admin_key)
    if caller is None:
        caller = await run_in_threadpool(lookups.identify, db, token, admin_key)
    if not isinstance(caller, Caller):  # None, or INVALID from the cache
        raise Unauthorized(KEY_NOT_VALID)
    return caller


async def current_owner(caller: Annotated[Caller, Depends(current_caller)]) -> str:
    return caller.owner


async def admin_caller(caller: Annotated[Caller, Depends(current_caller)]) -> Caller:
    if not caller.admin:
        raise Forbidden(
            "only an admin key can manage keys (PREFSCORE_ADMIN_KEY, or a key made with `prefscore keys create --admin`)"
        )
    return caller


async def current_scorer(request: Request, token: str) -> Any:
    """The table a scorer link (``/v1/score/{token}``) may act on (app/scorer/service.py
    ``Scorer``); an unknown or revoked link is not found. Looked up in the database on every request (never cached): a revoked
    link is refused at once."""
    seen = request.scope.get(SCORER_SCOPE_KEY)
    # The rate limit looked this link up already in this request (app/kit/middleware/rate_limit.py).
    scorer = (
        seen[1]
        if seen is not None and seen[0] == token
        else await run_in_threadpool(request.app.state.lookups.scorer, request.app.state.db, token)
    )
    if scorer is None:
        raise NotFound(NO_SCORER_LINK)
    return scorer


DB = Annotated[Database, Depends(get_db)]
# The operations a link (a scorer link, a share link) opens: the link is the credential, no key is asked for.
NO_KEY: dict[str, Any] = {"security": []}
ScorerAccess = Annotated[Any, Depends(current_scorer)]
Owner = Annotated[str, Depends(current_owner)]
KeyCaller = Annotated[Caller, Depends(current_caller)]
Admin = Annotated[Caller, Depends(admin_caller)]
