"""Choosing a language, and numbers, dates and the game's words written its way."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from fractions import Fraction

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.kit.i18n import language, negotiate
from app.kit.i18n.game_words import DEFENCE, contract, undertricks, word
from app.kit.lang import PageLang, language_headers


@pytest.mark.parametrize(
    ("query", "header", "code"),
    [
        (None, None, "ru"),  # the game's own language by default
        ("en", "ru", "en"),  # ?lang= wins over the header
        (None, "en-GB,en;q=0.8", "en"),
        (None, "de-DE, en;q=0.5, ru;q=0.9", "ru"),  # the best we have, by q
        (None, "de, fr", "ru"),  # none we have
        (None, "en;q=0, ru;q=0.1", "ru"),  # q=0 means "not this one"
        (None, "en;q=abc", "ru"),  # a weight that is no number counts as 0
        ("en_US", None, "en"),
        ("xx", None, "ru"),
    ],
)
def test_the_language_asked_for(query, header, code):
    assert negotiate(query, header).code == code


def test_a_long_accept_language_is_read_only_so_far():
    header = ",".join(["de"] * 10_000) + ",en"
    assert negotiate(None, header).code == "ru"  # the 32 first items only


def test_numbers_in_each_language():
    ru, en = language("ru"), language("en")
    # Russian writes a decimal comma and a space between thousands (CLDR: a no-break space).
    assert ru.number(Decimal("-6.66"), 2) == "−6,66"
    assert en.number(Decimal("-6.66"), 2) == "−6.66"
    assert en.number(12345, 0) == "12,345"
    assert ru.number(12345, 0).replace("\u00a0", " ") == "12 345"
    # 20/3 = 6.666…, exact, rounded half to even at 2 digits: 6.67
    assert en.number(Fraction(20, 3), 2) == "6.67"
    # 5/8 = 0.625: half to even gives 0.62 (not 0.63)
    assert en.number(Fraction(5, 8), 2) == "0.62"
    assert en.number(7) == "7"
    assert ru.number(Fraction(1, 2)) == "0,50"
    with pytest.raises(TypeError):
        en.number(0.5)  # a float is never a score


def test_times_in_each_language():
    moment = datetime(2026, 12, 1, 19, 15, 45)
    assert language("ru").time(moment) == "19:15"  # 24 hours in Russian
    assert language("en").time(moment) == "7:15\u202fPM"
    assert "дек" in language("ru").date(moment)


def test_plurals_follow_each_language():
    ru = language("ru")
    # Russian has three plural forms: 1 сдача, 2 сдачи, 5 сдач; 21 again like 1.
    assert [ru.ngettext("{n} deal", "{n} deals", n, n=n) for n in (1, 2, 5, 21)] == [
        "1 сдача",
        "2 сдачи",
        "5 сдач",
        "21 сдача",
    ]
    en = language("en")
    assert [en.ngettext("{n} deal", "{n} deals", n, n=n) for n in (1, 2)] == ["1 deal", "2 deals"]


def test_the_games_words():
    ru, en = language("ru"), language("en")
    assert contract(ru, "7H") == contract(en, "7H") == "7♥"  # suits as symbols in both
    assert contract(ru, "6S") == "6♠"
    assert contract(ru, "10NT") == "10БК"  # без козыря
    assert contract(en, "10NT") == "10NT"
    assert undertricks(ru, 2) == "без двух"
    assert undertricks(en, 2) == "two down"
    assert undertricks(ru, 1) == "без одной"
    assert word(ru, DEFENCE, "half_whist") == "полвиста"
    assert word(en, DEFENCE, "half_whist") == "half-whist"


def test_a_page_says_its_language_and_that_it_depends_on_the_header():
    app = FastAPI()

    @app.get("/page")
    def page(lang: PageLang):
        from fastapi.responses import PlainTextResponse

        return PlainTextResponse(lang._("pool"), headers=language_headers(lang))

    client = TestClient(app)
    answer = client.get("/page", headers={"Accept-Language": "en-US,en;q=0.9"})
    assert answer.text == "pool"
    assert answer.headers["Content-Language"] == "en"
    assert answer.headers["Vary"] == "Accept-Language"
    assert client.get("/page").text == "пуля"
    assert client.get("/page?lang=en", headers={"Accept-Language": "ru"}).text == "pool"
    assert client.get("/page?lang=de").status_code == 422  # an explicit language we do not have
