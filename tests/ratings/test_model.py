"""The rating model against published and hand-computed numbers (docs/ratings.md).

The first update of a three-player table is worked out here by hand from Weng and Lin's
Plackett–Luce update (the paper's Algorithm 4, as openskill implements it, with the
library's default parameters), and the library's own documented examples are reproduced:
its manual's two-team game and its predict_win example."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from app.ratings.model import (
    INITIAL,
    MODEL,
    PROVISIONAL_TABLES,
    Rating,
    chances_first,
    predicted_places,
    ranks_of,
    rate,
)


def test_the_parameters_are_the_librarys_defaults():
    # mu 25, sigma 25/3, beta 25/6, tau 25/300, kappa 0.0001
    assert (MODEL.mu, MODEL.sigma, MODEL.beta, MODEL.tau, MODEL.kappa) == (
        25.0,
        25 / 3,
        25 / 6,
        25 / 300,
        0.0001,
    )
    assert INITIAL == Rating(25.0, 25 / 3, 0)
    assert INITIAL.ordinal == 0.0  # 25 - 3 * 25/3


def test_ranks_by_exact_balance_with_ties():
    # the highest balance first; equal balances share a place, the next place is skipped
    assert ranks_of([Fraction(10, 3), Fraction(-20, 3), Fraction(10, 3)]) == [1, 3, 1]
    assert ranks_of([5, -2, -3]) == [1, 2, 3]
    assert ranks_of([0, 0, 0]) == [1, 1, 1]
    # 1/3 and 0.333... are not equal: the balances are compared as fractions, never as floats
    assert ranks_of(
        [
            Fraction(1, 3),
            Fraction(333333333333333, 10**15),
            -Fraction(1, 3) - Fraction(333333333333333, 10**15),
        ]
    ) == [1, 2, 3]


def _by_hand(ranks: list[int]) -> list[tuple[float, float]]:
    """Three new players, one table: Weng–Lin's Plackett–Luce update written out.

    sigma² grows by tau² first (the model's dynamics): s² = (25/3)² + (25/300)².
    c = sqrt(Σ (s² + beta²)) over the three = sqrt(3 · (69.4444 + 0.006944 + 17.3611)) = 16.1378.
    For each player i and each q placed no better than... (q with rank_q <= rank_i):
      quotient = exp(mu_i/c) / Σ_{r: rank_r >= rank_q} exp(mu_r/c);
      omega += (1 - quotient if q == i else -quotient) / a_q;  delta += quotient (1 - quotient) / a_q
    (a_q: the players sharing q's place). Then mu_i += s²/c · omega and
    sigma_i = s · sqrt(max(1 - gamma · s²/c² · delta, kappa)), gamma = s/c."""
    mu, beta, kappa = [25.0] * 3, 25 / 6, 0.0001
    s = [math.sqrt((25 / 3) ** 2 + (25 / 300) ** 2)] * 3
    c = math.sqrt(sum(x * x + beta * beta for x in s))
    sums = [sum(math.exp(mu[q] / c) for q in range(3) if ranks[q] >= ranks[i]) for i in range(3)]
    shared = [sum(1 for q in range(3) if ranks[q] == ranks[i]) for i in range(3)]
    out = []
    for i in range(3):
        omega = delta = 0.0
        for q in range(3):
            if ranks[q] <= ranks[i]:
                quotient = math.exp(mu[i] / c) / sums[q]
                omega += (1 - quotient if q == i else -quotient) / shared[q]
                delta += quotient * (1 - quotient) / shared[q]
        gamma = s[i] / c
        out.append(
            (
                mu[i] + s[i] ** 2 / c * omega,
                s[i] * math.sqrt(max(1 - gamma * delta * s[i] ** 2 / c**2, kappa)),
            )
        )
    return out


def _flat(pairs) -> list[float]:
    return [v for pair in pairs for v in pair]


def test_the_first_table_of_three_new_players():
    # Anna +10, Boris +2, Vera -12: places 1, 2, 3.
    after = rate([INITIAL] * 3, [10, 2, -12])
    # By hand (above): the winner gains 2.869, the second 0.717, the last loses 3.586; mu
    # stays at 75 in total (27.869 + 25.717 + 21.414); every sigma shrinks from 8.333.
    assert _flat((r.mu, r.sigma) for r in after) == pytest.approx(_flat(_by_hand([1, 2, 3])), abs=1e-12)
    assert [(r.mu, r.sigma) for r in after] == [
        (27.869048680749426, 8.205243377397993),
        (25.717262170187357, 8.058224222802378),
        (21.413689149063217, 8.058224222802378),
    ]
    assert sum(r.mu for r in after) == pytest.approx(75.0)
    assert all(r.games == 1 and r.provisional for r in after)
    # the ordinal (mu - 3 sigma) of a new player rises even for the last: sigma shrank
    assert (
        after[2].ordinal == pytest.approx(21.413689149063217 - 3 * 8.058224222802378) and after[2].ordinal < 0
    )


def test_a_tie_for_first():
    # Anna and Boris +6 each, Vera -12: places 1, 1, 3. The two winners move alike.
    after = rate([INITIAL] * 3, [6, 6, -12])
    assert _flat((r.mu, r.sigma) for r in after) == pytest.approx(_flat(_by_hand([1, 1, 3])), abs=1e-12)
    assert after[0] == after[1] and after[0].mu > 25 > after[2].mu


def test_a_table_all_square_moves_no_mu():
    after = rate([INITIAL] * 3, [0, 0, 0])
    assert [r.mu for r in after] == [25.0, 25.0, 25.0]
    assert all(r.sigma < INITIAL.sigma for r in after)


def test_the_librarys_documented_examples():
    # The manual's "basics" example: two teams of two new players, the first wins:
    # p1, p2: mu=26.964294621803063, sigma=8.177962604389991; p3, p4: mu=23.035705378196937.
    r = MODEL.rating
    [[a, b], [x, y]] = MODEL.rate([[r(), r()], [r(), r()]])
    assert (a.mu, a.sigma) == (26.964294621803063, 8.177962604389991) and (b.mu, b.sigma) == (a.mu, a.sigma)
    assert (x.mu, x.sigma) == (23.035705378196937, 8.177962604389991)
    # The manual's predict_win: a new player against mu=33.564, sigma=1.123: [0.2021226121041832, 0.7978773878958167].
    assert chances_first([INITIAL, Rating(33.564, 1.123)]) == pytest.approx(
        [0.2021226121041832, 0.7978773878958167], abs=1e-15
    )


def test_predictions_for_a_seating():
    # three equal players: a third each, all first
    assert chances_first([INITIAL] * 3) == [1 / 3] * 3 and predicted_places([INITIAL] * 3) == [1, 1, 1]
    after = rate([INITIAL] * 3, [10, 2, -12])
    chances = chances_first(after)
    assert sum(chances) == pytest.approx(1) and chances[0] > chances[1] > chances[2]
    assert predicted_places(after) == [1, 2, 3]


def test_provisional_under_six_tables():
    assert PROVISIONAL_TABLES == 6
    assert Rating(25, 5, 5).provisional and not Rating(25, 5, 6).provisional
