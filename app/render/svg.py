"""The paper sheet ("пулька") as SVG, drawn the way players draw it: a pure function of the
engine's objects — its sheet (``app.rules.sheet``, with player names), the deals' entries,
the settlement — and a language.

The shape: a rectangle with the pool target in a circle at the centre and lines from the
circle to the corners, one sector per player. Each sector is nested from the centre
outwards as mountain, pool, whists, its bands bounded by lines parallel to its edge of the
sheet; the whists band is split into one column per opponent, each written toward the
opponent it is on. With 4 players the four sectors are the four triangles between the lines
to the corners (the left and right players' numbers written along their edges, as on paper
turned to them). With 3 players the lines run to the two upper corners and straight down:
the player across has the top triangle, the other two a half of the bottom each, with their
bands running along the bottom edge and thinly up their side of the sheet.

Text is laid out, never guessed: every band is as deep as its wrapped sequences need at
the width the band has there, and a sheet whose bands do not fit is drawn taller (the
circle stays at the centre), so nothing overlaps however long the game; the font size never
changes. Layouts: "phone" is 360 units wide, so a size in units is CSS pixels on a 360 px
screen; "wide" is 640 units, for a desktop, where it is shown at its own size (not the
phone's picture enlarged). The document is built as an element tree.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from app.render.measure import text_width, wrap, wrap_words
from app.render.sequences import Amount, Played, exact, fold, reconcile, sequence_text, written
from app.render.words import Language
from app.rules import Settlement

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
def _fmt(v: float) -> str:
    return f"{v:.1f}".removesuffix(".0")


class Drawing:
    def __init__(self) -> None:
        self.items: list[ET.Element] = []

    def add(self, tag: str, **attrs: Any) -> ET.Element:
        el = ET.Element(
            tag,
            {
                k.rstrip("_").replace("_", "-"): _fmt(v) if isinstance(v, float) else str(v)
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
            transform=f"rotate(-90 {_fmt(x)} {_fmt(y)})" if rotate else None,
            **{f"data_{k}": v for k, v in data.items()},
        )
        el.text = text
        return el

    def line(self, points: Sequence[tuple[float, float]], cls: str = "rule") -> None:
        self.add("polyline", points=" ".join(f"{_fmt(x)},{_fmt(y)}" for x, y in points), class_=cls)


def initials(names: Sequence[str]) -> list[str]:
    """Each seat's initial, as players mark a sheet; a repeated initial takes the seat's number."""
    first = [(name.strip()[:1] or "?").upper() for name in names]
    return [c if first.count(c) == 1 else f"{c}{seat + 1}" for seat, c in enumerate(first)]


def _signed(lang: Language, value: Amount) -> str:
    v = exact(value)
    return ("+" if v > 0 else "") + lang.number(v)


def _allpass_text(lang: Language, allpass: Mapping[str, Any]) -> tuple[str, bool]:
    cost = allpass.get("next_trick_cost")
    if allpass.get("compulsory"):
        return lang._("Compulsory all-pass: trick {cost}", cost=cost), True
    level = allpass.get("level", 1)
    details = []
    if cost is not None:
        details.append(lang._("trick {cost}", cost=cost))
    low = allpass.get("min_contract")
    if low is not None:
        details.append(lang._("play from {contract}", contract=low))
    text = lang._("All-pass ×{level}", level=level)
    return (text + ": " + ", ".join(details) if details else text), level > 1


@dataclass(frozen=True)
class Drawn:
    """An SVG document and its size in units (a PNG of it is rasterised at that size)."""

    svg: str
    width: float
    height: float


def _balances(settlement: Settlement | Mapping[str, Any]) -> dict[int, Amount]:
    """Each seat's balance as the settlement pays it: rounded to cents."""
    if isinstance(settlement, Settlement):
        return {seat: Fraction(c, 100) for seat, c in enumerate(settlement.cents)}
    return {p["seat"]: exact(p["balance"]) for p in settlement.get("players", [])}


def _penalty_line(lang: Language, pen: Mapping[str, Any], names: Sequence[str]) -> str:
    """ "deal 5: Boris, 10 to the mountain (clause 10.3): lead out of turn"."""
    amount = written(exact(pen["amount"]), lang)
    to = pen.get("to")
    if to == "whists":
        where = lang._("{amount} whists from each other player", amount=amount)
    elif to == "apart":
        where = lang._("{amount} kept apart", amount=amount)
    else:
        where = lang._("{amount} to the mountain", amount=amount)
    line = lang._(
        "deal {number}: {name}, {where}", number=pen["number"], name=names[pen["offender"]], where=where
    )
    if pen.get("clause"):
        line += " " + lang._("(clause {clause})", clause=pen["clause"])
    if pen.get("reason"):
        line += ": " + str(pen["reason"])
    return line


def draw_sheet(
    sheet: Mapping[str, Any],
    *,
    lang: Language,
    history: Sequence[Played | Sequence[Any]] | None = None,
    settlement: Settlement | Mapping[str, Any] | None = None,
    pool_target: int | None = None,
    title: str | None = None,
    convention: str | None = None,
    layout: str = DEFAULT_LAYOUT,
    match_bonuses: Mapping[str, str] | None = None,
    penalties: Sequence[Mapping[str, Any]] | None = None,
) -> Drawn:
    """The sheet as an SVG document, with its size.

    ``sheet``: the engine's sheet (``app.rules.sheet``: exact amounts), players with
    ``name``. ``history``: the deals in order, each ``Played`` (its entries and, for
    piter_races, its game) or its entry list; without it each value is written as a single
    number. ``settlement``: the engine's settlement, whose balances (rounded to cents) are
    drawn when the game is finished. ``convention``: the convention's name, in the reader's
    language, first in the heading. ``pool_target``: written in the circle. ``lang``: the
    words and numbers. ``layout``: "phone" or "wide". ``match_bonuses``: the msgid of each
    match bonus kind (else the kind's own name). ``penalties``: the judge's penalties in
    order, each ``number``, ``offender``, ``amount``, ``to`` (the kind of entry it wrote:
    mountain, whists or apart), and ``clause`` and ``reason``: listed below the sheet, and the
    values they wrote marked "*" (docs/rules.md §15).
    """
    width = float(LAYOUTS[layout])
    players = sorted(sheet["players"], key=lambda p: p["seat"])
    n = len(players)
    names = [str(p.get("name", f"#{p['seat']}")) for p in players]
    marks = initials(names)
    seqs = fold(n, history or [])
    sectors = sectors_of(n)
    finished = bool(sheet.get("finished"))
    d = Drawing()
    inner_w = width - 2 * PAD
    y: float = PAD

    def paragraph(text: str, size: float, cls: str, indent: float = PAD) -> None:
        nonlocal y
        for line in wrap_words(text, width - indent - PAD, size):
            d.text(indent, y + ASCENT * size, line, size, cls)
            y += size * 1.3

    # -- the heading: title, target, deals, game, who deals, the all-pass level -----------
    if title:
        paragraph(title, NAME, "title")
    facts = [convention] if convention else []
    if pool_target is not None:
        facts.append(lang._("Pool to {target}", target=pool_target))
    count = int(sheet.get("deal_count", 0))
    facts.append(lang.ngettext("{n} deal", "{n} deals", count))
    match = sheet.get("match")
    if match:
        facts.append(lang._("game {game} of {games}", game=sheet.get("game", 1), games=match.get("games")))
    dealer = sheet.get("next_dealer")
    if finished:
        facts.append(lang._("game over"))
    elif dealer is not None and 0 <= dealer < n:
        facts.append(lang._("deals next: {name}", name=names[dealer]))
    paragraph(" · ".join(facts), SMALL, "head")
    if not finished:
        text, hot = _allpass_text(lang, sheet.get("allpass", {}))
        lines = wrap_words(text, inner_w - 2 * PAD, FONT)
        d.add(
            "rect",
            x=float(PAD),
            y=float(y),
            width=inner_w,
            height=float(len(lines) * LH + PAD),
            class_="allpass hot" if hot else "allpass",
        )
        ty = y + PAD / 2
        for line in lines:
            d.text(2 * PAD, ty + ASCENT * FONT, line, FONT, "allpass-text")
            ty += LH
        y = ty + PAD + PAD / 2

    # -- the sheet ----------------------------------------------------------------------
    side_names = n == 4
    x0 = NAME_STRIP if side_names else 1.0
    x1 = width - (NAME_STRIP if side_names else 1.0)
    top = y + NAME_STRIP
    contents: dict[int, list[list[list[str]]]] = {}
    probe = Frame(x0, x1, top, 1.0)
    orders = {s.seat: whist_order(s, sectors, probe) for s in sectors}
    closed = [bool(p.get("pool_closed")) for p in players]
    for s in sectors:
        p = players[s.seat]
        whists = [
            sequence_text(
                reconcile(seqs.whists[s.seat][j], p["whists"].get(str(j), 0)),
                lang,
                seqs.marked("whists", s.seat, j),
            )
            for j in orders[s.seat]
        ]
        pool = sequence_text(reconcile(seqs.pool[s.seat], p["pool"]), lang)
        if closed[s.seat] and pool:
            pool = pool[:-1] + [pool[-1] + " ✓"]
        mountain = sequence_text(
            reconcile(seqs.mountain[s.seat], p["mountain"]), lang, seqs.marked("mountain", s.seat)
        )
        contents[s.seat] = [whists, [pool], [mountain]]
    f, laid = solve(x0, x1, top, n, contents)

    for s in sectors:
        d.add(
            "polygon",
            points=" ".join(f"{_fmt(px)},{_fmt(py)}" for px, py in polygon(s, f)),
            class_=f"sector s{s.seat % 2}",
            data_seat=s.seat,
        )
    for s in sectors:
        _draw_sector(d, s, f, laid[s.seat], closed[s.seat])

    # the circle and the target
    d.add("circle", cx=f.cx, cy=f.cy, r=float(RADIUS), class_="centre")
    if pool_target is not None:
        label = str(pool_target)
        size = min(17.0, (2 * RADIUS - 2 * PAD) / max(text_width(label, 1), 0.1))
        d.text(f.cx, f.cy + 0.35 * size, label, round(size, 1), "target", anchor="middle")

    # the names, outside the frame by their edge; an initial where the name does not fit
    legend = []
    for s in sectors:
        room = _name_room(s, f)
        name = names[s.seat]
        shown = name if text_width(name, NAME) <= room - 2 * PAD - 12 else marks[s.seat]
        if shown != name:
            legend.append(lang._("{initial} — {name}", initial=shown, name=name))
        _draw_name(d, s, f, shown, dealer == s.seat and not finished)
    y = f.bottom + NAME_STRIP + PAD

    # -- below: the legend, the match, the final balances --------------------------------
    for line in legend:
        paragraph(line, SMALL, "legend")
    notes = [lang._("From the circle out: mountain, pool, whists (written toward the player they are on).")]
    if any(closed):
        notes.append(lang._("✓ the pool is closed."))
    if dealer is not None and not finished:
        notes.append(lang._("● deals next."))
    if penalties:
        notes.append(lang._("* written by a penalty."))
    paragraph(" ".join(notes), SMALL, "legend")

    if penalties:
        y += PAD
        paragraph(lang._("Penalties"), SMALL, "head strong-head")
        for pen in penalties:
            paragraph(_penalty_line(lang, pen, names), SMALL, "legend", 2 * PAD)

    if match and match.get("bonuses"):
        y += PAD
        paragraph(lang._("Match bonuses"), SMALL, "head strong-head")
        for b in match["bonuses"]:
            game = lang._("game {game}", game=b["game"]) if b.get("game") is not None else lang._("match")
            msgid = (match_bonuses or {}).get(b["kind"])
            kind = lang._(msgid) if msgid else str(b["kind"])
            paragraph(
                f"{game}: {kind} — {names[b['seat']]} {_signed(lang, b['amount'])}", SMALL, "legend", 2 * PAD
            )

    if finished and settlement is not None:
        y += PAD
        paragraph(lang._("Final settlement"), SMALL + 1, "head strong-head")
        by_seat = _balances(settlement)
        for seat in range(n):
            v = by_seat.get(seat, 0)
            amount = _signed(lang, v)
            aw = text_width(amount, FONT)
            rows = wrap_words(names[seat], width - 4 * PAD - aw - 8, FONT)
            d.text(
                width - PAD,
                y + ASCENT * FONT,
                amount,
                FONT,
                "num pos" if v > 0 else "num neg" if v < 0 else "num",
                anchor="end",
            )
            for row in rows:
                d.text(PAD, y + ASCENT * FONT, row, FONT, "balance-name")
                y += LH
    height = y + PAD

    label = lang._("Pulka: {names}", names=", ".join(names))
    root = ET.Element(
        "svg",
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "viewBox": f"0 0 {_fmt(width)} {height:.0f}",
            "width": _fmt(width),
            "height": f"{height:.0f}",
            "role": "img",
            "aria-label": label,
            "font-family": FONT_FAMILY,
            "data-layout": layout,
            "lang": lang.code,
        },
    )
    ET.SubElement(root, "title").text = label
    ET.SubElement(root, "style").text = STYLE
    ET.SubElement(
        root, "rect", {"x": "0", "y": "0", "width": _fmt(width), "height": f"{height:.0f}", "fill": "#ffffff"}
    )
    root.extend(d.items)
    return Drawn(ET.tostring(root, encoding="unicode"), width, float(f"{height:.0f}"))


STYLE = (
    ".sector{stroke:#1d3557;stroke-width:1.3;stroke-linejoin:round}.s0{fill:#fffdf5}.s1{fill:#fbf7ea}"
    ".rule{fill:none;stroke:#1d3557;stroke-width:.8;stroke-opacity:.75}"
    ".col{fill:none;stroke:#1d3557;stroke-width:.6;stroke-opacity:.5;stroke-dasharray:3 2}"
    ".centre{fill:#fffdf5;stroke:#1d3557;stroke-width:1.5}"
    "text{fill:#14213d}.legend{fill:#495057}.head{fill:#343a40}.strong-head{font-weight:bold}"
    ".name,.target,.title{font-weight:bold}.closed{font-weight:bold;fill:#2a7d6f}"
    ".b0{fill:#1d3557}.b1{fill:#14213d}.b2{fill:#8a2d1a}"
    ".allpass{fill:#eef3f8;stroke:none}.hot{fill:#ffe8cc}.allpass-text{fill:#7f2704}"
    ".dealer{fill:#c1121f}.pos{fill:#2a7d2a}.neg{fill:#b02a2a}"
)


def _draw_sector(d: Drawing, s: Sector, f: Frame, bands: list[Band], closed: bool) -> None:
    """The band lines, the whist columns and the written sequences of one sector."""
    for i, band in enumerate(bands):
        cls = f"seq b{i}" + (" closed" if i == 1 and closed else "")
        if s.vertical:
            # a band along a side edge: x across it, the text rotated to run along it
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
            continue
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
                    xa + c * step + PAD,
                    ya + PAD + j * LH + ASCENT * FONT,
                    line,
                    FONT,
                    cls,
                    seat=s.seat,
                    band=i,
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
            continue
        # the line between this band and the next one in
        if s.part:
            arm = f.x0 + ARM * (i + 1) if s.part == "left" else f.x1 - ARM * (i + 1)
            diag = f.cy - f.h * abs(f.cx - arm) / f.half
            d.line([(arm, diag), (arm, f.bottom - band.inner), (f.cx, f.bottom - band.inner)])
        else:
            cut = f.half * band.inner / f.h
            yy = f.top + band.inner if down else f.bottom - band.inner
            d.line([(f.x0 + cut, yy), (f.x1 - cut, yy)])


def _name_room(s: Sector, f: Frame) -> float:
    if s.vertical:
        return 2 * f.h
    if s.part:
        return f.half
    return f.x1 - f.x0


def _draw_name(d: Drawing, s: Sector, f: Frame, name: str, dealer: bool) -> None:
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
