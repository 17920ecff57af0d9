"""API keys: ``pk_`` + 43 URL-safe characters (32 random bytes). Only a SHA-256 hash is
stored, with the first 12 characters as an indexed prefix for a one-row lookup; the hash is
then compared in constant time. Unknown prefixes still cost one comparison, so the response
time does not tell whether a prefix exists."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import threading
import time
import weakref

from sqlalchemy import select

from app.db import ApiKey, Database

KEY_PREFIX = "pk_"
PREFIX_LENGTH = 12
ADMIN_OWNER = "admin"
OWNER_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")
_DUMMY_HASH = hashlib.sha256(b"prefscore: no key has this prefix").hexdigest()


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def new_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


def valid_owner(owner: str) -> bool:
    return isinstance(owner, str) and OWNER_RE.fullmatch(owner) is not None


def create_key(db: Database, owner: str) -> str:
    """Create a key for ``owner`` (a new owner when the name is new); the key is returned
    once and never stored in clear."""
    if not valid_owner(owner):
        raise ValueError("owner must be 1-64 characters: letters, digits and _ . @ - (starting with a letter or digit)")
    key = new_key()
    with db.write() as session:
        session.add(ApiKey(owner=owner, prefix=key[:PREFIX_LENGTH], hash=hash_key(key)))
    return key


def known_owner(db: Database, token: str, admin_key: str | None) -> str | None:
    """What is known of ``token`` without the database: the admin key's owner, or the answer
    of a recent lookup of the same key (see _KeyCache): an owner, or ``INVALID``. None means
    "look it up" (``authenticate``)."""
    if not token or len(token) > 200:
        return None
    if admin_key and hmac.compare_digest(token.encode("utf-8"), admin_key.encode("utf-8")):
        return ADMIN_OWNER
    return _cache_of(db).get(hash_key(token))


def authenticate(db: Database, token: str, admin_key: str | None) -> str | None:
    """The owner of ``token``, or None (``INVALID`` when a recent lookup found none)."""
    if not token or len(token) > 200 or not token.isascii() or not token.isprintable():
        return None
    if admin_key and hmac.compare_digest(token.encode("utf-8"), admin_key.encode("utf-8")):
        return ADMIN_OWNER
    digest = hash_key(token)
    cache = _cache_of(db)
    owner = cache.get(digest)
    if owner is not None:
        return owner or None
    with db.lookup() as conn:
        rows = conn.execute(
            select(ApiKey.owner, ApiKey.hash).where(ApiKey.prefix == token[:PREFIX_LENGTH])
        ).all()
    if not rows:
        hmac.compare_digest(digest, _DUMMY_HASH)
        cache.put(digest, INVALID)
        return None
    owner = None
    for row_owner, row_hash in rows:
        if hmac.compare_digest(digest, row_hash):
            owner = row_owner
    cache.put(digest, owner if owner is not None else INVALID)
    return owner


# Cached answer for a key that matched no stored key (never an owner's name: names are non-empty).
INVALID = ""


class _KeyCache:
    """The answers of recent key lookups, valid and invalid alike, by the SHA-256 of the key
    (the key itself is not kept), each for ``ttl`` seconds: a key is looked up in the database
    once a minute per worker process instead of on every request. Caching wrong keys too keeps
    the cost of a request independent of whether its key is valid: any key costs one lookup
    on first use and none on a repeat. Keys are never deleted by the service; one deleted from
    the database by hand stops working within ``ttl``."""

    def __init__(self, ttl: float = 60.0, size: int = 4096):
        self.ttl = ttl
        self.size = size
        self._lock = threading.Lock()
        self._items: dict[str, tuple[str, float]] = {}

    def get(self, digest: str) -> str | None:
        item = self._items.get(digest)
        if item is None or item[1] < time.monotonic():
            return None
        return item[0]

    def put(self, digest: str, owner: str) -> None:
        with self._lock:
            if len(self._items) >= self.size:
                self._items.clear()
            self._items[digest] = (owner, time.monotonic() + self.ttl)


_caches: "weakref.WeakKeyDictionary[Database, _KeyCache]" = weakref.WeakKeyDictionary()
_caches_lock = threading.Lock()


def _cache_of(db: Database) -> _KeyCache:
    """One cache per Database (per app): tests run several apps in one process."""
    cache = _caches.get(db)
    if cache is None:
        with _caches_lock:
            cache = _caches.setdefault(db, _KeyCache())
    return cache
