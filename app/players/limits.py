"""The player registry's fixed limits: part of the contract (the OpenAPI document declares most of
them) or of the storage, so constants, not settings (what an operator may tune is in
app/kit/settings.py)."""

from __future__ import annotations

PLAYERS_PER_OWNER = 100_000
"""Registered players one owner may hold."""
