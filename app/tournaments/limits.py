"""The tournaments' fixed limits: part of the contract (the OpenAPI document declares most of
them) or of the storage, so constants, not settings (what an operator may tune is in
app/kit/settings.py)."""

from __future__ import annotations

TOURNAMENT_NAME_MAX = 120
"""Characters of a tournament's name (its tables' titles add the round and table to it)."""
TOURNAMENT_ENTRANTS_MAX = 600
"""Entrants of one tournament (a federation's largest events seat a few hundred)."""
TOURNAMENT_ROUNDS_MAX = 30
"""Planned rounds of one tournament."""
TOURNAMENTS_PER_OWNER = 1000
"""Tournaments one owner may hold (their tables count towards the owner's tables too)."""
TOURNAMENT_ADJUSTMENTS_MAX = 1000
"""The director's adjustments of one tournament."""
REASON_MAX = 200
"""Characters of a director's reason (an adjustment, a reopened round)."""
TOURNAMENTS_PAGE_MAX = 200
"""Tournaments on one page of GET /v1/tournaments."""
AUDIT_PAGE_MAX = 200
"""Entries on one page of a tournament's audit."""
