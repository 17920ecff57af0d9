"""A record's fixed limits: part of the contract (the OpenAPI document declares most of
them) or of the storage, so constants, not settings (what an operator may tune is in
app/kit/settings.py)."""

from __future__ import annotations

RECORD_ENTRIES_MAX = 64
"""Entries one deal of a record may write (a handful per seat)."""
