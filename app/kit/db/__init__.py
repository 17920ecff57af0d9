"""Persistence: SQLAlchemy models, engine/session setup per dialect, repositories."""

from app.kit.db.engine import Database, make_database
from app.kit.db.models import (
    ApiKey,
    Base,
    DealRow,
    IdempotencyRow,
    PlayerRatingRow,
    PlayerRow,
    PlayerTableRow,
    RatedTableRow,
    RatingChangeRow,
    ScorerLinkRow,
    TableRow,
    WebhookAttemptRow,
    WebhookDeliveryRow,
    WebhookEndpointRow,
    WebhookEndpointTableRow,
)

__all__ = ["ApiKey", "Base", "Database", "DealRow", "IdempotencyRow", "PlayerRatingRow", "PlayerRow", "PlayerTableRow", "RatedTableRow", "RatingChangeRow", "ScorerLinkRow", "TableRow", "WebhookAttemptRow", "WebhookDeliveryRow", "WebhookEndpointRow", "WebhookEndpointTableRow", "make_database"]
