"""API keys: ``pk_`` + 43 URL-safe characters (32 random bytes). Only a SHA-256 hash is
stored, with the first 12 characters as an indexed prefix for a one-row lookup; the hash is
then compared in constant time. Unknown prefixes still cost one comparison, so the response
time does not tell whether a prefix exists.

Administration is a property of a key (``api_keys.is_admin``, set only by
``prefscore keys create --admin``), never of an owner's name. ``PREFSCORE_ADMIN_KEY``, while
set, is an admin key too, of the reserved owner "admin": no key can be made for that owner
(it would read the tables made with the environment key). It is compared with the setting on every request, so a rotated value stops working
at once. A revoked key stops working on every process within the key cache's lifetime
(``PREFSCORE_KEY_CACHE_TTL``, 60 s by default); on the process that revoked it, at once. The
event streams it holds open end within ``PREFSCORE_EVENTS_HEARTBEAT`` seconds on every process
(app/live/key_watcher.py reads ``revoked_among``), at once on the process that revoked it."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import threading
import weakref
from dataclasses import dataclass
from datetime import datetime

from app.keys import repository
from app.keys.limits import KEY_MAX_LENGTH, KEY_PREFIX_LENGTH
from app.keys.repository import StoredKey
from app.kit.caching import Kept
from app.kit.callers import ADMIN_OWNER, ENV_ADMIN, Caller, env_admin
from app.kit.db import Database
from app.kit.db.models import utcnow
from app.kit.errors import NotFound, Unprocessable
from app.rules import FieldError, Sentence

KEY_PREFIX = "pk_"
OWNER_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")
_DUMMY_HASH = hashlib.sha256(b"prefscore: no key has this prefix").hexdigest()


@dataclass(frozen=True)
class KeyInfo:
    """A stored key as listed: never its hash nor its secret."""

    id: int
    owner: str
    prefix: str
    admin: bool
    created_at: datetime
    revoked_at: datetime | None

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "owner": self.owner,
            "prefix": self.prefix,
            "admin": self.admin,
            "created_at": self.created_at.isoformat(),
            "revoked_at": self.revoked_at.isoformat() if self.revoked_at else None,
        }


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def new_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


def valid_owner(owner: str) -> bool:
    return isinstance(owner, str) and OWNER_RE.fullmatch(owner) is not None


def create_key(db: Database, owner: str, *, admin: bool = False) -> str:
    """Create a key for ``owner`` (a new owner when the name is new); the key is returned
    once and never stored in clear. ``admin``: the key may create, list and revoke keys."""
    if not valid_owner(owner):
        raise Unprocessable(
            "not an owner name",
            [
                FieldError(
                    "owner", "1-64 characters: letters, digits and _ . @ - (starting with a letter or digit)"
                )
            ],
        )
    if owner == ADMIN_OWNER:
        raise Unprocessable(
            Sentence("the owner {admin_owner!r} is reserved", admin_owner=ADMIN_OWNER),
            [
                FieldError(
                    "owner",
                    Sentence(
                        "{admin_owner!r} is the owner of PREFSCORE_ADMIN_KEY's tables: no key can be made for it",
                        admin_owner=ADMIN_OWNER,
                    ),
                )
            ],
        )
    key = new_key()
    with db.write() as session:
        repository.insert_key(
            session, owner=owner, prefix=key[:KEY_PREFIX_LENGTH], digest=hash_key(key), admin=admin
        )
    return key


def _info(key: StoredKey) -> KeyInfo:
    return KeyInfo(key.id, key.owner, key.prefix, key.admin, key.created_at, key.revoked_at)


def list_keys(db: Database) -> list[KeyInfo]:
    """Every stored key, oldest first (the command line's listing)."""
    with db.read() as session:
        return [_info(row) for row in repository.all_keys(session)]


def keys_page(
    db: Database, *, before: int | None = None, limit: int = 50
) -> tuple[list[KeyInfo], int | None]:
    """A page of the stored keys, newest first: at most ``limit`` below the id ``before``, and
    the id a next page starts below (None on the last)."""
    with db.read() as session:
        rows = repository.keys_page(session, before=before, rows=limit + 1)
    page = [_info(row) for row in rows[:limit]]
    return page, (page[-1].id if len(rows) > limit and page else None)


def revoke_key(db: Database, key_id: int) -> KeyInfo:
    """Revoke a stored key (again: no change). It stops working here at once and on every
    other process when its cached answer expires."""
    with db.write() as session:
        row = repository.mark_revoked(session, key_id, utcnow())
        if row is None:
            raise NotFound(Sentence("no key with id {key_id}", key_id=key_id))
        info = _info(row)
        digest = row.hash
    _cache_of(db).drop(digest)
    return info


def revoked_among(db: Database, key_ids: list[int]) -> set[int]:
    """Those of the stored keys ``key_ids`` that no longer work (revoked, or gone), in one read.
    This process forgets its cached answers for them: it learns of the revocation now."""
    if not key_ids:
        return set()
    with db.lookup() as conn:
        rows = repository.key_states(conn, key_ids)
    cache = _cache_of(db)
    for row in rows:
        if row.revoked_at is not None:
            cache.drop(row.hash)
    return set(key_ids) - {row.id for row in rows if row.revoked_at is None}


def known_caller(db: Database, token: str, admin_key: str | None) -> Caller | str | None:
    """What is known of ``token`` without the database: the environment admin key, or the
    answer of a recent lookup of the same key (see _KeyCache): a Caller, or ``INVALID``.
    None means "look it up" (``identify``)."""
    if not token or len(token) > KEY_MAX_LENGTH:
        return None
    if env_admin(token, admin_key) is not None:
        return ENV_ADMIN
    return _cache_of(db).get(hash_key(token))


def identify(db: Database, token: str, admin_key: str | None) -> Caller | None:
    """The Caller of ``token``, or None when it is no valid key."""
    if not token or len(token) > KEY_MAX_LENGTH or not token.isascii() or not token.isprintable():
        return None
    if env_admin(token, admin_key) is not None:
        return ENV_ADMIN
    digest = hash_key(token)
    cache = _cache_of(db)
    cached = cache.get(digest)
    if cached is not None:
        return cached if isinstance(cached, Caller) else None  # else INVALID
    with db.lookup() as conn:
        rows = repository.working_with_prefix(conn, token[:KEY_PREFIX_LENGTH])
    if not rows:
        hmac.compare_digest(digest, _DUMMY_HASH)
        cache.put(digest, INVALID)
        return None
    caller = None
    for key in rows:
        if hmac.compare_digest(digest, key.hash):
            caller = Caller(key.owner, key.admin, key.id)
    cache.put(digest, caller if caller is not None else INVALID)
    return caller


def authenticate(db: Database, token: str, admin_key: str | None) -> str | None:
    """The owner of ``token``, or None."""
    caller = identify(db, token, admin_key)
    return caller.owner if caller is not None else None


# Cached answer for a key that matched no stored key.
INVALID = ""
_Cached = Caller | str


class _KeyCache(Kept[str, _Cached]):
    """The answers of recent key lookups, valid and invalid alike, by the SHA-256 of the key
    (the key itself is not kept), each for ``ttl`` seconds: a key is looked up in the database
    once a minute per worker process instead of on every request. Caching wrong keys too keeps
    the cost of a request independent of whether its key is valid: any key costs one lookup
    on first use and none on a repeat. At most ``size`` answers are kept; beyond that the
    least recently used one is forgotten, one at a time (a flood of made-up keys pushes out
    old answers gradually, never every answer at once)."""

    def __init__(self, ttl: float = 60.0, size: int = 4096):
        super().__init__(max(1, size), ttl=ttl)


_caches: weakref.WeakKeyDictionary[Database, _KeyCache] = weakref.WeakKeyDictionary()
_caches_lock = threading.Lock()


def configure_key_cache(db: Database, *, ttl: float, size: int) -> None:
    """Size and lifetime of the key cache of ``db`` (create_app calls it with the settings)."""
    with _caches_lock:
        _caches[db] = _KeyCache(ttl=ttl, size=size)


def _cache_of(db: Database) -> _KeyCache:
    """One cache per Database (per app): tests run several apps in one process."""
    cache = _caches.get(db)
    if cache is None:
        with _caches_lock:
            cache = _caches.setdefault(db, _KeyCache())
    return cache
