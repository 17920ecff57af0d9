"""Property (hypothesis): whatever is deleted or expired, no id handed out is given twice —
a webhook's id, a delivery's ``webhook-id`` (``msg_{id}``, which receivers deduplicate by),
a key's. Endpoints are created, sent test events, deleted; deliveries are finished and
expired by the deliverer's cleanup (the retention); keys are made and revoked. The ids seen
are kept for the whole database's life, across examples."""

from __future__ import annotations

from datetime import timedelta

from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from sqlalchemy import update

from app.kit.db.models import utcnow
from app.webhooks import service
from app.webhooks.delivery import Deliverer
from app.webhooks.model import message_id
from app.webhooks.orm import WebhookDeliveryRow

OWNER = "ids-owner"
POLICY = service.Policy(allowed=service.addresses.networks(["127.0.0.0/8"]))
SEEN: dict[str, set[object]] = {"webhook": set(), "webhook-id": set()}

steps = st.lists(
    st.sampled_from(["create", "test", "test", "delete", "delete_newest", "expire"]), min_size=1, max_size=25
)


def _given(kind: str, value: object) -> None:
    assert value not in SEEN[kind], f"{kind} {value} given twice"
    SEEN[kind].add(value)


def _expire(db, settings) -> None:  # noqa: ANN001
    """Every delivery finished long ago, then the deliverer's cleanup (the retention) deletes them."""
    _D = WebhookDeliveryRow.__table__
    with db.write_core() as conn:
        conn.execute(
            update(_D)
            .where(_D.c.owner == OWNER)
            .values(state="delivered", finished_at=utcnow() - timedelta(days=30))
        )
    Deliverer(db, settings).clean()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=steps)
def test_no_webhook_id_is_given_twice(db, settings, steps):  # noqa: ANN001
    note(str(steps))
    live: list[int] = []
    for step in steps:
        if step == "create":
            made = service.create(db, OWNER, "http://127.0.0.1:9/hook", ["deal.posted"], None, POLICY)
            _given("webhook", made.endpoint.id)
            live.append(made.endpoint.id)
        elif step == "test" and live:
            delivery = service.send_test(db, OWNER, live[-1])
            _given("webhook-id", message_id(delivery.id))
        elif step in ("delete", "delete_newest") and live:
            service.delete(db, OWNER, live.pop(-1 if step == "delete_newest" else 0))
        elif step == "expire":
            _expire(db, settings)
    for endpoint in live:  # an owner has at most so many webhooks
        service.delete(db, OWNER, endpoint)
