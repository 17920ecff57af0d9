"""The webhooks' tables (app/webhooks): the endpoints, the tables one is limited to, the
deliveries (the outbox, which app/events/outbox.py writes in the transaction of each change,
naming these tables by their names: the events' home sits below the domains) and their
attempts; their ORM classes on the one declarative base (app/kit/db/models.py). Alembic
(migrations/) creates them; app/orm.py gathers every domain's for it."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Boolean, DateTime, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.kit.db.models import Base, utcnow


class WebhookEndpointRow(Base):
    """An owner's webhook endpoint (app/webhooks): where to send, which event types (a bit
    each, app/events/catalogue.WEBHOOK_BITS), all tables or the listed ones (webhook_endpoint_tables).
    The secret is kept as given out (``whsec_``…): the server signs with it. During a rotation's
    overlap the previous one signs too, until ``previous_until``."""

    __tablename__ = "webhook_endpoints"
    __table_args__ = {"sqlite_autoincrement": True}  # ids handed out never given twice (migration 0015)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    owner: Mapped[str] = mapped_column(String(64), index=True)
    url: Mapped[str] = mapped_column(String(2000))
    types: Mapped[int] = mapped_column(Integer)
    all_tables: Mapped[bool] = mapped_column(Boolean, default=True)
    secret: Mapped[str] = mapped_column(String(100))
    previous_secret: Mapped[str | None] = mapped_column(String(100), nullable=True)
    previous_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # Paused by its owner (False) or not; a disabled endpoint (410, or failing too long) has
    # disabled_at and its reason. Only an active, not disabled endpoint is written deliveries.
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    disabled_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    disabled_reason: Mapped[str | None] = mapped_column(String(500), nullable=True)
    failing_since: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class WebhookEndpointTableRow(Base):
    """A table an endpoint is limited to (none: every table of its owner)."""

    __tablename__ = "webhook_endpoint_tables"

    endpoint_id: Mapped[int] = mapped_column(
        ForeignKey("webhook_endpoints.id", ondelete="CASCADE"), primary_key=True
    )
    table_id: Mapped[str] = mapped_column(String(32), primary_key=True)


class WebhookDeliveryRow(Base):
    """The outbox: one row per event and endpoint, written in the transaction of the change it
    announces, delivered after its commit (app/webhooks/delivery.py). ``due_at`` is when it is
    to be tried next: a claim pushes it one lease ahead, so that a delivery its process did not
    finish (killed) is tried again. No key to the table: a deleted table's event stays."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        Index("ix_webhook_deliveries_state_due_at", "state", "due_at"),
        Index("ix_webhook_deliveries_endpoint_id_id", "endpoint_id", "id"),
        Index("ix_webhook_deliveries_finished_at", "finished_at"),
        {"sqlite_autoincrement": True},  # msg_{id} never given twice (migration 0015)
    )

    id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    )
    endpoint_id: Mapped[int] = mapped_column(ForeignKey("webhook_endpoints.id", ondelete="CASCADE"))
    owner: Mapped[str] = mapped_column(String(64))
    type: Mapped[str] = mapped_column(String(40))
    table_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    revision: Mapped[int | None] = mapped_column(Integer, nullable=True)
    deal_number: Mapped[int | None] = mapped_column(Integer, nullable=True)
    deal_count: Mapped[int | None] = mapped_column(Integer, nullable=True)
    occurred_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    state: Mapped[str] = mapped_column(String(12))  # pending, delivered, failed
    due_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_status: Mapped[int | None] = mapped_column(Integer, nullable=True)
    last_error: Mapped[str | None] = mapped_column(String(500), nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # The event's own data when its columns cannot make its payload (rating.changed: its
    # players' ratings before and after), as it was when the event happened.
    data: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)


class WebhookAttemptRow(Base):
    """One attempt to deliver: the status answered (none when no answer came), how long, why it failed."""

    __tablename__ = "webhook_attempts"

    id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    )
    delivery_id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"),
        ForeignKey("webhook_deliveries.id", ondelete="CASCADE"),
        index=True,
    )
    attempted_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    status: Mapped[int | None] = mapped_column(Integer, nullable=True)
    duration_ms: Mapped[int] = mapped_column(Integer)
    error: Mapped[str | None] = mapped_column(String(500), nullable=True)
