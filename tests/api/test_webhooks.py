"""Webhooks: registration and its refusals, signed deliveries (verified with the Standard
Webhooks library), repeats with the same webhook-id, the retry schedule, Retry-After, 410,
disabling after failing too long, pausing, secret rotation, the delivery log, redelivery,
the test event. A receiver on 127.0.0.1 (loopback allowed for these tests)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from tests.conftest import Api, new_owner_key
from tests.databases import is_postgres_run
from tests.support.receiver import Receiver

from .samples import PASS_6S

DEAL = {"type": "contract", "declarer": 1, "contract": "6S", "defenders": {"0": "pass", "2": "pass"}}
LOOPBACK = ("127.0.0.0/8", "::1/128")


@pytest.fixture(scope="module")
def hooks(settings, db) -> Iterator[Any]:
    """An app that delivers (fast: a retry 0.2 s after each failure, no jitter)."""
    from fastapi.testclient import TestClient

    from app.main import create_app

    fast = settings.model_copy(
        update={
            "webhooks_deliver": True,
            "webhooks_allowed_networks": LOOPBACK,
            "webhooks_retry_schedule": ("0.2",),
            "webhooks_retry_jitter": 0.0,
            "webhooks_poll_interval": 0.1,
            "webhooks_timeout": 5.0,
        }
    )
    app = create_app(fast, db=db)
    with TestClient(app) as client:
        client.deliverer = app.state.webhooks
        yield client


@pytest.fixture
def owner(hooks, admin_headers) -> Api:
    name, key = new_owner_key(hooks, admin_headers)
    return Api(hooks, key, name)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


def register(owner: Api, url: str, types: list[str] | None = None, **more: Any) -> dict[str, Any]:
    r = owner.post("/v1/webhooks", json={"url": url, "types": types or ["deal.posted"], **more})
    assert r.status_code == 201, r.text
    return r.json()


def deliveries(owner: Api, hook: dict[str, Any]) -> list[dict[str, Any]]:
    r = owner.get(f"/v1/webhooks/{hook['id']}/deliveries?limit=100")
    assert r.status_code == 200, r.text
    return r.json()["items"]


def settled(
    owner: Api, hook: dict[str, Any], count: int, state: str = "delivered", timeout: float = 15
) -> list[dict[str, Any]]:
    deadline = time.monotonic() + timeout
    while True:
        items = deliveries(owner, hook)
        if sum(1 for d in items if d["state"] == state) >= count:
            return items
        if time.monotonic() > deadline:
            raise AssertionError(f"not {count} {state}: {items}")
        time.sleep(0.05)


def test_registration_shows_the_secret_once_and_reads_never(owner):
    made = register(owner, "http://127.0.0.1:9/hook", ["deal.posted", "table.finished"])
    assert made["secret"].startswith("whsec_") and made["types"] == ["deal.posted", "table.finished"]
    assert made["tables"] is None and made["active"] is True and made["disabled_at"] is None
    got = owner.get(f"/v1/webhooks/{made['id']}").json()
    assert "secret" not in got and got["url"] == "http://127.0.0.1:9/hook"
    listed = owner.get("/v1/webhooks").json()["items"]
    assert [h["id"] for h in listed] == [made["id"]] and "secret" not in listed[0]


def test_another_owners_webhook_is_not_found(owner, hooks, admin_headers):
    made = register(owner, "http://127.0.0.1:9/hook")
    name, key = new_owner_key(hooks, admin_headers)
    other = Api(hooks, key, name)
    for call in (
        lambda: other.get(f"/v1/webhooks/{made['id']}"),
        lambda: other.client.patch(
            f"/v1/webhooks/{made['id']}", json={"active": False}, headers=other.headers
        ),
        lambda: other.delete(f"/v1/webhooks/{made['id']}"),
        lambda: other.get(f"/v1/webhooks/{made['id']}/deliveries"),
        lambda: other.post(f"/v1/webhooks/{made['id']}/test"),
        lambda: other.post(f"/v1/webhooks/{made['id']}/rotate-secret"),
    ):
        assert call().status_code == 404
    assert other.get("/v1/webhooks").json()["items"] == []


@pytest.mark.parametrize(
    "url, says",
    [
        ("http://10.1.2.3/hook", "private"),  # RFC 1918
        ("http://169.254.169.254/latest/meta-data", "link-local"),  # the cloud metadata address
        ("http://[fd00::1]/hook", "private"),
        ("http://0.0.0.0/hook", "reserved"),
        ("ftp://example.org/hook", None),  # not http(s): the schema's pattern
        ("http://user:pw@127.0.0.1/hook", "password"),
    ],
)
def test_a_url_inside_the_network_is_refused_naming_the_field(owner, url, says):
    r = owner.post("/v1/webhooks", json={"url": url, "types": ["deal.posted"]})
    assert r.status_code == 422, r.text
    problem = r.json()
    assert any(e["field"] == "url" or "url" in str(e.get("field", "")) for e in problem["errors"]), problem
    if says:
        assert says in problem["detail"] or says in str(problem["errors"])


def test_loopback_is_refused_unless_the_setting_allows_it(api):
    # The session's app has no PREFSCORE_WEBHOOKS_ALLOWED_NETWORKS: loopback is refused there.
    r = api.post("/v1/webhooks", json={"url": "http://127.0.0.1:8080/hook", "types": ["deal.posted"]})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "url"
    assert "loopback" in r.json()["errors"][0]["reason"]


@pytest.mark.parametrize(
    "url",
    [
        "http://[64:ff9b::a9fe:a9fe]/hook",  # NAT64: 169.254.169.254 behind a translator
        "http://[2002:a9fe:a9fe::1]/hook",  # 6to4: the same address inside 2002::/16
        "http://[::127.0.0.1]/hook",  # IPv4-compatible loopback
        "http://[::ffff:10.0.0.1]/hook",  # IPv4-mapped private
        "http://example.org:0/hook",  # port 0
    ],
)
def test_an_ipv4_address_inside_an_ipv6_one_and_port_0_are_refused(api, url):
    r = api.post("/v1/webhooks", json={"url": url, "types": ["deal.posted"]})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "url", r.text
    # and on a change of URL
    made = api.post("/v1/webhooks", json={"url": "http://[64:ff9b::808:808]/hook", "types": ["deal.posted"]})
    assert made.status_code == 201, made.text  # a public IPv4 address behind NAT64 is fine
    changed = api.client.patch(f"/v1/webhooks/{made.json()['id']}", json={"url": url}, headers=api.headers)
    assert changed.status_code == 422 and changed.json()["errors"][0]["field"] == "url", changed.text
    api.delete(f"/v1/webhooks/{made.json()['id']}")


def test_an_embedded_address_is_refused_at_delivery_too():
    from app.webhooks import addresses

    for host in (
        "64:ff9b::7f00:1",
        "2002:7f00:1::1",
        "::127.0.0.1",
        "::ffff:127.0.0.1",
        "2001:0:4136:e378:8000:63bf:3fff:fdd2",
    ):
        with pytest.raises(addresses.AddressRefused):
            addresses.check(addresses.literal(host), ())
    for host in ("64:ff9b::808:808", "2002:808:808::1", "2001:4860:4860::8888"):
        addresses.check(addresses.literal(host), ())
    with pytest.raises(addresses.AddressRefused, match="port 0"):
        addresses.split("https://example.org:0/")


def test_a_posted_deal_is_delivered_signed_and_verifies_with_the_library(owner, receiver):
    hook = register(owner, receiver.url)
    table = owner.table()
    posted = owner.post(f"/v1/tables/{table['id']}/deals", json=DEAL)
    ((headers, body),) = receiver.wait_for(1)
    event = Webhook(hook["secret"]).verify(body, headers)
    assert event["type"] == "deal.posted"
    data = event["data"]
    assert (data["table_id"], data["deal_number"], data["revision"]) == (table["id"], 1, 1)
    assert data["etag"] == posted.headers["ETag"]
    assert data["links"]["png"] == f"/v1/tables/{table['id']}/sheet.png"
    assert headers["webhook-id"].startswith("msg_")
    with pytest.raises(WebhookVerificationError):
        Webhook("whsec_" + "A" * 32).verify(body, headers)
    delivered = settled(owner, hook, 1)
    assert (
        delivered[0]["webhook_id"] == headers["webhook-id"] and delivered[0]["attempts"][0]["status"] == 204
    )


def test_a_failed_delivery_is_repeated_with_the_same_webhook_id(owner, receiver):
    answers = iter([(500, {}, b"down"), (204, {}, b"")])
    receiver.answer = lambda _h, _b: next(answers)
    hook = register(owner, receiver.url)
    table = owner.table()
    owner.deal(table["id"], DEAL)
    received = receiver.wait_for(2)
    assert received[0][0]["webhook-id"] == received[1][0]["webhook-id"]
    assert received[0][1] == received[1][1]  # the same body: built from the outbox row alone
    (item,) = settled(owner, hook, 1)
    assert [a["status"] for a in item["attempts"]] == [500, 204]
    assert item["attempts"][0]["error"] == "answered 500: down" and item["attempts"][1]["error"] is None
    assert item["attempt_count"] == 2


def test_retry_after_is_honoured(owner, receiver):
    answers = iter([(429, {"Retry-After": "1"}, b""), (204, {}, b"")])
    receiver.answer = lambda _h, _b: next(answers)
    hook = register(owner, receiver.url)
    owner.deal(owner.table()["id"], DEAL)
    receiver.wait_for(1)
    t0 = time.monotonic()
    receiver.wait_for(2)
    # the schedule says 0.2 s; the receiver asked for 1 s
    assert time.monotonic() - t0 >= 0.7
    (item,) = settled(owner, hook, 1)
    first, second = (
        datetime.fromisoformat(a["attempted_at"].replace("Z", "+00:00")) for a in item["attempts"]
    )
    assert (second - first).total_seconds() >= 0.9


def test_410_disables_the_endpoint_with_its_reason(owner, receiver):
    receiver.answer = lambda _h, _b: (410, {}, b"")
    hook = register(owner, receiver.url)
    table = owner.table()
    owner.deal(table["id"], DEAL)
    (item,) = settled(owner, hook, 1, state="failed")
    got = owner.get(f"/v1/webhooks/{hook['id']}").json()
    assert got["disabled_at"] is not None and "410" in got["disabled_reason"]
    owner.deal(table["id"], {**DEAL, "declarer": 2, "defenders": {"0": "pass", "1": "pass"}})
    assert len(deliveries(owner, hook)) == 1  # a disabled endpoint is written nothing
    assert len(receiver.received) == 1


def test_an_endpoint_failing_too_long_is_disabled_and_its_owner_sees_why(owner, receiver, hooks):
    receiver.answer = lambda _h, _b: (503, {}, b"")
    deliverer = hooks.deliverer
    kept = deliverer.settings
    deliverer.settings = kept.model_copy(update={"webhooks_disable_after": 0.5})
    try:
        hook = register(owner, receiver.url)
        owner.deal(owner.table()["id"], DEAL)
        deadline = time.monotonic() + 15
        while owner.get(f"/v1/webhooks/{hook['id']}").json()["disabled_at"] is None:
            assert time.monotonic() < deadline, "never disabled"
            time.sleep(0.05)
    finally:
        deliverer.settings = kept
    got = owner.get(f"/v1/webhooks/{hook['id']}").json()
    assert "failing since" in got["disabled_reason"] and "answered 503" in got["disabled_reason"]
    assert got["failing_since"] is not None
    # resuming clears the reason; the waiting delivery goes out again
    receiver.answer = lambda _h, _b: (204, {}, b"")
    r = owner.client.patch(f"/v1/webhooks/{hook['id']}", json={"active": True}, headers=owner.headers)
    assert r.status_code == 200 and r.json()["disabled_reason"] is None
    settled(owner, hook, 1)


def test_a_paused_endpoint_gets_nothing_and_the_tables_filter_holds(owner, receiver):
    a, b = owner.table(), owner.table()
    hook = register(owner, receiver.url, ["deal.posted"], tables=[a["id"]])
    owner.deal(b["id"], DEAL)  # not its table
    r = owner.client.patch(f"/v1/webhooks/{hook['id']}", json={"active": False}, headers=owner.headers)
    assert r.json()["active"] is False
    owner.deal(a["id"], DEAL)  # paused
    owner.client.patch(f"/v1/webhooks/{hook['id']}", json={"active": True}, headers=owner.headers)
    owner.deal(a["id"], {**DEAL, "declarer": 2, "defenders": {"0": "pass", "1": "pass"}})
    receiver.wait_for(1)
    time.sleep(0.3)
    assert [(e["data"]["table_id"], e["data"]["deal_number"]) for e in receiver.events()] == [(a["id"], 2)]


def test_every_kind_of_change_is_an_event(owner, receiver):
    hook = register(
        owner,
        receiver.url,
        ["deal.posted", "deal.undone", "table.renamed", "table.archived", "table.deleted"],
    )
    table = owner.table()
    tid = table["id"]
    owner.deal(tid, DEAL)
    assert owner.delete(f"/v1/tables/{tid}/deals/1").status_code == 200
    assert (
        owner.client.patch(f"/v1/tables/{tid}", json={"title": "Tuesday"}, headers=owner.headers).status_code
        == 200
    )
    assert (
        owner.client.patch(f"/v1/tables/{tid}", json={"archived": True}, headers=owner.headers).status_code
        == 200
    )
    assert owner.delete(f"/v1/tables/{tid}").status_code == 204
    receiver.wait_for(5)
    # in the order of the changes (several deliveries are in flight at once: they may arrive in another)
    events = sorted(receiver.events(), key=lambda e: e["timestamp"])
    assert [e["type"] for e in events] == [
        "deal.posted",
        "deal.undone",
        "table.renamed",
        "table.archived",
        "table.deleted",
    ]
    assert events[1]["data"]["deal_number"] == 1 and events[1]["data"]["revision"] == 2
    assert events[4]["data"]["etag"] is None and "links" not in events[4]["data"]
    assert len(settled(owner, hook, 5)) == 5


def test_a_rotated_secret_signs_beside_the_new_one(owner, receiver):
    hook = register(owner, receiver.url)
    rotated = owner.post(f"/v1/webhooks/{hook['id']}/rotate-secret").json()
    assert rotated["secret"] != hook["secret"] and rotated["previous_secret_until"] is not None
    owner.deal(owner.table()["id"], DEAL)
    ((headers, body),) = receiver.wait_for(1)
    assert len(headers["webhook-signature"].split(" ")) == 2
    Webhook(hook["secret"]).verify(body, headers)
    Webhook(rotated["secret"]).verify(body, headers)


def test_the_test_event_and_a_redelivery_keep_their_webhook_id(owner, receiver):
    hook = register(owner, receiver.url)
    r = owner.post(f"/v1/webhooks/{hook['id']}/test")
    assert r.status_code == 202 and r.json()["type"] == "webhook.test"
    delivery = r.json()
    receiver.wait_for(1)
    settled(owner, hook, 1)
    again = owner.post(f"/v1/webhooks/{hook['id']}/deliveries/{delivery['id']}/redeliver")
    assert again.status_code == 202
    received = receiver.wait_for(2)
    assert received[0][0]["webhook-id"] == received[1][0]["webhook-id"] == delivery["webhook_id"]
    Webhook(hook["secret"]).verify(received[1][1], received[1][0])
    assert owner.post(f"/v1/webhooks/{hook['id']}/deliveries/999999999/redeliver").status_code == 404


def test_the_delivery_log_is_keyset_paged(owner, receiver):
    hook = register(owner, receiver.url)
    for _ in range(5):
        owner.post(f"/v1/webhooks/{hook['id']}/test")
    settled(owner, hook, 5)
    first = owner.get(f"/v1/webhooks/{hook['id']}/deliveries?limit=2").json()
    second = owner.get(first["next"]).json()
    third = owner.get(second["next"]).json()
    ids = [d["id"] for page in (first, second, third) for d in page["items"]]
    assert ids == sorted(ids, reverse=True) and len(set(ids)) == 5 and third["next"] is None


def test_a_url_refused_at_delivery_is_a_failed_attempt(owner, receiver, hooks):
    deliverer = hooks.deliverer
    hook = register(owner, receiver.url)
    kept = deliverer.allowed
    deliverer.allowed = ()  # as if the name resolved inside the network by now
    try:
        owner.post(f"/v1/webhooks/{hook['id']}/test")
        deadline = time.monotonic() + 10
        while not any(d["attempts"] for d in deliveries(owner, hook)):
            assert time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        deliverer.allowed = kept
    attempt = deliveries(owner, hook)[0]["attempts"][0]
    assert (
        attempt["status"] is None
        and attempt["error"].startswith("url refused")
        and "loopback" in attempt["error"]
    )
    assert receiver.received == []


def test_the_retry_schedule_with_jitter():
    from app.webhooks.delivery import wait_before_retry

    schedule = (5.0, 300.0, 1800.0, 7200.0, 18000.0, 36000.0)
    # after the 1st failure 5 s; the 2nd 300 s; the 7th and later: the last step, 36000 s
    assert wait_before_retry(1, schedule, 0.0, None) == 5.0
    assert wait_before_retry(2, schedule, 0.0, None) == 300.0
    assert wait_before_retry(9, schedule, 0.0, None) == 36000.0
    # jitter 0.1: 300 s moved by at most 30 s; rand() = 1 -> 300 * 1.1 = 330, rand() = 0 -> 270
    assert wait_before_retry(2, schedule, 0.1, None, rand=lambda: 1.0) == pytest.approx(330.0)
    assert wait_before_retry(2, schedule, 0.1, None, rand=lambda: 0.0) == pytest.approx(270.0)
    # Retry-After: as asked, at most 10 h (36000 s)
    assert wait_before_retry(1, schedule, 0.1, 120.0) == 120.0
    assert wait_before_retry(1, schedule, 0.1, 10**9) == 36000.0


def test_an_owner_has_at_most_so_many_webhooks(owner):
    from app.webhooks.limits import WEBHOOKS_PER_OWNER

    for _ in range(WEBHOOKS_PER_OWNER):
        register(owner, "http://127.0.0.1:9/hook")
    r = owner.post("/v1/webhooks", json={"url": "http://127.0.0.1:9/hook", "types": ["deal.posted"]})
    assert r.status_code == 409 and r.json()["limit"] == WEBHOOKS_PER_OWNER


def test_the_deal_that_finishes_the_pool_is_also_table_finished(owner, receiver):
    from .samples import PULKA

    register(owner, receiver.url, ["deal.posted", "table.finished"])
    tid = owner.table(pool_target=4)["id"]
    for body in PULKA:
        owner.deal(tid, body)
    receiver.wait_for(len(PULKA) + 1)
    time.sleep(0.2)
    events = [(e["type"], e["data"]["deal_number"]) for e in receiver.events()]
    # PULKA's 4th deal fills every pool to 4: its deal.posted, and table.finished beside it
    assert sorted(events) == sorted(
        [("deal.posted", n) for n in range(1, len(PULKA) + 1)] + [("table.finished", len(PULKA))]
    )


def test_a_table_finished_only_endpoint_gets_nothing_else(owner, receiver):
    from .samples import PULKA

    register(owner, receiver.url, ["table.finished"])
    tid = owner.table(pool_target=4)["id"]
    for body in PULKA:
        owner.deal(tid, body)
    ((headers, body),) = receiver.wait_for(1)
    time.sleep(0.3)
    assert len(receiver.received) == 1 and receiver.events()[0]["type"] == "table.finished"


def test_a_refused_change_writes_no_delivery(owner, receiver):
    hook = register(owner, receiver.url, ["deal.posted", "table.renamed"])
    tid = owner.table()["id"]
    # a refused deal (422) and a stale If-Match (412): the transaction is rolled back, its deliveries with it
    r = owner.post(f"/v1/tables/{tid}/deals", json={"type": "misere", "declarer": 7, "tricks": {"7": 0}})
    assert r.status_code == 422
    r = owner.client.patch(
        f"/v1/tables/{tid}", json={"title": "x"}, headers={**owner.headers, "If-Match": '"stale"'}
    )
    assert r.status_code == 412
    owner.post(f"/v1/webhooks/{hook['id']}/test")  # something that is delivered, to wait for
    receiver.wait_for(1)
    time.sleep(0.3)
    assert [d["type"] for d in deliveries(owner, hook)] == ["webhook.test"]


def test_deliveries_are_counted_in_the_metrics(owner, receiver, hooks):
    hook = register(owner, receiver.url)
    owner.post(f"/v1/webhooks/{hook['id']}/test")
    settled(owner, hook, 1)
    text = hooks.get("/metrics").text
    assert 'prefscore_webhook_deliveries_total{outcome="delivered"}' in text
    assert "prefscore_webhook_failures_total" in text and "prefscore_webhook_outbox_age_seconds" in text


def test_a_table_named_twice_is_kept_once(owner):
    made = register(owner, "http://127.0.0.1:9/hook", tables=["t1", "t2", "t1"])
    assert made["tables"] == ["t1", "t2"]
    r = owner.client.patch(f"/v1/webhooks/{made['id']}", json={"tables": ["t3", "t3"]}, headers=owner.headers)
    assert r.status_code == 200 and r.json()["tables"] == ["t3"]
    r = owner.client.patch(f"/v1/webhooks/{made['id']}", json={"tables": None}, headers=owner.headers)
    assert r.status_code == 200 and r.json()["tables"] is None


def test_every_time_is_served_with_its_offset(owner, receiver):
    """Every date-time of the webhooks' answers (tests/api/test_contract_loose_ends.py lists them)."""
    answer = lambda _h, _b: (500, {}, b"") if len(receiver.received) == 1 else (410, {}, b"")  # noqa: E731
    receiver.answer = answer
    hook = register(owner, receiver.url)
    owner.post(f"/v1/webhooks/{hook['id']}/rotate-secret")
    owner.post(f"/v1/webhooks/{hook['id']}/test")
    settled(owner, hook, 1, state="failed")  # one retry, then 410: every field set
    got = owner.get(f"/v1/webhooks/{hook['id']}").json()
    (delivery,) = deliveries(owner, hook)
    times = [
        got[f] for f in ("created_at", "updated_at", "disabled_at", "failing_since", "previous_secret_until")
    ]
    times += [delivery["occurred_at"], delivery["finished_at"]] + [
        a["attempted_at"] for a in delivery["attempts"]
    ]
    for t in [*times, *(hook[f] for f in ("created_at", "updated_at"))]:
        assert (
            t.endswith("Z")
            and datetime.fromisoformat(t.replace("Z", "+00:00")).utcoffset().total_seconds() == 0
        ), t
    # next_attempt_at: while pending
    owner.client.patch(f"/v1/webhooks/{hook['id']}", json={"active": False}, headers=owner.headers)
    pending = owner.post(f"/v1/webhooks/{hook['id']}/test").json()
    assert pending["next_attempt_at"].endswith("Z")


def test_delivered_rows_are_deleted_after_the_retention(owner, receiver, hooks):
    hook = register(owner, receiver.url)
    owner.post(f"/v1/webhooks/{hook['id']}/test")
    settled(owner, hook, 1)
    deliverer = hooks.deliverer
    kept = deliverer.settings
    deliverer.clean()  # kept for a week by default: this one stays
    assert len(deliveries(owner, hook)) == 1
    deliverer.settings = kept.model_copy(update={"webhooks_retention": 0.0})
    try:
        time.sleep(0.05)
        # The deliverer's own loop cleans too, as often as the retention asks: a clean skips
        # the rows another clean holds (SKIP LOCKED), so the row may go by either, a moment
        # apart. Gone within a second either way.
        deadline = time.monotonic() + 5
        while deliveries(owner, hook) and time.monotonic() < deadline:
            deliverer.clean()
            time.sleep(0.05)
    finally:
        deliverer.settings = kept
    assert deliveries(owner, hook) == []


def test_a_redirect_is_not_followed(owner, receiver):
    elsewhere = Receiver()
    try:
        answers = iter([(307, {"Location": elsewhere.url}, b""), (204, {}, b"")])
        receiver.answer = lambda _h, _b: next(answers)
        hook = register(owner, receiver.url)
        owner.post(f"/v1/webhooks/{hook['id']}/test")
        (item,) = settled(owner, hook, 1)
        assert (
            item["attempts"][0]["status"] == 307
            and "redirects are not followed" in item["attempts"][0]["error"]
        )
        assert elsewhere.received == [] and len(receiver.received) == 2
    finally:
        elsewhere.close()


def test_a_slow_receiver_times_out_and_a_long_answer_is_cut(owner, hooks):
    deliverer = hooks.deliverer
    kept = deliverer.settings
    slow = Receiver(delay=1.0)
    chatty = Receiver(lambda _h, _b: (500, {}, b"x" * 100_000))
    deliverer.settings = kept.model_copy(update={"webhooks_timeout": 0.3})
    try:
        hook = register(owner, slow.url)
        owner.post(f"/v1/webhooks/{hook['id']}/test")
        deadline = time.monotonic() + 10
        while not any(d["attempts"] for d in deliveries(owner, hook)):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert deliveries(owner, hook)[0]["attempts"][0]["error"] == "no answer within 0.3 s"
        owner.client.patch(f"/v1/webhooks/{hook['id']}", json={"url": chatty.url}, headers=owner.headers)
        owner.post(f"/v1/webhooks/{hook['id']}/test")
        deadline = time.monotonic() + 10
        while not any(a["status"] == 500 for d in deliveries(owner, hook) for a in d["attempts"]):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        error = next(a["error"] for d in deliveries(owner, hook) for a in d["attempts"] if a["status"] == 500)
        assert error.startswith("answered 500: xxx") and len(error) <= 220  # 1 KiB read, 200 characters kept
    finally:
        deliverer.settings = kept
        slow.close()
        chatty.close()


def test_an_endpoint_deleted_while_its_delivery_is_in_flight_holds_back_no_other_outcome(
    owner, hooks, caplog
):
    """The two deliveries end together; the deleted endpoint's outcome cannot be written. The
    other's is written once and it is not sent again when its lease ends; the dropped one is
    said once."""
    slow = Receiver(delay=0.6)
    deliverer = hooks.deliverer
    kept = deliverer.settings
    deliverer.settings = kept.model_copy(update={"webhooks_lease": 1.5})
    caplog.set_level("INFO", logger="prefscore.webhooks")
    try:
        doomed, other = register(owner, slow.url), register(owner, slow.url)
        owner.post(f"/v1/webhooks/{doomed['id']}/test")
        owner.post(f"/v1/webhooks/{other['id']}/test")
        deadline = time.monotonic() + 10
        while slow.in_progress < 2:
            assert time.monotonic() < deadline, "both deliveries in flight"
            time.sleep(0.01)
        assert owner.delete(f"/v1/webhooks/{doomed['id']}").status_code == 204
        (item,) = settled(owner, other, 1, timeout=5)
        time.sleep(2.5)  # past the lease: an unwritten outcome would be sent again by now
        ids = [h["webhook-id"] for h, _b in slow.received]
        assert ids.count(item["webhook_id"]) == 1 and len(ids) == 2, ids
        assert [d["state"] for d in deliveries(owner, other)] == ["delivered"]
        dropped = [r for r in caplog.records if "dropped" in r.getMessage()]
        assert len(dropped) == 1, [r.getMessage() for r in caplog.records]
    finally:
        deliverer.settings = kept
        slow.close()


def test_one_owners_silent_endpoints_hold_back_no_other_owner(hooks, admin_headers, receiver):
    """Owner A: 20 endpoints that never answer (a socket that never accepts) and 10 deals, 200
    deliveries each waiting the whole timeout. Owner B's delivery still arrives within 2 s:
    claims take owners in turns and A has at most its places in flight."""
    import socket

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(4096)
    port = silent.getsockname()[1]
    deliverer = hooks.deliverer
    kept = deliverer.settings
    deliverer.settings = kept.model_copy(update={"webhooks_timeout": 3.0})
    name, key = new_owner_key(hooks, admin_headers)
    a = Api(hooks, key, name)
    name, key = new_owner_key(hooks, admin_headers)
    b = Api(hooks, key, name)
    hooks_a = [register(a, f"http://127.0.0.1:{port}/hook{i}") for i in range(20)]
    try:
        table = a.table()
        for _ in range(10):
            assert a.post(f"/v1/tables/{table['id']}/deals", json=DEAL).status_code == 201
        time.sleep(0.5)  # A's deliveries claimed and in flight
        hook_b = register(b, receiver.url)
        started = time.monotonic()
        b.post(f"/v1/webhooks/{hook_b['id']}/test")
        receiver.wait_for(1, timeout=30)
        took = time.monotonic() - started
        assert took < 2, f"owner B's delivery took {took:.1f} s"
    finally:
        for h in hooks_a:
            a.delete(f"/v1/webhooks/{h['id']}")
        deliverer.settings = kept
        silent.close()


def test_deliveries_beyond_the_owners_budget_wait_and_are_not_dropped(owner, receiver, hooks):
    deliverer = hooks.deliverer
    kept = deliverer.settings
    deliverer.settings = kept.model_copy(update={"webhooks_rate_limit": 3})  # 3 a minute
    try:
        hook = register(owner, receiver.url)
        for _ in range(5):
            owner.post(f"/v1/webhooks/{hook['id']}/test")
        receiver.wait_for(3)
        time.sleep(1.0)
        assert len(receiver.received) == 3
        waiting = [d for d in deliveries(owner, hook) if d["state"] == "pending"]
        assert len(waiting) == 2 and all(d["attempt_count"] == 0 for d in waiting)
    finally:
        deliverer.settings = kept
    deliverer.wake()
    settled(owner, hook, 5)
    assert len(receiver.received) == 5


def test_an_endpoint_that_keeps_giving_no_answer_is_backed_off(settings, db):
    """Three answers missed in a row: its queued deliveries are given back (due after a
    pause, no attempt counted) and it has one place until it answers again."""
    from collections import deque
    from types import SimpleNamespace

    from app.webhooks.delivery import Deliverer

    deliverer = Deliverer(db, settings)
    deliverer.queues[7] = deque(SimpleNamespace(id=i, endpoint_id=7, owner="o") for i in range(5))
    for _ in range(2):
        deliverer._breaker(7, answered=False)
    assert deliverer.places(7) == settings.webhooks_in_flight_per_endpoint and len(deliverer.queues[7]) == 5
    deliverer._breaker(7, answered=False)
    assert deliverer.places(7) == 1 and deliverer.may_hold(7) == 1 and 7 not in deliverer.queues
    assert [r["delivery"] for r in deliverer.released] == [0, 1, 2, 3, 4]
    deliverer._breaker(7, answered=True)
    assert deliverer.places(7) == settings.webhooks_in_flight_per_endpoint


def test_in_one_batch_only_the_failing_receivers_deliveries_are_kept_for_a_retry(owner, receiver):
    """One owner, two endpoints, five deals: their ten deliveries claimed and their outcomes
    written together. The refusing receiver's five stay pending (attempted, its answer kept);
    the other's five are delivered once each, none sent again."""
    refusing = Receiver(lambda _h, _b: (500, {}, b"no"))
    try:
        good, bad = register(owner, receiver.url), register(owner, refusing.url)
        table = owner.table()
        for _ in range(5):
            assert owner.post(f"/v1/tables/{table['id']}/deals", json=DEAL).status_code == 201
        delivered = settled(owner, good, 5)
        refusing.wait_for(5)
        assert {d["attempt_count"] for d in delivered} == {1} and len(receiver.received) == 5
        deadline = time.monotonic() + 10
        failed = deliveries(owner, bad)
        while not all(d["attempt_count"] >= 1 for d in failed):
            assert time.monotonic() < deadline, failed
            time.sleep(0.05)
            failed = deliveries(owner, bad)
        assert len(failed) == 5 and {d["state"] for d in failed} == {"pending"}
        assert {d["last_error"] for d in failed} == {"answered 500: no"}
        time.sleep(0.5)  # the refused ones tried again meanwhile; the delivered ones not
        assert len(receiver.received) == 5
        assert len({h["webhook-id"] for h, _b in receiver.received}) == 5
    finally:
        owner.delete(f"/v1/webhooks/{bad['id']}")
        refusing.close()


def test_a_claim_that_crosses_an_ended_delivery_sends_its_rows_in_their_owners_places(settings, db):
    """A delivery of the endpoint ends while a claim runs in its thread: the endpoint's queue
    was empty, so its owner is forgotten. The claimed rows still count against their owner's
    places (before, they counted against nobody's, which never gave them back: its
    endpoints then waited for places that never came free)."""
    import asyncio
    from types import SimpleNamespace

    from app.webhooks.delivery import Deliverer

    deliverer = Deliverer(db, settings)
    rows = [SimpleNamespace(id=i, endpoint_id=7, owner="o") for i in range(3)]

    def claim(_want: int) -> list[Any]:
        deliverer.owner_of.pop(7, None)  # the ended delivery, on the loop meanwhile
        return rows

    async def claimed() -> dict[str, int]:
        ended = asyncio.Event()

        async def send(_row: Any) -> Any:
            await ended.wait()
            return 204, None, None, 0.001

        deliverer._look, deliverer._claim, deliverer.send = (lambda: True), claim, send  # type: ignore[method-assign]
        deliverer._places = asyncio.Semaphore(8)
        await deliverer.round()
        held = dict(deliverer.owner_in_flight)
        for task in list(deliverer._sending):
            task.cancel()
        await asyncio.gather(*deliverer._sending, return_exceptions=True)
        return held

    assert asyncio.run(claimed()) == {"o": 3}


@pytest.mark.skipif(not is_postgres_run(), reason="PostgreSQL only: SQLite writes one at a time")
def test_a_deal_posted_while_its_endpoint_is_deleted_is_stored(owner, settings):
    """The deletion's transaction still open when the post writes its deliveries: the post waits
    for it, skips the endpoint, and is stored (201). Before, the deliveries' insert found the
    endpoint gone at its key check and the post answered 500."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.pool import NullPool

    hook = register(owner, "http://127.0.0.1:9/hook")
    table = owner.table()
    engine = create_engine(settings.database_url, poolclass=NullPool)
    answers: list[Any] = []
    try:
        with engine.connect() as deleting:
            deleting.execute(text("DELETE FROM webhook_deliveries WHERE endpoint_id = :e"), {"e": hook["id"]})
            deleting.execute(text("DELETE FROM webhook_endpoints WHERE id = :e"), {"e": hook["id"]})
            poster = threading.Thread(
                target=lambda: answers.append(owner.post(f"/v1/tables/{table['id']}/deals", json=PASS_6S))
            )
            poster.start()
            time.sleep(0.5)  # the post is under way, waiting on the deleted endpoint's row
            deleting.commit()
        poster.join(30)
    finally:
        engine.dispose()
    assert answers and answers[0].status_code == 201, answers[0].text if answers else "no answer"
    assert [d["number"] for d in owner.log(table["id"])] == [1]


def test_an_address_in_the_url_is_checked_once_and_a_refusal_every_time():
    """A URL naming an address needs no resolution: its check is kept with the URL and the
    allowed networks (a stream of deliveries to one endpoint checked it on every attempt); a
    refused address is refused on every attempt, and allowing its network lets it through."""
    import asyncio

    from app.webhooks import addresses, sending

    loopback = addresses.networks(["127.0.0.0/8"])
    sending._at_address.cache_clear()
    first = asyncio.run(sending.connect_to("http://127.0.0.1:8123/hook?x=1", loopback))
    again = asyncio.run(sending.connect_to("http://127.0.0.1:8123/hook?x=1", loopback))
    assert first == again == ("http://127.0.0.1:8123/hook?x=1", None, "127.0.0.1:8123")
    assert sending._at_address.cache_info().hits == 1
    for _ in range(2):
        with pytest.raises(addresses.AddressRefused):
            asyncio.run(sending.connect_to("http://10.1.2.3/hook", loopback))
    private = addresses.networks(["127.0.0.0/8", "10.0.0.0/8"])
    assert asyncio.run(sending.connect_to("http://10.1.2.3/hook", private))[0] == "http://10.1.2.3:80/hook"
