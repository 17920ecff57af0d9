"""The webhooks' domain types: an endpoint as its owner sees it, a delivery with its attempts."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Endpoint:
    id: int
    url: str
    types: tuple[str, ...]
    tables: tuple[str, ...] | None  # None: every table of the owner
    active: bool
    disabled_at: datetime | None
    disabled_reason: str | None
    failing_since: datetime | None
    previous_secret_until: datetime | None
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class Created:
    """An endpoint with its secret, given out once (on creation and on rotation)."""

    endpoint: Endpoint
    secret: str


@dataclass(frozen=True)
class Attempt:
    attempted_at: datetime
    status: int | None
    duration_ms: int
    error: str | None


@dataclass(frozen=True)
class Delivery:
    id: int
    type: str
    table_id: str | None
    tournament_id: str | None
    revision: int | None
    deal_number: int | None
    occurred_at: datetime
    state: str  # pending, delivered, failed
    next_attempt_at: datetime | None
    attempt_count: int
    last_status: int | None
    last_error: str | None
    finished_at: datetime | None
    attempts: tuple[Attempt, ...]

    @property
    def webhook_id(self) -> str:
        return message_id(self.id)


def message_id(delivery_id: int) -> str:
    """The ``webhook-id`` of a delivery: the same on every attempt, so that a receiver can
    tell a repeat."""
    return f"msg_{delivery_id}"
