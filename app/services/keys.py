"""API keys: ``pk_`` + 43 URL-safe characters (32 random bytes). Only a SHA-256 hash is
stored, with the first 12 characters as an indexed prefix for a one-row lookup; the hash is
then compared in constant time. Unknown prefixes still cost one comparison, so the response
time does not tell whether a prefix exists."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

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


def authenticate(db: Database, token: str, admin_key: str | None) -> str | None:
    """The owner of ``token``, or None."""
    if not token or len(token) > 200 or not token.isascii() or not token.isprintable():
        return None
    if admin_key and hmac.compare_digest(token.encode("utf-8"), admin_key.encode("utf-8")):
        return ADMIN_OWNER
    digest = hash_key(token)
    with db.read() as session:
        rows = session.execute(
            select(ApiKey.owner, ApiKey.hash).where(ApiKey.prefix == token[:PREFIX_LENGTH])
        ).all()
    if not rows:
        hmac.compare_digest(digest, _DUMMY_HASH)
        return None
    owner = None
    for row_owner, row_hash in rows:
        if hmac.compare_digest(digest, row_hash):
            owner = row_owner
    return owner
