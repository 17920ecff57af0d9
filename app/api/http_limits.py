"""Limits on what one connection can make the server hold: the size of a request's line and
headers, and the time to receive them and the body.

uvicorn has neither for its httptools parser (its default): 100 MB of headers were read
into memory and answered 200, and a client sending headers or a body a byte at a time held
its connection (and, for a body, a request) for as long as it liked. ``BoundedHttpTools`` is
uvicorn's httptools protocol with three checks added:

- the request line and headers together at most ``max_header_bytes``
  (``PREFSCORE_MAX_HEADER_BYTES``, 16 KiB): else 431 problem+json and the connection closed;
- the line and headers received within ``header_timeout`` seconds of the request's first
  byte (or of the connection's opening) (``PREFSCORE_HEADER_TIMEOUT``, 10 s);
- the body received within ``body_timeout`` seconds after the headers
  (``PREFSCORE_BODY_TIMEOUT``, 10 s).

A request too slow is answered 408 problem+json and its connection closed (the application
sees a disconnect for an unfinished body). ``prefscore serve`` passes this class to uvicorn
(``http=``); each worker reads the limits from the environment.
"""

from __future__ import annotations

import asyncio
import json
from functools import lru_cache
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from app.settings import Settings


@lru_cache(maxsize=1)
def _limits() -> tuple[int, float, float]:
    settings = Settings.from_env()
    return max(1024, settings.max_header_bytes), float(max(1, settings.header_timeout)), float(max(1, settings.body_timeout))


def _problem_response(status: int, reason: bytes, detail: str) -> bytes:
    title = {408: "Request timeout", 431: "Request header fields too large"}[status]
    body = json.dumps(
        {"type": f"https://prefscore.example/problems/{status}", "title": title, "status": status, "detail": detail}
    ).encode()
    return (
        b"HTTP/1.1 %d %s\r\ncontent-type: application/problem+json\r\ncontent-length: %d\r\nconnection: close\r\n\r\n"
        % (status, reason, len(body))
        + body
    )


class BoundedHttpTools(HttpToolsProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.max_header_bytes, self.header_timeout, self.body_timeout = _limits()
        self._header_bytes = 0
        self._deadline: asyncio.TimerHandle | None = None
        self._refused = False

    # --- timers
    def _arm(self, seconds: float, status: int, detail: str) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(seconds, self._too_slow, status, detail)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self, status: int, detail: str) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        if self.cycle is None or self.cycle.response_complete or not self.cycle.response_started:
            self._refuse(_problem_response(status, b"Request Timeout", detail))
        else:
            self.transport.close()

    def _refuse(self, response: bytes) -> None:
        self._refused = True
        self._disarm()
        if not self.transport.is_closing():
            self.transport.write(response)
            self.transport.close()

    # --- protocol
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm(self.header_timeout, 408, f"the request's headers did not arrive within {self.header_timeout:g} s")

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        super().data_received(data)

    def send_400_response(self, msg: str) -> None:
        if not self._refused:  # a refusal of ours already answered
            super().send_400_response(msg)

    # --- parser callbacks
    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._header_bytes = 0
        self._arm(self.header_timeout, 408, f"the request's headers did not arrive within {self.header_timeout:g} s")

    def _count(self, n: int) -> None:
        self._header_bytes += n
        if self._header_bytes > self.max_header_bytes:
            self._refuse(
                _problem_response(431, b"Request Header Fields Too Large", f"the request line and headers are larger than {self.max_header_bytes} bytes")
            )
            raise ValueError("headers too large")  # stops the parser (httptools reports a callback error)

    def on_url(self, url: bytes) -> None:
        self._count(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count(len(name) + len(value) + 4)
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()
        if not self.parser.should_upgrade() and self._has_body():
            self._arm(self.body_timeout, 408, f"the request's body did not arrive within {self.body_timeout:g} s")

    def _has_body(self) -> bool:
        for name, value in self.headers or ():
            if name == b"content-length":
                return value.strip() not in (b"0", b"")
            if name == b"transfer-encoding":
                return True
        return False

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def on_response_complete(self) -> None:
        self._disarm()
        super().on_response_complete()
