"""The share link's fixed limits: part of the contract (the OpenAPI document declares most of
them) or of the storage, so constants, not settings (what an operator may tune is in
app/kit/settings.py)."""

from __future__ import annotations

from app.rules import Sentence

SHARED_PAGE_MAX = 200
"""Deals on one page of the share link's deals (also its default: its first clients read one page)."""

SHARE_LINK_PATHS = ("/v1/shared/{token}", "/shared/{token}")
"""The share link's paths (each with every path under it): a read capability in place of a key,
counted per token (app/kit/middleware/rate_limit.py, handed in by app/main.py) and masked in
the logs."""
SHARE_LINK_NAME = Sentence("this share link")
"""The share link as a refusal names it (a 429's detail, in the caller's language)."""
