"""docs/rules.md §9: balance_i = W_i + 10 * (mean(G) - G_i), G_i = mountain_i - k * pool_i,
exact Fractions; cents rounded to 0.01 summing to exactly zero; fewest transfers; stake."""

from fractions import Fraction

from .helpers import Table


def _flows(s, n):
    """Net cents each seat receives from the transfers."""
    net = [0] * n
    for tr in s.transfers:
        assert tr.cents > 0
        net[tr.payer] -= tr.cents
        net[tr.payee] += tr.cents
    return net


def _sochi_example():
    # pools 10, 6, 4; mountains 4, 10, 0; whists 0 on 1: 20, 1 on 2: 6, 2 on 0: 8
    return Table("sochi").set(
        pools=(10, 6, 4), mountains=(4, 10, 0), whists=((0, 20, 0), (0, 0, 6), (8, 0, 0))
    )


def test_three_players_k1_balances_and_fewest_transfers():
    s = _sochi_example().settle()
    # G = (-6, 4, -4), mean -2 -> (40, -60, 20); W = (12, -14, 2) -> (52, -74, 22)
    assert s.balances == (52, -74, 22)
    assert sum(s.balances) == 0
    assert s.cents == (5200, -7400, 2200)
    # one debtor, two creditors: 2 payments
    assert sorted((tr.payer, tr.payee, tr.cents) for tr in s.transfers) == [(1, 0, 5200), (1, 2, 2200)]


def test_stake_multiplies_balances_and_transfers():
    s = _sochi_example().settle(stake=Fraction(1, 2))
    # (52, -74, 22) * 1/2 = (26, -37, 11)
    assert s.balances == (26, -37, 11)
    assert s.cents == (2600, -3700, 1100)
    assert sorted((tr.payer, tr.payee, tr.cents) for tr in s.transfers) == [(1, 0, 2600), (1, 2, 1100)]


def test_pool_counts_twenty_whists_a_point_with_k2():
    t = Table("piter").set(pools=(20, 10, 0))
    s = t.settle()
    # G = (-40, -20, 0), mean -20 -> 10 * (mean - G) = (200, 0, -200)
    assert s.balances == (200, 0, -200)
    assert [(tr.payer, tr.payee, tr.cents) for tr in s.transfers] == [(2, 0, 20000)]


def test_amnesty_of_the_mountain_changes_nothing():
    a = Table("piter").set(mountains=(10, 12, 14)).settle()
    b = Table("piter").set(mountains=(0, 2, 4)).settle()
    # G differ by a constant 10 -> same mean - G_i: (20, 0, -20)
    assert a.balances == b.balances == (20, 0, -20)


def test_exact_thirds_rounded_cents_sum_to_zero():
    s = Table("sochi").set(mountains=(1, 0, 0)).settle()
    # G = (1, 0, 0), mean 1/3 -> 10 * (1/3 - 1) = -20/3, 10/3, 10/3
    assert s.balances == (Fraction(-20, 3), Fraction(10, 3), Fraction(10, 3))
    assert all(isinstance(b, (int, Fraction)) for b in s.balances)
    assert sum(s.cents) == 0
    # each rounded to a cent next to the exact value: -666.67/-666.66 and 333.33/333.34
    for c, b in zip(s.cents, s.balances):
        assert abs(c - b * 100) < 1
    assert _flows(s, 3) == list(s.cents)


def test_stake_with_thirds():
    s = Table("sochi").set(mountains=(1, 0, 0)).settle(stake=Fraction(3, 10))
    # (-20/3, 10/3, 10/3) * 3/10 = (-2, 1, 1) exactly
    assert s.balances == (-2, 1, 1)
    assert s.cents == (-200, 100, 100)


def test_four_players_mean_over_four():
    t = Table("sochi", players=4).set(pools=(10, 0, 0, 0), mountains=(0, 0, 0, 2))
    s = t.settle()
    # G = (-10, 0, 0, 2), mean -2 -> 10 * (mean - G) = (80, -20, -20, -40)
    assert s.balances == (80, -20, -20, -40)
    assert len(s.transfers) == 3
    assert _flows(s, 4) == [8000, -2000, -2000, -4000]


def test_fewest_transfers_pairs_off():
    z = (0, 0, 0, 0)
    t = Table("sochi", players=4).set(whists=((0, 30, 0, 0), z, (0, 0, 0, 20), z))
    s = t.settle()
    # W = (30, -30, 20, -20); two pairs settle in 2 payments
    assert s.balances == (30, -30, 20, -20)
    assert sorted((tr.payer, tr.payee, tr.cents) for tr in s.transfers) == [(1, 0, 3000), (3, 2, 2000)]


def test_settlement_of_a_played_deal():
    t = Table("piter")
    t.deal(
        {
            "type": "contract",
            "declarer": 1,
            "contract": "7H",
            "defenders": {"2": "whist", "0": "pass"},
            "tricks": {"1": 5, "2": 5, "0": 0},
        }
    )
    s = t.settle()
    # mountain 1: 16; whists 2 on 1: 36, 0 on 1: 36 (seed 002). G = (0, 16, 0), mean 16/3
    # 10*(mean - G) = (160/3, -320/3, 160/3); W = (36, -72, 36)
    assert s.balances == (Fraction(160, 3) + 36, Fraction(-320, 3) - 72, Fraction(160, 3) + 36)
    assert s.final is False
    assert sum(s.cents) == 0
