from __future__ import annotations

from fastapi import APIRouter, Response

from app.services.keys import create_key

from ..deps import DB, Admin
from ..headers import CACHE_CONTROL
from ..schemas import KeyCreate, KeyOut, problem_responses

router = APIRouter(prefix="/v1", tags=["keys"])


@router.post(
    "/keys",
    operation_id="createKey",
    status_code=201,
    response_model=KeyOut,
    responses={201: {"headers": CACHE_CONTROL}, **problem_responses(401, 403, 422)},
)
def post_key(body: KeyCreate, db: DB, _admin: Admin, response: Response) -> KeyOut:
    """Create an API key for ``owner`` (admin key only). The key is shown once."""
    key = create_key(db, body.owner)
    response.headers["Cache-Control"] = "no-store"
    return KeyOut(owner=body.owner, key=key)
