"""Work left for after the response (app/kit/after_response.py): asked for from the use
case's worker thread, it runs once the response has been sent, also when the request failed,
and never outside a request (the caller then runs it itself)."""

from __future__ import annotations

import asyncio

import anyio.to_thread

from app.kit import after_response
from app.kit.middleware.outer_layer import OuterLayer
from app.kit.settings import Settings


def _request(app, events):
    scope = {"type": "http", "method": "POST", "path": "/x", "headers": [], "query_string": b""}

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        events.append(message["type"])

    asyncio.run(OuterLayer(app, Settings(metrics_enabled=False))(scope, receive, send))


def test_outside_a_request_the_caller_runs_its_work_itself():
    assert after_response.after_response(lambda: None) is False


def test_work_asked_for_in_the_worker_thread_runs_after_the_response():
    events: list[str] = []

    async def app(scope, receive, send):
        def use_case():  # in the thread pool, as a use case runs
            assert after_response.after_response(lambda: events.append("first"))
            assert after_response.after_response(lambda: events.append("second"))

        await anyio.to_thread.run_sync(use_case)
        await send({"type": "http.response.start", "status": 201, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    _request(app, events)
    assert events == ["http.response.start", "http.response.body", "first", "second"]
    assert after_response.after_response(lambda: None) is False  # the request has ended


def test_it_runs_after_a_failed_request_too_and_one_failing_callback_stops_none():
    events: list[str] = []

    async def app(scope, receive, send):
        def boom():
            raise RuntimeError("left work failed")

        after_response.after_response(boom)
        after_response.after_response(lambda: events.append("ran"))
        raise RuntimeError("the request failed")

    _request(app, events)
    assert events[-1] == "ran" and "http.response.start" in events  # the last-resort 500 first
