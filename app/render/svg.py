"""The paper sheet ("пулька") as SVG: a pure function of the API's sheet JSON (with player
names), the deal history and the settlement.

Shape: one sector per player around a central circle holding the pool target. Top-row
sectors read from the outer edge inwards: name, whists (one column per opponent), pool,
mountain; bottom-row sectors the same from the bottom edge up, so the mountain borders the
circle and the whists the edge of the sheet, as on paper. With 3 players the player across
has the whole top, the other two share the bottom; with 4 players each has a quarter.

All text is horizontal and monospace, laid out in boxes: a sequence that does not fit its
box wraps onto more lines (at a smaller size when it is long) and the sheet grows
downwards, so nothing overlaps however long the game. The viewBox is 360 units wide, so a
font size in units is its size in CSS pixels on a 360 px phone screen; no text is under 12.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape

from app import amounts

from .sequences import fold, reconcile, sequence_text, to_fraction

WIDTH = 360
FONT = 14  # sequences
FONT_LONG = 12  # sequences that need more than LONG_LINES lines at FONT
LONG_LINES = 3
SMALL = 12  # labels
NAME = 15
LINE = 1.3  # line height, in font sizes
PAD = 5
RADIUS = 22
FONT_FAMILY = "DejaVu Sans Mono, Menlo, Consolas, Liberation Mono, monospace"


# --- measuring and wrapping --------------------------------------------------------------
def char_em(c: str) -> float:
    """Estimated advance of one character in a monospace font, in em (a little generous)."""
    if unicodedata.combining(c):
        return 0.0
    if unicodedata.east_asian_width(c) in ("W", "F"):
        return 1.2
    return 0.62


def text_width(text: str, size: float) -> float:
    return size * sum(char_em(c) for c in text)


def _break_token(token: str, width: float, size: float) -> list[str]:
    parts, cur = [], ""
    for c in token:
        if cur and text_width(cur + c, size) > width:
            parts.append(cur)
            cur = c
        else:
            cur += c
    return parts + ([cur] if cur else [])


def wrap(tokens: Sequence[str], width: float, size: float) -> list[str]:
    """Greedy wrapping of tokens that are written without separators ("2." "6." "10");
    a token wider than a line is broken between characters."""
    lines: list[str] = []
    cur = ""
    for token in tokens:
        if text_width(cur + token, size) <= width:
            cur += token
            continue
        if cur:
            lines.append(cur.rstrip())
            cur = ""
        token = token.lstrip()
        if text_width(token, size) <= width:
            cur = token
        else:
            pieces = _break_token(token, width, size)
            lines.extend(pieces[:-1])
            cur = pieces[-1] if pieces else ""
    if cur.strip():
        lines.append(cur.rstrip())
    return lines


def wrap_words(text: str, width: float, size: float) -> list[str]:
    words = text.split(" ")
    return wrap([w + " " for w in words[:-1]] + words[-1:], width, size)


def fit(text: str, width: float, size: float) -> str:
    """One line: the text, cut with an ellipsis when it is too wide."""
    if text_width(text, size) <= width:
        return text
    while text and text_width(text + "…", size) > width:
        text = text[:-1]
    return text + "…"


# --- boxes -----------------------------------------------------------------------------
@dataclass
class Block:
    """A column of a strip: a small label, then wrapped lines of one size."""

    label: str
    lines: list[str]
    size: int
    emphasis: bool = False

    def height(self) -> float:
        h = 2 * PAD + SMALL * LINE
        if self.lines:
            h += len(self.lines) * self.size * LINE
        return h


def sequence_block(label: str, values: Sequence[Any], width: float, emphasis: bool = False) -> Block:
    inner = width - 2 * PAD
    tokens = sequence_text(values) if values else ["0"]
    lines = wrap(tokens, inner, FONT)
    size = FONT
    if len(lines) > LONG_LINES:
        lines, size = wrap(tokens, inner, FONT_LONG), FONT_LONG
    return Block(fit(label, inner, SMALL), lines, size, emphasis)


@dataclass
class Svg:
    parts: list[str] = field(default_factory=list)

    def text(self, x: float, y: float, text: str, size: float, cls: str = "", anchor: str = "start") -> None:
        attrs = f'x="{x:.1f}" y="{y:.1f}" font-size="{size:g}"'
        if anchor != "start":
            attrs += f' text-anchor="{anchor}"'
        if cls:
            attrs += f' class="{cls}"'
        self.parts.append(f"<text {attrs}>{escape(text)}</text>")

    def line(self, x1: float, y1: float, x2: float, y2: float, cls: str = "rule") -> None:
        self.parts.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" class="{cls}"/>')

    def rect(self, x: float, y: float, w: float, h: float, cls: str) -> None:
        self.parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" class="{cls}"/>')

    def block(self, b: Block, x: float, y: float) -> None:
        """Draw a block with its top-left corner at (x, y)."""
        top = y + PAD
        self.text(x + PAD, top + SMALL, b.label, SMALL, "label")
        top += SMALL * LINE
        for line in b.lines:
            self.text(x + PAD, top + b.size, line, b.size, "num strong" if b.emphasis else "num")
            top += b.size * LINE


# --- the sheet ---------------------------------------------------------------------------
def _layout(n: int) -> list[tuple[int, int, int]]:
    """(seat, row, column) of each sector; row 0 is the top. Columns are halves of the sheet
    (column -1: the whole width). Seats run clockwise from the bottom left."""
    if n == 3:
        return [(0, 1, 0), (1, 0, -1), (2, 1, 1)]
    if n == 4:
        return [(0, 1, 0), (1, 0, 0), (2, 0, 1), (3, 1, 1)]
    raise ValueError("a sheet has 3 or 4 players")


def _allpass_line(allpass: Mapping[str, Any]) -> tuple[str, bool]:
    level = allpass.get("level", 1)
    cost = allpass.get("next_trick_cost")
    low = allpass.get("min_contract")
    if allpass.get("compulsory"):
        text = f"Обязательные распасы: взятка {cost}"
        return text, True
    text = f"Распасы ×{level}"
    details = []
    if cost is not None:
        details.append(f"взятка {cost}")
    if low is not None:
        details.append(f"игра от {low}")
    if details:
        text += ": " + ", ".join(details)
    return text, level > 1


def render_sheet(
    sheet: Mapping[str, Any],
    *,
    history: Sequence[Any] | None = None,
    settlement: Mapping[str, Any] | None = None,
    pool_target: int | None = None,
    title: str | None = None,
) -> str:
    """The sheet as an SVG document (text).

    ``sheet``: the API's sheet (docs/api.md), players with ``name``. ``history``: the deals in order, each
    its entry list or a stored deal with ``entries`` (and, for piter_races, ``game``); without
    it each value is written as a single number. ``settlement``: the API's settlement (docs/api.md), for the
    balances. ``pool_target``: written in the circle.
    """
    players = sorted(sheet["players"], key=lambda p: p["seat"])
    n = len(players)
    names = [str(p.get("name", f"#{p['seat']}")) for p in players]
    seqs = fold(n, history or [])

    balances: list[Any] | None = None
    if settlement is not None:
        by_seat = {p["seat"]: p["balance"] for p in settlement.get("players", [])}
        balances = [by_seat.get(s, 0) for s in range(n)]

    svg = Svg()
    y = 0.0

    # -- heading: target, deals, dealer, all-pass level -----------------------------------
    heading = []
    if title:
        heading.append(title)
    facts = []
    if pool_target is not None:
        facts.append(f"Пуля до {pool_target}")
    facts.append(f"сдач: {sheet.get('deal_count', 0)}")
    match = sheet.get("match")
    if match:
        facts.append(f"партия {sheet.get('game', 1)} из {match.get('games')}")
    if sheet.get("finished"):
        facts.append("игра окончена")
    else:
        dealer = sheet.get("next_dealer")
        if dealer is not None and 0 <= dealer < n:
            facts.append(f"сдаёт {names[dealer]}")
    heading.append(" · ".join(facts))
    inner = WIDTH - 2 * PAD
    y += PAD
    for text in heading:
        for line in wrap_words(text, inner, SMALL + 1):
            svg.text(PAD, y + SMALL + 1, line, SMALL + 1, "head")
            y += (SMALL + 1) * LINE
    allpass_text, hot = _allpass_line(sheet.get("allpass", {}))
    lines = wrap_words(allpass_text, inner - 2 * PAD, FONT)
    box_h = len(lines) * FONT * LINE + PAD
    svg.rect(PAD, y, WIDTH - 2 * PAD, box_h, "allpass hot" if hot else "allpass")
    ty = y + PAD / 2
    for line in lines:
        svg.text(2 * PAD, ty + FONT, line, FONT, "allpass-text")
        ty += FONT * LINE
    y += box_h + PAD

    # -- sectors ----------------------------------------------------------------------------
    layout = _layout(n)
    half = WIDTH / 2

    def sector_blocks(seat: int, width: float) -> dict[str, list[Block]]:
        p = players[seat]
        others = [(seat + k) % n for k in range(1, n)]
        col_w = width / len(others)
        whists = []
        for j in others:
            values = reconcile(seqs.whists[seat][j], p["whists"].get(str(j), 0))
            whists.append(sequence_block(f"на {names[j]}", values, col_w))
        mountain = sequence_block("гора", reconcile(seqs.mountain[seat], p["mountain"]), width)
        pool_label = "пуля — закрыта" if p.get("pool_closed") else "пуля"
        pool = sequence_block(pool_label, reconcile(seqs.pool[seat], p["pool"]), width, bool(p.get("pool_closed")))
        name = Block("", [], NAME)
        return {"whists": whists, "mountain": [mountain], "pool": [pool], "name": [name]}

    blocks: dict[int, dict[str, list[Block]]] = {}
    geometry: dict[int, tuple[int, float, float]] = {}
    for seat, row, col in layout:
        x0, w = (0.0, float(WIDTH)) if col == -1 else (col * half, half)
        geometry[seat] = (row, x0, w)
        blocks[seat] = sector_blocks(seat, w)

    name_h = 2 * PAD + NAME * LINE

    def strip_heights(row: int) -> dict[str, float]:
        seats = [s for s, r, _ in layout if r == row]
        out = {"name": name_h}
        for strip in ("whists", "pool", "mountain"):
            out[strip] = max(b.height() for s in seats for b in blocks[s][strip])
        return out

    order = {0: ["name", "whists", "pool", "mountain"], 1: ["mountain", "pool", "whists", "name"]}
    sheet_top = y
    row_span: dict[int, tuple[float, float]] = {}
    for row in (0, 1):
        heights = strip_heights(row)
        if row == 1:
            y += 2 * RADIUS + 2 * PAD  # the band of the central circle
        top = y
        for strip in order[row]:
            h = heights[strip]
            for seat, r, _ in layout:
                if r != row:
                    continue
                _, x0, w = geometry[seat]
                bs = blocks[seat][strip]
                if strip == "name":
                    label = names[seat]
                    svg.text(x0 + PAD, y + PAD + NAME, fit(label, w - 2 * PAD, NAME), NAME, "name")
                    continue
                col_w = w / len(bs)
                for i, b in enumerate(bs):
                    svg.block(b, x0 + i * col_w, y)
                    if i:
                        svg.line(x0 + i * col_w, y, x0 + i * col_w, y + h)
            y += h
            if strip != order[row][-1]:
                svg.line(0, y, WIDTH, y, "rule thin")
        row_span[row] = (top, y)
    sheet_bottom = y

    # frame, the dividing lines and the circle
    top0, bottom0 = row_span[0]
    top1, _ = row_span[1]
    cy = (bottom0 + top1) / 2
    cx = WIDTH / 2
    svg.line(0, cy, cx - RADIUS, cy)
    svg.line(cx + RADIUS, cy, WIDTH, cy)
    svg.line(cx, cy + RADIUS, cx, sheet_bottom)
    if n == 4:
        svg.line(cx, sheet_top, cx, cy - RADIUS)
    svg.line(0, bottom0, WIDTH, bottom0, "rule thin")
    svg.line(0, top1, WIDTH, top1, "rule thin")
    svg.parts.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{RADIUS}" class="centre"/>')
    if pool_target is not None:
        svg.text(cx, cy + 6, str(pool_target), 17, "target", anchor="middle")
    svg.parts.insert(0, f'<rect x="0.5" y="{sheet_top:.1f}" width="{WIDTH - 1}" height="{sheet_bottom - sheet_top:.1f}" class="frame"/>')

    # -- balances ---------------------------------------------------------------------------
    y += PAD
    if balances is not None:
        final = bool(settlement and settlement.get("final"))
        svg.text(PAD, y + SMALL + 1, "Расчёт (окончательный)" if final else "Расчёт, если закончить сейчас", SMALL + 1, "head")
        y += (SMALL + 1) * LINE + PAD / 2
        for seat in range(n):
            amount = amounts.signed(balances[seat])
            aw = text_width(amount, FONT)
            svg.text(PAD, y + FONT, fit(names[seat], WIDTH - 3 * PAD - aw - 8, FONT), FONT, "name-small")
            cls = "num pos" if to_fraction(balances[seat]) > 0 else "num neg" if to_fraction(balances[seat]) < 0 else "num"
            svg.text(WIDTH - PAD, y + FONT, amount, FONT, cls, anchor="end")
            y += FONT * LINE
        y += PAD

    height = max(y, sheet_bottom + PAD)
    label = "Пулька: " + ", ".join(names)
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height:.0f}" '
        f'width="100%" preserveAspectRatio="xMidYMin meet" role="img" aria-label="{escape(label, {chr(34): "&quot;"})}" '
        f'font-family="{FONT_FAMILY}">'
    )
    style = (
        "<style>"
        ".frame{fill:#fffdf5;stroke:#1d3557;stroke-width:1.5}"
        ".rule{stroke:#1d3557;stroke-width:1.2}.thin{stroke-width:.6;stroke-opacity:.6}"
        ".centre{fill:#fffdf5;stroke:#1d3557;stroke-width:1.5}"
        "text{fill:#14213d}.label{fill:#6c757d}.head{fill:#343a40}"
        ".name,.target{font-weight:bold}.strong{font-weight:bold;fill:#2a9d8f}"
        ".allpass{fill:#eef3f8;stroke:none}.hot{fill:#ffe8cc}.allpass-text{fill:#7f2704}"
        ".pos{fill:#2a7d2a}.neg{fill:#b02a2a}"
        "</style>"
    )
    bg = f'<rect x="0" y="0" width="{WIDTH}" height="{height:.0f}" fill="#ffffff"/>'
    return "".join([head, f"<title>{escape(label)}</title>", style, bg, *svg.parts, "</svg>"])
