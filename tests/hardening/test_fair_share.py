"""A fair share of the server for every holder: at most ``PREFSCORE_MAX_REQUESTS_IN_PROGRESS``
requests of one key, scorer link or share link run at once in a process; the next wait their
turn on the event loop with their bodies unread, at most ``PREFSCORE_REQUEST_QUEUE`` of them
for at most ``PREFSCORE_REQUEST_QUEUE_WAIT`` seconds, then 429. Before, one key could have
every worker thread (and so every database connection) busy with its own requests -- forty
record imports at once -- while every other holder waited behind them.

The middleware is called as an ASGI server calls it, around an app that holds each request
until the test lets it go."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from app.kit.limiter import Busy, FairShare
from app.kit.middleware.rate_limit import RateLimit
from app.kit.settings import Settings
from app.main import LINKS  # the links that carry a token, as the app hands them to the gate

ADMIN = "fair-share-admin-key"


# --------------------------------------------------------------------------- the counter


def test_a_holders_requests_past_the_limit_wait_their_turn_in_order():
    async def scenario() -> None:
        share = FairShare(limit=2, queue=2, wait=5)
        await share.enter("a")
        await share.enter("a")
        assert share.in_progress("a") == 2
        third = asyncio.create_task(share.enter("a"))
        fourth = asyncio.create_task(share.enter("a"))
        await asyncio.sleep(0.01)
        assert not third.done() and not fourth.done()
        # the queue holds 2: a fifth is refused at once, with what is in progress
        with pytest.raises(Busy) as refused:
            await share.enter("a")
        assert refused.value.in_progress == 2 and refused.value.retry_after == 5
        # another holder is not held up by "a"
        await asyncio.wait_for(share.enter("b"), 0.5)
        share.leave("b")
        share.leave("a")  # the first waiting gets the turn, not the second
        await asyncio.sleep(0.01)
        assert third.done() and not fourth.done()
        assert share.in_progress("a") == 2
        share.leave("a")
        await asyncio.wait_for(fourth, 0.5)
        for _ in range(2):
            share.leave("a")
        assert share.in_progress("a") == 0 and share._holders == {}  # nothing kept of idle holders

    asyncio.run(scenario())


def test_a_wait_that_ends_before_the_turn_is_refused_and_leaves_the_queue():
    async def scenario() -> None:
        share = FairShare(limit=1, queue=4, wait=0.05)
        await share.enter("a")
        with pytest.raises(Busy):
            await share.enter("a")
        assert len(share._holders["a"].waiting) == 0
        # a waiting request whose client went away (cancelled) leaves the queue too
        gone = asyncio.create_task(share.enter("a"))
        await asyncio.sleep(0.01)
        gone.cancel()
        with pytest.raises(asyncio.CancelledError):
            await gone
        assert len(share._holders["a"].waiting) == 0
        share.leave("a")
        assert share._holders == {}

    asyncio.run(scenario())


def test_a_turn_handed_to_a_request_that_is_gone_passes_on():
    async def scenario() -> None:
        share = FairShare(limit=1, queue=4, wait=5)
        await share.enter("a")
        gone = asyncio.create_task(share.enter("a"))
        next_one = asyncio.create_task(share.enter("a"))
        await asyncio.sleep(0.01)
        share.leave("a")  # the turn goes to ``gone``...
        gone.cancel()  # ...which is cancelled before it runs
        try:
            await gone
            holds = (
                True  # the cancellation came too late (asyncio.wait_for keeps a result): a turn to give back
            )
        except asyncio.CancelledError:
            holds = False  # the turn passed on to the next by itself
        if holds:
            await asyncio.sleep(0.01)
            assert not next_one.done()
            share.leave("a")
        await asyncio.wait_for(next_one, 0.5)
        assert share.in_progress("a") == 1
        share.leave("a")
        assert share._holders == {}

    asyncio.run(scenario())


# --------------------------------------------------------------------------- the middleware


class Held:
    """An inner app that holds every request until released, counting the body it reads."""

    def __init__(self) -> None:
        self.running: list[str] = []
        self.release = asyncio.Event()
        self.bytes_read: dict[str, int] = {}

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        name = scope["path"] + "#" + scope["query_string"].decode()
        self.running.append(name)
        message = await receive()
        self.bytes_read[name] = len(message.get("body", b""))
        await self.release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})


async def request(
    app: Any, method: str, path: str, n: int, headers: dict[str, str] | None = None
) -> tuple[int, Any]:
    body = json.dumps({"n": n}).encode()
    read = {"bytes": 0}
    sent: dict[str, Any] = {"status": 0, "body": b""}

    async def receive() -> dict[str, Any]:
        read["bytes"] += len(body)
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            sent["status"] = message["status"]
        else:
            sent["body"] += message.get("body", b"")

    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": f"n={n}".encode(),
        "headers": raw,
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }
    await app(scope, receive, send)
    return sent["status"], (json.loads(sent["body"]) if sent["body"] else None)


def gate(inner: Held, **overrides: Any) -> RateLimit:
    settings = Settings(
        admin_key=ADMIN,
        rate_limit=0,  # counted in the database otherwise; the fair share is in memory
        anonymous_rate_limit=0,
        share_rate_limit=0,
        **{"max_requests_in_progress": 1, "request_queue": 1, "request_queue_wait": 5, **overrides},
    )
    return RateLimit(inner, settings=settings, db=None, links=LINKS)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "path, headers",
    [
        ("/v1/tables/t/deals", {"Authorization": f"Bearer {ADMIN}"}),
        ("/v1/shared/sh_token/deals", {}),
    ],
    ids=["key", "share link"],
)
def test_one_holder_runs_at_most_its_share_the_next_wait_unread_then_429(path, headers):
    async def scenario() -> None:
        inner = Held()
        app = gate(inner)
        first = asyncio.create_task(request(app, "POST", path, 1, headers))
        await asyncio.sleep(0.05)
        second = asyncio.create_task(request(app, "POST", path, 2, headers))
        await asyncio.sleep(0.05)
        # one in progress, one waiting with its body unread, a third refused at once
        assert inner.running == [f"{path}#n=1"]
        status, problem = await asyncio.wait_for(request(app, "POST", path, 3, headers), 1)
        assert status == 429, problem
        assert "at most 1 at once" in problem["detail"] and problem["status"] == 429
        assert f"{path}#n=3" not in inner.bytes_read
        inner.release.set()
        assert (await first)[0] == 200 and (await second)[0] == 200
        assert inner.running == [f"{path}#n=1", f"{path}#n=2"]

    asyncio.run(scenario())


def test_other_holders_and_event_streams_are_not_held_up():
    async def scenario() -> None:
        inner = Held()
        app = gate(inner, request_queue=0)
        busy = asyncio.create_task(request(app, "POST", "/v1/shared/tok_a/deals", 1))
        await asyncio.sleep(0.05)
        # the same holder: no room to wait
        assert (await asyncio.wait_for(request(app, "GET", "/v1/shared/tok_a/deals", 2), 1))[0] == 429
        # another share link, a key, and the same link's event streams all run beside it
        others = [
            asyncio.create_task(request(app, "GET", "/v1/shared/tok_b/deals", 3)),
            asyncio.create_task(request(app, "GET", "/v1/tables/t", 4, {"Authorization": f"Bearer {ADMIN}"})),
            asyncio.create_task(request(app, "GET", "/v1/shared/tok_a/events", 5)),
            asyncio.create_task(request(app, "GET", "/v1/shared/tok_a/events", 6)),
        ]
        await asyncio.sleep(0.05)
        assert len(inner.running) == 5
        inner.release.set()
        assert [(await t)[0] for t in [busy, *others]] == [200] * 5
        assert app.fair_share._holders == {}  # type: ignore[union-attr]

    asyncio.run(scenario())


def test_the_limit_can_be_switched_off():
    async def scenario() -> None:
        inner = Held()
        app = gate(inner, max_requests_in_progress=0)
        tasks = [asyncio.create_task(request(app, "GET", "/v1/shared/tok/deals", n)) for n in range(20)]
        await asyncio.sleep(0.05)
        assert len(inner.running) == 20
        inner.release.set()
        assert [(await t)[0] for t in tasks] == [200] * 20

    asyncio.run(scenario())
