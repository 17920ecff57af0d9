"""API keys, for admin keys only: create (the key is shown once), list (never a hash or a
secret), revoke."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Path
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from app.services.keys import create_key, list_keys, revoke_key

from ..deps import DB, Admin
from ..schemas import KeyCreate, KeyOut, problem_responses

router = APIRouter(prefix="/v1", tags=["keys"])
KeyId = Annotated[int, Path(ge=1, le=2**53 - 1)]


class KeyListed(BaseModel):
    id: int
    owner: str
    prefix: str
    admin: bool
    created_at: datetime
    revoked_at: datetime | None


class KeyList(BaseModel):
    items: list[KeyListed]


@router.post("/keys", status_code=201, response_model=KeyOut, operation_id="createKey", responses=problem_responses(401, 403, 422))
def post_key(body: KeyCreate, db: DB, _admin: Admin) -> JSONResponse:
    """Create an ordinary API key for ``owner`` (admin key only). The key is shown once.
    An admin key is made only by ``prefscore keys create NAME --admin``."""
    key = create_key(db, body.owner)
    return JSONResponse({"owner": body.owner, "key": key}, status_code=201, headers={"Cache-Control": "no-store"})


@router.get("/keys", response_model=KeyList, operation_id="listKeys", responses=problem_responses(401, 403))
def get_keys(db: DB, _admin: Admin) -> JSONResponse:
    """Every stored key, revoked ones included: id, owner, prefix, admin flag, when it was
    created and revoked. Never a hash nor a secret."""
    return JSONResponse({"items": [k.to_dict() for k in list_keys(db)]}, headers={"Cache-Control": "no-store"})


@router.delete("/keys/{key_id}", response_model=KeyListed, operation_id="revokeKey", responses=problem_responses(401, 403, 404, 422))
def delete_key(key_id: KeyId, db: DB, _admin: Admin) -> JSONResponse:
    """Revoke a key: refused at once by this process, by every other process within the key
    cache's lifetime (``PREFSCORE_KEY_CACHE_TTL``, 60 s by default). Revoking again is a no-op."""
    return JSONResponse(revoke_key(db, key_id).to_dict(), headers={"Cache-Control": "no-store"})
