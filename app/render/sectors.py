"""The elements of the picture (``Drawing``: an element tree's items, numbers written short)
and what is drawn in each player's sector: its band lines, whist columns and sequences, and
the player's name by its edge of the frame."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import Any

from app.render.geometry import ARM, ASCENT, FONT, LH, NAME, PAD, Band, Frame, Sector
from app.render.measure import text_width


def fmt(v: float) -> str:
    return f"{v:.1f}".removesuffix(".0")


class Drawing:
    def __init__(self) -> None:
        self.items: list[ET.Element] = []

    def add(self, tag: str, **attrs: Any) -> ET.Element:
        el = ET.Element(
            tag,
            {
                k.rstrip("_").replace("_", "-"): fmt(v) if isinstance(v, float) else str(v)
                for k, v in attrs.items()
                if v is not None
            },
        )
        self.items.append(el)
        return el

    def text(
        self,
        x: float,
        y: float,
        text: str,
        size: float,
        cls: str,
        *,
        anchor: str = "start",
        rotate: bool = False,
        **data: Any,
    ) -> ET.Element:
        el = self.add(
            "text",
            x=float(x),
            y=float(y),
            font_size=size,
            class_=cls,
            text_anchor=None if anchor == "start" else anchor,
            transform=f"rotate(-90 {fmt(x)} {fmt(y)})" if rotate else None,
            **{f"data_{k}": v for k, v in data.items()},
        )
        el.text = text
        return el

    def line(self, points: Sequence[tuple[float, float]], cls: str = "rule") -> None:
        self.add("polyline", points=" ".join(f"{fmt(x)},{fmt(y)}" for x, y in points), class_=cls)


def draw_sector(d: Drawing, s: Sector, f: Frame, bands: list[Band], closed: bool) -> None:
    """The band lines, the whist columns and the written sequences of one sector."""
    for i, band in enumerate(bands):
        cls = f"seq b{i}" + (" closed" if i == 1 and closed else "")
        if s.vertical:
            _side_band(d, s, f, band, i, cls)
        else:
            _band(d, s, f, band, i, cls)


def _side_band(d: Drawing, s: Sector, f: Frame, band: Band, i: int, cls: str) -> None:
    """A band along a side edge (4 players): x across it, the text rotated to run along it."""
    xa = f.x0 + band.outer if s.side == "left" else f.x1 - band.inner
    reach = f.h * (1 - band.inner / f.half)
    ya, yb = f.cy - reach, f.cy + reach
    step = (yb - ya) / len(band.columns)
    for c, lines in enumerate(band.columns):
        for j, line in enumerate(lines):
            d.text(
                xa + PAD + j * LH + ASCENT * FONT,
                ya + (c + 1) * step - PAD,
                line,
                FONT,
                cls,
                rotate=True,
                seat=s.seat,
                band=i,
            )
        if c:
            edge, depth = (f.x0, band.inner) if s.side == "left" else (f.x1, -band.inner)
            d.line([(edge, ya + c * step), (edge + depth, ya + c * step)], "col")
    if i < 2:
        x = f.x0 + band.inner if s.side == "left" else f.x1 - band.inner
        d.line([(x, ya), (x, yb)])


def _band(d: Drawing, s: Sector, f: Frame, band: Band, i: int, cls: str) -> None:
    """A band along the top or the bottom edge (a 3-player bottom half runs up its side)."""
    down = s.side == "top"
    ya = f.top + band.outer if down else f.bottom - band.inner
    if s.part == "left":
        xa, xb = f.x0 + ARM * (i + 1), f.cx
    elif s.part == "right":
        xa, xb = f.cx, f.x1 - ARM * (i + 1)
    else:
        cut = f.half * band.inner / f.h
        xa, xb = f.x0 + cut, f.x1 - cut
    step = (xb - xa) / len(band.columns)
    for c, lines in enumerate(band.columns):
        for j, line in enumerate(lines):
            d.text(
                xa + c * step + PAD, ya + PAD + j * LH + ASCENT * FONT, line, FONT, cls, seat=s.seat, band=i
            )
        if c:
            edge = f.top if down else f.bottom
            d.line(
                [
                    (xa + c * step, edge),
                    (xa + c * step, f.top + band.inner if down else f.bottom - band.inner),
                ],
                "col",
            )
    if i == 2:
        return
    # the line between this band and the next one in
    if s.part:
        arm = f.x0 + ARM * (i + 1) if s.part == "left" else f.x1 - ARM * (i + 1)
        diag = f.cy - f.h * abs(f.cx - arm) / f.half
        d.line([(arm, diag), (arm, f.bottom - band.inner), (f.cx, f.bottom - band.inner)])
    else:
        cut = f.half * band.inner / f.h
        yy = f.top + band.inner if down else f.bottom - band.inner
        d.line([(f.x0 + cut, yy), (f.x1 - cut, yy)])


def name_room(s: Sector, f: Frame) -> float:
    if s.vertical:
        return 2 * f.h
    if s.part:
        return f.half
    return f.x1 - f.x0


def draw_name(d: Drawing, s: Sector, f: Frame, name: str, dealer: bool) -> None:
    w = text_width(name, NAME)
    if s.vertical:
        x = f.x0 - 6 if s.side == "left" else f.x1 + 6 + ASCENT * NAME
        d.text(x, f.cy, name, NAME, "name", anchor="middle", rotate=True, seat=s.seat)
        if dealer:
            d.add("circle", cx=x - 0.3 * NAME, cy=f.cy + w / 2 + 9, r=4.0, class_="dealer")
        return
    if s.part:
        cx = (f.x0 + f.cx) / 2 if s.part == "left" else (f.cx + f.x1) / 2
    else:
        cx = f.cx
    y = f.top - 7 if s.side == "top" else f.bottom + 7 + ASCENT * NAME
    d.text(cx, y, name, NAME, "name", anchor="middle", seat=s.seat)
    if dealer:
        d.add("circle", cx=cx - w / 2 - 9, cy=y - 0.3 * NAME, r=4.0, class_="dealer")
