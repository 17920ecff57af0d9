"""ASGI middleware of the service. ``install`` is the one place create_app adds middleware:
add logging, metrics, rate limits or security headers here.

BodyLimit refuses request bodies over ``max_body_bytes`` with 413 before anything reads them
(by Content-Length, and by counting for chunked bodies)."""

from __future__ import annotations

import json

from fastapi import FastAPI
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.settings import Settings

from .problems import PROBLEM, problem_type


class _TooLarge(HTTPException):
    """Raised from ``receive``: FastAPI's body reader lets HTTPExceptions through, so the
    problem+json handler answers it."""

    def __init__(self, limit: int):
        super().__init__(413, f"the request body is larger than {limit} bytes")


async def _send_413(send: Send, limit: int) -> None:
    body = json.dumps(
        {
            "type": problem_type(413),
            "title": "Content too large",
            "status": 413,
            "detail": f"the request body is larger than {limit} bytes",
        }
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [(b"content-type", PROBLEM.encode()), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


class BodyLimit:
    def __init__(self, app: ASGIApp, max_body_bytes: int):
        self.app = app
        self.limit = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    too_large = int(value) > self.limit
                except ValueError:
                    too_large = False
                if too_large:
                    await _send_413(send, self.limit)
                    return
        received = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    raise _TooLarge(self.limit)
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except _TooLarge:
            if not started:
                await _send_413(send, self.limit)


def install(app: FastAPI, settings: Settings) -> None:
    app.add_middleware(BodyLimit, max_body_bytes=settings.max_body_bytes)
