"""Read-your-writes with a read replica (app/kit/db/replicas.py): each request is a Visit the
database layer sees. The position a client brings (the ``Prefscore-Position`` header, else
the cookie of that name) holds its reads back from a replica that has not replayed it; a
request that wrote answers with the leader's position after its write, in the header and in
the cookie (lasting ``read_after_seconds``). Installed only when reads may go to a replica.

Innermost of the service's middleware (app/main.py adds it first): what the outer layers
write (the rate limit's counters) is no write of the client's."""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.kit.db.replicas import POSITION, VISIT, Visit, format_position, parse_position
from app.kit.middleware.asgi import header

_COOKIE = POSITION.encode("latin-1") + b"="


def _cookie_position(scope: Scope) -> int | None:
    cookies = header(scope, b"cookie")
    if not cookies:
        return None
    for part in cookies.split(b";"):
        part = part.strip()
        if part.startswith(_COOKIE):
            return parse_position(part[len(_COOKIE) :])
    return None


class ReadYourWrites:
    def __init__(self, app: ASGIApp, *, routes: frozenset[str], cookie_seconds: float):
        self.app = app
        self.routes = routes
        self.cookie_seconds = max(1, int(cookie_seconds))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        told = header(scope, POSITION.lower().encode("latin-1"))
        position = parse_position(told) if told is not None else _cookie_position(scope)
        visit = Visit(scope, self.routes, position=position)
        token = VISIT.set(visit)

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start" and visit.written is not None:
                headers = MutableHeaders(scope=message)
                at = format_position(visit.written)
                headers.append(POSITION, at)
                headers.append(
                    "Set-Cookie",
                    f"{POSITION}={at}; Max-Age={self.cookie_seconds}; Path=/; HttpOnly; SameSite=Lax",
                )
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            VISIT.reset(token)
