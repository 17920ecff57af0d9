"""Drawing pictures outside the serving interpreter: a small pool of worker processes.

A long table's SVG and every PNG take from a tenth of a second to seconds of CPU. Drawn in
the serving process, they would hold its interpreter (and with it the event loop, /health
and every other request) for as long. Here they are drawn in worker processes (pebble's
process pool, started with ``spawn`` on first use and stopped with the app): the serving
process only waits for the answer, in its request thread.

The work is bounded three ways:
- **at once**: one picture per worker (``picture_workers``); a request that finds every
  worker busy waits at most ``picture_wait`` seconds, with at most ``picture_queue`` others,
  then gets 503 with Retry-After (``DrawingBusy``);
- **per picture**: a table of more than ``picture_max_deals`` deals is not drawn (409), a
  PNG has at most ``picture_max_pixels`` pixels, and a picture that takes more than
  ``picture_timeout`` seconds has its worker killed and replaced (503);
- **kept**: the pictures drawn are cached by ETag in at most ``picture_cache_bytes`` bytes.

An SVG of a short table (``picture_inline_deals`` deals at most: a few milliseconds) is drawn
in the serving process; sending it to a worker would cost more than drawing it.
"""

from __future__ import annotations

import logging
import multiprocessing
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import CancelledError
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from pebble import ProcessExpired, ProcessPool

from app.kit.caching import Kept
from app.kit.errors import Conflict, Unavailable
from app.kit.i18n import DEFAULT_LANGUAGE, Lang, language
from app.kit.i18n.game_words import CONVENTIONS, MATCH_BONUSES
from app.kit.settings import Settings
from app.render import Drawn, draw_sheet
from app.rules import ExactSheet, Sentence

log = logging.getLogger(__name__)

RETRY_AFTER = 2  # seconds: about one long picture's drawing


class DrawingBusy(Unavailable):
    """No worker could draw the picture in time: retry after ``retry_after`` seconds."""

    def __init__(self, detail: str, retry_after: int = RETRY_AFTER):
        super().__init__(detail, retry_after)


class DrawnSvg(bytes):
    """A drawn SVG's UTF-8, with its size as the renderer laid it out: its PNG is rasterised
    at that size (kept and weighed in the cache as the bytes it is)."""

    width: float
    height: float

    def __new__(cls, body: bytes, width: float, height: float) -> DrawnSvg:
        svg = super().__new__(cls, body)
        svg.width, svg.height = width, height
        return svg

    @classmethod
    def of(cls, drawn: Drawn) -> DrawnSvg:
        return cls(drawn.svg.encode(), drawn.width, drawn.height)

    def __reduce__(self) -> tuple[Any, ...]:  # to and from a worker process
        return DrawnSvg, (bytes(self), self.width, self.height)


def sheet_drawing(render: dict[str, Any], lang: Lang) -> Drawn:
    """The renderer (app/render: the engine's objects in ``render``) in the app's language,
    with the game's words of the catalogues."""
    render = dict(render)
    convention = render.pop("convention", None)
    title = lang._(CONVENTIONS[convention]) if convention in CONVENTIONS else None
    return draw_sheet(**render, lang=lang, convention=title, match_bonuses=MATCH_BONUSES)


def render_sheet(sheet: Mapping[str, Any], *, lang: Lang | None = None, **render: Any) -> str:
    """The SVG text of a sheet of the API's shape with its players' names (``app.rules.sheet``'s,
    each player with ``name``) and the other arguments of ``app.render.draw_sheet``, in
    Russian unless ``lang`` says otherwise."""
    names = [str(p.get("name", f"#{p['seat']}")) for p in sorted(sheet["players"], key=lambda p: p["seat"])]
    drawing = {"sheet": ExactSheet.from_dict(sheet), "names": names, **render}
    return sheet_drawing(drawing, lang or language(DEFAULT_LANGUAGE)).svg


# --- what the workers run (module-level functions: a spawned worker imports them by name)


def draw_svg(render: dict[str, Any], lang: str) -> DrawnSvg:
    """The SVG of the engine's objects in ``render`` in language ``lang``, as UTF-8."""
    return DrawnSvg.of(sheet_drawing(render, language(lang)))


def draw_png(svg: DrawnSvg, max_pixels: int) -> bytes:
    from app.render.png import svg_to_png

    return svg_to_png(svg.decode(), svg.width, svg.height, max_pixels)


def draw_both(render: dict[str, Any], lang: str, max_pixels: int) -> tuple[DrawnSvg, bytes]:
    """The SVG and its PNG in one trip to the worker."""
    svg = draw_svg(render, lang)
    return svg, draw_png(svg, max_pixels)


class DrawnCache(Kept[str, Any]):
    """Pictures already drawn, by ETag: a picture is drawn once per revision of its table,
    however many viewers poll it. Least recently used first out, bounded by the total size
    of the pictures kept in bytes (each weighed by ``len``: the SVG's UTF-8 and the PNG's
    bytes) and by their number (app/kit/caching.py). When several requests want a picture
    that is not drawn yet, one draws it and the others wait for it."""

    def __init__(self, max_bytes: int = 32 * 1024 * 1024, max_items: int = 512):
        super().__init__(max_items, max_weight=max_bytes, weigh=len)

    def get_or_draw(self, key: str, draw: Callable[[], Any]) -> Any:
        return self.get_or_make(key, draw)


class Pictures:
    """The pictures of one app: their cache and the workers that draw them."""

    def __init__(self, settings: Settings):
        self.workers = max(1, settings.picture_workers)
        self.wait = max(0.0, settings.picture_wait)
        self.queue = max(0, settings.picture_queue)
        self.timeout = settings.picture_timeout
        self.max_deals = settings.picture_max_deals
        self.max_pixels = settings.picture_max_pixels
        self.inline_deals = settings.picture_inline_deals
        self.cache = DrawnCache(max_bytes=settings.picture_cache_bytes, max_items=4096)
        self._slots = threading.BoundedSemaphore(self.workers)
        self._lock = threading.Lock()
        self._waiting = 0
        self._pool: ProcessPool | None = None

    # --- the pool

    def _get_pool(self) -> ProcessPool:
        with self._lock:
            if self._pool is None or not self._pool.active:
                self._pool = ProcessPool(
                    max_workers=self.workers, context=multiprocessing.get_context("spawn")
                )
            return self._pool

    def close(self) -> None:
        """Stop the workers (the app's shutdown); a picture drawn afterwards starts others."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.stop()
            pool.join(timeout=10)

    @property
    def started(self) -> bool:
        return self._pool is not None

    def run(self, function: Callable[..., Any], arguments: Callable[[], tuple[Any, ...]]) -> Any:
        """``function(*arguments())`` in a worker, within the bounds (module docstring). The
        arguments are made once a worker is free: a picture refused as busy costs no read of
        its table's drawing data."""
        with self._lock:
            if self._waiting >= self.queue and self.queue_full():
                raise DrawingBusy("too many pictures are waiting to be drawn; retry shortly")
            self._waiting += 1
        try:
            free = self._slots.acquire(timeout=self.wait)
        finally:
            with self._lock:
                self._waiting -= 1
        if not free:
            raise DrawingBusy(
                Sentence("every picture worker was busy for {wait:g} s; retry shortly", wait=self.wait)
            )
        try:
            future = self._get_pool().schedule(function, args=arguments(), timeout=self.timeout)
            try:
                return future.result()
            except FutureTimeout:
                # pebble has killed the worker and started another in its place
                log.warning("a picture took more than %g s to draw; its worker was replaced", self.timeout)
                raise DrawingBusy(
                    Sentence("the picture took more than {timeout:g} s to draw", timeout=self.timeout)
                ) from None
            except ProcessExpired as exc:
                log.warning("a picture worker stopped: %s", exc)
                raise DrawingBusy("the picture's worker stopped; retry shortly") from None
            except CancelledError:  # the pool was stopped (the app is shutting down)
                raise DrawingBusy("the service is stopping; retry shortly") from None
        finally:
            self._slots.release()

    def queue_full(self) -> bool:
        """True when no worker is free (only then does a request wait in the queue)."""
        if self._slots.acquire(blocking=False):
            self._slots.release()
            return False
        return True

    # --- the pictures

    def draw(
        self,
        fmt: str,
        keys: tuple[str, str],
        deals: int,
        render: Callable[[], dict[str, Any]],
        lang: str,
        inline: Callable[[], DrawnSvg],
    ) -> bytes:
        """The picture ``fmt`` ("svg" or "png") of a table of ``deals`` deals: from the cache
        (``keys``: the SVG's ETag, the PNG's), else drawn once. ``render()`` gives the
        arguments of ``app.render.draw_sheet`` (the engine's objects; without the language,
        ``lang`` is its code) for a worker, ``inline()`` draws the SVG here (short tables)."""
        if deals > self.max_deals:
            raise Conflict(
                Sentence(
                    "the sheet of a table of more than {max_deals} deals is not drawn (this one has {deals})",
                    max_deals=self.max_deals,
                    deals=deals,
                ),
                max_deals=self.max_deals,
            )
        svg_key, png_key = keys

        def svg() -> DrawnSvg:
            if deals <= self.inline_deals:
                return inline()
            return self.run(draw_svg, lambda: (render(), lang))

        if fmt == "svg":
            return self.cache.get_or_draw(svg_key, svg)

        def png() -> bytes:
            done = self.cache.get(svg_key)
            if done is not None:
                return self.run(draw_png, lambda: (done, self.max_pixels))
            svg_body, png_body = self.run(draw_both, lambda: (render(), lang, self.max_pixels))
            self.cache.put(svg_key, svg_body)
            return png_body

        return self.cache.get_or_draw(png_key, png)
