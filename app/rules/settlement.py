"""Settlement (docs/rules.md §9): exact balances, cents that sum to zero, fewest transfers."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations

from app.rules.fields import Rules
from app.rules.state import TableState


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


def balances(rules: Rules, state: TableState) -> tuple[Fraction, ...]:
    """balance_i = W_i + 10·(mean(G) − G_i), with G_i = mountain_i + apart_i − k·pool_i over
    the match (apart_i: the penalties kept apart, docs/rules.md §15)."""
    n = state.players
    k = rules.pool_rate
    pools, mountains = state.totals()
    g = [Fraction(mountains[i]) + state.apart_of(i) - k * Fraction(pools[i]) for i in range(n)]
    mean = sum(g, Fraction(0)) / n
    out = []
    for i in range(n):
        wrote = sum((Fraction(state.whists[i][j]) for j in range(n)), Fraction(0))
        received = sum((Fraction(state.whists[j][i]) for j in range(n)), Fraction(0))
        out.append(wrote - received + 10 * (mean - g[i]))
    return tuple(out)


def settle(rules: Rules, state: TableState, stake: Fraction | None = None) -> Settlement:
    exact_balances = balances(rules, state)
    if stake is not None:
        exact_balances = tuple(b * stake for b in exact_balances)
    cents = round_to_cents(exact_balances)
    return Settlement(state.finished, exact_balances, cents, fewest_transfers(cents))


def round_to_cents(values: tuple[Fraction, ...]) -> tuple[int, ...]:
    """Largest-remainder rounding to whole cents that keeps the exact sum (zero here).

    Each value is floored to a cent; the cents still missing go to the values
    with the largest remainders (ties: the lower seat).
    """
    scaled = [v * 100 for v in values]
    floors = [s.numerator // s.denominator for s in scaled]
    missing = int(sum(scaled, Fraction(0))) - sum(floors)
    order = sorted(range(len(values)), key=lambda i: (-(scaled[i] - floors[i]), i))
    for i in order[:missing]:
        floors[i] += 1
    return tuple(floors)


def fewest_transfers(cents: tuple[int, ...]) -> tuple[Transfer, ...]:
    """The fewest payments that settle all balances (cents summing to zero).

    n players need n − g payments, where g is the largest number of disjoint
    groups whose balances sum to zero; with at most four players the groups are
    found by trying every subset. Inside a group, debtors pay creditors greedily.
    """
    seats = [i for i, c in enumerate(cents) if c]
    groups = _zero_groups(tuple(seats), cents)
    transfers: list[Transfer] = []
    for group in groups:
        debtors = [[i, -cents[i]] for i in group if cents[i] < 0]
        creditors = [[i, cents[i]] for i in group if cents[i] > 0]
        d = c = 0
        while d < len(debtors) and c < len(creditors):
            amount = min(debtors[d][1], creditors[c][1])
            transfers.append(Transfer(debtors[d][0], creditors[c][0], amount))
            debtors[d][1] -= amount
            creditors[c][1] -= amount
            if debtors[d][1] == 0:
                d += 1
            if creditors[c][1] == 0:
                c += 1
    return tuple(sorted(transfers, key=lambda t: (t.payer, t.payee)))


def _zero_groups(seats: tuple[int, ...], cents: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Split seats into as many zero-sum groups as possible (smallest groups first)."""
    if not seats:
        return []
    for size in range(2, len(seats)):
        for group in combinations(seats, size):
            if sum(cents[i] for i in group) == 0:
                rest = tuple(s for s in seats if s not in group)
                return [group] + _zero_groups(rest, cents)
    return [seats]
