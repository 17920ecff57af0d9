"""prefko's three-player preference rating, as its README publishes it ("Rating Algorithm"),
written out here from that description to check the comparison in docs/ratings.md: its
published example, and what prefscore's model makes of the same table. A comparison, not
the model."""

from __future__ import annotations

from fractions import Fraction

from app.ratings.model import INITIAL, ranks_of, rate

MAGIC = Fraction(28, 10)


def _prefko_changes(ratings: list[int], scores: list[int], bula: int) -> list[int]:
    """The README's steps 1-4, exactly (lower scores are better there)."""

    def pair(i: int, j: int) -> Fraction:
        d = Fraction(scores[i] - scores[j], bula)
        t = (ratings[j] - ratings[i]) * MAGIC / 100
        n = Fraction(-bula if scores[i] < scores[j] else bula if scores[i] > scores[j] else 0, 100)
        return d + t + n

    c12, c13, c23 = pair(0, 1), pair(0, 2), pair(1, 2)
    return [round((c12 + c13) / 2), round((-c12 + c23) / 2), round((-c13 - c23) / 2)]


def test_prefkos_published_example():
    # Pedja 1200 / -500, Marko 1150 / +40, Johnny 1100 / +460, bula 30:
    # D = -18, -32, -14; T = -1.4, -2.8, -1.4; N = -0.3 each; C = -19.7, -35.1, -15.7;
    # changes round(-27.4) = -27, round(2.0) = 2, round(25.4) = 25 (README: 1173, 1152, 1125).
    assert _prefko_changes([1200, 1150, 1100], [-500, 40, 460], 30) == [-27, 2, 25]


def test_the_same_table_in_prefscores_model():
    # prefscore ranks by balance, the highest first: the negated prefko scores.
    balances = [500, -40, -460]
    assert ranks_of(balances) == [1, 2, 3]
    after = rate([INITIAL] * 3, balances)
    assert [round(r.mu, 3) for r in after] == [27.869, 25.717, 21.414]
    # only the places count: a closer game gives the same update
    assert rate([INITIAL] * 3, [2, 1, -3]) == after
