"""Small ASGI helpers the middleware share: a header of the scope, a problem+json answer."""

from __future__ import annotations

import json
from typing import Any

from starlette.types import Scope, Send

from app.kit.problems import PROBLEM, problem_type


def header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value
    return None


def problem_bytes(status: int, title: str, detail: str, **extra: Any) -> bytes:
    body = {"type": problem_type(status), "title": title, "status": status, "detail": detail}
    body.update(extra)
    return json.dumps(body, ensure_ascii=False).encode()


async def send_problem(
    send: Send, status: int, title: str, detail: str, headers: list[tuple[bytes, bytes]] | None = None, **extra: Any
) -> None:
    body = problem_bytes(status, title, detail, **extra)
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", PROBLEM.encode()), (b"content-length", str(len(body)).encode())] + (headers or []),
        }
    )
    await send({"type": "http.response.body", "body": body})
