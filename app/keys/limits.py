"""The API keys' fixed limits: part of the contract (the OpenAPI document declares most of
them) or of the storage, so constants, not settings (what an operator may tune is in
app/kit/settings.py)."""

from __future__ import annotations

KEYS_PAGE_MAX = 200
"""Keys on one page of GET /v1/keys."""
KEY_MAX_LENGTH = 200
"""Characters of a presented API key or scorer link token; a longer one is no key."""
KEY_PREFIX_LENGTH = 12
"""The first characters of a key (or a scorer link's token) stored in clear, to find it and to show it."""
