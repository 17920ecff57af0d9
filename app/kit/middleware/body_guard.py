"""Request bodies: size and JSON.

Bodies over ``max_body_bytes`` are refused with 413 before anything parses them, by the
framework's own limit (FastAPI's ``max_body_size``: by Content-Length at once, and by
counting the bytes of a streamed body); ``BodyLimitProblem`` turns its plain-text answer into
problem+json. A JSON body is then
checked for what a JSON parser accepts but nothing downstream should see -- NaN and Infinity
(not JSON at all), numbers beyond +-2^53 (RFC 7493) or overflowing to infinity, nesting
deeper than ``max_json_depth``, control characters other than tab/newline/return and lone
surrogates in any string or key -- and refused with a 422 problem naming the field.

A Content-Length that is not a plain decimal of at most 18 digits is refused with 400
before it is converted.

The byte scan runs on the event loop; a body it cannot clear is parsed and walked there only
when it is small (``PREFSCORE_LOOP_PARSE_BYTES``, 4 KiB): a larger one in the thread pool.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Receive, Scope, Send

from app.kit.i18n import Lang
from app.kit.middleware.asgi import header as _header
from app.kit.middleware.asgi import language_header_list, problem_bytes, replayed, whole_body
from app.kit.middleware.asgi import send_problem as _send_problem
from app.kit.problems import PROBLEM, not_valid, problem_lang
from app.kit.settings import default_of
from app.rules import Sentence, sentence

_PROBLEM = PROBLEM.encode()
_BODY_METHODS = {b"POST", b"PUT", b"PATCH", b"DELETE"}
_CONTENT_LENGTH = re.compile(rb"[0-9]{1,18}")
MAX_SAFE_INTEGER = 2**53 - 1

# A body that cannot hold anything the checks refuse, told by a scan of its bytes without
# parsing it (the route parses it once, as it must): only printable ASCII and whitespace
# (raw UTF-8 can carry a lone surrogate, which the JSON parser lets through; a control byte
# is refused), no backslash (an escape can make a control character or a lone surrogate),
# no NaN/Infinity, no run of 16 digits (2^53 has 16; 15 never exceed it), no digit followed
# by an exponent (1e400 is infinite), and no more brackets than the depth limit. Anything
# else is parsed and checked. Byte translations and substring searches, all in C: about 2 µs
# for a deal body, where the parse and the walk took 10-19 µs.
_PLAIN = bytes([0x09, 0x0A, 0x0D]) + bytes(range(0x20, 0x5C)) + bytes(range(0x5D, 0x7F))
_NUMBERS = bytes(0x30 if 0x30 <= c <= 0x39 else 0x65 if c in (0x45, 0x65) else 0x20 for c in range(256))
_LONG_DIGITS = b"0" * 16


def _surely_fine(body: bytes, max_depth: int) -> bool:
    if body.translate(None, _PLAIN) or b"NaN" in body or b"Infinity" in body:
        return False
    numbers = body.translate(_NUMBERS)
    if b"0e" in numbers or _LONG_DIGITS in numbers:
        return False
    return body.count(b"[") + body.count(b"{") <= max_depth


class _Reject(Exception):
    def __init__(self, field: str, reason: str):
        self.field = field
        self.reason = reason


class _Bad:
    """A parsed number that must be refused (the parser hooks cannot know the field)."""

    def __init__(self, reason: str):
        self.reason = reason


def _parse_int(text: str) -> Any:
    digits = len(text) - (text[0] == "-")
    if digits > 16:
        return _Bad("integer out of range")
    value = int(text)
    return value if -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER else _Bad("integer out of range")


def _parse_float(text: str) -> Any:
    value = float(text)
    return value if math.isfinite(value) else _Bad("number out of range")


def _parse_constant(name: str) -> Any:
    return _Bad(Sentence("{name} is not a JSON number", name=name))


_BAD_CHARS = frozenset(chr(c) for c in range(0x20) if chr(c) not in "\t\n\r") | {"\x7f"}


def _bad_string(s: str) -> str | None:
    for ch in s:
        if ch in _BAD_CHARS:
            return "control characters are not allowed"
        if "\ud800" <= ch <= "\udfff":
            return "lone surrogates are not allowed"
    return None


def check_json(value: Any, max_depth: int) -> None:
    """Raise _Reject(field, reason) for the first thing in ``value`` nothing should store."""
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        item, path, depth = stack.pop()
        if depth > max_depth:
            raise _Reject(path or "body", Sentence("nested deeper than {depth} levels", depth=max_depth))
        if isinstance(item, _Bad):
            raise _Reject(path or "body", item.reason)
        if isinstance(item, str):
            reason = _bad_string(item)
            if reason:
                raise _Reject(path or "body", reason)
        elif isinstance(item, dict):
            for key, child in item.items():
                where = f"{path}.{key}" if path else str(key)
                reason = _bad_string(key)
                if reason:
                    raise _Reject(path or "body", Sentence("a key: {reason}", reason=sentence(reason)))
                stack.append((child, where, depth + 1))
        elif isinstance(item, list):
            for i, child in enumerate(item):
                stack.append((child, f"{path}.{i}" if path else str(i), depth + 1))


class BodyLimitProblem:
    """The framework's 413 (FastAPI's ``max_body_size``: plain text, or ``{"detail": ...}``)
    as problem+json. Applied by app/kit/middleware/outer_layer.py around the whole framework stack,
    because the framework's limit sits outside every middleware added with ``add_middleware``."""

    def __init__(self, app: ASGIApp, max_body_bytes: int, path_limits: dict[str, int] | None = None):
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.path_limits = dict(path_limits or {})
        self.bodies: dict[tuple[str, str], bytes] = {}  # (path or "", language): the refusal, made once

    def refusal(self, scope: Scope, lang: Lang | None = None) -> bytes:
        """The 413's problem+json for the request of ``scope`` (a route may have its own
        limit), in its language (``lang`` when the caller has it already)."""
        path = scope.get("path", "")
        path = path if path in self.path_limits else ""
        lang = lang or problem_lang(scope)
        body = self.bodies.get((path, lang.code))
        if body is None:
            limit = self.path_limits.get(path, self.max_body_bytes)
            detail = Sentence("the request body is larger than {limit} bytes", limit=limit)
            body = self.bodies[(path, lang.code)] = problem_bytes(lang, 413, "Content too large", detail)
        return body

    def rewrite_headers(self, headers: list[tuple[bytes, bytes]], scope: Scope) -> bool:
        """For a 413's headers (a list, changed in place): whether its body must be replaced
        by ``refusal(scope)`` (it is not problem+json yet)."""
        if any(v.startswith(_PROBLEM) for k, v in headers if k == b"content-type"):
            return False
        lang = problem_lang(scope)
        refusal = self.refusal(scope, lang)
        headers[:] = [
            (k, v)
            for k, v in headers
            if k not in (b"content-type", b"content-length", b"content-language", b"vary")
        ]
        headers += [(b"content-type", _PROBLEM), (b"content-length", str(len(refusal)).encode())]
        headers += language_header_list(lang)
        return True


class BodyGuard:
    """The JSON checks of a body (see above); its size is bounded by the framework's own limit
    (FastAPI ``max_body_size``, set by create_app), which the ``receive`` seen here enforces:
    a Content-Length over it raises on the first read, a streamed body as soon as it passes."""

    def __init__(
        self,
        app: ASGIApp,
        max_json_depth: int = default_of("max_json_depth"),
        max_body_bytes: int | None = None,
        own_limit_paths: frozenset[str] = frozenset(),
        loop_parse_bytes: int = default_of("loop_parse_bytes"),
    ):
        self.app = app
        self.max_depth = max_json_depth
        self.loop_parse_bytes = loop_parse_bytes  # larger bodies are parsed in the thread pool
        # POST routes with a body limit of their own (the record import): passed through
        # unread, so that the framework reads the body under the route's limit; the route
        # makes these checks itself (``json_problem``).
        self.own_limit_paths = own_limit_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method", "").encode() not in _BODY_METHODS:
            await self.app(scope, receive, send)
            return
        if scope.get("path") in self.own_limit_paths:
            await self.app(scope, receive, send)
            return
        length = _header(scope, b"content-length")
        if length is not None:
            if not _CONTENT_LENGTH.fullmatch(length.strip()):
                await _send_problem(
                    scope, send, 400, "Bad request", "Content-Length must be a decimal number of bytes"
                )
                return
        elif _header(scope, b"transfer-encoding") is None:
            await self.app(scope, receive, send)  # no body
            return
        body = await whole_body(receive)
        if body is None:
            return  # the client left
        content_type = (_header(scope, b"content-type") or b"").split(b";")[0].strip().lower()
        if body and (
            not content_type or content_type == b"application/json" or content_type.endswith(b"+json")
        ):
            rejection = await self._check(body)
            if rejection is not None:
                field, reason = rejection
                await _send_problem(
                    scope,
                    send,
                    422,
                    "Invalid request",
                    not_valid(field),
                    errors=[{"field": field, "reason": reason}],
                )
                return
        await self.app(scope, replayed(body, receive), send)

    async def _check(self, body: bytes) -> tuple[str, str] | None:
        if _surely_fine(body, self.max_depth):
            return None  # nothing in it can be refused: no second parse of every body
        return await json_problem_off_loop(body, self.max_depth, self.loop_parse_bytes)


async def json_problem_off_loop(body: bytes, max_depth: int, loop_parse_bytes: int) -> tuple[str, str] | None:
    """``json_problem``, made in the thread pool for a body over ``loop_parse_bytes``."""
    if len(body) > loop_parse_bytes:
        return await run_in_threadpool(json_problem, body, max_depth)
    return json_problem(body, max_depth)


def json_problem(body: bytes, max_depth: int) -> tuple[str, str] | None:
    """(field, reason) of the first thing in a JSON body nothing should store; None if none
    (or if it is not JSON at all: the route's own parser answers that)."""
    try:
        value = json.loads(
            body, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant
        )
    except RecursionError:
        return "body", Sentence("nested deeper than {depth} levels", depth=max_depth)
    except ValueError:
        return None  # not JSON (or not UTF-8): the route's own parser answers 422
    try:
        check_json(value, max_depth)
    except _Reject as exc:
        return exc.field, exc.reason
    return None


# Kept for code that knew the first version of this module.
BodyLimit = BodyGuard
