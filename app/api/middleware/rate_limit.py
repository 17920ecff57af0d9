"""Rate limits on ``/v1`` and the share page, 429 problem+json with Retry-After:

- a request with a valid key: per key, counted in the database so that every process shares
  one count (app.ratelimit.RateLimiter); the key is looked up first (cached, see
  app.services.keys), so a made-up key is never counted there;
- a request without a key or with a wrong one: per client address, in this process's
  memory (never a database write);
- the share link (``/v1/shared/{token}...`` and the page ``/shared/{token}``): per token,
  in memory;
- a scorer link (``/v1/score/{token}...`` and the page ``/score/{token}``): a valid one as a
  key, counted in the database per link; an unknown or revoked one per client address.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import anyio
from sqlalchemy.exc import SQLAlchemyError
from starlette.types import ASGIApp, Receive, Scope, Send

from app import observability as obs
from app.db import Database
from app.ratelimit import Decision, MemoryLimiter, RateLimiter
from app.services import keys, scorer_links
from app.settings import Settings

from .asgi import header, send_problem

log = logging.getLogger("prefscore.ratelimit")
# Where the caller of a request's key, once identified here, is left for app/api/deps.py.
CALLER_SCOPE_KEY = "prefscore.caller"
# Where the scorer link of a request, once looked up here, is left for app/api/deps.py.
SCORER_SCOPE_KEY = "prefscore.scorer"
_SHARED = re.compile(r"^/(?:v1/)?shared/([^/]+)")
_SCORER = re.compile(r"^/(?:v1/)?score/([^/]+)")


class RateLimit:
    def __init__(self, app: ASGIApp, settings: Settings, db: Database):
        self.app = app
        self.db = db
        self.admin_key = settings.admin_key
        window = settings.rate_limit_window
        self.window = max(1, window)
        self.by_key = (
            RateLimiter(
                db,
                settings.rate_limit,
                window,
                lease_max=settings.rate_limit_lease_max,
                lease_share=settings.rate_limit_lease_share,
                max_leases=settings.rate_limit_max_leases,
            )
            if settings.rate_limit > 0
            else None
        )
        names = settings.rate_limit_max_names
        self.by_address = MemoryLimiter(settings.anonymous_rate_limit, window, names) if settings.anonymous_rate_limit > 0 else None
        self.by_share = MemoryLimiter(settings.share_rate_limit, window, names) if settings.share_rate_limit > 0 else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") == "OPTIONS":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        decision: Decision | None = None
        what = ""
        shared = _SHARED.match(path)
        scorer = _SCORER.match(path)
        if shared is not None:
            if self.by_share is not None:
                decision, what = self.by_share.hit(shared.group(1)), "this share link"
        elif scorer is not None:
            decision, what = await self._by_scorer(scope, scorer.group(1))
        elif path.startswith("/v1/"):
            decision, what = await self._by_caller(scope)
        if decision is not None and not decision.allowed:
            obs.metrics().rate_limited.inc()
            await send_problem(
                send,
                429,
                "Too many requests",
                f"{what} made more than {decision.limit} requests in {self.window} seconds; retry after {decision.retry_after} s",
                headers=[
                    (b"retry-after", str(decision.retry_after).encode()),
                    (b"ratelimit-limit", str(decision.limit).encode()),
                    (b"ratelimit-remaining", b"0"),
                    (b"ratelimit-reset", str(decision.retry_after).encode()),
                ],
            )
            return
        await self.app(scope, receive, send)

    async def _by_scorer(self, scope: Scope, token: str) -> tuple[Decision | None, str]:
        """A valid scorer link is counted as a key is (in the database, shared by every
        process); a made-up one as a request without a key, by address."""
        try:
            found = await anyio.to_thread.run_sync(scorer_links.resolve, self.db, token)
        except SQLAlchemyError as exc:
            log.warning("rate limit: the scorer link could not be looked up (%s)", type(exc).__name__)
            return None, ""
        scope[SCORER_SCOPE_KEY] = (token, found)
        if found is not None:
            if self.by_key is None:
                return None, ""
            return self.by_key.try_local(token) or await anyio.to_thread.run_sync(self.by_key.hit, token), "this scorer link"
        return self._by_address(scope)

    def _by_address(self, scope: Scope) -> tuple[Decision | None, str]:
        if self.by_address is None:
            return None, ""
        client = scope.get("client")
        return self.by_address.hit(client[0] if client else "?"), "this address (without a valid key)"

    async def _by_caller(self, scope: Scope) -> tuple[Decision | None, str]:
        auth = header(scope, b"authorization")
        token = auth[7:].strip().decode("latin-1") if auth and auth[:7].lower() == b"bearer " else ""
        caller: Any = None
        if token:
            caller = keys.known_caller(self.db, token, self.admin_key)
            if caller is None:
                try:
                    caller = await anyio.to_thread.run_sync(keys.identify, self.db, token, self.admin_key)
                except SQLAlchemyError as exc:
                    # The request meets the same database and answers 503 itself.
                    log.warning("rate limit: the key could not be looked up (%s)", type(exc).__name__)
                    return None, ""
        if token:
            # The dependency that authenticates the request (app/api/deps.py) takes this
            # answer instead of hashing and looking up the same key a second time.
            scope[CALLER_SCOPE_KEY] = (token, caller)
        if caller:
            if self.by_key is None:
                return None, ""
            # Most requests are decided from this process's lease, on the loop; only a new
            # lease needs the database, in the thread pool (app/ratelimit.py).
            return self.by_key.try_local(token) or await anyio.to_thread.run_sync(self.by_key.hit, token), "this key"
        return self._by_address(scope)
