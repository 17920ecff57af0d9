"""API keys, for admin keys only: create (the key is shown once), list (never a hash or a
secret), revoke."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Request, Response

from app.keys.limits import KEYS_PAGE_MAX
from app.keys.schemas import KeyCreate, KeyList, KeyListed, KeyOut
from app.keys.service import create_key, keys_page, revoke_key
from app.kit.bodies import BodyRoute
from app.kit.deps import DB, Admin
from app.kit.headers import CACHE_CONTROL
from app.kit.problem_schemas import problem_responses

router = APIRouter(prefix="/v1", tags=["keys"], route_class=BodyRoute)
KeyId = Annotated[int, Path(ge=1, le=2**53 - 1)]
# Keys and their listing are never kept by a cache on the way.
_NO_STORE = {"headers": CACHE_CONTROL}


@router.post(
    "/keys",
    operation_id="createKey",
    status_code=201,
    response_model=KeyOut,
    responses={201: _NO_STORE, **problem_responses(401, 403, 422)},
)
def post_key(body: KeyCreate, db: DB, _admin: Admin, response: Response) -> KeyOut:
    """Create an ordinary API key for ``owner`` (admin key only). The key is shown once.
    An admin key is made only by ``prefscore keys create NAME --admin``."""
    key = create_key(db, body.owner)
    response.headers["Cache-Control"] = "no-store"
    return KeyOut(owner=body.owner, key=key)


@router.get(
    "/keys",
    operation_id="listKeys",
    response_model=KeyList,
    responses={200: _NO_STORE, **problem_responses(401, 403)},
)
def get_keys(
    db: DB,
    _admin: Admin,
    response: Response,
    before: Annotated[
        int | None,
        Query(
            ge=1,
            le=2**53 - 1,
            description="list the keys made before this one (its id), from the last page's next",
        ),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=KEYS_PAGE_MAX, description="at most this many keys")] = 50,
) -> KeyList:
    """The stored keys, revoked ones included, newest first, keyset-paged (follow ``next``
    until it is null): id, owner, prefix, admin flag, when it was created and revoked. Never
    a hash nor a secret."""
    response.headers["Cache-Control"] = "no-store"
    keys, last = keys_page(db, before=before, limit=limit)
    nxt = f"/v1/keys?before={last}&limit={limit}" if last is not None else None
    return KeyList(items=[KeyListed.model_validate(k.to_dict()) for k in keys], next=nxt)


@router.delete(
    "/keys/{key_id}",
    operation_id="revokeKey",
    response_model=KeyListed,
    responses={200: _NO_STORE, **problem_responses(401, 403, 404, 422)},
)
def delete_key(key_id: KeyId, db: DB, _admin: Admin, request: Request, response: Response) -> KeyListed:
    """Revoke a key: refused at once by this process, by every other process within the key
    cache's lifetime (``PREFSCORE_KEY_CACHE_TTL``, 60 s by default). The event streams open
    with it end at once here, within ``PREFSCORE_EVENTS_HEARTBEAT`` seconds elsewhere.
    Revoking again is a no-op."""
    response.headers["Cache-Control"] = "no-store"
    revoked = revoke_key(db, key_id)
    updates = getattr(request.app.state, "live", None)
    if updates is not None:
        updates.hub.key_revoked_threadsafe(key_id)
    return KeyListed.model_validate(revoked.to_dict())
