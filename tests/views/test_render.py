"""The SVG renderer: shape, sequences, escaping, the all-pass marker, phone legibility and
no overlapping text in long games."""

from __future__ import annotations

import itertools
import unicodedata
import xml.etree.ElementTree as ET
from fractions import Fraction
from typing import Any

import pytest

from app.render import fmt_amount, fold, reconcile, render_sheet, sequence_text

from .conftest import random_log

NS = "{http://www.w3.org/2000/svg}"


def base_sheet(names: list[str], **over: Any) -> dict[str, Any]:
    n = len(names)
    sheet = {
        "deal_count": 0,
        "players": [
            {"seat": s, "name": name, "pool": 0, "pool_closed": False, "mountain": 0,
             "whists": {str(j): 0 for j in range(n) if j != s}}
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
    root = ET.fromstring(svg)
    _, _, w, h = (float(v) for v in root.get("viewBox").split())
    return w, h


# --- the simple, deterministic extent estimate of the overlap check ------------------------
def extent(t: ET.Element) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) of a text element: monospace advance 0.6 em a character (1.2 for
    wide ones), from 0.9 em above the baseline to 0.25 em below it."""
    size = float(t.get("font-size"))
    chars = t.text or ""
    width = size * sum(1.2 if unicodedata.east_asian_width(c) in "WF" else 0.6 for c in chars)
    x, y = float(t.get("x")), float(t.get("y"))
    anchor = t.get("text-anchor", "start")
    x0 = x - width if anchor == "end" else x - width / 2 if anchor == "middle" else x
    return x0, y - 0.9 * size, x0 + width, y + 0.25 * size


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


def check_legible(svg: str) -> None:
    w, _ = view_box(svg)
    for t in texts(svg):
        assert float(t.get("font-size")) * 360 / w >= 12, t.text
    assert overlaps(svg) == []
    assert outside(svg) == []


# --- sequences -----------------------------------------------------------------------------
def test_running_sequences_are_written_as_players_write_them():
    history = [
        [{"kind": "pool", "seat": 0, "amount": 2}],
        [{"kind": "mountain", "seat": 1, "amount": 8}, {"kind": "whists", "seat": 2, "on": 1, "amount": 24}],
        [{"kind": "pool", "seat": 0, "amount": 4}],
        [{"kind": "pool", "seat": 0, "amount": 4}, {"kind": "mountain", "seat": 1, "amount": -2}],
    ]
    seq = fold(3, history)
    assert seq.pool[0] == [2, 6, 10]
    assert seq.mountain[1] == [8, 6]
    assert seq.whists[2][1] == [24]
    assert seq.whists[1][2] == []
    assert "".join(sequence_text(seq.pool[0])) == "2.6.10"

    sheet = base_sheet(["Anna", "Boris", "Vera"], deal_count=4)
    sheet["players"][0]["pool"] = 10
    sheet["players"][1]["mountain"] = 6
    sheet["players"][2]["whists"]["1"] = 24
    svg = render_sheet(sheet, history=history, pool_target=20)
    lines = all_text(svg)
    assert "2.6.10" in lines
    assert "8.6" in lines
    assert "24" in lines
    check_legible(svg)


def test_several_entries_of_one_deal_on_one_value_are_one_write():
    history = [[{"kind": "pool", "seat": 0, "amount": 2}, {"kind": "pool", "seat": 0, "amount": 3}]]
    assert fold(3, history).pool[0] == [5]


def test_stored_deals_and_exact_amounts_are_accepted():
    history = [{"number": 1, "entries": [{"kind": "whists", "seat": 0, "on": 1, "amount": Fraction(5, 2)}]},
               {"number": 2, "entries": [{"kind": "whists", "seat": 0, "on": 1, "amount": "5/2"}]},
               {"number": 3, "entries": [{"kind": "whists", "seat": 0, "on": 1, "amount": 2.5}]}]
    assert fold(3, history).whists[0][1] == [Fraction(5, 2), 5, Fraction(15, 2)]
    assert "".join(sequence_text(fold(3, history).whists[0][1])) == "2½.5.7½"


def test_a_new_races_game_starts_pools_again():
    history = [
        {"game": 1, "entries": [{"kind": "pool", "seat": 0, "amount": 22}]},
        {"game": 2, "entries": [{"kind": "pool", "seat": 0, "amount": 4}]},
    ]
    assert fold(4, history).pool[0] == [22, 0, 4]


def test_amounts_are_written_like_on_paper():
    assert fmt_amount(12) == "12"
    assert fmt_amount(Fraction(15, 2)) == "7½"
    assert fmt_amount(Fraction(1, 2)) == "½"
    assert fmt_amount(-3) == "−3"
    assert fmt_amount(Fraction(100, 3)) == "33,33"
    assert fmt_amount(2.5) == "2½"


def test_without_history_the_sheet_values_are_written():
    assert reconcile([], 14) == [14]
    assert reconcile([], 0) == []
    assert reconcile([Fraction(2), Fraction(6)], 6) == [2, 6]
    assert reconcile([Fraction(2)], 6) == [2, 6]  # a partial history still ends on the sheet
    sheet = base_sheet(["Anna", "Boris", "Vera"])
    sheet["players"][1]["pool"] = 14
    assert "14" in all_text(render_sheet(sheet))


# --- the picture ---------------------------------------------------------------------------
def test_three_players_sectors_circle_and_balances():
    sheet = base_sheet(["Anna", "Boris", "Vera"], deal_count=3, next_dealer=1)
    settlement = {"final": False, "players": [{"seat": 0, "name": "Anna", "balance": 123.33},
                                              {"seat": 1, "name": "Boris", "balance": -50},
                                              {"seat": 2, "name": "Vera", "balance": -73.33}]}
    svg = render_sheet(sheet, settlement=settlement, pool_target=20)
    lines = all_text(svg)
    for name in ("Anna", "Boris", "Vera"):
        assert name in lines
    # whists columns: each player on each of the two others
    assert sorted(t for t in lines if t.startswith("на ")) == sorted(
        ["на Boris", "на Vera", "на Anna", "на Vera", "на Anna", "на Boris"])
    assert lines.count("гора") == 3 and lines.count("пуля") == 3
    assert "20" in lines  # the target in the circle
    assert len(ET.fromstring(svg).findall(f".//{NS}circle")) == 1
    assert "+123,33" in lines and "−50" in lines and "−73,33" in lines
    assert any("сдаёт Boris" in t for t in lines)
    check_legible(svg)


def test_four_players_have_four_sectors():
    sheet = base_sheet(["Anna", "Boris", "Vera", "Gleb"])
    svg = render_sheet(sheet, pool_target=22)
    lines = all_text(svg)
    for name in ("Anna", "Boris", "Vera", "Gleb"):
        assert name in lines
    assert len([t for t in lines if t.startswith("на ")]) == 12
    assert lines.count("гора") == 4
    check_legible(svg)


def test_names_are_escaped():
    name = '<b>&"x\''
    sheet = base_sheet([name, "Boris", "Vera"])
    svg = render_sheet(sheet, pool_target=20, title='<script>alert(1)</script>')
    assert "<b>" not in svg and "<script>" not in svg
    assert "&lt;b&gt;&amp;" in svg
    lines = all_text(svg)  # parses: the escaping is well-formed
    assert name in lines
    assert "<script>alert(1)</script>" in lines


def test_the_all_pass_level_is_marked():
    sheet = base_sheet(["Anna", "Boris", "Vera"],
                       allpass={"level": 2, "streak": 1, "next_trick_cost": 4, "min_contract": 7, "compulsory": False})
    lines = all_text(render_sheet(sheet, pool_target=20))
    assert "Распасы ×2: взятка 4, игра от 7" in lines
    root = ET.fromstring(render_sheet(sheet, pool_target=20))
    assert any("hot" in (r.get("class") or "") for r in root.iter(f"{NS}rect"))

    rostov = base_sheet(["Anna", "Boris", "Vera"],
                        allpass={"level": 1, "streak": 0, "next_trick_cost": None, "min_contract": 6, "compulsory": False})
    assert "Распасы ×1: игра от 6" in all_text(render_sheet(rostov))
    compulsory = base_sheet(["Anna", "Boris", "Vera", "Gleb"],
                            allpass={"level": 1, "streak": 0, "next_trick_cost": 2, "min_contract": None, "compulsory": True})
    assert "Обязательные распасы: взятка 2" in all_text(render_sheet(compulsory))


def test_closed_pool_and_finished_game_are_shown():
    sheet = base_sheet(["Anna", "Boris", "Vera"], finished=True)
    sheet["players"][0].update(pool=20, pool_closed=True)
    lines = all_text(render_sheet(sheet, pool_target=20))
    assert "пуля — закрыта" in lines
    assert any("игра окончена" in t for t in lines)


def test_long_names_are_cut_and_do_not_overlap():
    names = ["Анастасия Александровна-Длинная", "Б" * 60, "王小明王小明王小明王小明王小明", "Gleb"]
    svg = render_sheet(base_sheet(names), pool_target=20)
    check_legible(svg)


@pytest.mark.parametrize("players", [3, 4])
def test_a_long_game_wraps_and_nothing_overlaps(players):
    log = random_log("sochi" if players == 4 else "piter", players, 200, seed=players)
    svg = render_sheet(log["sheet"], history=log["history"], settlement=log["settlement"],
                       pool_target=log["pool_target"])
    check_legible(svg)
    w, h = view_box(svg)
    assert w == 360 and h > 900  # it grew downwards
    # every running total of a long sequence is written somewhere
    seq = fold(players, log["history"])
    written = "".join(all_text(svg))
    assert "".join(sequence_text(seq.mountain[0])).replace(".", "") in written.replace(".", "")


def test_the_overlap_check_finds_overlaps():
    bad = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 360 100">'
           '<text x="10" y="20" font-size="14">2.6.10</text><text x="30" y="25" font-size="14">4.8</text></svg>')
    assert overlaps(bad) == [("2.6.10", "4.8")]
