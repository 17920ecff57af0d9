"""Amounts as the API sends them: JSON numbers (an int when whole, else rounded to 0.01, so a
float — the one place an amount becomes one, on its way out) and a terminal's cell. The exact
forms, which the engine and the renderer use, are app/rules/amounts.py's (re-exported here, so
that the API layer has one codec to import)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from app.rules.amounts import MINUS, decimal_text, exact_text, paper, parse, signed

__all__ = ["MINUS", "decimal_text", "exact_text", "from_cents", "number", "paper", "parse", "plain", "signed"]


def number(value: int | Fraction | float) -> int | float:
    """The JSON number of an amount: an int when whole, else rounded to 0.01."""
    if isinstance(value, bool):
        raise TypeError("an amount is not a boolean")
    if isinstance(value, int):
        return value
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return int(value.numerator)
        return round(float(value), 2)
    if isinstance(value, float):
        return int(value) if value.is_integer() else round(value, 2)
    raise TypeError(f"not an amount: {value!r}")


def from_cents(cents: int) -> int | float:
    """Money rounded to cents (an int count of 0.01) as a JSON number."""
    return cents // 100 if cents % 100 == 0 else round(cents / 100, 2)


def plain(value: Any) -> str:
    """An amount in a terminal's table: "12", "2.5", "33.33" (a JSON number as sent)."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, (int, float, Fraction)):
        value = number(value)
    return str(value)
