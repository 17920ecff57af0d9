"""docs/rules.md §8.3 beyond piter's cases (tests/rules/test_piter.py): the order of several pool
writes in one deal, a clean all-pass player's point overflowing, k = 1 help whists, no cap."""

from .helpers import Table, allpass, contract


def test_several_pool_writes_one_seat_at_a_time_clockwise_from_after_dealer():
    t = Table("sochi").set(pools=(20, 19, 19))
    # dealer 0; seats 0 and 1 clean: +1 each (c = 1); seat 2 takes 10 -> mountain 10.
    # Order: seat 1 first (after the dealer), then 2, then 0. Seat 1: 19 -> 20, closes.
    # Seat 0: closed, its point helps the only open pool, seat 2: 19 -> 20, 10 whists (k = 1).
    t.deal(allpass({0: 0, 1: 0, 2: 10}))
    assert t.pools == [20, 20, 20]
    assert t.mountains == [0, 0, 10]
    assert t.whists == {(0, 2): 10}
    assert t.state.finished is True


def test_clean_player_point_overflows():
    t = Table("sochi").set(pools=(20, 12, 15))
    t.deal(allpass({0: 0, 1: 5, 2: 5}))
    # seat 0 closed: his +1 helps the largest open pool, seat 2 (15): 10 whists on 2
    assert t.pools == [20, 12, 16]
    assert t.whists == {(0, 2): 10}


def test_k1_help_is_ten_whists_a_point_rostov():
    t = Table("rostov").set(pools=(17, 9, 3))
    t.deal(contract(0, "8H", {1: "pass", 2: "pass"}))
    # +6: 3 close seat 0, 3 help seat 1: 30 whists
    assert t.pools == [20, 12, 3]
    assert t.whists == {(0, 1): 30}


def test_overflow_with_no_open_pool_k1():
    t = Table("sochi").set(pools=(19, 20, 20))
    t.deal(contract(0, "7H", {1: "pass", 2: "pass"}))
    # +4: 1 closes, 3 off seat 0's own mountain at k = 1
    assert t.pools == [20, 20, 20]
    assert t.mountains == [-3, 0, 0]


def test_races_has_no_cap():
    t = Table("piter_races", players=4).set(compulsory_cost=None, streak=1, pools=(0, 21, 0, 0))
    # dealer 0; seat 1 makes an unwhisted 8: 21 + 6 = 27, nobody helped. Inside a streak
    # (an unwhisted game is no exit), so the game does not end and the pool stays on the sheet.
    t.deal(contract(1, "8H", {2: "pass", 3: "pass"}))
    assert t.pools == [0, 27, 0, 0]
    assert t.whists == {}
    assert t.state.game == 1
