"""An open stream's connection alone (app/live/stream.py), with the hub and fake ASGI ends:
one change reaches every stream once, as the same bytes; a stream whose client does not read
holds up no other; the heartbeat pings every stream once per interval; a stream ended by the
hub sends its end and gives its slot back; the outer layer runs a handed-over remainder after
the framework's stack has returned."""

from __future__ import annotations

import asyncio
from typing import Any

from app.kit.middleware.outer_layer import hand_over
from app.live.hub import Hub
from app.live.stream import PING, Connection, Heartbeat, LiveStream
from app.live.subscription import Current, Subscription


async def _direct(fn, *args):  # noqa: ANN001, ANN002, ANN202
    return fn(*args)


def _hub() -> Hub:
    return Hub(lambda tables: {}, lambda tables, owners: {}, _direct, from_stored=lambda stored: stored)


def _render(items: list[Any]) -> tuple[list[bytes], bool]:
    out = [item.wire.setdefault(False, f"id: {item.revision}\r\n\r\n".encode()) for item in items]
    return out, any(item.kind == "table.deleted" for item in items)


class Client:
    """One stream's far end: what it was sent, and a disconnect when told to leave."""

    def __init__(self, *, reads: bool = True):
        self.sent: list[dict[str, Any]] = []
        self.reads = reads
        self.gone = asyncio.Event()

    async def send(self, message: dict[str, Any]) -> None:
        if not self.reads:
            await asyncio.Event().wait()  # a full socket that never drains
        self.sent.append(message)

    async def receive(self) -> dict[str, Any]:
        await self.gone.wait()
        return {"type": "http.disconnect"}

    @property
    def bodies(self) -> list[bytes]:
        return [m["body"] for m in self.sent if m["type"] == "http.response.body" and m["body"]]


async def _open(hub: Hub, beat: Heartbeat, client: Client) -> tuple[Subscription, asyncio.Task[None]]:
    sub = Subscription(None, frozenset({"t"}))
    hub.subscribe(sub)
    stream = LiveStream(Connection(hub, sub, _render, beat), [])
    task = asyncio.get_running_loop().create_task(
        stream({"type": "http", "method": "GET"}, client.receive, client.send)
    )
    await asyncio.sleep(0)
    return sub, task


def _change(hub: Hub, revision: int, kind: str = "deal.posted") -> None:
    current = Current("t", "anna", revision, revision, f'"t-{revision}"', {})
    hub.changed("t", "anna", revision, kind, stored=current)


async def _settle() -> None:
    """Every write started and done (a few streams' writes start per turn of the loop)."""
    for _ in range(200):
        await asyncio.sleep(0)


def test_one_change_reaches_every_stream_once_as_the_same_bytes():
    async def main() -> None:
        hub, beat = _hub(), Heartbeat(3600)
        hub.seed([("t", 0, 0)], "anna")
        clients = [Client() for _ in range(600)]  # more than one batch of writes
        opened = [await _open(hub, beat, c) for c in clients]
        _change(hub, 1)
        _change(hub, 1)  # the same signal twice
        await _settle()
        assert all(c.bodies == [b"id: 1\r\n\r\n"] for c in clients)
        assert len({id(c.bodies[0]) for c in clients}) == 1  # encoded once for all
        assert all(c.sent[0]["type"] == "http.response.start" for c in clients)
        for c in clients:
            c.gone.set()
        await asyncio.gather(*(task for _, task in opened))
        assert hub.count == 0 and len(beat) == 0

    asyncio.run(main())


def test_a_stream_whose_client_does_not_read_holds_up_no_other():
    async def main() -> None:
        hub, beat = _hub(), Heartbeat(3600)
        hub.seed([("t", 0, 0)], "anna")
        stuck, readers = Client(), [Client() for _ in range(5)]
        for c in (stuck, *readers):
            await _open(hub, beat, c)
        stuck.reads = False  # its headers went out; from now on its socket is full
        _change(hub, 1)
        await _settle()
        _change(hub, 2)
        await _settle()
        assert all(c.bodies == [b"id: 1\r\n\r\n", b"id: 2\r\n\r\n"] for c in readers)
        assert stuck.bodies == []

    asyncio.run(main())


def test_the_heartbeat_pings_every_stream_once_per_interval():
    async def main() -> None:
        hub, beat = _hub(), Heartbeat(2.0)  # a tick every 0.25 s, an eighth of the streams each
        clients = [Client() for _ in range(20)]
        for c in clients:
            await _open(hub, beat, c)
        runner = asyncio.get_running_loop().create_task(beat.run())
        await asyncio.sleep(0.1)
        assert all(c.bodies == [] for c in clients)
        while not all(c.bodies for c in clients):
            await asyncio.sleep(0.01)
        runner.cancel()
        assert all(c.bodies == [PING] for c in clients), [c.bodies for c in clients]
        assert max(len(b) for b in beat.buckets) == 3  # spread over the ticks, not all at one

    asyncio.run(main())


def test_a_stream_the_hub_ends_sends_its_end_and_gives_its_slot_back():
    async def main() -> None:
        hub, beat = _hub(), Heartbeat(3600)
        hub.seed([("t", 0, 0)], "anna")
        deleted, revoked = Client(), Client()
        _, deleted_task = await _open(hub, beat, deleted)
        sub, revoked_task = await _open(hub, beat, revoked)
        _change(hub, 1, "table.deleted")  # the render ends a one-table stream at its deletion
        await asyncio.wait_for(deleted_task, 1)
        assert deleted.sent[-1] == {"type": "http.response.body", "body": b"", "more_body": False}
        sub.end()  # its key revoked
        await asyncio.wait_for(revoked_task, 1)
        assert revoked.sent[-1] == {"type": "http.response.body", "body": b"", "more_body": False}
        assert hub.count == 0 and len(beat) == 0

    asyncio.run(main())


def test_the_outer_layer_runs_a_handed_over_remainder_after_the_stack_returns():
    from app.kit.middleware.outer_layer import OuterLayer
    from app.kit.settings import Settings

    order: list[str] = []

    async def remainder(receive: Any, send: Any) -> None:
        order.append("remainder")
        await send({"type": "http.response.body", "body": b"later", "more_body": False})

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        assert hand_over(scope, remainder)
        order.append("stack returned")

    async def main() -> list[dict[str, Any]]:
        sent: list[dict[str, Any]] = []

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        async def receive() -> dict[str, Any]:
            return {"type": "http.disconnect"}

        scope = {"type": "http", "method": "GET", "path": "/x", "headers": [], "query_string": b""}
        await OuterLayer(app, Settings())(scope, receive, send)
        return sent

    sent = asyncio.run(main())
    assert order == ["stack returned", "remainder"]
    assert sent[-1]["body"] == b"later"
    assert not hand_over({"type": "http"}, remainder)  # no outer layer: run it in place
