"""The ``stake`` query parameter (money per whist) of the settlement and the share link.

The text is refused by its form before anything converts it: an exact Fraction of
``1e9999999`` is a number with ten million digits, which takes the process seconds to
build (hours for the longer exponents 32 characters allow). Only plain decimals pass
(ASCII digits, an optional decimal part, an optional exponent of at most two digits), so
the conversion that follows works on at most 32 digits times 10**99: microseconds.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Annotated

from fastapi import Query

from app.kit.errors import Unprocessable
from app.rules import FieldError, Sentence, sentence

STAKE_MAX = Fraction(1_000_000)
from app.kit.limits import STAKE_DECIMALS, STAKE_MAX_LENGTH  # noqa: E402

# The query parameter, as the settlement, the share link and a player's statistics declare it.
StakeQuery = Annotated[
    str | None,
    Query(
        description="money per whist, a decimal such as 0.5: balances and transfers are multiplied by it",
        max_length=STAKE_MAX_LENGTH,
    ),
]
# [0-9], not \d: \d also matches other scripts' digits, which Decimal would accept.
_FORM = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]{1,2}))?")


def _refuse(reason: str) -> Unprocessable:
    return Unprocessable(Sentence("stake {reason}", reason=sentence(reason)), [FieldError("stake", reason)])


def parse_stake(raw: str | None) -> Fraction | None:
    """A decimal string (``0.5``, ``10``, ``2.5e1``) as an exact Fraction; 422 otherwise."""
    if raw is None:
        return None
    text = raw.strip()
    if len(text) > STAKE_MAX_LENGTH:
        raise _refuse(
            Sentence("must be at most {stake_max_length} characters", stake_max_length=STAKE_MAX_LENGTH)
        )
    form = _FORM.fullmatch(text)
    if form is None or not (form.group(2) or form.group(3)):
        raise _refuse(Sentence("must be a decimal number, e.g. 0.5"))
    sign, whole, decimals, exponent = form.group(1), form.group(2), form.group(3) or "", form.group(4) or "0"
    # Bounded by the form: at most 32 digits and |exponent| <= 99.
    value = Fraction(int(whole + decimals or "0"), 10 ** len(decimals)) * Fraction(10) ** int(exponent)
    if sign == "-" and value != 0:
        raise _refuse(Sentence("must not be negative"))
    if value > STAKE_MAX:
        raise _refuse(Sentence("must be at most {stake_max}", stake_max=STAKE_MAX))
    if value.denominator > 10**STAKE_DECIMALS:
        raise _refuse(Sentence("at most {stake_decimals} decimal places", stake_decimals=STAKE_DECIMALS))
    return value
