"""Every convention has a name in both languages, and the picture heads its sheet with it."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from app.kit.i18n import language
from app.kit.i18n.game_words import CONVENTIONS
from app.rules import CONVENTION_NAMES, PRESETS, TableState, make_rules, sheet
from app.sharing.drawing import render_sheet


def test_every_convention_has_its_title_as_a_word():
    assert tuple(CONVENTIONS) == CONVENTION_NAMES
    for name in CONVENTION_NAMES:
        assert CONVENTIONS[name] == PRESETS[name].title
        assert language("ru")._(CONVENTIONS[name]) != CONVENTIONS[name], name  # translated


@pytest.mark.parametrize("lang,expected", [("ru", "ФСПР (ленинградка)"), ("en", "FSPR (Leningrad)")])
def test_the_picture_shows_the_convention_in_both_languages(lang, expected):
    rules = make_rules("fspr", 4)
    exact = sheet(rules, TableState.new(rules, first_dealer=0))
    exact["players"] = [{**p, "name": n} for p, n in zip(exact["players"], ["Anna", "Boris", "Vera", "Gleb"])]
    svg = render_sheet(exact, lang=language(lang), pool_target=20, convention="fspr")
    words = " ".join(t.text or "" for t in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text"))
    assert expected in words
