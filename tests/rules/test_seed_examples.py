"""The worked examples of the seed documents and of docs/rules.md, computed by hand."""

from fractions import Fraction

from .helpers import Table, allpass, contract


def test_seed002_six_contract_declarer_took_seven():
    # seed 002 (primary for piter_gentleman): 6 played, declarer took 7, the defender took 3.
    # 3 players, dealer 0, declarer 1; defenders in order 2 (first), 0 (second).
    # One whister (2) with a passer (0): the whister is credited with all d = 3 tricks.
    t = Table("piter_gentleman")
    wrote = t.deal(contract(1, "6H", {2: "whist", 0: "pass"}, {1: 7, 2: 3, 0: 0}))
    # pool: V(6) = 2 to the declarer
    assert t.pools == [0, 2, 0]
    # obligation(6) = 4, d = 3 -> S = 1; failed whist in piter_gentleman is V per short
    # trick = 1 * 2 = 2 to the whister's mountain ("a half of the undertrick cost", 4/2)
    assert t.mountains == [0, 0, 2]
    # whists: 2V = 4 per trick, 3 tricks -> 12 on the declarer
    assert t.whists == {(2, 1): 12}
    assert wrote == {("pool", 1): 2, ("mountain", 2): 2, ("whists", 2, 1): 12}


def test_seed002_seven_contract_gentlemen_whist_36_each():
    # seed 002 / docs/rules.md §6.3: 7 played, declarer took 5, one whister and one passer, the
    # whister's side took 5. Declarer 1, whister 2, passer 0 (3 players, dealer 0).
    t = Table("piter_gentleman")
    t.deal(contract(1, "7H", {2: "whist", 0: "pass"}, {1: 5, 2: 5, 0: 0}))
    # u = 7 - 5 = 2; mountain 2V * u = 8 * 2 = 16
    assert t.mountains == [0, 16, 0]
    assert t.pools == [0, 0, 0]
    # whists for tricks 5 * 8 = 40, split 20 / 20 (gentlemen's whist);
    # consolation 2V * u = 8 * 2 = 16 from each -> 20 + 16 = 36 each (72 in all)
    assert t.whists == {(2, 1): 36, (0, 1): 36}


def test_seed002_seven_contract_same_in_piter():
    # piter has the gentlemen's whist fixed on (docs/rules.md §5), so the same deal scores the same.
    t = Table("piter")
    t.deal(contract(1, "7H", {2: "whist", 0: "pass"}, {1: 5, 2: 5, 0: 0}))
    # mountain 2*4*2 = 16; each defender (40/2 + 16) = 36
    assert t.mountains == [0, 16, 0]
    assert t.whists == {(2, 1): 36, (0, 1): 36}


def test_seed001_allpass_amnesty_2_1_5_2():
    # seed 001 (Piter): tricks 2,1,5,2 -> the second player nothing, the first and fourth one
    # trick's worth, the third 4. Four players, dealer 0 holding 2 talon tricks (counts, seed 001).
    t = Table("piter", players=4)
    t.deal(allpass({0: 2, 1: 1, 2: 5, 3: 2}))
    # first all-pass: c = costs[0] = 2; m = min = 1 -> (2-1, 1-1, 5-1, 2-1) * 2 = 2, 0, 8, 2
    assert t.mountains == [2, 0, 8, 2]
    # nobody is clean: no pool, no whists
    assert t.pools == [0, 0, 0, 0]
    assert t.whists == {}


def test_seed001_rostov_allpass_loser_pays_five_per_trick_either_way():
    # seed 001 (Rostov): the loser always loses 5 whists per trick, however the winners split.
    single = Table("rostov")
    single.deal(allpass({0: 1, 1: 2, 2: 7}))
    # single winner 0 (1 trick): 5 per trick on each other: on 1: 5*2 = 10, on 2: 5*7 = 35
    assert single.whists == {(0, 1): 10, (0, 2): 35}
    tied = Table("rostov")
    tied.deal(allpass({0: 2, 1: 2, 2: 6}))
    # two tied winners (2 tricks each): 2.5 per trick each on the third: 2.5 * 6 = 15 each (30 = 5*6)
    assert tied.whists == {(0, 2): 15, (1, 2): 15}
    assert tied.mountains == [0, 0, 0]


def test_seed001_rostov_talon_quick_tricks_three_players_split():
    # seed 001 (Rostov): ace or marriage 10, ace and king 20, two aces 30 whists; with 3 players
    # split between the opponents: 5, 10, 15 each. Declarer 1, unwhisted 6H (both pass, +2 pool).
    for bonus, each in (("ace", 5), ("marriage", 5), ("ace_king", 10), ("two_aces", 15)):
        t = Table("rostov")
        t.deal(contract(1, "6H", {2: "pass", 0: "pass"}, talon={"bonus": bonus}))
        assert t.pools == [0, 2, 0]
        assert t.whists == {(2, 1): each, (0, 1): each}, bonus


def test_seed004_races_clean_allpass_at_four_pool_or_twice_off_mountain():
    # seed 004: "at an all-pass at 4 a trick: 4 to the pool or 8 off the mountain".
    # 4 players, dealer 0. Deal 1 is the compulsory all-pass at 2; it leaves the streak at 1,
    # so deal 2 (dealer 1, active 0, 2, 3) is an all-pass at costs[1] = 4.
    t = Table("piter_races", players=4)
    t.deal(allpass({1: 3, 2: 3, 3: 4}))
    # per trick at 2: mountains 0, 6, 6, 8
    assert t.mountains == [0, 6, 6, 8]
    assert t.allpass["next_trick_cost"] == 4
    t.deal(allpass({0: 0, 2: 5, 3: 5}))
    # cost 4: 2: +20, 3: +20; seat 0 clean, default choice: +4 to the pool
    assert t.mountains == [0, 6, 26, 28]
    assert t.pools == [4, 0, 0, 0]

    t2 = Table("piter_races", players=4)
    t2.deal(allpass({1: 3, 2: 3, 3: 4}))
    t2.deal(allpass({0: 0, 2: 5, 3: 5}, choices={"writeoff": [0]}))
    # the other choice: 2 * 4 = 8 off the mountain, nothing to the pool
    assert t2.mountains == [-8, 6, 26, 28]
    assert t2.pools == [0, 0, 0, 0]


def test_seed002_end_when_total_pool_reaches_n_times_target():
    # seed 002: the game goes on till the total of the pools reaches target * players.
    # 3 players, target 20 -> 60. Pools 30 + 20 + 8 = 58; seat 1 (deal 1's dealer is 0, so
    # seat 1 is active) makes an unwhisted 6: +2 -> 60 -> finished (no streak).
    t = Table("piter_gentleman").set(pools=(30, 20, 8))
    t.deal(contract(1, "6H", {2: "pass", 0: "pass"}))
    # no cap in piter_gentleman: the pool simply grows to 22
    assert t.pools == [30, 22, 8]
    assert t.whists == {}
    assert t.state.finished is True


def test_rules_settlement_three_players_mountain_averaged_ten_whists_a_point():
    # docs/rules.md §9, sochi (k = 1). Pools 10, 6, 4; mountains 4, 10, 0;
    # whists 0 on 1: 20, 1 on 2: 6, 2 on 0: 8.
    t = Table("sochi").set(pools=(10, 6, 4), mountains=(4, 10, 0), whists=((0, 20, 0), (0, 0, 6), (8, 0, 0)))
    s = t.settle()
    # G = mountain - k*pool = (-6, 4, -4), mean(G) = -2, 10*(mean - G) = (40, -60, 20)
    # W = wrote - received = (20-8, 6-20, 8-6) = (12, -14, 2)
    # balance = (52, -74, 22), sums to 0
    assert s.balances == (52, -74, 22)
    assert s.cents == (5200, -7400, 2200)
    assert s.final is False
    assert all(isinstance(b, (int, Fraction)) for b in s.balances)
