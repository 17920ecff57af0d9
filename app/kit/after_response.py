"""Work that waits until the request's response has been sent.

A use case that leaves work for later (a finished rated table, for the rater) asks for it
here, from the worker thread it runs in: its callback runs on the event loop once the
response is out, so that the later work (in the thread pool, sharing the GIL) does not delay
the answer the client waits for. app/kit/middleware/request_context.py opens a request's
list (``begin``) and runs it when the request ends (``finish``), whether it succeeded or not.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from contextvars import ContextVar, Token

log = logging.getLogger("prefscore.api")


class _Later:
    """One request's callbacks: None once the request has ended (a use case still running in
    its thread after the client left runs its own)."""

    __slots__ = ("lock", "callbacks")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.callbacks: list[Callable[[], None]] | None = []


# The worker thread of a request runs in a copy of its context: the same ``_Later``.
_LATER: ContextVar[_Later | None] = ContextVar("prefscore_after_response", default=None)


def after_response(callback: Callable[[], None]) -> bool:
    """Run ``callback`` on the event loop once the current request's response has been sent;
    False when there is no request (or it has ended): the caller then runs it itself."""
    later = _LATER.get()
    if later is None:
        return False
    with later.lock:
        if later.callbacks is None:
            return False
        later.callbacks.append(callback)
    return True


def begin() -> Token[_Later | None]:
    return _LATER.set(_Later())


def finish(token: Token[_Later | None]) -> None:
    """The request has ended: its callbacks run, in order (one that fails is logged)."""
    later = _LATER.get()
    _LATER.reset(token)
    if later is None:
        return
    with later.lock:
        callbacks, later.callbacks = later.callbacks, None
    for callback in callbacks or ():
        try:
            callback()
        except Exception:  # noqa: BLE001 - the response is sent; the work has its own fallback
            log.exception("work left for after the response failed")
