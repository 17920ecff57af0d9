"""Versions of answers and what a request expects of them, with no HTTP in them.

One recipe makes every strong ETag (``strong_etag``); a write's If-Match arrives at a use case
as an ``Expected`` (parsed once at the edge, checked inside the use case's transaction), a
read's If-None-Match as a ``Seen``. The services never see a header's text.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from app.kit.errors import PreconditionFailed


def strong_etag(*parts: object, sep: str = ":") -> str:
    """The one recipe of a strong ETag: the parts that make a version, joined and hashed
    (so an ETag says nothing of what it is made of), quoted as HTTP writes it."""
    raw = sep.join(str(p) for p in parts).encode()
    return '"' + hashlib.sha256(raw).hexdigest()[:32] + '"'


def derived_etag(base: str, *parts: str) -> str:
    """An ETag of an answer built from a versioned one and a few named choices (a format, a
    language): readable suffixes on the base's token, one representation each."""
    return '"' + "-".join((base.strip('"'), *parts)) + '"'


def _tags(header: str) -> frozenset[str]:
    return frozenset(t.strip() for t in header.split(",") if t.strip())


@dataclass(frozen=True)
class Expected:
    """A write's precondition (If-Match): the versions it was made against. ``*`` is any."""

    tags: frozenset[str]

    @classmethod
    def parse(cls, header: str | None) -> Expected | None:
        return None if header is None else cls(_tags(header))

    def admits(self, current: str) -> bool:
        """Strong comparison, as If-Match asks."""
        return "*" in self.tags or current in self.tags

    def check(self, current: str) -> None:
        if not self.admits(current):
            raise PreconditionFailed(
                "the sheet has changed since that ETag (If-Match); fetch it again", current_etag=current
            )


def check_expected(expected: Expected | None, current: str) -> None:
    """No precondition asked: nothing to check."""
    if expected is not None:
        expected.check(current)


@dataclass(frozen=True)
class Seen:
    """A read's condition (If-None-Match): the versions the client already holds, as sent.

    Kept as the header's text and split only when it is not simply the current ETag: a polling
    client sends back the one ETag it was given, and its 304 is the answer sent most."""

    text: str

    @classmethod
    def parse(cls, header: str | None) -> Seen | None:
        return None if header is None else cls(header.strip())

    def holds(self, etag: str) -> bool:
        """The weak comparison, as If-None-Match asks: W/"x" holds "x"; * holds any."""
        if self.text == etag:
            return True
        tags = _tags(self.text)
        return "*" in tags or any(t.removeprefix("W/") == etag for t in tags)


def still_held(seen: Seen | None, etag: str) -> bool:
    return seen is not None and seen.holds(etag)
