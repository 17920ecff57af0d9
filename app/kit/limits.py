"""The kit's fixed limits, generic to every domain: what a refusal lists, how much of a request's
headers is read, a name's and a stake's length. Each domain names its own in its
``limits.py`` (a table's title, a tournament's entrants, a webhook's URL, ...); the engine's
(a deal's note, the seats of a table) are in app/rules/vocabulary.py.

These are part of the contract (the OpenAPI document declares most of them as a maxLength,
maximum or maxItems) or of the wire formats, so they are constants, not settings. What an
operator may tune is in app/kit/settings.py (``PREFSCORE_*``).
"""

from __future__ import annotations

from app.rules.vocabulary import SEATS_MAX

NAME_MAX = 64
"""Characters of a player's name (a seat's, a registered player's)."""
STAKE_MAX_LENGTH = 32
"""Characters of a stake as written (``0.5``): a longer decimal is refused before it is read."""
STAKE_DECIMALS = 6
"""Decimal places of a stake."""
MAX_LISTED_ERRORS = 20
"""The refusals an error names at most (an answer's ``errors``, a record's refused deal);
``error_count`` then says how many there were."""
ACCEPT_LANGUAGE_MAX = 512
"""Characters of an Accept-Language header (a preference list is short)."""
ACCEPT_LANGUAGE_ITEMS = 32
"""Languages of an Accept-Language header read; the rest is ignored."""
REQUEST_ID_MAX = 128
"""Characters of a client's X-Request-ID that is kept (a longer one is replaced)."""

__all__ = [
    "ACCEPT_LANGUAGE_ITEMS",
    "ACCEPT_LANGUAGE_MAX",
    "MAX_LISTED_ERRORS",
    "NAME_MAX",
    "REQUEST_ID_MAX",
    "SEATS_MAX",
    "STAKE_DECIMALS",
    "STAKE_MAX_LENGTH",
]
