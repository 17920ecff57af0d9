"""A webhook receiver on a free 127.0.0.1 port, on a thread of the test process: it keeps
every request (headers and body) and answers as its ``answer`` function says."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Answer = Callable[[dict[str, str], bytes], tuple[int, dict[str, str], bytes]]


class Receiver:
    def __init__(self, answer: Answer | None = None, *, delay: float = 0.0):
        self.answer: Answer = answer or (lambda _h, _b: (204, {}, b""))
        self.delay = delay  # seconds each answer takes: deliveries stay in flight that long
        self.in_progress = 0
        self.received: list[tuple[dict[str, str], bytes]] = []
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                headers = {k.lower(): v for k, v in self.headers.items()}
                headers["x-path"] = self.path
                with outer.lock:
                    outer.received.append((headers, body))
                    outer.in_progress += 1
                try:
                    if outer.delay:
                        time.sleep(outer.delay)
                    status, extra, text = outer.answer(headers, body)
                finally:
                    with outer.lock:
                        outer.in_progress -= 1
                self.send_response(status)
                for k, v in extra.items():
                    self.send_header(k, v)
                self.send_header("content-length", str(len(text)))
                self.end_headers()
                self.wfile.write(text)

            def log_message(self, *_a: Any) -> None:
                pass

        class Quiet(ThreadingHTTPServer):
            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # a sender killed mid-request resets its connection: expected here

        self.server = Quiet(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def events(self) -> list[dict[str, Any]]:
        with self.lock:
            return [json.loads(b) for _h, b in self.received]

    def wait_for(self, count: int, timeout: float = 20) -> list[tuple[dict[str, str], bytes]]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.received) >= count:
                    return list(self.received)
            time.sleep(0.02)
        raise AssertionError(f"{len(self.received)} deliveries received, {count} expected")

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
