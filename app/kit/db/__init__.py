"""Persistence: SQLAlchemy models, engine/session setup per dialect, repositories."""

from app.kit.db.engine import Database, make_database
from app.kit.db.models import ApiKey, Base, DealRow, IdempotencyRow, PlayerRow, PlayerTableRow, ScorerLinkRow, TableRow
from app.kit.db.models import (
    TournamentAdjustmentRow,
    TournamentAuditRow,
    TournamentEntrantRow,
    TournamentRoundRow,
    TournamentRow,
    TournamentTableRow,
)

__all__ = ["ApiKey", "Base", "Database", "DealRow", "IdempotencyRow", "PlayerRow", "PlayerTableRow", "ScorerLinkRow", "TableRow", "TournamentAdjustmentRow", "TournamentAuditRow", "TournamentEntrantRow",
           "TournamentRoundRow", "TournamentRow", "TournamentTableRow", "make_database"]
