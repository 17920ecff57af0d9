"""The deals' fixed limits: part of the contract (the OpenAPI document declares most of
them) or of the storage, so constants, not settings (what an operator may tune is in
app/kit/settings.py)."""

from __future__ import annotations

DEALS_PAGE_MAX = 200
"""Deals on one page of a table's deals (with a key, or through a scorer link)."""
