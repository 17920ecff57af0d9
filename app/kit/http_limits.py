"""Limits on what one connection can make the server hold: the size of a request's line and
headers, the requests read ahead of their answers, and the time to receive a request.

uvicorn has none of them for its httptools parser (its default): 100 MB of headers were read
into memory and answered 200, a client sending headers or a body a byte at a time held its
connection for as long as it liked, and 5 MiB of tiny pipelined requests never read back were
all parsed at once (the process grew from 92 to 457 MiB). ``BoundedHttpTools`` is uvicorn's httptools
protocol (C parser, the cheapest per request: ``python -m bench.protocol``) with these checks:

- the request line and headers together at most ``max_header_bytes``
  (``PREFSCORE_MAX_HEADER_BYTES``, 16 KiB), counted as the raw bytes received while they are
  incomplete (a header line that never ends counts too): else 431 problem+json and the
  connection closed;
- at most ``max_pipelined_requests`` (``PREFSCORE_MAX_PIPELINED_REQUESTS``, 8) requests read and
  not yet answered: the parser stops at the next request's end, the rest of that read waits
  unparsed and the socket is not read until an answer has gone;
- the line and headers received within ``header_timeout`` seconds of the request's first
  byte (or of the connection's opening) (``PREFSCORE_HEADER_TIMEOUT``, 10 s), whatever the
  answers to earlier requests on the connection do;
- the body received within ``body_timeout`` seconds after the headers
  (``PREFSCORE_BODY_TIMEOUT``, 10 s).

A request too slow is answered 408 problem+json (when no earlier answer is owed) and its
connection closed (the application sees a disconnect for an unfinished body). The deadlines
are one field per connection watched by one timer handle, re-armed at most about once per
the shortest of these timeouts (and the keep-alive one): no timer per request. A connection closed after an answer given before the
request's body arrived (413, 401) is closed gently: the end of the answer is sent (FIN), then
at most ``linger_bytes`` (``PREFSCORE_LINGER_BYTES``, 4 MiB) are read and dropped for at most
``linger_timeout`` (``PREFSCORE_LINGER_TIMEOUT``, 5 s) seconds, so a client that writes its
whole body before reading gets the answer instead of a reset. ``prefscore serve`` passes
this class to uvicorn (``http=``); each worker reads the limits from the environment.
"""

from __future__ import annotations

import asyncio
import json
from functools import lru_cache
from typing import Any

from uvicorn.protocols.http.flow_control import FlowControl
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from app.kit.settings import Settings

_END = b"\r\n\r\n"  # ends every request's headers (the parser is strict: CRLF only)

# What the connection's one deadline is for.
_HEADERS, _BODY, _IDLE, _LINGER = 1, 2, 3, 4
# Parser phases: between requests, in a request's line and headers, in its body.
_BETWEEN, _IN_HEADERS, _IN_BODY = 0, 1, 2


@lru_cache(maxsize=1)
def _limits() -> tuple[int, float, float, int, int, float]:
    s = Settings.from_env()
    return (
        max(1024, s.max_header_bytes),
        float(max(1, s.header_timeout)),
        float(max(1, s.body_timeout)),
        max(2, s.max_pipelined_requests),
        max(0, s.linger_bytes),
        float(max(1, s.linger_timeout)),
    )


def _problem_response(status: int, reason: bytes, detail: str) -> bytes:
    title = {408: "Request timeout", 431: "Request header fields too large"}[status]
    body = json.dumps(
        {
            "type": f"https://prefscore.example/problems/{status}",
            "title": title,
            "status": status,
            "detail": detail,
        }
    ).encode()
    return (
        b"HTTP/1.1 %d %s\r\ncontent-type: application/problem+json\r\ncontent-length: %d\r\nconnection: close\r\n\r\n"
        % (status, reason, len(body))
        + body
    )


class _Flow(FlowControl):
    """uvicorn's flow control, except that reading stays paused while ``held`` (requests
    read ahead wait unparsed): uvicorn resumes reading after every answer and whenever an
    application asks for its body."""

    held = False

    def resume_reading(self) -> None:
        if self.read_paused and not self.held:
            self.read_paused = False
            self._transport.resume_reading()


class _CycleTransport:
    """The transport as a request's cycle sees it: its ``close`` (after an answer with
    ``connection: close``) goes through the protocol, which may close gently."""

    __slots__ = ("_protocol", "write", "is_closing")

    def __init__(self, protocol: BoundedHttpTools, transport: asyncio.Transport) -> None:
        self._protocol = protocol
        self.write = transport.write
        self.is_closing = transport.is_closing

    def close(self) -> None:
        self._protocol._close_after_answer()


class BoundedHttpTools(HttpToolsProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        (
            self.max_header_bytes,
            self.header_timeout,
            self.body_timeout,
            self.max_pipelined,
            self.linger_bytes,
            self.linger_timeout,
        ) = _limits()
        keep_alive = float(max(1, self.timeout_keep_alive))
        self.keep_alive_timeout = keep_alive
        # The one timer fires at least this often while a deadline is set, so that no deadline
        # set later can fall before it (no re-arming per request).
        self._tick = min(self.header_timeout, self.body_timeout, keep_alive, self.linger_timeout)
        self._phase = _BETWEEN
        self._header_bytes = 0  # line and headers of the current request, complete pieces
        self._raw = 0  # bytes received since the last request's headers ended
        self._deadline: float | None = None
        self._why = 0
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = 0.0
        self._backlog: bytes | None = None  # read but not parsed: the pipeline is full
        self._refused = False
        self._lingering = False
        self._linger_left = 0
        self._upgraded = False

    # --- the connection's deadline
    def _set_deadline(self, why: int, seconds: float) -> None:
        now = self.loop.time()
        when = now + seconds
        self._deadline = when
        self._why = why
        if self._timer is None:
            self._timer_at = at = now + self._tick if seconds > self._tick else when
            self._timer = self.loop.call_at(at, self._on_timer)
        elif when < self._timer_at:
            self._timer.cancel()
            self._timer_at = when
            self._timer = self.loop.call_at(when, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        deadline = self._deadline
        if deadline is None or self._upgraded or self.transport.is_closing():
            return
        now = self.loop.time()
        if now < deadline:
            self._timer_at = at = min(deadline, now + self._tick)
            self._timer = self.loop.call_at(at, self._on_timer)
            return
        self._deadline = None
        why = self._why
        if why == _HEADERS:
            self._too_slow(f"the request's headers did not arrive within {self.header_timeout:g} s")
        elif why == _BODY:
            self._too_slow(f"the request's body did not arrive within {self.body_timeout:g} s")
        else:  # idle after an answer (keep-alive), or the end of a gentle close
            self.transport.close()

    def _owed(self) -> int:
        """Requests read and not yet answered."""
        if self.pipeline:
            return len(self.pipeline) + 1
        cycle = self.cycle
        return 0 if cycle is None or cycle.response_complete else 1

    def _too_slow(self, detail: str) -> None:
        cycle = self.cycle
        if self._owed() == 0 or (
            self._phase == _IN_BODY and not self.pipeline and not cycle.response_started
        ):
            self._refuse(_problem_response(408, b"Request Timeout", detail))
        else:  # an answer is owed or half sent: a 408 would be taken for it
            self._refused = True
            self.transport.close()

    def _refuse(self, response: bytes) -> None:
        self._refused = True
        self._deadline = None
        self._backlog = None
        if not self.transport.is_closing():
            self.transport.write(response)
            self.transport.close()

    # --- a gentle close
    def _close_after_answer(self) -> None:
        """A cycle closes the connection after its answer. If a request's body is still
        arriving, send the end of the answers and read and drop the rest for a bounded time
        first: a client still writing would otherwise get a reset instead of the answer."""
        transport = self.transport
        if (
            self._phase != _IN_BODY
            or self._lingering
            or transport.is_closing()
            or not transport.can_write_eof()
        ):
            transport.close()
            return
        self._lingering = True
        self._backlog = None
        self._linger_left = self.linger_bytes
        self.flow.held = False  # type: ignore[attr-defined]
        self.flow.resume_reading()
        transport.write_eof()
        self._set_deadline(_LINGER, self.linger_timeout)

    # --- protocol
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.flow = _Flow(transport)
        self._cycle_transport = _CycleTransport(self, transport)
        self._set_deadline(_HEADERS, self.header_timeout)

    def connection_lost(self, exc: Exception | None) -> None:
        self._deadline = None
        self._backlog = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._lingering:
            self._linger_left -= len(data)
            if self._linger_left < 0:
                self.transport.close()
            return
        if self._refused:
            return
        if self._backlog is not None:  # read while held (not expected): keep it with the rest
            self._backlog += data
            self.transport.pause_reading()
            return
        self._feed(data)

    def _feed(self, data: bytes) -> None:
        """Parse ``data``, but stop after the request that makes ``max_pipelined`` owed: the
        rest is kept unparsed and the socket not read until an answer has gone."""
        while True:
            room = self.max_pipelined - self._owed()
            if room <= 0:
                self._backlog = data
                self.flow.held = True  # type: ignore[attr-defined]
                self.flow.pause_reading()
                return
            if data.count(_END) <= room:
                self._parse(data)
                return
            cut = 0
            for _ in range(room):  # after the room-th end of headers (some may be in bodies)
                cut = data.index(_END, cut) + 4
            self._parse(data[:cut])
            data = data[cut:]
            if self._refused or self._upgraded or self.transport.is_closing():
                return

    def _parse(self, data: bytes) -> None:
        if self._phase != _IN_BODY:
            self._raw += len(data)
        super().data_received(data)
        if self._phase == _IN_HEADERS and self._raw > self.max_header_bytes and not self._refused:
            self._too_large()

    def send_400_response(self, msg: str) -> None:
        if not self._refused:  # a refusal of ours already answered
            self._refused = True
            super().send_400_response(msg)

    def handle_websocket_upgrade(self) -> None:
        self._upgraded = True
        self._deadline = None
        super().handle_websocket_upgrade()

    # --- parser callbacks
    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._header_bytes = 0
        self._phase = _IN_HEADERS
        self._set_deadline(_HEADERS, self.header_timeout)

    def _too_large(self) -> None:
        self._refuse(
            _problem_response(
                431,
                b"Request Header Fields Too Large",
                f"the request line and headers are larger than {self.max_header_bytes} bytes",
            )
        )

    def _count(self, n: int) -> None:
        self._header_bytes += n
        if self._header_bytes > self.max_header_bytes:
            self._too_large()
            raise ValueError("headers too large")  # stops the parser (httptools reports a callback error)

    def on_url(self, url: bytes) -> None:
        self._count(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count(len(name) + len(value) + 4)
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._raw = 0
        super().on_headers_complete()
        if self.cycle is not None:
            self.cycle.transport = self._cycle_transport  # type: ignore[assignment]
        # Until on_message_complete, which follows at once for a request without a body.
        self._phase = _IN_BODY
        self._set_deadline(_BODY, self.body_timeout)

    def on_message_complete(self) -> None:
        self._phase = _BETWEEN
        self._deadline = None  # the application's time is not the client's
        super().on_message_complete()

    def on_response_complete(self) -> None:
        # uvicorn's, with the pipeline's backlog parsed and the keep-alive timeout as the
        # connection's deadline instead of a timer per answer.
        self.server_state.total_requests += 1
        if self._lingering or self.transport.is_closing():
            return
        if self._phase == _IN_BODY and self.cycle.response_complete:
            # answered before its body arrived (keep-alive): close gently rather than read,
            # for up to body_timeout, a body nobody wants
            self._close_after_answer()
            return
        if self.pipeline:
            cycle, app = self.pipeline.pop()
            self._start_asgi_task(cycle, app)
        backlog = self._backlog
        if backlog is not None:
            self._backlog = None
            self.flow.held = False  # type: ignore[attr-defined]
            self._feed(backlog)
            if self._refused or self.transport.is_closing():
                return
        if self._backlog is None:
            self.flow.resume_reading()
            if self._phase == _BETWEEN and self._owed() == 0:
                self._set_deadline(_IDLE, self.keep_alive_timeout)
