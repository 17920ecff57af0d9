"""The service's one outer ASGI layer, around the framework's whole stack: the request's
context (app/kit/middleware/request_context.py), the framework's 413 as problem+json
(body_guard.BodyLimitProblem) and the security headers (security_headers.py), in one pass.

Each job stays in its own module; this only calls them in order, with one ``send`` wrapper
per request instead of one per job: every layer cost a coroutine frame per call, a closure
and a copy of the response headers per request (docs/performance.md)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.kit.middleware.body_guard import BodyLimitProblem
from app.kit.middleware.request_context import RequestContext
from app.kit.middleware.security_headers import SecurityHeaders
from app.kit.settings import Settings

# A response that goes on long after its start (an event stream) may hand its remainder to
# this layer (``hand_over``): the framework's stack then returns and its frames are freed
# while the remainder runs here, in the request's task, with this layer's send (the headers
# went through the whole stack). An idle stream then costs its task and the remainder only.
HAND_OVER = "prefscore.hand_over"
Remainder = Callable[[Receive, Send], Awaitable[None]]


def hand_over(scope: Scope, remainder: Remainder) -> bool:
    """Run ``remainder`` after the framework's stack returns (False: no outer layer here;
    the caller runs it in place)."""
    later = scope.get(HAND_OVER)
    if later is None:
        return False
    later.append(remainder)
    return True


def _drop_exit_stacks(scope: Scope) -> None:
    """The framework leaves its per-request exit stacks in the scope, closed once its stack
    has returned: a remainder that runs for hours need not keep them (2 KiB a stream)."""
    for key in [k for k, v in scope.items() if isinstance(v, AsyncExitStack)]:
        del scope[key]


class OuterLayer:
    def __init__(self, app: ASGIApp, settings: Settings, path_limits: dict[str, int] | None = None):
        self.app = app
        self.context = RequestContext(app, settings=settings)
        self.too_large = BodyLimitProblem(
            app, max_body_bytes=settings.max_body_bytes, path_limits=path_limits
        )
        self.security = SecurityHeaders(app, settings=settings)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        context, too_large, security = self.context, self.too_large, self.security
        request = context.begin(scope)

        async def send_wrapper(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                status = message["status"]
                if status == 413:
                    request.rewriting = too_large.rewrite_headers(headers, scope)
                context.response_started(request, status, headers)
                security.add(headers)
                message = {**message, "headers": headers}
            elif request.rewriting and message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return
                message = {"type": "http.response.body", "body": too_large.refusal(scope)}
                request.rewriting = False
            await send(message)

        later: list[Remainder] = []
        scope[HAND_OVER] = later
        try:
            await self.app(scope, receive, send_wrapper)
            if later:
                _drop_exit_stacks(scope)
            while later:
                await later.pop()(receive, send_wrapper)
        except Exception:
            await context.failed(request, scope, send_wrapper)
        finally:
            context.finish(request, scope)
