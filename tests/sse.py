"""A small server-sent-events client for the tests: reads a stream in a thread and hands
over its events (``event``, ``id``, ``data`` parsed as JSON) and comments; and a reader that
keeps a stream open across its ends, resuming with ``Last-Event-ID`` as an EventSource does."""

from __future__ import annotations

import json
import queue
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any

import httpx


@dataclass
class Event:
    event: str
    id: str | None
    data: Any


class EventReader:
    def __init__(self, url: str, headers: dict[str, str] | None = None, *, timeout: float = 30):
        self.url = url
        self.headers = headers or {}
        self.events: queue.Queue[Event | None] = queue.Queue()
        self.comments: list[str] = []
        self.status: int | None = None
        self.content_type: str | None = None
        self.response_headers: dict[str, str] = {}
        self.error: BaseException | None = None
        self.ended = threading.Event()
        self.last_read = time.monotonic()  # when the stream last sent a line (a ping included)
        self._opened = threading.Event()
        self._client = httpx.Client(timeout=httpx.Timeout(timeout, read=None))
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        if not self._opened.wait(timeout):
            # The request may still be answered later (a 503 once a failover is over): its
            # connection would go back to this client's pool and be left for the collector.
            self._client.close()
            raise TimeoutError(f"{url}: no answer")
        if self.error is not None:
            self._client.close()
            raise self.error

    def _run(self) -> None:
        try:
            with self._client.stream("GET", self.url, headers=self.headers) as r:
                self._response = r
                self.status = r.status_code
                self.content_type = r.headers.get("content-type")
                self.response_headers = dict(r.headers)
                self._opened.set()
                if r.status_code != 200:
                    self.body = r.read().decode()
                    return
                fields: dict[str, str] = {}
                data: list[str] = []
                for line in r.iter_lines():
                    self.last_read = time.monotonic()
                    if line == "":
                        if data or fields:
                            raw = "\n".join(data)
                            self.events.put(
                                Event(
                                    fields.get("event", "message"),
                                    fields.get("id"),
                                    json.loads(raw) if raw else None,
                                )
                            )
                        fields, data = {}, []
                    elif line.startswith(":"):
                        self.comments.append(line[1:].strip())
                    else:
                        name, _, value = line.partition(":")
                        value = value[1:] if value.startswith(" ") else value
                        if name == "data":
                            data.append(value)
                        else:
                            fields[name] = value
        except BaseException as exc:  # noqa: BLE001
            self.error = exc
        finally:
            self._opened.set()
            self.ended.set()
            self.events.put(None)

    def next(self, timeout: float = 10) -> Event:
        item = self.events.get(timeout=timeout)
        if item is None:
            raise EOFError(f"the stream ended ({self.error!r})")
        return item

    def next_table_event(self, timeout: float = 10) -> Event:
        """The next event about a table (not about the stream itself)."""
        deadline = time.monotonic() + timeout
        while True:
            e = self.next(max(0.01, deadline - time.monotonic()))
            if not e.event.startswith("stream."):
                return e

    def quiet(self, seconds: float) -> list[Event]:
        """The events that arrive within ``seconds`` (expected: none)."""
        out = []
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                item = self.events.get(timeout=left)
            except queue.Empty:
                break
            if item is None:
                self.events.put(None)
                break
            out.append(item)
        return out

    def close(self) -> None:
        response = getattr(self, "_response", None)
        if response is not None:
            # The reading thread may wait in recv() for the next line (a ping seconds away),
            # which closing the response does not interrupt: shutting the socket down does.
            stream = response.extensions.get("network_stream")
            sock = stream.get_extra_info("socket") if stream is not None else None
            if sock is not None:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        # The reading thread leaves its ``with`` and closes the response itself: closing it from
        # here as well races with that thread and can leave the connection's socket unclosed.
        self._thread.join(5)
        if response is not None:
            response.close()
        self._client.close()


class ResumingReader(threading.Thread):
    """A stream kept open until ``stop``, the way an EventSource keeps it: whenever it ends,
    cannot be opened, answers other than 200 or goes silent for ``silent`` seconds (no event,
    no ping: a dead connection), it is opened again with the id of the last event received as
    ``Last-Event-ID``. ``events``: the table events received, in order, over every connection."""

    def __init__(
        self,
        name: str,
        url: str,
        headers: dict[str, str] | None = None,
        *,
        stop: threading.Event,
        silent: float = 40,
    ):
        super().__init__(name=name, daemon=True)
        self.url = url
        self.headers = headers or {}
        self.stop_event = stop
        self.silent = silent
        self.events: list[Event] = []
        self.last_id: str | None = None
        self.connections = 0
        self.failed_opens = 0  # refused, timed out or answered other than 200
        self.statuses: list[int] = []  # those other answers
        self.silences = 0
        self.error: BaseException | None = None
        self.current: EventReader | None = None  # the connection open now, for ``drop``

    def drop(self) -> None:
        """Closes the connection open now; it is opened again at once with ``Last-Event-ID``,
        as a browser does after a network change."""
        reader = self.current
        if reader is not None:
            reader.close()

    @property
    def reconnects(self) -> int:
        return max(0, self.connections - 1)

    def run(self) -> None:
        try:
            while not self.stop_event.is_set():
                self._connection()
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.error = exc

    def _connection(self) -> None:
        headers = dict(self.headers)
        if self.last_id is not None:
            headers["Last-Event-ID"] = self.last_id
        try:
            reader = EventReader(self.url, headers, timeout=10)
        except (httpx.HTTPError, OSError, TimeoutError):
            self.failed_opens += 1
            time.sleep(0.2)
            return
        self.current = reader
        try:
            if reader.status != 200:
                self.failed_opens += 1
                self.statuses.append(reader.status or 0)
                time.sleep(0.2)
                return
            self.connections += 1
            while not self.stop_event.is_set():
                try:
                    e = reader.next(timeout=0.5)
                except queue.Empty:
                    if time.monotonic() - reader.last_read > self.silent:
                        self.silences += 1
                        return
                    continue
                except EOFError:
                    return
                if e.id is not None:
                    self.last_id = e.id
                if not e.event.startswith("stream."):
                    self.events.append(e)
        finally:
            self.current = None
            reader.close()
