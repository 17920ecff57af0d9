"""Webhooks: /v1/webhooks — register, list, read, change (pause, resume), delete, rotate the
secret, the delivery log, a redelivery, a test event (docs/webhooks.md)."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

from fastapi import APIRouter, Body, Depends, Path, Query, Response

from app.kit.bodies import BodyRoute
from app.kit.deps import DB, Owner, get_settings
from app.kit.problem_schemas import problem_responses
from app.kit.settings import Settings
from app.webhooks import documents as _documents  # noqa: F401  (the deliveries in the API document)
from app.webhooks import service as svc
from app.webhooks.limits import WEBHOOK_DELIVERIES_PAGE_MAX
from app.webhooks.schemas import (
    DeliveryOut,
    DeliveryPage,
    WebhookCreate,
    WebhookList,
    WebhookOut,
    WebhookPatch,
    WebhookWithSecret,
)

router = APIRouter(prefix="/v1", tags=["webhooks"], route_class=BodyRoute)
WebhookId = Annotated[int, Path(ge=1, le=2**31 - 1)]
DeliveryId = Annotated[int, Path(ge=1, le=2**53 - 1)]
AppSettings = Annotated[Settings, Depends(get_settings)]
_NO_STORE = {"headers": {"Cache-Control": {"description": "no-store", "schema": {"type": "string"}}}}


def _policy(settings: Settings) -> svc.Policy:
    from app.webhooks.addresses import networks

    return svc.Policy(
        networks(settings.webhooks_allowed_networks), timedelta(seconds=settings.webhooks_secret_overlap)
    )


@router.post(
    "/webhooks",
    operation_id="createWebhook",
    status_code=201,
    response_model=WebhookWithSecret,
    responses={201: _NO_STORE, **problem_responses(401, 409, 422)},
)
def create_webhook(
    body: WebhookCreate, db: DB, owner: Owner, settings: AppSettings, response: Response
) -> WebhookWithSecret:
    """Register an endpoint for some event types, of every table or of some. Its secret
    (``whsec_…``) is shown this once: every delivery is signed with it (Standard Webhooks)."""
    made = svc.create(
        db,
        owner,
        body.url,
        list(body.types),
        None if body.tables is None else list(body.tables),
        _policy(settings),
    )
    response.headers["Cache-Control"] = "no-store"
    response.headers["Location"] = f"/v1/webhooks/{made.endpoint.id}"
    return WebhookWithSecret.made(made)


@router.get(
    "/webhooks", operation_id="listWebhooks", response_model=WebhookList, responses=problem_responses(401)
)
def list_webhooks(db: DB, owner: Owner) -> WebhookList:
    """The owner's endpoints (never a secret)."""
    return WebhookList(items=[WebhookOut.of(e) for e in svc.list_endpoints(db, owner)])


@router.get(
    "/webhooks/{webhook_id}",
    operation_id="getWebhook",
    response_model=WebhookOut,
    responses=problem_responses(401, 404, 422),
)
def get_webhook(webhook_id: WebhookId, db: DB, owner: Owner) -> WebhookOut:
    """One endpoint: whether it is paused, disabled and why, failing since when."""
    return WebhookOut.of(svc.get(db, owner, webhook_id))


@router.patch(
    "/webhooks/{webhook_id}",
    operation_id="updateWebhook",
    response_model=WebhookOut,
    responses=problem_responses(401, 404, 422),
)
def update_webhook(
    webhook_id: WebhookId,
    db: DB,
    owner: Owner,
    settings: AppSettings,
    body: Annotated[WebhookPatch, Body()] = None,  # type: ignore[assignment]
) -> WebhookOut:
    """Change the URL, the event types or the tables; ``"active": false`` pauses (no delivery
    is written for it meanwhile), ``true`` resumes, a disabled endpoint too."""
    body = body or WebhookPatch()
    fields = body.model_fields_set
    kw: dict = {}
    if "url" in fields and body.url is not None:
        kw["url"] = body.url
    if "types" in fields and body.types is not None:
        kw["types"] = list(body.types)
    if "tables" in fields:
        kw["tables"] = None if body.tables is None else list(body.tables)
    if "active" in fields and body.active is not None:
        kw["active"] = body.active
    return WebhookOut.of(svc.change(db, owner, webhook_id, _policy(settings), **kw))


@router.delete(
    "/webhooks/{webhook_id}",
    operation_id="deleteWebhook",
    status_code=204,
    responses=problem_responses(401, 404, 422),
)
def delete_webhook(webhook_id: WebhookId, db: DB, owner: Owner) -> Response:
    """Delete the endpoint with its pending deliveries and its log."""
    svc.delete(db, owner, webhook_id)
    return Response(status_code=204)


@router.post(
    "/webhooks/{webhook_id}/rotate-secret",
    operation_id="rotateWebhookSecret",
    response_model=WebhookWithSecret,
    responses={200: _NO_STORE, **problem_responses(401, 404, 422)},
)
def rotate_secret(
    webhook_id: WebhookId, db: DB, owner: Owner, settings: AppSettings, response: Response
) -> WebhookWithSecret:
    """A new secret, shown this once. Until ``previous_secret_until``
    (``PREFSCORE_WEBHOOKS_SECRET_OVERLAP``) every delivery carries both signatures."""
    made = svc.rotate_secret(db, owner, webhook_id, _policy(settings))
    response.headers["Cache-Control"] = "no-store"
    return WebhookWithSecret.made(made)


@router.get(
    "/webhooks/{webhook_id}/deliveries",
    operation_id="listWebhookDeliveries",
    response_model=DeliveryPage,
    responses=problem_responses(401, 404, 422),
)
def list_deliveries(
    webhook_id: WebhookId,
    db: DB,
    owner: Owner,
    before: Annotated[
        int | None, Query(ge=1, le=2**53 - 1, description="the last delivery id of the previous page")
    ] = None,
    limit: Annotated[
        int, Query(ge=1, le=WEBHOOK_DELIVERIES_PAGE_MAX, description="deliveries per page")
    ] = 20,
) -> DeliveryPage:
    """The endpoint's deliveries, newest first, each with its state and latest attempts
    (status, duration, error); keyset-paged: follow ``next``."""
    items, last = svc.deliveries(db, owner, webhook_id, before=before, limit=limit)
    nxt = f"/v1/webhooks/{webhook_id}/deliveries?before={last}&limit={limit}" if last else None
    return DeliveryPage(items=[DeliveryOut.of(d) for d in items], next=nxt)


@router.post(
    "/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver",
    operation_id="redeliverWebhookDelivery",
    status_code=202,
    response_model=DeliveryOut,
    responses=problem_responses(401, 404, 422),
)
def redeliver(webhook_id: WebhookId, delivery_id: DeliveryId, db: DB, owner: Owner) -> DeliveryOut:
    """Send a delivery again now, with the same webhook-id."""
    return DeliveryOut.of(svc.redeliver(db, owner, webhook_id, delivery_id))


@router.post(
    "/webhooks/{webhook_id}/test",
    operation_id="testWebhook",
    status_code=202,
    response_model=DeliveryOut,
    responses=problem_responses(401, 404, 422),
)
def test_webhook(webhook_id: WebhookId, db: DB, owner: Owner) -> DeliveryOut:
    """Send a ``webhook.test`` event to this endpoint (follow it in its deliveries)."""
    return DeliveryOut.of(svc.send_test(db, owner, webhook_id))
