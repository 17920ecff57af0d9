"""The one amount codec: exact values (int or Fraction, as the engine keeps them) to what is
stored and what a client reads, and back.

- ``exact``: an amount in canonical form (an int when whole, else a Fraction);
  ``amount_to_json`` / ``amount_from_json``: as stored in JSON without loss (an int, or "p/q").

- ``exact_text``: the exact value as a string, "370/3" or "12" — only ever in ``*_exact``
  fields, so that no person reads a fraction.
- ``decimal_text``: a decimal for a person, "0.5" (exact when the value has at most six
  decimal places, as a stake does; else rounded to 0.01).
- ``paper``: as written on a paper sheet, "7½", "33,33", "−3"; ``signed`` a balance,
  "+123,33".
- ``parse``: an amount from JSON or the engine (int, Fraction, a float, "p/q") as a Fraction.

Pure, standard library only; exact throughout. The JSON numbers a client reads (rounded, so
floats) are the API's: app/kit/amounts.py.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

MINUS = "−"  # U+2212: a printed minus, the width of a plus

Amount = int | Fraction


def exact(value: Amount) -> Amount:
    """An amount in canonical form: an int when whole, else a Fraction."""
    if type(value) is int:  # the common case; isinstance on Fraction goes through the ABC machinery
        return value
    if value.denominator == 1:
        return int(value.numerator)
    return value


def amount_to_json(value: Amount) -> int | str:
    """Store an amount in JSON without loss: an int, or "p/q"."""
    value = exact(value)
    return value if isinstance(value, int) else f"{value.numerator}/{value.denominator}"


def amount_from_json(value: int | str) -> Amount:
    return value if isinstance(value, int) else exact(Fraction(value))


def parse(value: Any) -> Fraction:
    """An amount from JSON or the engine (int, Fraction, a float such as 2.5, or "p/q")."""
    if isinstance(value, bool):
        raise TypeError("an amount is not a boolean")
    if isinstance(value, (int, Fraction)):
        return Fraction(value)
    if isinstance(value, float):
        # JSON numbers of the sheet are multiples of 0.5 or rounded to 0.01: str() is exact.
        return Fraction(str(value))
    if isinstance(value, str):
        return Fraction(value)
    raise TypeError(f"not an amount: {value!r}")


def exact_text(value: int | Fraction) -> str:
    """The exact value: "12", "-7/2", "370/3" (the stored form, always as text)."""
    return str(amount_to_json(exact(Fraction(value))))


def decimal_text(value: int | Fraction) -> str:
    """A decimal a person reads: "0.5", "12", "0.125"; rounded to 0.01 beyond six places."""
    value = Fraction(value)
    sign = "-" if value < 0 else ""
    value = abs(value)
    for places in range(7):
        scaled = value * 10**places
        if scaled.denominator == 1:
            break
    else:
        places, scaled = 2, Fraction(round(value * 100))
    digits = str(int(scaled)).rjust(places + 1, "0")
    whole, frac = (digits[:-places], digits[-places:]) if places else (digits, "")
    return sign + whole + ("." + frac if frac else "")


def paper(value: Any) -> str:
    """An amount as written on paper: 12, 7½, −3, 33,33 (a comma for other decimals, so
    that the dot stays the separator of a sequence)."""
    v = parse(value)
    sign = MINUS if v < 0 else ""
    v = abs(v)
    whole, rest = divmod(v, 1)
    if rest == 0:
        return f"{sign}{int(whole)}"
    if rest == Fraction(1, 2):
        return f"{sign}{int(whole) if whole else ''}½"
    cents = round(v * 100)
    return f"{sign}{cents // 100},{cents % 100:02d}"


def signed(value: Any) -> str:
    """A balance on paper: +123,33 / −50 / 0 (money-like: two decimals unless whole)."""
    v = parse(value)
    sign = "+" if v > 0 else MINUS if v < 0 else ""
    cents = round(abs(v) * 100)
    whole, rest = divmod(cents, 100)
    return f"{sign}{whole}" + (f",{rest:02d}" if rest else "")
