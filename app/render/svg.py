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
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from app.render.geometry import (
    ASCENT,
    DEFAULT_LAYOUT,
    FONT,
    FONT_FAMILY,
    LAYOUTS,
    LH,
    NAME,
    NAME_STRIP,
    PAD,
    RADIUS,
    SMALL,
    Frame,
    Sector,
    polygon,
    sectors_of,
    solve,
    whist_order,
)
from app.render.measure import text_width, wrap_words
from app.render.sectors import Drawing, draw_name, draw_sector, fmt, name_room
from app.render.sequences import Amount, Played, Sequences, exact, fold, reconcile, sequence_text, written
from app.render.words import Language
from app.rules import AllpassInfo, ExactSheet, MatchInfo, Settlement


def initials(names: Sequence[str]) -> list[str]:
    """Each seat's initial, as players mark a sheet; a repeated initial takes the seat's number."""
    first = [(name.strip()[:1] or "?").upper() for name in names]
    return [c if first.count(c) == 1 else f"{c}{seat + 1}" for seat, c in enumerate(first)]


def _signed(lang: Language, value: Amount) -> str:
    v = exact(value)
    return ("+" if v > 0 else "") + lang.number(v)


def _allpass_text(lang: Language, allpass: AllpassInfo) -> tuple[str, bool]:
    cost = allpass.next_trick_cost
    if allpass.compulsory:
        return lang._("Compulsory all-pass: trick {cost}", cost=cost), True
    level = allpass.level
    details = []
    if cost is not None:
        details.append(lang._("trick {cost}", cost=cost))
    low = allpass.min_contract
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


@dataclass
class _Page:
    """The document as it is drawn, top down: its width, how far down it is, its elements."""

    width: float
    d: Drawing = field(default_factory=lambda: Drawing())
    y: float = PAD

    def paragraph(self, text: str, size: float, cls: str, indent: float = PAD) -> None:
        for line in wrap_words(text, self.width - indent - PAD, size):
            self.d.text(indent, self.y + ASCENT * size, line, size, cls)
            self.y += size * 1.3


def draw_sheet(
    sheet: ExactSheet,
    *,
    names: Sequence[str],
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

    ``sheet``: the engine's sheet (``app.rules.exact_sheet``: exact amounts); ``names``: the
    players' names by seat. ``history``: the deals in order, each ``Played`` (its entries
    and, for piter_races, its game) or its entry list; without it each value is written as a
    single number. ``settlement``: the engine's settlement, whose balances (rounded to cents)
    are drawn when the game is finished. ``convention``: the convention's name, in the
    reader's language, first in the heading. ``pool_target``: written in the circle.
    ``lang``: the words and numbers. ``layout``: "phone" or "wide". ``match_bonuses``: the
    msgid of each match bonus kind (else the kind's own name). ``penalties``: the judge's
    penalties in order, each ``number``, ``offender``, ``amount``, ``to`` (the kind of entry
    it wrote: mountain, whists or apart), and ``clause`` and ``reason``: listed below the
    sheet, and the values they wrote marked "*" (docs/rules.md §15).
    """
    page = _Page(float(LAYOUTS[layout]))
    names = list(names)
    _heading(page, sheet, names, lang, title=title, convention=convention, pool_target=pool_target)
    players = sorted(sheet.players, key=lambda p: p.seat)
    closed = [p.pool_closed for p in players]
    legend = _frame(page, sheet, names, lang, fold(len(players), history or []), pool_target)
    _notes(page, sheet, lang, legend, closed, bool(penalties))
    if penalties:
        page.y += PAD
        page.paragraph(lang._("Penalties"), SMALL, "head strong-head")
        for pen in penalties:
            page.paragraph(_penalty_line(lang, pen, names), SMALL, "legend", 2 * PAD)
    if sheet.match is not None and sheet.match.bonuses:
        _match_bonuses(page, sheet.match, names, lang, match_bonuses)
    if sheet.finished and settlement is not None:
        _final_settlement(page, settlement, names, lang)
    return _document(page, names, lang, layout)


def _heading(
    page: _Page,
    sheet: ExactSheet,
    names: Sequence[str],
    lang: Language,
    *,
    title: str | None,
    convention: str | None,
    pool_target: int | None,
) -> None:
    """The heading: title, target, deals, game, who deals, the all-pass level."""
    if title:
        page.paragraph(title, NAME, "title")
    facts = [convention] if convention else []
    if pool_target is not None:
        facts.append(lang._("Pool to {target}", target=pool_target))
    facts.append(lang.ngettext("{n} deal", "{n} deals", sheet.deal_count))
    if sheet.match:
        facts.append(lang._("game {game} of {games}", game=sheet.game, games=sheet.match.games))
    dealer = sheet.next_dealer
    if sheet.finished:
        facts.append(lang._("game over"))
    elif dealer is not None and 0 <= dealer < len(names):
        facts.append(lang._("deals next: {name}", name=names[dealer]))
    page.paragraph(" · ".join(facts), SMALL, "head")
    if sheet.finished:
        return
    text, hot = _allpass_text(lang, sheet.allpass)
    inner_w = page.width - 2 * PAD
    lines = wrap_words(text, inner_w - 2 * PAD, FONT)
    page.d.add(
        "rect",
        x=float(PAD),
        y=float(page.y),
        width=inner_w,
        height=float(len(lines) * LH + PAD),
        class_="allpass hot" if hot else "allpass",
    )
    ty = page.y + PAD / 2
    for line in lines:
        page.d.text(2 * PAD, ty + ASCENT * FONT, line, FONT, "allpass-text")
        ty += LH
    page.y = ty + PAD + PAD / 2


def _contents(
    sheet: ExactSheet,
    sectors: Sequence[Sector],
    orders: Mapping[int, list[int]],
    seqs: Sequences,
    lang: Language,
) -> dict[int, list[list[list[str]]]]:
    """What each sector writes, band by band from the outside in: its whists (a column per
    opponent), its pool (closed: ✓), its mountain."""
    players = sorted(sheet.players, key=lambda p: p.seat)
    contents: dict[int, list[list[list[str]]]] = {}
    for s in sectors:
        p = players[s.seat]
        whists = [
            sequence_text(
                reconcile(seqs.whists[s.seat][j], p.whists.get(j, 0)), lang, seqs.marked("whists", s.seat, j)
            )
            for j in orders[s.seat]
        ]
        pool = sequence_text(reconcile(seqs.pool[s.seat], p.pool), lang)
        if p.pool_closed and pool:
            pool = pool[:-1] + [pool[-1] + " ✓"]
        mountain = sequence_text(
            reconcile(seqs.mountain[s.seat], p.mountain), lang, seqs.marked("mountain", s.seat)
        )
        contents[s.seat] = [whists, [pool], [mountain]]
    return contents


def _frame(
    page: _Page,
    sheet: ExactSheet,
    names: Sequence[str],
    lang: Language,
    seqs: Sequences,
    pool_target: int | None,
) -> list[str]:
    """The sheet itself: the sectors and their bands, the circle and the target, the names
    outside the frame by their edge (an initial where a name does not fit). The legend of
    the initials used."""
    n = len(sheet.players)
    sectors = sectors_of(n)
    side_names = n == 4
    x0 = NAME_STRIP if side_names else 1.0
    x1 = page.width - (NAME_STRIP if side_names else 1.0)
    top = page.y + NAME_STRIP
    probe = Frame(x0, x1, top, 1.0)
    orders = {s.seat: whist_order(s, sectors, probe) for s in sectors}
    f, laid = solve(x0, x1, top, n, _contents(sheet, sectors, orders, seqs, lang))
    d = page.d
    closed = [p.pool_closed for p in sorted(sheet.players, key=lambda p: p.seat)]
    for s in sectors:
        d.add(
            "polygon",
            points=" ".join(f"{fmt(px)},{fmt(py)}" for px, py in polygon(s, f)),
            class_=f"sector s{s.seat % 2}",
            data_seat=s.seat,
        )
    for s in sectors:
        draw_sector(d, s, f, laid[s.seat], closed[s.seat])
    d.add("circle", cx=f.cx, cy=f.cy, r=float(RADIUS), class_="centre")
    if pool_target is not None:
        label = str(pool_target)
        size = min(17.0, (2 * RADIUS - 2 * PAD) / max(text_width(label, 1), 0.1))
        d.text(f.cx, f.cy + 0.35 * size, label, round(size, 1), "target", anchor="middle")
    marks = initials(names)
    legend = []
    for s in sectors:
        room = name_room(s, f)
        name = names[s.seat]
        shown = name if text_width(name, NAME) <= room - 2 * PAD - 12 else marks[s.seat]
        if shown != name:
            legend.append(lang._("{initial} — {name}", initial=shown, name=name))
        draw_name(d, s, f, shown, sheet.next_dealer == s.seat and not sheet.finished)
    page.y = f.bottom + NAME_STRIP + PAD
    return legend


def _notes(
    page: _Page,
    sheet: ExactSheet,
    lang: Language,
    legend: Sequence[str],
    closed: Sequence[bool],
    penalised: bool,
) -> None:
    """Below the sheet: the initials' legend, and how to read the sheet's marks."""
    for line in legend:
        page.paragraph(line, SMALL, "legend")
    notes = [lang._("From the circle out: mountain, pool, whists (written toward the player they are on).")]
    if any(closed):
        notes.append(lang._("✓ the pool is closed."))
    if sheet.next_dealer is not None and not sheet.finished:
        notes.append(lang._("● deals next."))
    if penalised:
        notes.append(lang._("* written by a penalty."))
    page.paragraph(" ".join(notes), SMALL, "legend")


def _match_bonuses(
    page: _Page, match: MatchInfo, names: Sequence[str], lang: Language, kinds: Mapping[str, str] | None
) -> None:
    page.y += PAD
    page.paragraph(lang._("Match bonuses"), SMALL, "head strong-head")
    for b in match.bonuses:
        game = lang._("game {game}", game=b.game) if b.game is not None else lang._("match")
        msgid = (kinds or {}).get(b.kind)
        kind = lang._(msgid) if msgid else str(b.kind)
        page.paragraph(
            f"{game}: {kind} — {names[b.seat]} {_signed(lang, b.amount)}", SMALL, "legend", 2 * PAD
        )


def _final_settlement(
    page: _Page, settlement: Settlement | Mapping[str, Any], names: Sequence[str], lang: Language
) -> None:
    """Each player's final balance, the name wrapped beside it."""
    page.y += PAD
    page.paragraph(lang._("Final settlement"), SMALL + 1, "head strong-head")
    by_seat = _balances(settlement)
    width = page.width
    for seat in range(len(names)):
        v = by_seat.get(seat, 0)
        amount = _signed(lang, v)
        aw = text_width(amount, FONT)
        rows = wrap_words(names[seat], width - 4 * PAD - aw - 8, FONT)
        page.d.text(
            width - PAD,
            page.y + ASCENT * FONT,
            amount,
            FONT,
            "num pos" if v > 0 else "num neg" if v < 0 else "num",
            anchor="end",
        )
        for row in rows:
            page.d.text(PAD, page.y + ASCENT * FONT, row, FONT, "balance-name")
            page.y += LH


def _document(page: _Page, names: Sequence[str], lang: Language, layout: str) -> Drawn:
    """The SVG document of what was drawn: its size, its label, its style, a white ground."""
    width = page.width
    height = page.y + PAD
    label = lang._("Pulka: {names}", names=", ".join(names))
    root = ET.Element(
        "svg",
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "viewBox": f"0 0 {fmt(width)} {height:.0f}",
            "width": fmt(width),
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
        root, "rect", {"x": "0", "y": "0", "width": fmt(width), "height": f"{height:.0f}", "fill": "#ffffff"}
    )
    root.extend(page.d.items)
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
