"""The API keys' SQL (table ``api_keys``): only a key's hash is stored, with its first
characters as an indexed prefix (app/keys/service.py)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, exists, or_, select
from sqlalchemy.orm import Session

from app.keys.orm import ApiKey
from app.kit.callers import ADMIN_OWNER

_KEYS = ApiKey.__table__

# The owner the environment admin key acts for (app/keys/service.py): it has no stored key.


def owner_has_a_key(owner_column: Any) -> Any:
    """A condition on ``owner_column``: the owner has a working key. A scorer link works only
    while its table's owner has one: revoking every key of an owner ends the owner's links
    too (a new key brings them back). The environment admin key's owner has no stored key
    and always has that one; no key can be made for it."""
    keys = _KEYS
    return or_(
        owner_column == ADMIN_OWNER,
        exists().where(keys.c.owner == owner_column, keys.c.revoked_at.is_(None)),
    )


@dataclass(frozen=True)
class StoredKey:
    """A stored key as the service reads it (its hash, never its secret)."""

    id: int
    owner: str
    prefix: str
    hash: str
    admin: bool
    created_at: datetime
    revoked_at: datetime | None


@dataclass(frozen=True)
class KeyState:
    id: int
    hash: str
    revoked_at: datetime | None


@dataclass(frozen=True)
class WorkingKey:
    """A key not revoked, as a lookup by its prefix compares it."""

    id: int
    owner: str
    hash: str
    admin: bool


def _stored(row: ApiKey) -> StoredKey:
    return StoredKey(
        row.id, row.owner, row.prefix, row.hash, bool(row.is_admin), row.created_at, row.revoked_at
    )


def insert_key(session: Session, *, owner: str, prefix: str, digest: str, admin: bool) -> None:
    session.add(ApiKey(owner=owner, prefix=prefix, hash=digest, is_admin=admin))


def all_keys(session: Session) -> list[StoredKey]:
    """Every stored key, revoked ones included, in id order."""
    return [_stored(row) for row in session.scalars(select(ApiKey).order_by(ApiKey.id))]


def keys_page(session: Session, *, before: int | None, rows: int) -> list[StoredKey]:
    """At most ``rows`` stored keys, newest first, below the id ``before`` (keyset paging)."""
    query = select(ApiKey)
    if before is not None:
        query = query.where(ApiKey.id < before)
    return [_stored(row) for row in session.scalars(query.order_by(ApiKey.id.desc()).limit(rows))]


def mark_revoked(session: Session, key_id: int, now: datetime) -> StoredKey | None:
    """Mark the key revoked at ``now`` unless it already is; the key (None when there is none)."""
    row = session.get(ApiKey, key_id)
    if row is None:
        return None
    if row.revoked_at is None:
        row.revoked_at = now
    return _stored(row)


def key_states(conn: Connection, key_ids: list[int]) -> list[KeyState]:
    """Those of ``key_ids`` that are stored."""
    query = select(ApiKey.id, ApiKey.hash, ApiKey.revoked_at).where(ApiKey.id.in_(key_ids))
    return [KeyState(*row) for row in conn.execute(query)]


def working_with_prefix(conn: Connection, prefix: str) -> list[WorkingKey]:
    """The keys not revoked whose prefix is ``prefix``."""
    query = select(ApiKey.id, ApiKey.owner, ApiKey.hash, ApiKey.is_admin).where(
        ApiKey.prefix == prefix, ApiKey.revoked_at.is_(None)
    )
    return [WorkingKey(i, owner, digest, bool(admin)) for i, owner, digest, admin in conn.execute(query)]
