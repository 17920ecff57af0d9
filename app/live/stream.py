"""An open event stream's connection, made light enough for 10,000 idle ones in a process.

An idle stream is only its request's task waiting for the client to leave (``receive``) and a
small ``Connection``: no task, timer, queue or lock of its own. Its remainder runs outside
the framework's middleware stack (``app.kit.middleware.outer_layer.hand_over``: those
frames are freed once its headers and first events are sent). The hub's push wakes the
connection, which writes what waits in a short-lived task (one per stream only while it
writes; each event is encoded once for every stream). One ``Heartbeat`` pings every open
stream of the process once per interval, the streams spread over a few ticks. When the
server stops (sse-starlette's exit signal, watched once per process) every stream ends.
bench/streams.py measures the cost per stream (docs/performance.md).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from sse_starlette import EventSourceResponse
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from app.kit.middleware.outer_layer import hand_over
from app.live.hub import Hub
from app.live.subscription import Subscription

# What a stream sends of the items the hub handed it: the chunks, and whether it ends after them.
Render = Callable[[list[Any]], tuple[list[bytes], bool]]
PING = b": ping\r\n\r\n"  # a comment: keeps proxies from closing an idle stream
_END = {"type": "http.response.body", "body": b"", "more_body": False}
_BUCKETS = 8  # the heartbeat's ticks per interval: each pings an eighth of the streams
_WAKE_BATCH = 32  # the streams whose writes start in one turn of the loop (each a send)


class Connection:
    """One open stream: writes its subscription's events as the hub pushes them, a ping when
    the heartbeat says, and ends when the hub ends the subscription, the render says so
    (a deleted table) or the client leaves; its slots are given back however it ends."""

    __slots__ = ("hub", "sub", "render", "beat", "send", "task", "writing", "closing", "bucket")

    def __init__(self, hub: Hub, sub: Subscription, render: Render, beat: Heartbeat):
        self.hub, self.sub, self.render, self.beat = hub, sub, render, beat
        self.send: Send | None = None
        self.task: asyncio.Task[Any] | None = None
        self.writing: asyncio.Task[None] | None = None
        self.closing = False
        self.bucket = 0

    def release(self) -> None:
        self.sub.listener = None
        self.beat.discard(self)
        self.hub.unsubscribe(self.sub)

    async def follow(self, receive: Receive, send: Send) -> None:
        """The stream after its first events, in the request's task: wait for the client to
        leave; the writes happen in ``_write`` as the hub pushes."""
        self.send, self.task = send, asyncio.current_task()
        self.sub.listener = self.wake
        self.beat.add(self)
        try:
            self.wake()
            while (await receive())["type"] != "http.disconnect":
                pass
            return  # the client left: nothing more to send
        except asyncio.CancelledError:
            if not self.closing or self.task is None:
                raise
            self.task.uncancel()  # ended by the service (``close``): the body's end is sent
        finally:
            self.release()
        with contextlib.suppress(OSError):
            await send(_END)

    def _has_news(self) -> bool:
        """Something to write (events, or the stream's end), and no write under way."""
        return self.writing is None and not self.closing and bool(self.sub.waiting or self.sub.ended)

    def wake(self) -> None:
        if self._has_news():
            self.beat.wake(self)

    def start_writing(self) -> None:
        # Asked again: between the wake and its turn a write may have started or the stream ended.
        if self._has_news():
            self.writing = asyncio.get_running_loop().create_task(self._write())

    def ping(self) -> None:
        if self.writing is None and not self.closing:
            self.writing = asyncio.get_running_loop().create_task(self._write(PING))

    def close(self) -> None:
        if not self.closing:
            self.closing = True
            if self.task is not None:
                self.task.cancel()

    async def _write(self, first: bytes | None = None) -> None:
        sub, send = self.sub, self.send
        assert send is not None
        try:
            if first is not None:
                await send({"type": "http.response.body", "body": first, "more_body": True})
            while sub.waiting or sub.ended:
                if sub.ended:
                    self.close()
                    return
                chunks, end = self.render(sub.take())
                for chunk in chunks:
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
                if end:
                    self.close()
                    return
        except Exception:  # noqa: BLE001  (the client is gone: the stream ends)
            self.close()
        finally:
            self.writing = None


class Heartbeat:
    """Every open stream of the process, pinged once per ``interval`` by one task (the streams
    spread over _BUCKETS ticks, so they are not all written at one instant); and ended all at
    once when the server stops."""

    def __init__(self, interval: float):
        self.interval = interval
        self.buckets: list[set[Connection]] = [set() for _ in range(_BUCKETS)]
        self._next = 0
        self.stopping = False
        self._woken: list[Connection] = []
        self._waker: asyncio.Task[None] | None = None

    def wake(self, conn: Connection) -> None:
        """``conn`` has something to write: its write starts soon, _WAKE_BATCH streams per turn
        of the loop (a change fanned out to 10,000 streams lets other requests in between)."""
        self._woken.append(conn)
        if self._waker is None:
            self._waker = asyncio.get_running_loop().create_task(self._start_writes())

    async def _start_writes(self) -> None:
        try:
            while self._woken:
                woken, self._woken = self._woken, []
                for i, conn in enumerate(woken, 1):
                    conn.start_writing()
                    if i % _WAKE_BATCH == 0:
                        await asyncio.sleep(0)
                await asyncio.sleep(0)
        finally:
            self._waker = None

    def add(self, conn: Connection) -> None:
        if self.stopping:
            conn.sub.end()
            return
        conn.bucket, self._next = self._next, (self._next + 1) % _BUCKETS
        self.buckets[conn.bucket].add(conn)

    def discard(self, conn: Connection) -> None:
        self.buckets[conn.bucket].discard(conn)

    def __len__(self) -> int:
        return sum(len(b) for b in self.buckets)

    async def run(self) -> None:
        tick = 0
        while True:
            await asyncio.sleep(self.interval / _BUCKETS)
            for conn in list(self.buckets[tick]):
                conn.ping()
            tick = (tick + 1) % _BUCKETS

    async def end_on_exit(self) -> None:
        """Wait for the server to stop (sse-starlette's exit signal: SIGTERM under uvicorn, or
        its ``AppStatus.should_exit``), then end every stream (each sends its end)."""
        await EventSourceResponse._listen_for_exit_signal()
        self.stopping = True
        for bucket in self.buckets:
            for conn in list(bucket):
                conn.sub.end()


class LiveStream(Response):
    """The response of an event stream: its headers and first events, then ``Connection``
    takes over (handed over outside the framework's stack where the service's outer layer
    runs, in place otherwise). A HEAD request gets the headers only."""

    media_type = "text/event-stream"

    def __init__(self, conn: Connection, first: list[bytes]):
        self.status_code = 200
        self.background = None
        self.init_headers(
            {"Cache-Control": "no-cache", "X-Accel-Buffering": "no", "Connection": "keep-alive"}
        )
        self.conn, self.first = conn, first

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        conn, head = self.conn, scope.get("method") == "HEAD"
        try:
            await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
            if head:
                await send(_END)
            for chunk in () if head else self.first:
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
        except BaseException:
            conn.release()
            raise
        if head:
            conn.release()
        elif not hand_over(scope, conn.follow):
            await conn.follow(receive, send)
