"""ETags of the answers that can be asked for again with ``If-None-Match``.

Each is derived from the sheet's ETag (the table's id, revision and deal count; see
``sheet_etag`` below) and what else the answer depends on, so that none needs the
answer rendered to be compared: the settlement depends on the stake, the picture on the
renderer's version, its format, language and layout, the share link's JSON on both the stake and its own shape.
"""

from __future__ import annotations

import re
from fractions import Fraction

from app.kit.errors import NotFound
from app.kit.versions import derived_etag, strong_etag
from app.rules import RULES_VERSION, Sentence, amounts

# Bumped when the picture changes for the same sheet, so that cached pictures are refreshed.
RENDER_VERSION = 2
# Bumped when the settlement's or the share link's JSON changes shape for the same sheet (2: the
# deprecated ``stake`` and ``deals`` fields went), so that a client's copy is not revalidated
# into the old shape.
JSON_SHAPE = 2
CACHE = "private, no-cache"  # each client keeps its copy and asks again with If-None-Match


def sheet_etag(table_id: str, revision: int, deal_count: int) -> str:
    """A strong ETag of the sheet, derived without rendering it. ``revision`` changes on
    every write (an undo then another deal leaves deal_count as it was)."""
    return strong_etag(table_id, revision, deal_count, RULES_VERSION)


# The form of a table's id (a uuid4's hex): an id that cannot be one is not found at once,
# never sent to the database.
TABLE_ID_RE = re.compile(r"^[0-9a-f]{32}$")


def checked_table_id(table_id: str) -> str:
    if not TABLE_ID_RE.fullmatch(table_id):
        raise NotFound(Sentence("no table {table_id!r}", table_id=table_id[:40]))
    return table_id


def _stake_part(stake: Fraction | None) -> str:
    if stake is None:
        return "s0"
    return "s" + strong_etag(amounts.exact_text(stake)).strip('"')[:12]


def settlement_etag(sheet_etag: str, stake: Fraction | None, rating: str = "") -> str:
    """``rating``: a rated table's rating version (app/ratings), which moves apart from the sheet."""
    return derived_etag(sheet_etag, f"settle{JSON_SHAPE}", _stake_part(stake), *([rating] if rating else []))


def shared_etag(sheet_etag: str, stake: Fraction | None) -> str:
    return derived_etag(sheet_etag, f"shared{JSON_SHAPE}", _stake_part(stake))


def picture_etag(sheet_etag: str, fmt: str, lang: str, layout: str) -> str:
    """A picture (``fmt`` "svg" or "png") of the sheet in a language and a layout: each is its
    own representation, so a cache or a viewer never takes one for another."""
    return derived_etag(sheet_etag, f"{fmt}{RENDER_VERSION}", lang, layout)


def player_etag(player_id: str, updated_at: object) -> str:
    """A registered player's version: its id and when it last changed."""
    return strong_etag("player", player_id, updated_at)


def listing_etag(query: str, items: list[tuple[str, int, int]], next_url: str | None) -> str:
    """The ETag of a page of the tables collection: the query, each table's sheet version
    (id, revision, deal count: a rename or an archive bumps the revision too) and the next link."""
    return strong_etag(query, next_url or "", *(f"{i}:{r}:{d}" for i, r, d in items), sep="|")


def record_etag(sheet_etag: str, fmt: str) -> str:
    return derived_etag(sheet_etag, f"record-{fmt}")
