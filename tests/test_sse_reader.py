"""The tests' stream reader (tests/sse.py) leaves no socket for the garbage collector when a
stream is not answered in time and is answered later (a 503 once a failover is over): its
client is closed before it gives up. Left open, the connection went back to the client's pool
and its ResourceWarning, an error in this suite, failed whatever test the collector
ran in (the HA test's failovers, in one CI run)."""

from __future__ import annotations

import gc
import socket
import threading
import time

import pytest

from tests.sse import EventReader


def test_a_stream_answered_after_the_reader_gave_up_leaves_no_socket_open():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        answered = threading.Event()

        def answer_late() -> None:
            conn, _ = server.accept()
            with conn:
                conn.recv(65536)
                time.sleep(1.0)  # after the reader's 0.3 s
                conn.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n")
                answered.set()
                time.sleep(0.5)

        threading.Thread(target=answer_late, daemon=True).start()
        with pytest.raises(TimeoutError):
            EventReader(f"http://127.0.0.1:{port}/events", {}, timeout=0.3)
        answered.wait(5)
        time.sleep(0.7)
    gc.collect()  # an unclosed socket here is an error of this test (pytest's unraisable check)
