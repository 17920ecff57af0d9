"""Request bodies: size and JSON.

Bodies over ``max_body_bytes`` are refused with 413 before anything parses them (by
Content-Length at once, and by counting the bytes of a streamed body). A JSON body is then
checked for what a JSON parser accepts but nothing downstream should see -- NaN and Infinity
(not JSON at all), numbers beyond +-2^53 (RFC 7493) or overflowing to infinity, nesting
deeper than ``max_json_depth``, control characters other than tab/newline/return and lone
surrogates in any string or key -- and refused with a 422 problem naming the field.

A Content-Length that is not a plain decimal of at most 18 digits is refused with 400
before it is converted.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .asgi import header as _header
from .asgi import send_problem as _send_problem

_BODY_METHODS = {b"POST", b"PUT", b"PATCH", b"DELETE"}
_CONTENT_LENGTH = re.compile(rb"[0-9]{1,18}")
MAX_SAFE_INTEGER = 2**53 - 1



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
    return _Bad(f"{name} is not a JSON number")


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
            raise _Reject(path or "body", f"nested deeper than {max_depth} levels")
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
                    raise _Reject(path or "body", f"a key: {reason}")
                stack.append((child, where, depth + 1))
        elif isinstance(item, list):
            for i, child in enumerate(item):
                stack.append((child, f"{path}.{i}" if path else str(i), depth + 1))


class BodyGuard:
    """413 for bodies over the limit (before parsing), 422 for hostile JSON (see above)."""

    def __init__(self, app: ASGIApp, max_body_bytes: int, max_json_depth: int = 32):
        self.app = app
        self.limit = max_body_bytes
        self.max_depth = max_json_depth

    async def _too_large(self, send: Send) -> None:
        await _send_problem(send, 413, "Content too large", f"the request body is larger than {self.limit} bytes")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method", "").encode() not in _BODY_METHODS:
            await self.app(scope, receive, send)
            return
        length = _header(scope, b"content-length")
        if length is not None:
            if not _CONTENT_LENGTH.fullmatch(length.strip()):
                await _send_problem(send, 400, "Bad request", "Content-Length must be a decimal number of bytes")
                return
            if int(length) > self.limit:
                await self._too_large(send)
                return
        elif _header(scope, b"transfer-encoding") is None:
            await self.app(scope, receive, send)  # no body
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await self._too_large(send)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        content_type = (_header(scope, b"content-type") or b"").split(b";")[0].strip().lower()
        if body and (not content_type or content_type == b"application/json" or content_type.endswith(b"+json")):
            rejection = self._check(body)
            if rejection is not None:
                field, reason = rejection
                await _send_problem(
                    send,
                    422,
                    "Invalid request",
                    f"the request is not valid: {field}",
                    errors=[{"field": field, "reason": reason}],
                )
                return

        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    def _check(self, body: bytes) -> tuple[str, str] | None:
        try:
            value = json.loads(body, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant)
        except RecursionError:
            return "body", f"nested deeper than {self.max_depth} levels"
        except ValueError:
            return None  # not JSON (or not UTF-8): the route's own parser answers 422
        try:
            check_json(value, self.max_depth)
        except _Reject as exc:
            return exc.field, exc.reason
        return None


# Kept for code that knew the first version of this module.
BodyLimit = BodyGuard
