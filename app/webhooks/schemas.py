"""Webhooks' requests and answers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field, StringConstraints

from app.events.catalogue import WEBHOOK_BITS
from app.kit.schemas import Answer, Request, UtcTime
from app.webhooks.limits import WEBHOOK_TABLES_MAX, WEBHOOK_URL_MAX
from app.webhooks.model import Created, Delivery, Endpoint

# The kinds an endpoint may subscribe to: the catalogue's (app/events/catalogue.py), a closed
# set made at run time: a Literal to pydantic, a string to the type checker.
if TYPE_CHECKING:
    EventType = str
else:
    EventType = Literal[tuple(WEBHOOK_BITS)]
Url = Annotated[
    str, StringConstraints(min_length=1, max_length=WEBHOOK_URL_MAX, pattern=r"^[Hh][Tt][Tt][Pp][Ss]?://\S+$")
]
TableId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_-]{1,32}$")]
Types = Annotated[list[EventType], Field(min_length=1, max_length=len(WEBHOOK_BITS))]
Tables = Annotated[list[TableId], Field(min_length=1, max_length=WEBHOOK_TABLES_MAX)]


class WebhookCreate(Request):
    url: Url = Field(description="where each delivery is POSTed: http(s), resolving to a public address")
    types: Types = Field(description="the event types to deliver")
    tables: Tables | None = Field(
        default=None, description="only these tables' events; left out or null: every table of the owner"
    )

    example = {"url": "https://bot.example.org/prefscore", "types": ["deal.posted", "table.finished"]}


class WebhookPatch(Request):
    """What a PATCH may change; a field left out is left as it is."""

    url: Url = Field(default=None, description="a new URL (checked as at creation)")
    types: Types = Field(default=None, description="the event types to deliver")  # type: ignore[arg-type]  # absent, not null
    tables: Tables | None = Field(default=None, description="only these tables' events; null: every table")
    active: bool = Field(
        default=None, description="false pauses the webhook; true resumes it (a disabled one too)"
    )

    example = {"active": False}


class WebhookOut(Answer):
    id: int
    url: str
    types: list[str]
    tables: list[str] | None = Field(description="the tables it is limited to; null: every table")
    active: bool = Field(description="false while paused by its owner")
    disabled_at: UtcTime | None = Field(
        description="when it was disabled (410, or failing too long); null while it works"
    )
    disabled_reason: str | None = Field(description="why it was disabled")
    failing_since: UtcTime | None = Field(
        description="since when every delivery has failed; null while it answers"
    )
    previous_secret_until: UtcTime | None = Field(
        description="until when the secret before the last rotation still signs"
    )
    created_at: UtcTime
    updated_at: UtcTime

    @classmethod
    def of(cls, e: Endpoint) -> WebhookOut:
        return cls(
            id=e.id,
            url=e.url,
            types=list(e.types),
            tables=None if e.tables is None else list(e.tables),
            active=e.active,
            disabled_at=e.disabled_at,
            disabled_reason=e.disabled_reason,
            failing_since=e.failing_since,
            previous_secret_until=e.previous_secret_until,
            created_at=e.created_at,
            updated_at=e.updated_at,
        )


class WebhookWithSecret(WebhookOut):
    secret: str = Field(description="the signing secret (whsec_…), shown this once")

    @classmethod
    def made(cls, c: Created) -> WebhookWithSecret:
        return cls(**WebhookOut.of(c.endpoint).model_dump(), secret=c.secret)


class WebhookList(Answer):
    items: list[WebhookOut]


class AttemptOut(Answer):
    attempted_at: UtcTime
    status: int | None = Field(description="the HTTP status answered; null when none came")
    duration_ms: int
    error: str | None = Field(description="why it failed; null when it went through")


class DeliveryOut(Answer):
    id: int
    webhook_id: str = Field(description="the webhook-id header: the same on every attempt")
    type: str
    table_id: str | None
    tournament_id: str | None = Field(
        default=None, description="the tournament of a tournament.* event (its table_id is null)"
    )
    revision: int | None
    deal_number: int | None
    occurred_at: UtcTime
    state: Literal["pending", "delivered", "failed"]
    next_attempt_at: UtcTime | None
    attempt_count: int
    last_status: int | None
    last_error: str | None
    finished_at: UtcTime | None
    attempts: list[AttemptOut] = Field(description="the latest attempts, oldest first")

    @classmethod
    def of(cls, d: Delivery) -> DeliveryOut:
        return cls(
            id=d.id,
            webhook_id=d.webhook_id,
            type=d.type,
            table_id=d.table_id,
            tournament_id=d.tournament_id,
            revision=d.revision,
            deal_number=d.deal_number,
            occurred_at=d.occurred_at,
            state=d.state,
            next_attempt_at=d.next_attempt_at,
            attempt_count=d.attempt_count,
            last_status=d.last_status,
            last_error=d.last_error,
            finished_at=d.finished_at,
            attempts=[
                AttemptOut(
                    attempted_at=a.attempted_at, status=a.status, duration_ms=a.duration_ms, error=a.error
                )
                for a in d.attempts
            ],
        )


class DeliveryPage(Answer):
    """The webhook's deliveries, newest first: follow ``next`` until it is null."""

    items: list[DeliveryOut]
    next: str | None = Field(description="the URL of the next page; null on the last")
