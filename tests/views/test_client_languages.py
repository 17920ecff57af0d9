"""The command-line client in Russian and in English (app/cli/client/language.py): the language
from ``--lang``, else ``PREFSCORE_LANG``, else the locale; the words from the catalogues,
suits as symbols, numbers and dates written the language's way."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from app.cli.client.language import from_environment
from app.cli.main import main

MINUS = "\u2212"


@pytest.mark.parametrize(
    "environ, code",
    [
        ({"PREFSCORE_LANG": "en"}, "en"),
        ({"PREFSCORE_LANG": "ru", "LC_ALL": "en_US.UTF-8"}, "ru"),  # the client's own setting first
        ({"LC_ALL": "en_GB.UTF-8", "LANG": "ru_RU.UTF-8"}, "en"),  # LC_ALL overrides LANG, as in gettext
        ({"LC_MESSAGES": "en_US.UTF-8", "LANG": "ru_RU.UTF-8"}, "en"),
        ({"LANG": "en_US.UTF-8"}, "en"),
        ({"LANG": "en"}, "en"),
        ({"LC_ALL": "C.UTF-8", "LANG": "en_US.UTF-8"}, "en"),  # C names no language: passed over
        ({"LANG": "de_DE.UTF-8"}, "ru"),  # a language the client does not have: the default
        ({"LANG": "C"}, "ru"),
        ({}, "ru"),
    ],
)
def test_the_language_comes_from_the_environment(environ, code):
    assert from_environment(environ).code == code


@pytest.fixture
def run(live_url, owner_key):
    # The machine's locale is replaced by English: only --lang can make an answer Russian.
    runner = CliRunner(
        env={
            "PREFSCORE_URL": live_url,
            "PREFSCORE_KEY": owner_key,
            "COLUMNS": "160",
            "PREFSCORE_LANG": None,
            "LC_ALL": None,
            "LC_MESSAGES": None,
            "LANG": "en_US.UTF-8",
        }
    )

    def invoke(*args: str, expect: int = 0):
        result = runner.invoke(main, list(args))
        assert result.exit_code == expect, (result.output, result.exception)
        return result

    return invoke


def _flat(out: str) -> str:
    """The output with its line breaks as spaces (a title wraps to its table's width)."""
    return " ".join(out.split())


def _pulka(run, *lang: str) -> str:
    """docs/api.md's sochi table to 10: Boris makes 6♠ unwhisted (pool 2), then an all-pass
    writes mountains of 2, 5 and 3."""
    table_id = (
        run(
            "table",
            "create",
            "--convention",
            "sochi",
            "--players",
            "Anna,Boris,Vera",
            "--pool-target",
            "10",
            *lang,
        )
        .stdout.strip()
        .splitlines()[-1]
    )
    run("deal", "add", table_id, "6S", "1", "p0", "p2", *lang)
    run("deal", "add", table_id, "pass", "0:2", "1:5", "2:3", *lang)
    return table_id


def test_russian_with_lang_ru(run):
    table_id = _pulka(run, "--lang", "ru")
    out = run("deal", "list", table_id, "--lang", "ru").output
    assert "2 сдачи" in out  # 2: the "few" form
    assert "6♠ 1 p0 p2" in out  # the suit as its symbol
    assert "Boris пуля 2" in out and "Vera гора 3" in out

    out = run("sheet", table_id, "--lang", "ru").output
    assert "sochi, пуля до 10: 2 сдачи" in out
    for word in ("место", "игрок", "пуля", "гора", "висты на Anna", "распасы, ступень", "сдаёт"):
        assert word in out, word

    # Mountain less pool: Anna 2, Boris 3, Vera 3, on average 8/3; at 10 whists a point Anna
    # gets (8/3 - 2) x 10 = 20/3 = 6,67 and the others pay 10/3 each, rounded so that the
    # balances sum to 0: -3,33 and -3,34 (docs/api.md). A decimal comma, the typographic minus.
    out = run("settle", table_id, "--lang", "ru").output
    assert "Расчёт (если закончить сейчас)" in _flat(out) and "Переводы" in out
    assert "6,67" in out and f"{MINUS}3,33" in out and f"{MINUS}3,34" in out
    assert "20/3" in out  # the exact column
    # At a stake of 0.5 (money, to the cent): Boris and Vera pay 10/3 x 0,5 = 5/3 = 1,67
    # each, Anna gets both: 3,34.
    out = run("settle", table_id, "--stake", "0.5", "--lang", "ru").output
    assert "ставка 0,5" in _flat(out) and "1,67" in out and "3,34" in out

    out = run("table", "list", "--lang", "ru").output
    assert "1 стол" in out and "идёт" in out
    # a date as Russian writes it: "1 дек. 2026 г., 11:52:03" (24-hour time; CLDR puts
    # no-break spaces in it)
    assert re.search(r"\d{1,2}\s[а-я]{3,4}\.?\s\d{4}\sг\.,\s\d{2}:\d{2}:\d{2}", out), out


def test_english_from_the_locale(run):
    table_id = _pulka(run)
    out = run("deal", "list", table_id).output
    assert "2 deals" in out and "6♠ 1 p0 p2" in out and "Boris pool 2" in out
    out = run("settle", table_id).output
    assert "Settlement (if the game ended now)" in _flat(out)
    assert "6.67" in out and f"{MINUS}3.33" in out and f"{MINUS}3.34" in out
    out = run("table", "list").output
    assert "1 table" in out and "active" in out
    # "Dec 1, 2026, 11:52:03 AM"
    assert re.search(r"[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}:\d{2}\s[AP]M", out), out


def test_a_refusal_of_the_client_itself_is_in_the_language(run):
    table_id = _pulka(run)
    assert "give --players, --title or --note" in run("table", "rename", table_id, expect=2).output
    assert (
        "укажите --players, --title или --note"
        in run("table", "rename", table_id, "--lang", "ru", expect=2).output
    )
    assert (
        "нет связи с http://127.0.0.1:9"
        in run("sheet", table_id, "--url", "http://127.0.0.1:9", "--lang", "ru", expect=1).output
    )
    # a word of the notation the client cannot read, named in the language (click writes
    # its own frame, "Invalid value for NOTATION", in English)
    bad = run("deal", "add", table_id, "7Q", "1", "--lang", "ru", expect=2).output
    assert "'7Q': сдача начинается с игры (7H), 'mis', 'rem' или 'pass'" in _flat(bad)
    bad = run("deal", "add", table_id, "mis", "x", "--lang", "ru", expect=2).output
    assert "разыгрывающий: 'x' — не номер места" in _flat(bad)
