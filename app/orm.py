"""Every table of the schema, gathered: importing this module declares each domain's tables
(its ``orm.py``) on the one metadata (app/kit/db/models.Base), for Alembic's environment
(migrations/env.py) and for whatever needs the whole schema at once. The kit knows no domain,
so the gathering lives here, above the domains."""

from __future__ import annotations

from app.deals import orm as deals
from app.keys import orm as keys
from app.kit.db.models import Base
from app.players import orm as players
from app.ratings import orm as ratings
from app.scorer import orm as scorer
from app.tables import orm as tables
from app.tournaments import orm as tournaments
from app.webhooks import orm as webhooks

metadata = Base.metadata

__all__ = [
    "Base",
    "deals",
    "keys",
    "metadata",
    "players",
    "ratings",
    "scorer",
    "tables",
    "tournaments",
    "webhooks",
]
