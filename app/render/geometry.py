"""The geometry of the paper sheet: one sector per player between the lines from the circle
to the corners, each nested from the centre out as bands (mountain, pool, whists), and the
frame tall enough for every band's wrapped sequences (app/render/svg.py draws them)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.render.measure import wrap

LAYOUTS = {"phone": 360, "wide": 640}
DEFAULT_LAYOUT = "phone"
WIDTH = LAYOUTS[DEFAULT_LAYOUT]
FONT = 14  # sequences
LH = 18  # their line height
SMALL = 13  # the heading, legends, balances
NAME = 15
PAD = 4
RADIUS = 22
ARM = 6  # the width of each band where a 3-player bottom sector runs up its side
NAME_STRIP = 24  # above and below the frame (and beside it, with 4 players)
MIN_COLUMN = 3 * FONT  # a narrower column means the sheet must be taller
FONT_FAMILY = "DejaVu Sans Mono, Menlo, Consolas, Liberation Mono, monospace"
ASCENT = 0.9  # of a font size, above the baseline (the overlap check's estimate too)
MINUS = "−"


# --- the sectors -------------------------------------------------------------------------
@dataclass(frozen=True)
class Sector:
    seat: int
    side: str  # the sheet's edge it is on: "top", "bottom", "left", "right"
    part: str = ""  # 3 players: "left" or "right" half of the bottom (an L of bands)

    @property
    def vertical(self) -> bool:
        return self.side in ("left", "right")


def sectors_of(n: int) -> list[Sector]:
    """Seats clockwise from the bottom (3 players: from the bottom left)."""
    if n == 3:
        return [Sector(0, "bottom", "left"), Sector(1, "top"), Sector(2, "bottom", "right")]
    if n == 4:
        return [Sector(0, "bottom"), Sector(1, "left"), Sector(2, "top"), Sector(3, "right")]
    raise ValueError("a sheet has 3 or 4 players")


@dataclass(frozen=True)
class Frame:
    """The rectangle: x from x0 to x1, y from top to top + 2h; the circle at its centre."""

    x0: float
    x1: float
    top: float
    h: float

    @property
    def cx(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def cy(self) -> float:
        return self.top + self.h

    @property
    def bottom(self) -> float:
        return self.top + 2 * self.h

    @property
    def half(self) -> float:
        return self.cx - self.x0


def _position(sector: Sector, f: Frame) -> tuple[float, float]:
    """Where a sector is, to order the whist columns toward the opponents."""
    if sector.part:
        return (f.x0 + f.cx) / 2 if sector.part == "left" else (f.cx + f.x1) / 2, f.bottom
    return {"top": (f.cx, f.top), "bottom": (f.cx, f.bottom), "left": (f.x0, f.cy), "right": (f.x1, f.cy)}[
        sector.side
    ]


def whist_order(sector: Sector, all_sectors: Sequence[Sector], f: Frame) -> list[int]:
    """The opponents in column order: along the band, nearest first (left to right on a
    horizontal band, top to bottom on a vertical one)."""
    axis = 1 if sector.vertical else 0
    others = [s for s in all_sectors if s.seat != sector.seat]
    return [s.seat for s in sorted(others, key=lambda s: _position(s, f)[axis])]


def polygon(sector: Sector, f: Frame) -> list[tuple[float, float]]:
    x0, x1, t, b, cx, cy = f.x0, f.x1, f.top, f.bottom, f.cx, f.cy
    if sector.part == "left":
        return [(x0, t), (cx, cy), (cx, b), (x0, b)]
    if sector.part == "right":
        return [(cx, cy), (x1, t), (x1, b), (cx, b)]
    return {
        "top": [(x0, t), (x1, t), (cx, cy)],
        "right": [(x1, t), (x1, b), (cx, cy)],
        "bottom": [(x1, b), (x0, b), (cx, cy)],
        "left": [(x0, b), (x0, t), (cx, cy)],
    }[sector.side]


def band_length(sector: Sector, f: Frame, band: int, depth: float) -> float:
    """The length of a band's text at ``depth`` from the sector's edge (its inner side,
    where a triangle's band is shortest)."""
    if sector.part:
        return f.half - ARM * (band + 1)
    if sector.vertical:
        return 2 * f.h * (1 - depth / f.half)
    return (f.x1 - f.x0) * (1 - depth / f.h)


def depth_limit(sector: Sector, f: Frame) -> float:
    """How deep a sector's bands may go: they stop short of the circle."""
    return (f.half if sector.vertical else f.h) - RADIUS - 2 * PAD


@dataclass
class Band:
    outer: float  # depth from the sector's edge
    inner: float
    columns: list[list[str]]  # the wrapped lines of each column


def fill(sector: Sector, f: Frame, contents: Sequence[Sequence[Sequence[str]]]) -> list[Band] | None:
    """The bands of a sector (whists, pool, mountain from the edge in), each as deep as its
    wrapped text needs; None when they do not fit this frame."""
    bands = []
    outer = 0.0
    for i, columns in enumerate(contents):
        lines = 1
        while True:
            # a deeper band is shorter in a triangle, so it may need more lines again: up to
            # the depth that holds what it needs (or too short a column: a taller frame)
            inner = outer + 2 * PAD + lines * LH
            column = band_length(sector, f, i, inner) / len(columns) - 2 * PAD
            if column < MIN_COLUMN:
                return None
            wrapped = [wrap(tokens, column, FONT) for tokens in columns]
            need = max(len(w) for w in wrapped)
            if need <= lines:
                break
            lines = need
        bands.append(Band(outer, inner, wrapped))
        outer = inner
    if outer > depth_limit(sector, f):
        return None
    return bands


def align(halves: Sequence[Sector], f: Frame, bands: Sequence[list[Band]]) -> dict[int, list[Band] | None]:
    """The two halves of a 3-player sheet's bottom share their band lines, as a sheet is
    ruled before the game: each band as deep as the deeper of the two (their text's width
    does not depend on the depth there)."""
    out: dict[int, list[Band] | None] = {}
    depths = [max(b[i].inner - b[i].outer for b in bands) for i in range(len(bands[0]))]
    for sector, own in zip(halves, bands):
        outer, ruled = 0.0, []
        for band, depth in zip(own, depths):
            ruled.append(Band(outer, outer + depth, band.columns))
            outer += depth
        out[sector.seat] = ruled if outer <= depth_limit(sector, f) else None
    return out


def solve(
    x0: float, x1: float, top: float, n: int, contents: Mapping[int, Any]
) -> tuple[Frame, dict[int, list[Band]]]:
    """The frame (by its half-height, from 150 or a little under half its width) whose sectors all
    fit, within 2% of the smallest: doubled until it fits, then halved in between. A taller
    frame only ever gives the bands more room, so this finds it in a few layouts."""

    def layout(h: float) -> tuple[Frame, dict[int, list[Band] | None]]:
        f = Frame(x0, x1, top, h)
        laid = {s.seat: fill(s, f, contents[s.seat]) for s in sectors_of(n)}
        halves = [s for s in sectors_of(n) if s.part]
        if halves and all(laid[s.seat] is not None for s in halves):
            laid.update(align(halves, f, [laid[s.seat] for s in halves]))  # type: ignore[misc]
        return f, laid

    def fits(laid: Mapping[int, list[Band] | None]) -> bool:
        return all(v is not None for v in laid.values())

    low, high = 0.0, min(0.42 * (x1 - x0), 150.0)  # a short game's wide sheet is not all empty paper
    best = layout(high)
    while not fits(best[1]):
        low, high = high, high * 2
        best = layout(high)
    if low:
        while high - low > max(2.0, 0.02 * high):
            middle = (low + high) / 2
            tried = layout(middle)
            if fits(tried[1]):
                high, best = middle, tried
            else:
                low = middle
    return best  # type: ignore[return-value]


# --- the element tree --------------------------------------------------------------------
