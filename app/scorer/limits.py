"""The scorer links' fixed limits: part of the contract (the OpenAPI document declares most of
them) or of the storage, so constants, not settings (what an operator may tune is in
app/kit/settings.py)."""

from __future__ import annotations

SCORER_LINKS_MAX = 20
"""Scorer links one table may have (revoked ones included)."""
