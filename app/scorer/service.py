"""Scorer links: a table's ``/score/{token}`` links, each of which may post, undo and correct
the deals of that one table and read what the scoring page needs — nothing else.

A token is ``sc_`` + 43 URL-safe characters (32 random bytes). As with API keys
(app/keys/service.py) only its SHA-256 is stored, with the first 12 characters as an
indexed prefix for a one-row lookup, and the hash is compared in constant time. A link is
looked up in the database on every request (never cached), so a revoked one is refused at
once on every process; a revocation also bumps the table's revision, so that the event
streams opened through the link wake up, look again and end."""

from __future__ import annotations

import hmac
import re
import secrets
from dataclasses import dataclass

from app.deals.service import DealLogPage, list_deals
from app.events.changes import announce
from app.keys.limits import KEY_PREFIX_LENGTH
from app.keys.service import hash_key
from app.kit.db import Database
from app.kit.errors import Conflict, NotFound
from app.rules import Sentence
from app.scorer import repository as repo
from app.scorer.repository import LinkInfo
from app.tables.service import load_table

TOKEN_PREFIX = "sc_"
TOKEN_RE = re.compile(r"^sc_[A-Za-z0-9_-]{43}$")
# Links of one table that work at the same time: a table has a few phones, not thousands.
from app.scorer.limits import SCORER_LINKS_MAX as LINKS_MAX  # noqa: E402

_DUMMY_HASH = hash_key("prefscore: no scorer link has this prefix")


@dataclass(frozen=True)
class Scorer:
    """What a valid scorer token may act on: one table, scored as its owner would."""

    link_id: int
    table_id: str
    owner: str


def link_path(token: str) -> str:
    return f"/score/{token}"


def create_link(db: Database, owner: str, table_id: str, *, limit: int = LINKS_MAX) -> tuple[LinkInfo, str]:
    """A new link of the owner's table; the token is returned this once and never stored."""
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    with db.write() as session:
        table = load_table(session, owner, table_id, lock=True)
        active = repo.active_links(session, table.id)
        if active >= limit:
            raise Conflict(
                Sentence(
                    "table {id} has {active} scorer links, the most a table may have; revoke one first",
                    id=table.id,
                    active=active,
                ),
                reason="scorer_link_limit",
                limit=limit,
            )
        return repo.add_link(session, table.id, token[:KEY_PREFIX_LENGTH], hash_key(token)), token


def list_links(
    db: Database, owner: str, table_id: str, *, after: int = 0, limit: int = LINKS_MAX
) -> tuple[list[LinkInfo], int | None]:
    """A page of the table's links, revoked ones included, oldest first: at most ``limit``
    after the link ``after``, and the link a next page starts after (None on the last)."""
    with db.read() as session:
        table = load_table(session, owner, table_id, lock=False)
        rows = repo.links_of(session, table.id, after=after, rows=limit + 1)
    page = rows[:limit]
    return page, (page[-1].id if len(rows) > limit and page else None)


def revoke_link(db: Database, owner: str, table_id: str, link_id: int) -> LinkInfo:
    """Revoke a link (again: no change). It is refused from this commit on; its open event
    streams end at the revision this writes."""
    with db.write() as session:
        table = load_table(session, owner, table_id, lock=True)
        link = repo.link(session, link_id)
        if link is None or link.table_id != table.id:
            raise NotFound(Sentence("table {id} has no scorer link {link_id}", id=table.id, link_id=link_id))
        if link.revoked_at is None:
            link = repo.revoke(session, link_id, table.id, table.revision + 1)
            announce(session, table.id, table.owner, table.revision + 1, "sheet")
        return link


def resolve(db: Database, token: str) -> Scorer | None:
    """The table a scorer token may act on, or None (unknown, malformed, revoked, or of an
    owner with no working key). An unknown prefix still costs one comparison, so the time
    taken does not tell it exists."""
    if not isinstance(token, str) or not TOKEN_RE.fullmatch(token):
        return None
    digest = hash_key(token)
    with db.lookup() as conn:
        rows = repo.links_with_prefix(conn, token[:KEY_PREFIX_LENGTH])
    if not rows:
        hmac.compare_digest(digest, _DUMMY_HASH)
        return None
    found = None
    for link in rows:
        if hmac.compare_digest(digest, link.hash):
            found = Scorer(link.id, link.table_id, link.owner)
    return found


def scorer_log(db: Database, scorer: Scorer, *, after: int = 0, limit: int = 200) -> DealLogPage:
    """The log of the link's table, paged as the owner's listing is (``deals.page_of``): each
    deal carries the seat that dealt it as stored with it (a correction at 4 players must know
    who sat out), so no deal before the page is read or folded."""
    return list_deals(db, scorer.owner, scorer.table_id, after=after, limit=limit)
