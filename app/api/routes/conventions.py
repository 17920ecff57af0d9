from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app.rules import conventions_catalog

from ..deps import Owner
from ..schemas import problem_responses

router = APIRouter(prefix="/v1", tags=["conventions"])


@router.get("/conventions", responses=problem_responses(401))
def list_conventions(_owner: Owner) -> list[dict[str, Any]]:
    """Each convention with its options, their types and defaults."""
    return conventions_catalog()
