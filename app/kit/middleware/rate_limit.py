"""Who is calling, and rate limits, before any of the request's body is read: the one gate
of ``/v1`` and the pages and links answered without a key. Answers 401 and 404 as the routes' dependencies
would (app/kit/deps.py), 429 problem+json with Retry-After.

Authentication comes first: a route that needs a key (all of ``/v1`` but the links that
carry a token) is answered 401 here when the request has no valid key, and a write link
that is unknown or revoked 404, before the body is received -- a request nobody may make
costs no parse of its body (this layer sits outside app/kit/middleware/body_guard.py and
the framework, which read it). The caller found is left in the request's scope for the
dependencies, which do not look it up again.

Counting, in this order:

- per client address, in this process's memory (never a database write): every request
  that does not carry a key this process already knows to be valid (app.keys.service'
  cache), and every request to a read or write link, pages included. This count comes
  before any database lookup of what the request presents (a key, a write link), so that
  made-up keys and links cost at most the address's budget of lookups; a key that proves
  valid gives its unit back (it is counted as a key), and a key known valid is never
  refused for its address;
- per key, in the database so that every process shares one count
  (app.kit.limiter.RateLimiter), once the key is known valid;
- per read link (``Links.read``: a path that carries a read capability in place of a key,
  such as a link shared for reading): per token, in memory;
- per write link (``Links.write``: a write capability, looked up with ``Lookups.scorer``): a
  valid one as a key, counted in the database per link.

The kit names no link: the domains declare their paths, and app/main.py hands them in
(``Links``). Every route is budgeted unless declared otherwise: a path outside ``/v1`` is
counted against its address whatever it names (a page, a picture, the manifest, the service
worker, the API's documents, a path no route serves), but for the few declared in
``UNBUDGETED``. The routes answered without a key are declared in app/main.py's
``PUBLIC_ROUTES``; a test walks the app's routes against it and sends each more than the budget
(tests/hardening/test_public_routes.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
from fastapi.security.utils import get_authorization_scheme_param
from sqlalchemy import exc as sa_exc
from starlette.middleware.body_limit import RequestBodyLimitMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from app.kit import observability as obs
from app.kit.callers import ADMIN_KEY_ONLY, Lookups
from app.kit.db import Database
from app.kit.errors import NotFound, Unauthorized
from app.kit.i18n import N_
from app.kit.limiter import Busy, Decision, FairShare, MemoryLimiter, RateLimiter
from app.kit.middleware.asgi import header, send_problem

# The database's 503 as the app's own handler answers it.
from app.kit.problems import database_unavailable, is_connection_error, problem, service_problem
from app.kit.settings import Settings
from app.rules import Sentence, sentence

# Where the caller of a request's key, once identified here, is left for app/kit/deps.py.
CALLER_SCOPE_KEY = "prefscore.caller"
# Where the write link of a request, once looked up here, is left for app/kit/deps.py.
SCORER_SCOPE_KEY = "prefscore.scorer"


def key_owner(scope: Scope) -> str | None:
    """The owner of the request's key as the gate identified it, for the layers that answer a
    route before the routing; None when the gate identified no valid key."""
    seen = scope.get(CALLER_SCOPE_KEY)
    return seen[1].owner if seen is not None and seen[1] else None


# Event streams are left out of the fair share: they last, and have caps of their own.
_STREAM = "/events"

# The operators' probes, declared outside every budget: a load balancer asks them of one
# address without pause, and they look up nothing a request presents.
UNBUDGETED = frozenset({"/health", "/metrics"})
# The kit's own routes answered without a key (the API's documents, the pages' files and the
# probes), and what each is counted against: the address's budget alone, or none. app/main.py
# adds the domains'.
KIT_PUBLIC_ROUTES: dict[str, str] = {
    "/openapi.json": "address",
    "/docs": "address",
    "/docs/assets": "address",
    "/docs/oauth2-redirect": "address",
    "/docs/redoc.standalone.js": "address",
    "/static/{name}": "address",  # the pages' scripts, styles and icons (app/kit/assets.py)
    "/redoc": "address",
    "/health": "unbudgeted",
    "/metrics": "unbudgeted",
}


@dataclass(frozen=True)
class TokenLink:
    """A link whose path carries a token in place of a key, as a domain declares it: ``paths``,
    templates that end in ``{token}`` (each matches its path and every path under it), and
    ``name``, the link as a refusal names it ("this ... link")."""

    paths: tuple[str, ...]
    name: str

    def match(self, path: str) -> str | None:
        """The token of ``path`` when it is one of this link's, else None."""
        for template in self.paths:
            prefix = template.removesuffix("{token}")
            if path.startswith(prefix):
                token = path[len(prefix) :].split("/", 1)[0]
                if token:
                    return token
        return None


@dataclass(frozen=True)
class Links:
    """The links answered without a key, handed in by app/main.py: ``read``, read
    capabilities, counted per token in memory; ``write``, write capabilities, looked up
    (``Lookups.scorer``) and counted as a key once found."""

    read: Sequence[TokenLink] = field(default_factory=tuple)
    write: Sequence[TokenLink] = field(default_factory=tuple)

    def paths(self) -> tuple[str, ...]:
        return tuple(p for link in (*self.read, *self.write) for p in link.paths)


def _match(links: Sequence[TokenLink], path: str) -> tuple[TokenLink, str] | None:
    for link in links:
        token = link.match(path)
        if token is not None:
            return link, token
    return None


# The refusals, here and in the dependencies (app/kit/deps.py), word for word.
KEY_REQUIRED = N_("an API key is required: Authorization: Bearer <key>")
KEY_NOT_VALID = N_("this API key is not valid")
NO_SCORER_LINK = N_("no scorer link with this token (or it was revoked)")


def bearer_token(scope: Scope) -> str | None:
    """The key of ``Authorization: Bearer <key>``, read as the routes' security scheme reads
    it (FastAPI's ``HTTPBearer``): None when there is no such header."""
    raw = header(scope, b"authorization")
    value = raw.decode("latin-1") if raw is not None else None
    scheme, credentials = get_authorization_scheme_param(value)
    if not (value and scheme and credentials) or scheme.lower() != "bearer":
        return None
    return credentials.strip()


def _route_path(scope: Scope) -> str:
    path: str = scope.get("path", "")
    root: str = scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root) else path


class _AnsweredAtTheGate(Exception):
    """The answer to send instead of calling the app."""

    def __init__(self, response: Response | None = None, decision: Decision | None = None, what: str = ""):
        self.response = response
        self.decision = decision
        self.what = what


class RateLimit:
    def __init__(
        self,
        app: ASGIApp,
        settings: Settings,
        db: Database,
        lookups: Lookups = ADMIN_KEY_ONLY,
        body_limits: dict[str, int] | None = None,
        links: Links | None = None,
    ):
        self.app = app
        self.links = links or Links()
        self.db = db
        self.lookups = lookups
        # The routes with a body limit of their own (app/kit/middleware/__init__.py): a
        # refusal here is answered under that limit, as the route would be, not as a 413 of
        # the app's smaller one (whose check replaces any answer to a longer Content-Length).
        self.body_limits = dict(body_limits or {})
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
        self.by_address = (
            MemoryLimiter(settings.anonymous_rate_limit, window, names)
            if settings.anonymous_rate_limit > 0
            else None
        )
        self.by_share = (
            MemoryLimiter(settings.share_rate_limit, window, names) if settings.share_rate_limit > 0 else None
        )
        self.fair_share = (
            FairShare(settings.max_requests_in_progress, settings.request_queue, settings.request_queue_wait)
            if settings.max_requests_in_progress > 0
            else None
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") == "OPTIONS":
            await self.app(scope, receive, send)
            return
        path = _route_path(scope)
        holder: tuple[str, str] | None = None  # (what, who) the request is counted against in the fair share
        try:
            shared = _match(self.links.read, path)
            scorer = _match(self.links.write, path) if shared is None else None
            if shared is not None:
                link, token = shared
                self._address(scope)
                self._count(self.by_share.hit(token) if self.by_share is not None else None, link.name)
                holder = (link.name, token)
            elif scorer is not None:
                link, token = scorer
                await self._scorer(scope, token, link.name)
                holder = (link.name, token)
            elif path.startswith("/v1/"):
                holder = (Sentence("this key"), await self._caller(scope))
            elif path not in UNBUDGETED:
                self._address(scope)
            if holder is not None and self.fair_share is not None and not path.endswith(_STREAM):
                await self._turn(holder, scope)
            else:
                holder = None
        except _AnsweredAtTheGate as refused:
            limit = self.body_limits.get(path)
            answer = self._answer(refused)
            await (answer if limit is None else RequestBodyLimitMiddleware(answer, limit))(
                scope, receive, send
            )
            return
        if holder is None:
            await self.app(scope, receive, send)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            self.fair_share.leave(holder)  # type: ignore[union-attr]

    async def _turn(self, holder: tuple[str, str], scope: Scope) -> None:
        """Wait for the holder's turn (app.kit.limiter.FairShare); 429 when it does not come."""
        try:
            await self.fair_share.enter(holder)  # type: ignore[union-attr]
        except Busy as busy:
            obs.metrics().rate_limited.inc()
            raise _AnsweredAtTheGate(
                problem(
                    429,
                    Sentence(
                        "{what} has {n} requests in progress and more waiting"
                        " (at most {limit} at once, PREFSCORE_MAX_REQUESTS_IN_PROGRESS); retry after {retry} s",
                        what=holder[0],
                        n=busy.in_progress,
                        limit=self.fair_share.limit,  # type: ignore[union-attr]
                        retry=busy.retry_after,
                    ),
                    scope=scope,
                    title="Too many requests",
                    headers={"Retry-After": str(busy.retry_after)},
                )
            ) from None

    def _answer(self, refused: _AnsweredAtTheGate) -> ASGIApp:
        """The ASGI app that answers a refusal."""

        async def answer(scope: Scope, receive: Receive, send: Send) -> None:
            if refused.response is not None:
                await refused.response(scope, receive, send)
            else:
                await self._too_many(scope, send, refused.decision, refused.what)  # type: ignore[arg-type]

        return answer

    async def _too_many(self, scope: Scope, send: Send, decision: Decision, what: str) -> None:
        obs.metrics().rate_limited.inc()
        await send_problem(
            scope,
            send,
            429,
            "Too many requests",
            Sentence(
                "{what} made more than {limit} requests in {window} seconds; retry after {retry} s",
                what=sentence(what),
                limit=decision.limit,
                window=self.window,
                retry=decision.retry_after,
            ),
            headers=[
                (b"retry-after", str(decision.retry_after).encode()),
                (b"ratelimit-limit", str(decision.limit).encode()),
                (b"ratelimit-remaining", b"0"),
                (b"ratelimit-reset", str(decision.retry_after).encode()),
            ],
        )

    @staticmethod
    def _count(decision: Decision | None, what: str) -> None:
        if decision is not None and not decision.allowed:
            raise _AnsweredAtTheGate(decision=decision, what=what)

    def _address(self, scope: Scope) -> str:
        """Count the request against its client address; refused when over the budget.
        Returns the address (to give the unit back)."""
        client = scope.get("client")
        address = client[0] if client else "?"
        if self.by_address is not None:
            self._count(self.by_address.hit(address), Sentence("this address (without a valid key)"))
        return address

    async def _by_key(self, token: str, what: str) -> None:
        if self.by_key is None:
            return
        # Most requests are decided from this process's lease, on the loop; only a new
        # lease needs the database, in the thread pool (app/kit/limiter.py).
        self._count(
            self.by_key.try_local(token) or await anyio.to_thread.run_sync(self.by_key.hit, token), what
        )

    async def _lookup(self, scope: Scope, fn: Any, *args: Any) -> Any:
        """A lookup in the thread pool; the database's 503 (app/kit/problems.py) when it
        cannot be reached -- the request is not let through to read its body."""
        try:
            return await anyio.to_thread.run_sync(fn, *args)
        except (sa_exc.TimeoutError, sa_exc.DBAPIError) as exc:
            if isinstance(exc, sa_exc.DBAPIError) and not is_connection_error(exc):
                raise
            raise _AnsweredAtTheGate(
                await anyio.to_thread.run_sync(database_unavailable, Request(scope), exc)
            ) from None

    async def _scorer(self, scope: Scope, token: str, name: str) -> None:
        """A write link: the address is counted before the link is looked up (links are
        never cached: a revoked one is refused at once); an unknown or revoked one is 404
        here, a valid one counted as a key is (in the database, shared by every process)."""
        self._address(scope)
        found = await self._lookup(scope, self.lookups.scorer, self.db, token)
        scope[SCORER_SCOPE_KEY] = (token, found)
        if found is None:
            raise _AnsweredAtTheGate(service_problem(NotFound(NO_SCORER_LINK), scope))
        await self._by_key(token, name)

    async def _caller(self, scope: Scope) -> str:
        """A route that needs a key: 401 unless the request has a valid one, which is
        returned."""
        token = bearer_token(scope)
        caller = self.lookups.known_caller(self.db, token, self.admin_key) if token else None
        if not caller:
            address = self._address(scope)  # before any lookup of the key
            if token is None:
                raise _AnsweredAtTheGate(service_problem(Unauthorized(KEY_REQUIRED), scope))
            if caller is None:
                caller = await self._lookup(scope, self.lookups.identify, self.db, token, self.admin_key)
            if not caller:  # None, or INVALID from the cache
                raise _AnsweredAtTheGate(service_problem(Unauthorized(KEY_NOT_VALID), scope))
            if self.by_address is not None:
                self.by_address.refund(address)  # a valid key is counted as a key
        # The dependency that authenticates the request (app/kit/deps.py) takes this
        # answer instead of hashing and looking up the same key a second time.
        scope[CALLER_SCOPE_KEY] = (token, caller)
        await self._by_key(token, Sentence("this key"))  # type: ignore[arg-type]
        return token  # type: ignore[return-value]
