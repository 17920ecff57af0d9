"""Settlement (RULES.md section 8): exact balances, cents that sum to zero, fewest transfers."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .conventions import Rules
from .state import TableState


@dataclass(frozen=True, slots=True)
class Transfer:
    payer: int  # "from" in the API
    payee: int  # "to"
    cents: int


@dataclass(frozen=True, slots=True)
class Settlement:
    final: bool
    balances: tuple[Fraction, ...]  # exact, in whists (times the stake when given)
    cents: tuple[int, ...]  # rounded to 0.01, summing to exactly 0
    transfers: tuple[Transfer, ...]


def settle(rules: Rules, state: TableState, stake: Fraction | None = None) -> Settlement:
    raise NotImplementedError
