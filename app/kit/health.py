from __future__ import annotations

import logging
from typing import Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import Field
from starlette.concurrency import run_in_threadpool

from app.kit.db import Database
from app.kit.db.engine import LoopReadUnavailable
from app.kit.deps import DB
from app.kit.problem_schemas import problem_responses
from app.kit.problems import problem
from app.kit.schemas import Answer
from app.rules import Sentence

router = APIRouter(tags=["health"])
log = logging.getLogger("prefscore.api")


class HealthOut(Answer):
    status: Literal["ok"]
    database: Literal["ok"]
    writes: bool = Field(
        description="the database takes writes (PostgreSQL: the server is the leader, not a standby)"
    )


@router.get("/health", operation_id="getHealth", response_model=HealthOut, responses=problem_responses(503))
async def health(db: DB, request: Request) -> HealthOut | JSONResponse:
    """200 when the database answers ``SELECT 1`` and can be written (a write committed at
    most every few seconds; PostgreSQL: ``pg_is_in_recovery()`` false on the leader's URL),
    else 503; ``writes`` says whether the database takes writes (false during a failover)."""
    # ``async def``: a load balancer asks often, and a plain function waits for a thread and
    # then for the interpreter, behind whatever the event loop is doing (a fan-out to
    # thousands of streams); the ping is a read on the loop, the probe's write a thread's.
    try:
        await _ping(db)
    except Exception:  # noqa: BLE001 - any failure of the database is "down"
        log.warning("health check: the database does not answer", exc_info=True)
        return problem(
            503, "the database does not answer", scope=request.scope, database="down", writes=False
        )
    why = db.write_problem()
    if why is not None:
        log.error("health check: the database cannot be written: %s", why)
        return problem(
            503,
            Sentence("the database cannot be written: {why}", why=why),
            scope=request.scope,
            database="read-only",
            writes=False,
        )
    probed = await run_in_threadpool(db.write_probe) if db.write_probe_due() else db.write_probe()
    if probed is not None:
        state, why = probed
        log.error("health check: the database cannot be written: %s", why)
        return problem(
            503,
            Sentence("the database cannot be written: {why}", why=why),
            scope=request.scope,
            database=state,
            writes=False,
        )
    return HealthOut(status="ok", database="ok", writes=True)


async def _ping(db: Database) -> None:
    try:
        await db.read_one_async("SELECT 1", ())
    except LoopReadUnavailable:
        await run_in_threadpool(db.ping)  # raises when the database does not answer
