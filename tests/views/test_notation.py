"""The client's short deal notation."""

from __future__ import annotations

import pytest

from app.cli.client.notation import NotationError, format_deal, parse_deal
from app.rules import Deal


@pytest.mark.parametrize(
    "text, body",
    [
        (
            "7H 1 w2 p0 1:6 2:3 0:1",
            {
                "type": "contract",
                "declarer": 1,
                "contract": "7H",
                "defenders": {"2": "whist", "0": "pass"},
                "tricks": {"1": 6, "2": 3, "0": 1},
            },
        ),
        (
            "10nt 0 w1 w2 0:10 1:0 2:0",
            {
                "type": "contract",
                "declarer": 0,
                "contract": "10NT",
                "defenders": {"1": "whist", "2": "whist"},
                "tricks": {"0": 10, "1": 0, "2": 0},
            },
        ),
        (
            "8S 2 p0 p1",
            {"type": "contract", "declarer": 2, "contract": "8S", "defenders": {"0": "pass", "1": "pass"}},
        ),
        (
            "7D 1 p2 h0",
            {
                "type": "contract",
                "declarer": 1,
                "contract": "7D",
                "defenders": {"2": "pass", "0": "half_whist"},
            },
        ),
        ("mis 0 0:1", {"type": "misere", "declarer": 0, "tricks": {"0": 1}}),
        ("misere 0 0:0 1:5 2:5", {"type": "misere", "declarer": 0, "tricks": {"0": 0, "1": 5, "2": 5}}),
        ("rem 2 8S", {"type": "remise", "declarer": 2, "contract": "8S"}),
        ("pass 0:2 1:5 2:3", {"type": "allpass", "tricks": {"0": 2, "1": 5, "2": 3}}),
        (
            "pass 0:2 1:5 2:3 3:0 dealer=3",
            {"type": "allpass", "tricks": {"0": 2, "1": 5, "2": 3, "3": 0}, "dealer": 3},
        ),
        (
            "6C 0 w1 w2 0:6 1:2 2:2 writeoff=0,1 help=2",
            {
                "type": "contract",
                "declarer": 0,
                "contract": "6C",
                "defenders": {"1": "whist", "2": "whist"},
                "tricks": {"0": 6, "1": 2, "2": 2},
                "choices": {"writeoff": [0, 1], "help": 2},
            },
        ),
        (
            "7H 1 w2 p0 1:7 2:3 0:0 talon=ace_king discarded",
            {
                "type": "contract",
                "declarer": 1,
                "contract": "7H",
                "defenders": {"2": "whist", "0": "pass"},
                "tricks": {"1": 7, "2": 3, "0": 0},
                "talon": {"bonus": "ace_king", "discarded": True},
            },
        ),
        (
            "9NT 1 w2 w3 1:8 2:1 3:1 over_misere note=Boris was brave: 9 over misère",
            {
                "type": "contract",
                "declarer": 1,
                "contract": "9NT",
                "defenders": {"2": "whist", "3": "whist"},
                "tricks": {"1": 8, "2": 1, "3": 1},
                "over_misere": True,
                "note": "Boris was brave: 9 over misère",
            },
        ),
    ],
)
def test_notation_reads_into_the_api_deal_body(text, body):
    parsed = parse_deal(text)
    assert parsed == body
    Deal.from_dict(parsed)  # the engine's shape check accepts it
    assert parse_deal(format_deal(parsed)) == parsed  # and it writes back


@pytest.mark.parametrize(
    "code, written",
    [("en", "7♥ 1 w2 p0 1:6 2:3 0:1"), ("ru", "7♥ 1 w2 p0 1:6 2:3 0:1")],
)
def test_contracts_are_written_with_the_suit_symbol_and_read_back(code, written):
    from app.kit.i18n import language

    body = parse_deal("7H 1 w2 p0 1:6 2:3 0:1")
    assert format_deal(body, language(code)) == written
    assert parse_deal(written) == body


def test_no_trumps_as_each_language_writes_them_reads_back():
    from app.kit.i18n import language

    body = parse_deal("10NT 0 w1 w2 0:10 1:0 2:0")
    assert format_deal(body, language("ru")).startswith("10БК 0 ")  # без козыря
    assert format_deal(body, language("en")).startswith("10NT 0 ")
    assert parse_deal("10БК 0 w1 w2 0:10 1:0 2:0") == parse_deal("10бк 0 w1 w2 0:10 1:0 2:0") == body
    assert parse_deal("rem 2 8♠") == {"type": "remise", "declarer": 2, "contract": "8S"}


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "empty"),
        ("5H 1", "'5H'"),
        ("7X 1", "'7X'"),
        ("7H", "declarer"),
        ("7H x", "seat number"),
        ("mis", "declarer"),
        ("rem 2", "remise"),
        ("rem 2 5S", "not a contract"),
        ("7H 1 w2 w2", "already a defender"),
        ("pass 0:2 0:3", "twice"),
        ("7H 1 q2", "'q2'"),
        ("7H 1 color=red", "unknown option"),
        ("7H 1 talon=king", "talon is one of"),
        ("pass w1", "'w1'"),
    ],
)
def test_bad_notation_names_the_word(text, words):
    with pytest.raises(NotationError) as exc:
        parse_deal(text)
    assert words in str(exc.value)
