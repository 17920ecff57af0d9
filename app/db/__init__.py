"""Persistence: SQLAlchemy models, engine/session setup per dialect, repositories."""

from .engine import Database, make_database
from .models import ApiKey, Base, DealRow, IdempotencyRow, PlayerRow, PlayerTableRow, ScorerLinkRow, TableRow

__all__ = ["ApiKey", "Base", "Database", "DealRow", "IdempotencyRow", "PlayerRow", "PlayerTableRow", "ScorerLinkRow", "TableRow", "make_database"]
