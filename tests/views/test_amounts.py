"""The one amount codec (app/rules/amounts.py): each way an exact value is shown."""

from __future__ import annotations

from fractions import Fraction

from app.kit import amounts


def test_json_numbers_and_exact_text():
    assert amounts.number(12) == 12 and isinstance(amounts.number(Fraction(24, 2)), int)
    assert amounts.number(Fraction(5, 2)) == 2.5
    assert amounts.number(Fraction(784, 3)) == 261.33  # 784/3 = 261.333…, rounded to 0.01
    assert amounts.from_cents(12300) == 123 and amounts.from_cents(-12333) == -123.33
    assert amounts.exact_text(Fraction(784, 3)) == "784/3" and amounts.exact_text(-7) == "-7"


def test_text_for_people():
    assert amounts.decimal_text(Fraction(1, 2)) == "0.5"
    assert amounts.decimal_text(Fraction(1, 8)) == "0.125"
    assert amounts.decimal_text(10) == "10"
    assert amounts.decimal_text(Fraction(-3, 100)) == "-0.03"
    assert amounts.decimal_text(Fraction(1, 3)) == "0.33"
    assert amounts.paper(Fraction(15, 2)) == "7½" and amounts.paper(Fraction(100, 3)) == "33,33"
    assert (
        amounts.signed(Fraction(370, 3)) == "+123,33"
        and amounts.signed(-50) == "−50"
        and amounts.signed(0) == "0"
    )
    assert amounts.plain(2.0) == "2" and amounts.plain(Fraction(5, 2)) == "2.5" and amounts.plain("x") == "x"
    assert amounts.parse("784/3") == Fraction(784, 3) and amounts.parse(2.5) == Fraction(5, 2)
