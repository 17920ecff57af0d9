from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from app.services.keys import create_key

from ..deps import DB, Admin
from ..schemas import KeyCreate, KeyOut, problem_responses

router = APIRouter(prefix="/v1", tags=["keys"])


@router.post("/keys", status_code=201, response_model=KeyOut, responses=problem_responses(401, 403, 422))
def post_key(body: KeyCreate, db: DB, _admin: Admin) -> JSONResponse:
    """Create an API key for ``owner`` (admin key only). The key is shown once."""
    key = create_key(db, body.owner)
    return JSONResponse({"owner": body.owner, "key": key}, status_code=201, headers={"Cache-Control": "no-store"})
