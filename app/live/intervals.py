"""A step of the live updates repeated on an interval for the life of the process (reading
the revisions, checking the open streams' keys): one loop, so each watcher says only what its
step is and what a failure of it means."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable


async def every(
    interval: float, step: Callable[[], Awaitable[None]], failed: Callable[[Exception], None]
) -> None:
    """``step()`` every ``interval`` seconds (at least 10 ms apart), forever; an error of a
    step goes to ``failed`` and the next step is tried on time."""
    interval = max(0.01, interval)
    while True:
        await asyncio.sleep(interval)
        try:
            await step()
        except Exception as exc:  # noqa: BLE001  (the database is away: try again next time)
            failed(exc)
