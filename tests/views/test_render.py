"""The SVG renderer: the classic pulka's shape, sequences, names and initials, the all-pass
level, the dealer, the final balances, the races match, both languages, escaping, and no
text outside its sector or over other text in long random games."""

from __future__ import annotations

import itertools
import math
import unicodedata
import xml.etree.ElementTree as ET
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.kit.i18n import language
from app.render import fold, initials, reconcile, sequence_text, written
from app.sharing.drawing import render_sheet

from .conftest import random_log

NS = "{http://www.w3.org/2000/svg}"
RU, EN = language("ru"), language("en")


def base_sheet(names: list[str], **over: Any) -> dict[str, Any]:
    n = len(names)
    sheet = {
        "deal_count": 0,
        "players": [
            {
                "seat": s,
                "name": name,
                "pool": 0,
                "pool_closed": False,
                "mountain": 0,
                "whists": {str(j): 0 for j in range(n) if j != s},
            }
            for s, name in enumerate(names)
        ],
        "allpass": {"level": 1, "streak": 0, "next_trick_cost": 2, "min_contract": 6, "compulsory": False},
        "next_dealer": 0,
        "finished": False,
        "game": 1,
    }
    sheet.update(over)
    return sheet


def texts(svg: str) -> list[ET.Element]:
    root = ET.fromstring(svg)  # also: the document is well-formed XML
    return list(root.iter(f"{NS}text"))


def all_text(svg: str) -> list[str]:
    return [t.text or "" for t in texts(svg)]


def view_box(svg: str) -> tuple[float, float]:
    _, _, w, h = (float(v) for v in ET.fromstring(svg).get("viewBox").split())
    return w, h


# --- the simple, deterministic extent estimate of the overlap check ------------------------
def extent(t: ET.Element) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) of a text element: monospace advance 0.6 em a character (1.2 for
    wide ones), from 0.9 em above the baseline to 0.25 em below it; turned a quarter left
    when the element is rotated by -90 degrees about its anchor."""
    size = float(t.get("font-size"))
    chars = t.text or ""
    width = size * sum(1.2 if unicodedata.east_asian_width(c) in "WF" else 0.6 for c in chars)
    x, y = float(t.get("x")), float(t.get("y"))
    anchor = t.get("text-anchor", "start")
    start = -width if anchor == "end" else -width / 2 if anchor == "middle" else 0.0
    if t.get("transform"):
        assert t.get("transform") == f"rotate(-90 {t.get('x')} {t.get('y')})"
        # local (dx, dy) goes to (x + dy, y - dx)
        return x - 0.9 * size, y - start - width, x + 0.25 * size, y - start
    return x + start, y - 0.9 * size, x + start + width, y + 0.25 * size


def overlaps(svg: str) -> list[tuple[str, str]]:
    boxes = [(extent(t), t.text) for t in texts(svg)]
    bad = []
    for (a, ta), (b, tb) in itertools.combinations(boxes, 2):
        if a[0] < b[2] - 0.01 and b[0] < a[2] - 0.01 and a[1] < b[3] - 0.01 and b[1] < a[3] - 0.01:
            bad.append((ta, tb))
    return bad


def outside(svg: str) -> list[str]:
    w, h = view_box(svg)
    return [t.text for t in texts(svg) if (e := extent(t))[0] < 0 or e[2] > w or e[1] < 0 or e[3] > h]


def sectors(svg: str) -> dict[int, list[tuple[float, float]]]:
    out = {}
    for p in ET.fromstring(svg).iter(f"{NS}polygon"):
        if "sector" in (p.get("class") or ""):
            out[int(p.get("data-seat"))] = [
                tuple(float(v) for v in xy.split(",")) for xy in p.get("points").split()
            ]
    return out


def inside_convex(point: tuple[float, float], poly: list[tuple[float, float]]) -> bool:
    signs = set()
    for (ax, ay), (bx, by) in zip(poly, poly[1:] + poly[:1]):
        cross = (bx - ax) * (point[1] - ay) - (by - ay) * (point[0] - ax)
        if abs(cross) > 0.5:
            signs.add(cross > 0)
    return len(signs) <= 1


def out_of_sector(svg: str) -> list[str]:
    """The sequences whose box is not inside their own player's sector."""
    polys = sectors(svg)
    bad = []
    for t in texts(svg):
        if "seq" not in (t.get("class") or "").split():
            continue
        x0, y0, x1, y1 = extent(t)
        poly = polys[int(t.get("data-seat"))]
        if not all(inside_convex(c, poly) for c in ((x0, y0), (x1, y0), (x0, y1), (x1, y1))):
            bad.append(t.text)
    return bad


def check_legible(svg: str) -> None:
    w, _ = view_box(svg)
    display = (
        360 if w == 360 else w
    )  # the phone layout fills a 360 px screen; the wide one is shown at its size
    for t in texts(svg):
        assert float(t.get("font-size")) * display / w >= 12, t.text
    assert overlaps(svg) == []
    assert outside(svg) == []
    assert out_of_sector(svg) == []


def seqs_of(svg: str, seat: int, band: int) -> list[str]:
    return [t.text for t in texts(svg) if t.get("data-seat") == str(seat) and t.get("data-band") == str(band)]


# --- sequences -----------------------------------------------------------------------------
def test_running_sequences_are_written_as_players_write_them():
    history = [
        [{"kind": "pool", "seat": 0, "amount": 2}],
        [{"kind": "mountain", "seat": 1, "amount": 8}, {"kind": "whists", "seat": 2, "on": 1, "amount": 24}],
        [{"kind": "pool", "seat": 0, "amount": 4}],
        [{"kind": "pool", "seat": 0, "amount": 4}, {"kind": "mountain", "seat": 1, "amount": -2}],
    ]
    seq = fold(3, history)
    assert seq.pool[0] == [2, 6, 10]  # 2, 2+4, 6+4
    assert seq.mountain[1] == [8, 6]  # 8, 8-2
    assert seq.whists[2][1] == [24]
    assert seq.whists[1][2] == []
    # a spaced middle dot between running totals: never read as a decimal point or comma
    assert "".join(sequence_text(seq.pool[0])) == "2 · 6 · 10"

    sheet = base_sheet(["Anna", "Boris", "Vera"], deal_count=4)
    sheet["players"][0]["pool"] = 10
    sheet["players"][1]["mountain"] = 6
    sheet["players"][2]["whists"]["1"] = 24
    svg = render_sheet(sheet, history=history, pool_target=20)
    assert seqs_of(svg, 0, 1) == ["2 · 6 · 10"]  # Anna's pool
    assert seqs_of(svg, 1, 2) == ["8 · 6"]  # Boris's mountain
    assert "24" in seqs_of(svg, 2, 0)  # Vera's whists on Boris
    check_legible(svg)


def test_several_entries_of_one_deal_on_one_value_are_one_write():
    history = [[{"kind": "pool", "seat": 0, "amount": 2}, {"kind": "pool", "seat": 0, "amount": 3}]]
    assert fold(3, history).pool[0] == [5]


def test_halves_and_other_fractions_in_each_language():
    history = [
        {"number": 1, "entries": [{"kind": "whists", "seat": 0, "on": 1, "amount": Fraction(5, 2)}]},
        {"number": 2, "entries": [{"kind": "whists", "seat": 0, "on": 1, "amount": "5/2"}]},
        {"number": 3, "entries": [{"kind": "whists", "seat": 0, "on": 1, "amount": 2.5}]},
    ]
    values = fold(3, history).whists[0][1]
    assert values == [Fraction(5, 2), 5, Fraction(15, 2)]
    assert "".join(sequence_text(values, RU)) == "".join(sequence_text(values, EN)) == "2½ · 5 · 7½"
    # 100/3 is 33.333…: two decimals in the language's own format
    assert written(Fraction(100, 3), RU) == "33,33" and written(Fraction(100, 3), EN) == "33.33"
    assert written(-3) == "−3" and written(Fraction(1, 2)) == "½" and written(Fraction(-15, 2)) == "−7½"
    # no thousands grouping in a sequence, as players write it: 123457/100 = 1234.57
    assert written(Fraction(123457, 100), EN) == "1234.57" and written(Fraction(123457, 100), RU) == "1234,57"


def test_a_new_races_game_starts_pools_again():
    history = [
        {"game": 1, "entries": [{"kind": "pool", "seat": 0, "amount": 22}]},
        {"game": 2, "entries": [{"kind": "pool", "seat": 0, "amount": 4}]},
    ]
    assert fold(4, history).pool[0] == [22, 0, 4]


def test_without_history_the_sheet_values_are_written():
    assert reconcile([], 14) == [14]
    assert reconcile([], 0) == []
    assert reconcile([Fraction(2), Fraction(6)], 6) == [2, 6]
    assert reconcile([Fraction(2)], 6) == [2, 6]  # a partial history still ends on the sheet
    sheet = base_sheet(["Anna", "Boris", "Vera"])
    sheet["players"][1]["pool"] = 14
    assert seqs_of(render_sheet(sheet), 1, 1) == ["14"]


# --- the shape -----------------------------------------------------------------------------
def test_three_players_a_circle_at_the_centre_and_lines_to_the_upper_corners():
    svg = render_sheet(base_sheet(["Anna", "Boris", "Vera"]), pool_target=20)
    root = ET.fromstring(svg)
    [circle] = [c for c in root.iter(f"{NS}circle") if c.get("class") == "centre"]
    cx, cy = float(circle.get("cx")), float(circle.get("cy"))
    polys = sectors(svg)
    assert sorted(polys) == [0, 1, 2]
    xs = [x for p in polys.values() for x, _ in p]
    ys = [y for p in polys.values() for _, y in p]
    left, right, top, bottom = min(xs), max(xs), min(ys), max(ys)
    assert cx == pytest.approx((left + right) / 2, abs=0.11) and cy == pytest.approx(
        (top + bottom) / 2, abs=0.11
    )
    # the player across (seat 1) has the top: the triangle from the upper corners to the circle
    assert sorted(polys[1][:2]) == [(left, top), (right, top)] and polys[1][2] == pytest.approx(
        (cx, cy), abs=0.11
    )
    # the other two a half of the bottom each, from an upper corner down to the centre line
    assert (left, bottom) in polys[0] and (cx, bottom) in polys[0] and (left, top) in polys[0]
    assert (right, bottom) in polys[2] and (cx, bottom) in polys[2] and (right, top) in polys[2]
    assert "20" in all_text(svg)  # the target in the circle


def test_four_players_four_triangles_to_the_corners():
    svg = render_sheet(base_sheet(["Anna", "Boris", "Vera", "Gleb"]), pool_target=22)
    polys = sectors(svg)
    assert sorted(polys) == [0, 1, 2, 3]
    centre = {p[-1] for p in polys.values()}
    assert len(centre) == 1  # every sector reaches the centre
    corners = {c for p in polys.values() for c in p[:-1]}
    assert len(corners) == 4  # and two corners of the sheet each
    # the side players' numbers run along their edges: rotated
    check_legible(svg)


def test_bands_nest_mountain_pool_whists_from_the_centre_out():
    sheet = base_sheet(["Anna", "Boris", "Vera"], deal_count=1)
    for p in sheet["players"]:
        p.update(pool=2, mountain=4, whists={k: 6 for k in p["whists"]})
    svg = render_sheet(sheet, pool_target=20)
    root = ET.fromstring(svg)
    circle = next(c for c in root.iter(f"{NS}circle") if c.get("class") == "centre")
    cx, cy = float(circle.get("cx")), float(circle.get("cy"))

    def distance(seat: int, band: int) -> float:
        [t] = [t for t in texts(svg) if t.get("data-seat") == str(seat) and t.get("data-band") == str(band)][
            :1
        ]
        x0, y0, x1, y1 = extent(t)
        return abs((y0 + y1) / 2 - cy)

    for seat in range(3):
        # band 2 the mountain, 1 the pool, 0 the whists: nearer the circle first
        assert distance(seat, 2) < distance(seat, 1) < distance(seat, 0)
    del cx


def test_whists_are_written_toward_the_opponent_they_are_on():
    sheet = base_sheet(["Anna", "Boris", "Vera"], deal_count=1)
    sheet["players"][1]["whists"] = {"0": 10, "2": 20}  # Boris, at the top: on Anna (left), on Vera (right)
    sheet["players"][0]["whists"] = {"1": 30, "2": 40}  # Anna, bottom left: on Boris, on Vera (to her right)
    svg = render_sheet(sheet)

    def x_of(text: str) -> float:
        return float(next(t for t in texts(svg) if t.text == text).get("x"))

    assert x_of("10") < x_of("20")
    assert x_of("30") < x_of("40")


def test_a_sequence_that_outgrows_its_band_wraps_and_the_sheet_grows():
    sheet = base_sheet(["Anna", "Boris", "Vera"], deal_count=80)
    history = [[{"kind": "mountain", "seat": 1, "amount": 2}] for _ in range(80)]
    sheet["players"][1]["mountain"] = 160
    short = render_sheet(base_sheet(["Anna", "Boris", "Vera"]))
    svg = render_sheet(sheet, history=history)
    lines = seqs_of(svg, 1, 2)
    assert len(lines) > 3 and lines[0].startswith("2 · 4 · 6")
    assert " ".join(lines).replace("· ", "").split() == [str(2 * k) for k in range(1, 81)]
    assert view_box(svg)[1] > view_box(short)[1]
    assert {float(t.get("font-size")) for t in texts(svg) if "seq" in t.get("class")} == {14}  # one size
    check_legible(svg)


# --- names, dealer, all-pass, finish, match -------------------------------------------------
def test_names_are_whole_where_they_fit_else_the_initial_with_a_legend():
    names = ["Анастасия Александровна-Длинная-Предлинная", "Boris", "Вера"]
    svg = render_sheet(base_sheet(names), lang=RU)
    words = all_text(svg)
    assert "Boris" in words and "Вера" in words
    assert "А" in words  # the long name's initial at its sector
    # and the legend, wrapped onto the lines it needs
    assert "А — Анастасия Александровна-Длинная-Предлинная" in " ".join(words)
    assert not any("…" in w for w in words)  # nothing cut
    check_legible(svg)


def test_initials_are_unique():
    assert initials(["Anna", "Boris", "Vera"]) == ["A", "B", "V"]
    assert initials(["anna", "Alex", "Boris", "Vera"]) == ["A1", "A2", "B", "V"]


def test_the_all_pass_level_and_the_next_dealer_are_marked():
    sheet = base_sheet(
        ["Anna", "Boris", "Vera"],
        next_dealer=1,
        allpass={"level": 2, "streak": 1, "next_trick_cost": 4, "min_contract": 7, "compulsory": False},
    )
    svg = render_sheet(sheet, pool_target=20)
    lines = all_text(svg)
    assert "Распасы ×2: взятка 4, игра от 7" in lines
    assert any("сдаёт Boris" in t for t in lines)
    root = ET.fromstring(svg)
    assert any("hot" in (r.get("class") or "") for r in root.iter(f"{NS}rect"))
    assert len([c for c in root.iter(f"{NS}circle") if c.get("class") == "dealer"]) == 1
    en = all_text(render_sheet(sheet, pool_target=20, lang=EN))
    assert "All-pass ×2: trick 4, play from 7" in en and any("deals next: Boris" in t for t in en)

    rostov = base_sheet(
        ["Anna", "Boris", "Vera"],
        allpass={"level": 1, "streak": 0, "next_trick_cost": None, "min_contract": 6, "compulsory": False},
    )
    assert "Распасы ×1: игра от 6" in all_text(render_sheet(rostov))
    compulsory = base_sheet(
        ["Anna", "Boris", "Vera", "Gleb"],
        allpass={"level": 1, "streak": 0, "next_trick_cost": 2, "min_contract": None, "compulsory": True},
    )
    assert "Обязательные распасы: взятка 2" in all_text(render_sheet(compulsory))


def test_a_finished_game_has_its_final_balances_once_and_no_all_pass_banner():
    sheet = base_sheet(
        ["Anna", "Boris", "Vera"],
        finished=True,
        allpass={"level": 3, "streak": 2, "next_trick_cost": 6, "min_contract": 8, "compulsory": False},
    )
    sheet["players"][0].update(pool=20, pool_closed=True)
    settlement = {
        "final": True,
        "players": [
            {"seat": 0, "name": "Anna", "balance": Fraction(370, 3)},
            {"seat": 1, "name": "Boris", "balance": -50},
            {"seat": 2, "name": "Vera", "balance": Fraction(-220, 3)},
        ],
    }
    svg = render_sheet(sheet, settlement=settlement, pool_target=20)
    lines = all_text(svg)
    assert not any(t.startswith("Распасы") for t in lines)
    assert any("игра окончена" in t for t in lines)
    assert lines.count("Окончательный расчёт") == 1
    # 370/3 = 123.33…, −220/3 = −73.33…: two decimals, a Russian comma and a real minus
    assert "+123,33" in lines and "−50" in lines and "−73,33" in lines
    assert "20 ✓" in lines  # the closed pool
    en = all_text(render_sheet(sheet, settlement=settlement, pool_target=20, lang=EN))
    assert "+123.33" in en and "−73.33" in en and "Final settlement" in en
    # not finished: no balances on the picture (the page shows them beside it)
    sheet["finished"] = False
    assert "+123,33" not in all_text(render_sheet(sheet, settlement={**settlement, "final": False}))


def test_the_races_match_shows_its_game_and_bonuses():
    sheet = base_sheet(
        ["Anna", "Boris", "Vera"],
        game=2,
        match={
            "games": 3,
            "totals": [],
            "bonuses": [
                {"game": 1, "kind": "first_to_target", "seat": 0, "amount": 300},
                {"game": 1, "kind": "min_mountain", "seat": 2, "amount": 200},
            ],
        },
    )
    lines = all_text(render_sheet(sheet, lang=EN))
    assert any("game 2 of 3" in t for t in lines)
    assert "Match bonuses" in lines
    assert "game 1: first to close the pool — Anna +300" in lines
    assert "game 1: smallest mountain — Vera +200" in lines
    ru = all_text(render_sheet(sheet, lang=RU))
    assert any("партия 2 из 3" in t for t in ru)


def test_names_are_escaped():
    name = "<b>&\"x'"
    svg = render_sheet(base_sheet([name, "Boris", "Vera"]), pool_target=20, title="<script>alert(1)</script>")
    assert "<b>" not in svg and "<script>" not in svg
    lines = all_text(svg)  # parses: the escaping is well-formed
    assert name in lines and "<script>alert(1)</script>" in lines


def test_every_word_of_the_picture_is_in_the_language():
    sheet = base_sheet(["Anna", "Boris", "Vera"], finished=True)
    settlement = {
        "final": True,
        "players": [{"seat": s, "name": n, "balance": 0} for s, n in enumerate("ABV")],
    }
    en = " ".join(all_text(render_sheet(sheet, settlement=settlement, pool_target=20, lang=EN)))
    assert not any("а" <= c.lower() <= "я" for c in en), en
    ru = render_sheet(sheet, settlement=settlement, pool_target=20, lang=RU)
    assert ET.fromstring(ru).get("lang") == "ru"


# --- nothing overlaps, in long random games --------------------------------------------------
LONG_NAMES = [
    "Анастасия Александровна-Длинная",
    "Б" * 40,
    "王小明王小明王小明王小明",
    "Gleb",
    "Ёлкин-Палкин Вячеслав",
    "Mary-Kate Olsen-Smith",
    "Ян",
    "Ω",
]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.sampled_from([3, 4]),
    deals=st.integers(min_value=1, max_value=160),
    seed=st.integers(min_value=0, max_value=10**6),
    lang=st.sampled_from(["ru", "en"]),
    layout=st.sampled_from(["phone", "wide"]),
    names=st.lists(st.sampled_from(LONG_NAMES), min_size=4, max_size=4),
)
def test_no_text_leaves_its_sector_or_overlaps_in_long_games(players, deals, seed, lang, layout, names):
    convention = "sochi" if players == 4 else "piter"
    log = random_log(convention, players, deals, seed=seed)
    sheet = log["sheet"]
    for p in sheet["players"]:
        p["name"] = names[p["seat"]]
    svg = render_sheet(
        sheet,
        history=log["history"],
        settlement=log["settlement"],
        pool_target=log["pool_target"],
        lang=language(lang),
        layout=layout,
    )
    check_legible(svg)
    w, _ = view_box(svg)
    assert w == {"phone": 360, "wide": 640}[layout]
    # every running total is written, in order, in its band
    seq = fold(players, log["history"])
    mountain = " ".join(seqs_of(svg, 0, 2))
    assert mountain.replace(" ·", "").split() == [written(v, language(lang)) for v in seq.mountain[0]]


@pytest.mark.parametrize("players", [3, 4])
def test_a_very_long_game_still_fits(players):
    log = random_log("sochi" if players == 4 else "piter", players, 300, seed=players)
    svg = render_sheet(
        log["sheet"], history=log["history"], settlement=log["settlement"], pool_target=log["pool_target"]
    )
    check_legible(svg)
    assert math.isfinite(view_box(svg)[1])


def test_the_overlap_check_finds_overlaps():
    bad = (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 360 100">'
        '<text x="10" y="20" font-size="14">2 · 6</text><text x="30" y="25" font-size="14">4 · 8</text></svg>'
    )
    assert overlaps(bad) == [("2 · 6", "4 · 8")]
    rotated = (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 360 100">'
        '<text x="20" y="80" font-size="14" transform="rotate(-90 20 80)">2 · 6 · 10</text>'
        '<text x="10" y="40" font-size="14">4</text></svg>'
    )
    assert overlaps(rotated) == [("2 · 6 · 10", "4")]
