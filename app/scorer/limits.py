"""The scorer links' fixed limits: part of the contract (the OpenAPI document declares most of
them) or of the storage, so constants, not settings (what an operator may tune is in
app/kit/settings.py)."""

from __future__ import annotations

from app.rules import Sentence

SCORER_LINKS_MAX = 20
"""Scorer links one table may have (revoked ones included)."""

SCORER_LINK_PATHS = ("/v1/score/{token}", "/score/{token}")
"""The scorer link's paths (each with every path under it): a write capability in place of a
key, looked up and counted as a key (app/kit/middleware/rate_limit.py, handed in by
app/main.py) and masked in the logs."""
SCORER_LINK_NAME = Sentence("this scorer link")
"""The scorer link as a refusal names it (a 429's detail, in the caller's language)."""
