"""The HTTP protocol's bounds per connection (app/kit/http_limits.py): requests read ahead of
their answers, raw header bytes while the headers are incomplete, one timer per connection,
the header deadline of a request behind an answered one, and a gentle close after an early
answer. Before (``python -m bench.protocol --attacks``): 5 MiB of tiny pipelined requests
never read grew the process from 92 to 457 MiB (every request parsed at once, a timer each);
one header line that never ended was read until the header timeout (51 MiB in 2 s); 200
slow requests sent behind a whole one were all still open after 5 s (the answer cancelled
the header timer, each byte the keep-alive timeout); Python's urllib writing a 1 MB body got
a broken pipe instead of the 413.

The first tests drive the protocol in this process with a transport of its own (what was
parsed, written, paused and which timers were armed are counted exactly); the others run
against a real ``prefscore serve``."""

from __future__ import annotations

import asyncio
import json
import socket
import time
import urllib.error
import urllib.request
from typing import Any

import httpx

from app.kit.http_limits import BoundedHttpTools, _limits

from .harness import read_all

LIVE_ENV = {
    "PREFSCORE_HEADER_TIMEOUT": "2",
    "PREFSCORE_BODY_TIMEOUT": "2",
    "PREFSCORE_MAX_HEADER_BYTES": "8192",
}
GET = b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n"


# --------------------------------------------------------------------------- in process


class Transport:
    def __init__(self) -> None:
        self.out = bytearray()
        self.closed = False
        self.paused = False
        self.eof = False

    def write(self, data: bytes) -> None:
        self.out += data

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def pause_reading(self) -> None:
        self.paused = True

    def resume_reading(self) -> None:
        self.paused = False

    def can_write_eof(self) -> bool:
        return True

    def write_eof(self) -> None:
        self.eof = True

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 50000)}.get(name, default)


class CountingLoop:
    """The running loop, counting the timers armed through it."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self.timers = 0

    def call_later(self, *args: Any) -> asyncio.TimerHandle:
        self.timers += 1
        return self._loop.call_later(*args)

    def call_at(self, *args: Any) -> asyncio.TimerHandle:
        self.timers += 1
        return self._loop.call_at(*args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loop, name)


def _connection(app: Any) -> tuple[BoundedHttpTools, Transport, CountingLoop]:
    from uvicorn.config import Config
    from uvicorn.server import ServerState

    config = Config(app=app, lifespan="off", log_level="warning")
    config.load()
    loop = CountingLoop(asyncio.get_running_loop())
    protocol = BoundedHttpTools(config=config, server_state=ServerState(), app_state={}, _loop=loop)  # type: ignore[arg-type]
    transport = Transport()
    protocol.connection_made(transport)  # type: ignore[arg-type]
    return protocol, transport, loop


async def _answer(send: Any, body: bytes = b"ok") -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


def test_pipelined_requests_read_ahead_are_bounded():
    """1,000 pipelined requests in one read: at most ``max_pipelined_requests`` are parsed
    while the first is unanswered (the rest waits unparsed, the socket not read); then all
    are answered, in order."""

    async def run() -> None:
        gate = asyncio.Event()
        started: list[str] = []

        async def app(scope: Any, receive: Any, send: Any) -> None:
            started.append(scope["query_string"].decode())
            await gate.wait()
            await _answer(send, scope["query_string"])

        protocol, transport, _ = _connection(app)
        limit = getattr(protocol, "max_pipelined", 8)  # PREFSCORE_MAX_PIPELINED_REQUESTS
        protocol.data_received(b"".join(b"GET /x?%d HTTP/1.1\r\nHost: x\r\n\r\n" % i for i in range(1000)))
        await asyncio.sleep(0.05)
        read_ahead = len(protocol.pipeline) + 1
        assert read_ahead <= limit, f"{read_ahead} requests parsed and unanswered"
        assert transport.paused
        assert started == ["0"]
        gate.set()
        for _ in range(2000):
            if transport.out.count(b"HTTP/1.1 200") == 1000:
                break
            await asyncio.sleep(0.005)
        assert transport.out.count(b"HTTP/1.1 200") == 1000
        bodies = [part.split(b"\r\n\r\n", 1)[1] for part in bytes(transport.out).split(b"HTTP/1.1 200")[1:]]
        assert bodies == [b"%d" % i for i in range(1000)]
        assert started == [str(i) for i in range(1000)]
        assert not transport.closed and not transport.paused

    asyncio.run(run())


def test_a_header_line_that_never_ends_is_counted():
    """The bytes of an unfinished header line count: 431 once the headers pass the limit,
    nothing read after that."""
    limit = _limits()[0]  # PREFSCORE_MAX_HEADER_BYTES

    async def run() -> None:
        async def app(scope: Any, receive: Any, send: Any) -> None:
            await _answer(send)

        protocol, transport, _ = _connection(app)
        protocol.data_received(b"GET /health HTTP/1.1\r\nHost: x\r\nX-Endless: ")
        fed = 0
        while not transport.closed and fed < 4 * 1024 * 1024:
            protocol.data_received(b"a" * 1024)
            fed += 1024
        assert transport.closed, f"{fed} bytes of one header line read"
        assert fed <= limit + 1024
        assert transport.out.startswith(b"HTTP/1.1 431")
        assert json.loads(bytes(transport.out).split(b"\r\n\r\n", 1)[1])["status"] == 431

    asyncio.run(run())


def test_one_timer_per_connection():
    """200 keep-alive requests one after the other arm at most a few timers, not one or two
    per request."""

    async def run() -> None:
        async def app(scope: Any, receive: Any, send: Any) -> None:
            await _answer(send)

        protocol, transport, loop = _connection(app)
        for i in range(200):
            protocol.data_received(GET)
            for _ in range(100):
                if transport.out.count(b"HTTP/1.1 200") == i + 1:
                    break
                await asyncio.sleep(0)
        assert transport.out.count(b"HTTP/1.1 200") == 200
        assert loop.timers <= 3, f"{loop.timers} timers armed"
        protocol.connection_lost(None)

    asyncio.run(run())


def test_an_answer_does_not_cancel_the_next_requests_header_deadline():
    """A whole request and the start of a second in one read: once the first is answered,
    the second's header deadline still holds (408, then closed)."""

    async def run() -> None:
        async def app(scope: Any, receive: Any, send: Any) -> None:
            await _answer(send)

        protocol, transport, _ = _connection(app)
        protocol.header_timeout = 0.2
        protocol._tick = 0.1
        protocol.data_received(GET + b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        for _ in range(100):  # up to 2 s
            if transport.closed:
                break
            await asyncio.sleep(0.02)
        assert transport.out.startswith(b"HTTP/1.1 200")
        assert b"HTTP/1.1 408" in transport.out
        assert transport.closed

    asyncio.run(run())


# --------------------------------------------------------------------------- a real server


def test_pipelined_requests_are_all_answered_in_order(live):
    with socket.create_connection(("127.0.0.1", live.server.port), timeout=10) as s:
        s.sendall(
            b"".join(b"GET /health?n=%d HTTP/1.1\r\nHost: x\r\n\r\n" % i for i in range(50))
            + b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        data = read_all(s, 20)
    assert data.count(b"HTTP/1.1 200") == 51


def test_an_endless_header_line_is_refused_431(live):
    """Before: read until the header timeout, then 408."""
    with socket.create_connection(("127.0.0.1", live.server.port), timeout=10) as s:
        s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nX-Endless: ")
        try:
            for _ in range(64):
                s.sendall(b"a" * 1024)
        except (BrokenPipeError, ConnectionResetError):
            pass
        data = read_all(s, 5)
    assert data.startswith(b"HTTP/1.1 431"), data[:200]


def test_slow_requests_behind_answered_ones_are_let_go(live):
    """Each connection sends a whole request and the start of a second, then a byte every
    half second: the second's header deadline (2 s) ends it whatever the first's answer did.
    Before: the answer cancelled the deadline and each byte the keep-alive timeout."""
    socks = []
    try:
        for _ in range(50):
            s = socket.create_connection(("127.0.0.1", live.server.port), timeout=10)
            s.sendall(GET + b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            socks.append(s)
        assert httpx.get(live.url + "/health", timeout=5).status_code == 200
        for _ in range(10):  # 5 s
            time.sleep(0.5)
            for s in socks:
                try:
                    s.send(b"a")
                except OSError:
                    pass
        still_open = 0
        for s in socks:
            data = read_all(s, 0.5)
            assert data.startswith(b"HTTP/1.1 200"), data[:100]
            s.settimeout(0.2)
            try:
                if s.recv(1) == b"":
                    continue
            except TimeoutError:
                pass
            except OSError:
                continue
            still_open += 1
        assert still_open == 0
    finally:
        for s in socks:
            s.close()


def test_a_client_that_writes_its_whole_body_first_gets_the_413(live):
    """urllib sends ``Connection: close``, then the whole body before reading (here a moment
    after the headers, so the server has answered by then): the server reads and drops the
    body it refused (a bounded amount) so the answer is not lost to a reset."""

    def body():
        time.sleep(0.3)
        for _ in range(100):
            yield b"x" * 10_000

    for _ in range(3):
        req = urllib.request.Request(
            live.url + "/v1/tables",
            data=body(),
            method="POST",
            headers={"Content-Type": "application/json", "Content-Length": "1000000", **live.headers},
        )
        try:
            urllib.request.urlopen(req, timeout=20)
            raise AssertionError("answered 2xx")
        except urllib.error.HTTPError as exc:
            assert exc.code == 413
            assert json.loads(exc.read())["status"] == 413
    assert httpx.get(live.url + "/health").status_code == 200
