"""Who a request speaks for, as the kit sees it: the caller of an API key, and the lookups
that find it (a key's caller, a scorer link's table).

The lookups belong to the keys and scorer domains (app/keys/service.py, app/scorer/service.py);
app/main.py hands them to the app as ``app.state.lookups``, and the kit's gate
(app/kit/middleware/rate_limit.py) and dependencies (app/kit/deps.py) call them from there,
so that the kit imports no domain."""

from __future__ import annotations

import hmac
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.kit.db import Database


@dataclass(frozen=True)
class Caller:
    """Who a valid key speaks for: its owner, whether it may administer keys, and its id
    (None for the environment admin key, which is not stored)."""

    owner: str
    admin: bool = False
    key_id: int | None = None


ADMIN_OWNER = "admin"  # the owner the environment admin key (PREFSCORE_ADMIN_KEY) acts for
ENV_ADMIN = Caller(ADMIN_OWNER, admin=True)


def env_admin(token: str, admin_key: str | None) -> Caller | None:
    """The environment admin key's caller when ``token`` is that key (compared in constant time)."""
    if admin_key and hmac.compare_digest(token.encode("utf-8"), admin_key.encode("utf-8")):
        return ENV_ADMIN
    return None


@dataclass(frozen=True)
class Lookups:
    known_caller: Callable[[Database, str, str | None], Caller | str | None]
    """A key's caller from this process's cache without the database: the Caller, the
    empty string for a key known to be invalid, None when it is not known."""
    identify: Callable[[Database, str, str | None], Caller | None]
    """A key's caller, looked up in the database (in the thread pool)."""
    scorer: Callable[[Database, str], Any]
    """A scorer link's token → what it may act on (app/scorer/service.py ``Scorer``), or None."""


# Without the domains' lookups (an app assembled without app/main.py): the environment
# admin key alone is known; every other key and every scorer link is not.
ADMIN_KEY_ONLY = Lookups(
    known_caller=lambda db, token, admin_key: env_admin(token, admin_key),
    identify=lambda db, token, admin_key: env_admin(token, admin_key),
    scorer=lambda db, token: None,
)
