"""A small server-sent-events client for the tests: reads a stream in a thread and hands
over its events (``event``, ``id``, ``data`` parsed as JSON) and comments."""

from __future__ import annotations

import json
import queue
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
        self._opened = threading.Event()
        self._client = httpx.Client(timeout=httpx.Timeout(timeout, read=None))
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        if not self._opened.wait(timeout):
            raise TimeoutError(f"{url}: no answer")
        if self.error is not None:
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
                    if line == "":
                        if data or fields:
                            raw = "\n".join(data)
                            self.events.put(Event(fields.get("event", "message"), fields.get("id"), json.loads(raw) if raw else None))
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
            response.close()
        self._client.close()
        self._thread.join(5)
