"""ETags of the answers that can be asked for again with ``If-None-Match``.

Each is derived from the sheet's ETag (the table's id, revision and deal count; see
app/kit/preconditions.sheet_etag) and what else the answer depends on, so that none needs the
answer rendered to be compared: the settlement depends on the stake, the picture on the
renderer's version, its format, language and layout, the share link's JSON on both the stake and its own shape.
"""

from __future__ import annotations

import hashlib
from fractions import Fraction

from app.rules import amounts

# Bumped when the picture changes for the same sheet, so that cached pictures are refreshed.
RENDER_VERSION = 2
# Bumped when the settlement's or the share link's JSON changes shape for the same sheet (2: the
# deprecated ``stake`` and ``deals`` fields went), so that a client's copy is not revalidated
# into the old shape.
JSON_SHAPE = 2
CACHE = "private, no-cache"  # each client keeps its copy and asks again with If-None-Match


def none_match(header: str | None, etag: str) -> bool:
    """If-None-Match matches ``etag`` (the weak comparison: W/"x" matches "x"; * matches)."""
    if header is None:
        return False
    tags = [t.strip() for t in header.split(",")]
    return "*" in tags or any(t.removeprefix("W/") == etag for t in tags)


def _derived(sheet_etag: str, *parts: str) -> str:
    return '"' + "-".join((sheet_etag.strip('"'), *parts)) + '"'


def _stake_part(stake: Fraction | None) -> str:
    if stake is None:
        return "s0"
    return "s" + hashlib.sha256(amounts.exact_text(stake).encode()).hexdigest()[:12]


def settlement_etag(sheet_etag: str, stake: Fraction | None) -> str:
    return _derived(sheet_etag, f"settle{JSON_SHAPE}", _stake_part(stake))


def shared_etag(sheet_etag: str, stake: Fraction | None) -> str:
    return _derived(sheet_etag, f"shared{JSON_SHAPE}", _stake_part(stake))


def picture_etag(sheet_etag: str, fmt: str, lang: str, layout: str) -> str:
    """A picture (``fmt`` "svg" or "png") of the sheet in a language and a layout: each is its
    own representation, so a cache or a viewer never takes one for another."""
    return _derived(sheet_etag, f"{fmt}{RENDER_VERSION}", lang, layout)


def player_etag(player_id: str, updated_at: object) -> str:
    """A registered player's version: its id and when it last changed."""
    return '"' + hashlib.sha256(f"player:{player_id}:{updated_at}".encode()).hexdigest()[:32] + '"'


def listing_etag(query: str, items: list[tuple[str, int, int]], next_url: str | None) -> str:
    """The ETag of a page of the tables collection: the query, each table's sheet version
    (id, revision, deal count: a rename or an archive bumps the revision too) and the next link."""
    raw = "|".join([query, next_url or "", *(f"{i}:{r}:{d}" for i, r, d in items)]).encode()
    return '"' + hashlib.sha256(raw).hexdigest()[:32] + '"'


def record_etag(sheet_etag: str, fmt: str) -> str:
    return _derived(sheet_etag, f"record-{fmt}")
