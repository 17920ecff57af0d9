"""Small ASGI helpers the middleware share: a header of the scope, a problem+json answer
(worded, like every problem, in the request's language: app/kit/problems.py)."""

from __future__ import annotations

import json
from typing import Any

from starlette.types import Scope, Send

from app.kit.i18n import Lang
from app.kit.lang import language_headers
from app.kit.problems import PROBLEM, problem_body, problem_lang


def header(scope: Scope, name: bytes) -> bytes | None:
    value: bytes
    for key, value in scope.get("headers", ()):
        if key == name:
            return value
    return None


def problem_bytes(lang: Lang, status: int, title: str, detail: str, **extra: Any) -> bytes:
    body = problem_body(status, detail, lang, title=title, **extra)
    return json.dumps(body, ensure_ascii=False).encode()


def language_header_list(lang: Lang) -> list[tuple[bytes, bytes]]:
    """A problem's Content-Language and Vary, as ASGI headers."""
    return [(k.lower().encode(), v.encode()) for k, v in language_headers(lang).items()]


async def send_problem(
    scope: Scope,
    send: Send,
    status: int,
    title: str,
    detail: str,
    headers: list[tuple[bytes, bytes]] | None = None,
    **extra: Any,
) -> None:
    lang = problem_lang(scope)
    body = problem_bytes(lang, status, title, detail, **extra)
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", PROBLEM.encode()), (b"content-length", str(len(body)).encode())]
            + language_header_list(lang)
            + (headers or []),
        }
    )
    await send({"type": "http.response.body", "body": body})
