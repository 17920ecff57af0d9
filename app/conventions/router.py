"""The conventions a table may be made under, each with every field of its rule table."""

from __future__ import annotations

from fastapi import APIRouter

from app.conventions import service as svc
from app.conventions.schemas import ConventionOut
from app.kit.deps import Owner
from app.kit.problem_schemas import problem_responses

router = APIRouter(prefix="/v1", tags=["conventions"])


@router.get(
    "/conventions",
    operation_id="listConventions",
    response_model=list[ConventionOut],
    response_model_exclude_none=True,
    responses=problem_responses(401),
)
def list_conventions(_owner: Owner) -> list[dict]:
    """Each convention with every field of the rule table: its type, allowed values and the
    preset's value. A table may override any field under ``options``."""
    return svc.catalog()
