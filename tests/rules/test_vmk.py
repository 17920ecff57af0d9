"""vmk (docs/rules.md §5, seed 001): s = 1, k = 1, whists V a trick, undertrick V, consolation 10,
failed whist V, misère 10, two whisters on 8/9/10: both, not gentlemen, Stalingrad, remise,
per-trick all-passes [2,4,4] with exits [6,7,7], clean -cost, unwhisted game may be written
off the mountain, overflow may be written off, a failed whister cannot be helped.
3 players unless said, dealer 0 first; declarer 1 has defenders 2 (first) and 0."""

import pytest

from app.rules import InvalidDeal

from .helpers import Table, allpass, contract, misere, remise


def test_made_two_whisters():
    t = Table("vmk")
    t.deal(contract(1, "7H", {2: "whist", 0: "whist"}, {1: 7, 2: 2, 0: 1}))
    # pool 4; 2: 2*4 = 8; 0: 1*4 = 4
    assert t.pools == [0, 4, 0]
    assert t.whists == {(2, 1): 8, (0, 1): 4}


def test_failed_one_whister_not_gentlemen_consolation_ten():
    t = Table("vmk")
    t.deal(contract(1, "8H", {2: "whist", 0: "pass"}, {1: 7, 2: 2, 0: 1}))
    # u = 1: mountain 6; whister credited d = 3 * 6 = 18 + 10 = 28; passer 10
    assert t.mountains == [0, 6, 0]
    assert t.whists == {(2, 1): 28, (0, 1): 10}


def test_consolation_from_four_player_dealer():
    t = Table("vmk", players=4)
    t.deal(contract(1, "7H", {2: "whist", 3: "whist"}, {1: 4, 2: 3, 3: 3}))
    # u = 3: mountain 12; 2: 3*4 + 30 = 42; 3: 42; dealer 0: 30
    assert t.mountains == [0, 12, 0, 0]
    assert t.whists == {(2, 1): 42, (3, 1): 42, (0, 1): 30}


def test_failed_whist_full_v_on_6_and_7():
    t = Table("vmk")
    t.deal(contract(1, "6H", {2: "whist", 0: "pass"}, {1: 7, 2: 3, 0: 0}))
    # S = 1 * V = 2
    assert t.mountains == [0, 0, 2]
    t2 = Table("vmk")
    t2.deal(contract(1, "7H", {2: "whist", 0: "pass"}, {1: 9, 2: 1, 0: 0}))
    # S = 1 * 4
    assert t2.mountains == [0, 0, 4]


def test_two_whisters_on_8_both_responsible():
    t = Table("vmk")
    t.deal(contract(1, "8H", {2: "whist", 0: "whist"}, {1: 10, 2: 0, 0: 0}))
    # "both": S = 1 to each, * 6
    assert t.mountains == [6, 0, 6]


def test_two_whisters_on_9_both_responsible():
    t = Table("vmk")
    t.deal(contract(1, "9H", {2: "whist", 0: "whist"}, {1: 10, 2: 0, 0: 0}))
    assert t.mountains == [8, 0, 8]


def test_half_whist_remise_misere():
    t = Table("vmk")
    t.deal(contract(1, "7H", {2: "pass", 0: "half_whist"}))
    assert t.whists == {(0, 1): 4}  # 4 * 1 trick
    t.deal(remise(2, "6H"))
    assert t.mountains == [0, 0, 6]  # 2 * 3
    t.deal(misere(0, 2))
    assert t.mountains == [20, 0, 6]  # 10 * 2


def test_unwhisted_default_pool_or_writeoff_choice():
    t = Table("vmk")
    t.deal(contract(1, "7H", {2: "pass", 0: "pass"}))
    assert t.pools == [0, 4, 0]
    t2 = Table("vmk")
    t2.deal(contract(1, "7H", {2: "pass", 0: "pass"}, choices={"writeoff": [1]}))
    # V = 4 off the mountain instead, nothing to the pool
    assert t2.pools == [0, 0, 0]
    assert t2.mountains == [0, -4, 0]


def test_made_misere_writeoff_choice():
    t = Table("vmk")
    t.deal(misere(1, 0, choices={"writeoff": [1]}))
    # a made misère is an unwhisted game: 10 off the mountain
    assert t.pools == [0, 0, 0]
    assert t.mountains == [0, -10, 0]


def test_allpass_per_trick_costs_2_4_4_clean_minus_cost():
    t = Table("vmk")
    seen = []
    for tricks in ({0: 0, 1: 6, 2: 4}, {0: 3, 1: 3, 2: 4}, {0: 3, 1: 3, 2: 4}):
        seen.append((t.allpass["next_trick_cost"], t.allpass["min_contract"]))
        t.deal(allpass(tricks))
    seen.append((t.allpass["next_trick_cost"], t.allpass["min_contract"]))
    assert seen == [(2, 6), (4, 7), (4, 7), (4, 7)]
    # deal 1 (c = 2): 0, 12, 8, clean 0 -> -2; deal 2 (c = 4): 12, 12, 16; deal 3 (c = 4) again
    assert t.mountains == [-2 + 12 + 12, 12 + 12 + 12, 8 + 16 + 16]
    assert t.pools == [0, 0, 0]


def test_allpass_four_player_clean_dealer_nothing():
    t = Table("vmk", players=4)
    t.deal(allpass({1: 3, 2: 3, 3: 4}))
    assert t.mountains == [0, 6, 6, 8]


def test_streak_ended_only_by_made_whisted_game():
    t = Table("vmk")
    t.deal(allpass({0: 3, 1: 3, 2: 4}))
    t.deal(contract(2, "7H", {0: "pass", 1: "pass"}))  # unwhisted: not an exit
    assert t.allpass["streak"] == 1
    t.deal(misere(0, 0))  # made misère: unwhisted, not an exit
    assert t.allpass["streak"] == 1
    t.deal(contract(1, "7H", {2: "whist", 0: "pass"}, {1: 7, 2: 3, 0: 0}))
    assert t.allpass["streak"] == 0


def test_end_all_pools_closed_even_inside_a_streak():
    t = Table("vmk").set(pools=(20, 20, 16), streak=1)
    t.deal(contract(2, "7H", {0: "pass", 1: "pass"}))
    # 16 + 4 = 20: all closed; vmk's end has no "not inside a streak"
    assert t.pools == [20, 20, 20]
    assert t.allpass["streak"] == 1
    assert t.state.finished is True


def test_made_game_writeoff_refused_while_the_pool_is_open():
    # seed 001 (VMK): «ЛЮБАЯ игра может быть списана с горы по желанию, но только в случае,
    # если игрок уже "закрылся"» -- seat 0's pool is 18 of 20 before the deal: not closed, so
    # the write-off of his made 8 is refused, even though it would overflow (docs/rules.md,
    # §11, reading 4).
    t = Table("vmk").set(pools=(18, 10, 5))
    before = t.state
    with pytest.raises(InvalidDeal) as info:
        t.deal(contract(0, "8H", {1: "whist", 2: "pass"}, {0: 8, 1: 2, 2: 0}, choices={"writeoff": [0]}))
    assert [e.field for e in info.value.errors] == ["choices.writeoff"]
    assert t.state is before


def test_made_game_writeoff_once_the_pool_is_closed():
    t = Table("vmk").set(pools=(20, 10, 5))
    t.deal(contract(0, "8H", {1: "whist", 2: "pass"}, {0: 8, 1: 2, 2: 0}, choices={"writeoff": [0]}))
    # pool closed before the deal: the whole V = 6 comes off his mountain at k = 1: -6;
    # nothing to the pools (so nothing helps); whister 1 credited 2 tricks * 6 = 12
    assert t.pools == [20, 10, 5]
    assert t.mountains == [-6, 0, 0]
    assert t.whists == {(1, 0): 12}


def test_overflow_helps_by_default():
    t = Table("vmk").set(pools=(18, 10, 5))
    t.deal(contract(0, "8H", {1: "whist", 2: "pass"}, {0: 8, 1: 2, 2: 0}))
    # 4 help seat 1 at 10 whists a point: 40
    assert t.pools == [20, 14, 5]
    assert t.whists == {(1, 0): 12, (0, 1): 40}


def test_overflow_cannot_help_a_defender_who_failed_his_whist():
    t = Table("vmk").set(pools=(18, 10, 5))
    t.deal(contract(0, "8H", {1: "whist", 2: "pass"}, {0: 10, 1: 0, 2: 0}))
    # whister 1 failed (S = 1 * V = 6 to his mountain) and cannot be helped:
    # the 4 go to seat 2 (the next open pool): 5 + 4 = 9, 40 whists on 2
    assert t.mountains == [0, 6, 0]
    assert t.pools == [20, 10, 9]
    assert t.whists == {(0, 2): 40}


def test_unwhisted_writeoff_leaves_the_pool_so_nothing_overflows():
    # docs/rules.md §6.5: written off this way, the whole V leaves the mountain and nothing goes to
    # the pool (so nothing overflows) -- even with the pool 2 short of the target.
    t = Table("vmk").set(pools=(18, 10, 5))
    t.deal(contract(0, "8H", {1: "pass", 2: "pass"}, choices={"writeoff": [0]}))
    assert t.pools == [18, 10, 5]
    assert t.mountains == [-6, 0, 0]
    assert t.whists == {}
