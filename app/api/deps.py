"""Dependencies: the database and settings of the running app, and the caller's owner.

No dependency here holds a transaction across the endpoint: each use case opens and commits
its own (code after ``yield`` in a dependency runs after the response is sent)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool

from app.db import Database
from app.services.errors import Forbidden, Unauthorized
from app.services.keys import ADMIN_OWNER, authenticate, known_owner
from app.settings import Settings

_bearer = HTTPBearer(auto_error=False, description="an API key: `Authorization: Bearer pk_...`")


# The dependencies are ``async def`` although they mostly do no I/O: FastAPI runs a plain
# ``def`` dependency in the thread pool, a round trip through it for each dependency of each
# request. Only the key lookup that needs the database goes to the thread pool.


async def get_db(request: Request) -> Database:
    return request.app.state.db


async def get_settings(request: Request) -> Settings:
    return request.app.state.settings


async def current_owner(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> str:
    if credentials is None or credentials.scheme.lower() != "bearer":
        raise Unauthorized("an API key is required: Authorization: Bearer <key>")
    db = request.app.state.db
    token = credentials.credentials.strip()
    admin_key = request.app.state.settings.admin_key
    owner = known_owner(db, token, admin_key)
    if owner is None:
        owner = await run_in_threadpool(authenticate, db, token, admin_key)
    if not owner:  # None, or INVALID from the cache
        raise Unauthorized("this API key is not valid")
    return owner


async def admin_owner(owner: Annotated[str, Depends(current_owner)], request: Request) -> str:
    settings: Settings = request.app.state.settings
    if owner != ADMIN_OWNER or not settings.admin_key:
        raise Forbidden("only the admin key (PREFSCORE_ADMIN_KEY) can create keys")
    return owner


DB = Annotated[Database, Depends(get_db)]
Owner = Annotated[str, Depends(current_owner)]
Admin = Annotated[str, Depends(admin_owner)]
