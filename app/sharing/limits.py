"""The share link's fixed limits: part of the contract (the OpenAPI document declares most of
them) or of the storage, so constants, not settings (what an operator may tune is in
app/kit/settings.py)."""

from __future__ import annotations

SHARED_PAGE_MAX = 200
"""Deals on one page of the share link's deals (also its default: its first clients read one page)."""
