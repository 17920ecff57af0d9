"""The ratings' fixed limits: part of the contract (the OpenAPI document declares most of
them) or of the storage, so constants, not settings (what an operator may tune is in
app/kit/settings.py)."""

from __future__ import annotations

RATINGS_PAGE_MAX = 200
"""Standings on one page of the leaderboard (GET /v1/ratings)."""
RATING_HISTORY_MAX = 200
"""Rated tables on one page of a player's rating history."""
