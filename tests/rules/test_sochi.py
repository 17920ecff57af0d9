"""sochi (docs/rules.md §5): s = 1, k = 1, whists V a trick, undertrick V, consolation V,
failed whist V/2, misère 10 a trick, 8: second / 9, 10: both, per-trick all-passes.

3 players unless said: dealer 0 on the first deal; a declarer 1 has defenders 2 (first,
his left neighbour) and 0 (second)."""

from .helpers import Table, allpass, contract, misere, remise

# --- made contracts -------------------------------------------------------------


def test_made_one_whister_credited_with_all_tricks():
    t = Table("sochi")
    t.deal(contract(1, "7H", {2: "whist", 0: "pass"}, {1: 7, 2: 2, 0: 1}))
    # pool +V(7) = 4; whister 2 credited with d = 3 tricks * V = 4 -> 12; passer nothing;
    # d = 3 >= obligation 2: no failed whist
    assert t.pools == [0, 4, 0]
    assert t.mountains == [0, 0, 0]
    assert t.whists == {(2, 1): 12}


def test_made_two_whisters_each_for_his_own_tricks():
    t = Table("sochi")
    t.deal(contract(1, "6D", {2: "whist", 0: "whist"}, {1: 6, 2: 3, 0: 1}))
    # pool +2; 2 writes 3*2 = 6, 0 writes 1*2 = 2; d = 4 = obligation
    assert t.pools == [0, 2, 0]
    assert t.whists == {(2, 1): 6, (0, 1): 2}
    assert t.mountains == [0, 0, 0]


# --- failed contracts -----------------------------------------------------------


def test_failed_two_whisters_whists_plus_consolation():
    t = Table("sochi")
    t.deal(contract(1, "8H", {2: "whist", 0: "whist"}, {1: 6, 2: 3, 0: 1}))
    # u = 2; mountain V*u = 6*2 = 12
    assert t.mountains == [0, 12, 0]
    assert t.pools == [0, 0, 0]
    # 2: 3*6 = 18 + consolation 6*2 = 12 -> 30;  0: 1*6 = 6 + 12 -> 18
    assert t.whists == {(2, 1): 30, (0, 1): 18}


def test_failed_one_whister_no_gentlemen_whist_by_default():
    t = Table("sochi")
    t.deal(contract(1, "7H", {2: "whist", 0: "pass"}, {1: 5, 2: 4, 0: 1}))
    # u = 2; mountain 4*2 = 8
    assert t.mountains == [0, 8, 0]
    # whister credited with d = 5: 5*4 = 20 + consolation 4*2 = 8 -> 28; passer consolation 8
    assert t.whists == {(2, 1): 28, (0, 1): 8}


def test_failed_one_whister_gentlemen_whist_option_splits_trick_whists():
    t = Table("sochi", gentlemen_whist=True)
    t.deal(contract(1, "7H", {2: "whist", 0: "pass"}, {1: 5, 2: 4, 0: 1}))
    # 20 for tricks split 10 / 10, plus 8 consolation each -> 18 each
    assert t.mountains == [0, 8, 0]
    assert t.whists == {(2, 1): 18, (0, 1): 18}


def test_made_one_whister_gentlemen_whist_keeps_all_whists():
    t = Table("sochi", gentlemen_whist=True)
    t.deal(contract(1, "7H", {2: "whist", 0: "pass"}, {1: 7, 2: 3, 0: 0}))
    # made: the whister keeps all 3*4 = 12
    assert t.whists == {(2, 1): 12}


def test_consolation_from_four_player_dealer():
    # 4 players, dealer 0 sits out; declarer 1, defenders 2 (first), 3 (second)
    t = Table("sochi", players=4)
    t.deal(contract(1, "7H", {2: "whist", 3: "whist"}, {1: 5, 2: 3, 3: 2}))
    # u = 2: mountain 4*2 = 8; 2: 3*4 + 4*2 = 20; 3: 2*4 + 8 = 16; dealer 0: consolation 8
    assert t.mountains == [0, 8, 0, 0]
    assert t.whists == {(2, 1): 20, (3, 1): 16, (0, 1): 8}


def test_made_four_players_dealer_gets_nothing():
    t = Table("sochi", players=4)
    t.deal(contract(1, "6H", {2: "whist", 3: "pass"}, {1: 6, 2: 3, 3: 1, 0: 0}))
    # pool +2; whister credited d = 4 tricks * 2 = 8; dealer and passer nothing
    assert t.pools == [0, 2, 0, 0]
    assert t.whists == {(2, 1): 8}


# --- failed whists (V/2 per short trick) ------------------------------------------


def test_failed_whist_on_6_one_whister():
    t = Table("sochi")
    t.deal(contract(1, "6H", {2: "whist", 0: "pass"}, {1: 8, 2: 2, 0: 0}))
    # S = 4 - 2 = 2; V/2 = 1 per short trick -> 2 to 2's mountain; whists 2*2 = 4
    assert t.pools == [0, 2, 0]
    assert t.mountains == [0, 0, 2]
    assert t.whists == {(2, 1): 4}


def test_failed_whist_on_7():
    t = Table("sochi")
    t.deal(contract(1, "7H", {2: "whist", 0: "pass"}, {1: 9, 2: 1, 0: 0}))
    # S = 2 - 1 = 1; V/2 = 2 -> mountain 2; whists 1*4 = 4
    assert t.mountains == [0, 0, 2]
    assert t.whists == {(2, 1): 4}


def test_failed_whist_on_8():
    t = Table("sochi")
    t.deal(contract(1, "8H", {2: "whist", 0: "pass"}, {1: 10, 2: 0, 0: 0}))
    # S = 1; V/2 = 3
    assert t.pools == [0, 6, 0]
    assert t.mountains == [0, 0, 3]
    assert t.whists == {}


def test_failed_whist_on_9():
    t = Table("sochi")
    t.deal(contract(1, "9H", {2: "whist", 0: "pass"}, {1: 10, 2: 0, 0: 0}))
    # S = 1; V/2 = 4
    assert t.pools == [0, 8, 0]
    assert t.mountains == [0, 0, 4]


def test_failed_whist_on_10_when_tens_are_whisted():
    t = Table("sochi", whisted_tens=True)
    t.deal(contract(1, "10H", {2: "whist", 0: "pass"}, {1: 10, 2: 0, 0: 0}))
    # obligation 1, S = 1; V/2 = 5
    assert t.pools == [0, 10, 0]
    assert t.mountains == [0, 0, 5]


def test_two_whisters_on_6_only_the_one_below_half_is_responsible():
    t = Table("sochi")
    t.deal(contract(1, "6H", {2: "whist", 0: "whist"}, {1: 7, 2: 2, 0: 1}))
    # d = 3, S = 1; half of 4 is 2: 2 took 2 (not responsible), 0 took 1 -> 0 charged S = 1 * 1
    assert t.mountains == [1, 0, 0]
    assert t.whists == {(2, 1): 4, (0, 1): 2}


def test_two_whisters_on_6_both_below_half_each_his_own_shortfall():
    t = Table("sochi")
    t.deal(contract(1, "6H", {2: "whist", 0: "whist"}, {1: 9, 2: 1, 0: 0}))
    # S = 3; 2 short 2-1 = 1 -> 1*1 = 1; 0 short 2-0 = 2 -> 2*1 = 2 (adds up to S)
    assert t.mountains == [2, 0, 1]
    assert t.whists == {(2, 1): 2}


def test_two_whisters_on_7_both_took_nothing():
    t = Table("sochi")
    t.deal(contract(1, "7H", {2: "whist", 0: "whist"}, {1: 10, 2: 0, 0: 0}))
    # S = 2; half = 1; each short 1 -> 1 * V/2 = 2 each
    assert t.mountains == [2, 0, 2]


def test_two_whisters_on_8_the_second_is_responsible():
    t = Table("sochi")
    t.deal(contract(1, "8H", {2: "whist", 0: "whist"}, {1: 10, 2: 0, 0: 0}))
    # S = 1 charged to the second defender: order from declarer 1's left: 2 first, 0 second
    # -> 0 gets 1 * V/2 = 3
    assert t.mountains == [3, 0, 0]


def test_two_whisters_on_9_both_are_responsible():
    t = Table("sochi")
    t.deal(contract(1, "9H", {2: "whist", 0: "whist"}, {1: 10, 2: 0, 0: 0}))
    # S = 1 charged to each: 1 * 8/2 = 4 each
    assert t.mountains == [4, 0, 4]


# --- not played out -----------------------------------------------------------


def test_unwhisted_game_pool_only():
    t = Table("sochi")
    t.deal(contract(1, "8H", {2: "pass", 0: "pass"}))
    assert t.pools == [0, 6, 0]
    assert t.mountains == [0, 0, 0]
    assert t.whists == {}


def test_half_whist_on_6():
    t = Table("sochi")
    t.deal(contract(1, "6H", {2: "pass", 0: "half_whist"}))
    # pool +2; half-whister 0 writes s*V = 2 for half the obligation (2 tricks) -> 4
    assert t.pools == [0, 2, 0]
    assert t.whists == {(0, 1): 4}


def test_half_whist_on_7():
    t = Table("sochi")
    t.deal(contract(1, "7H", {2: "pass", 0: "half_whist"}))
    # pool +4; 1 trick * 4 = 4
    assert t.pools == [0, 4, 0]
    assert t.whists == {(0, 1): 4}


def test_remise_three_undertricks_no_whists():
    t = Table("sochi")
    t.deal(remise(1, "8S"))
    # s*V*3 = 6*3 = 18 to the mountain; no whists, no consolation
    assert t.mountains == [0, 18, 0]
    assert t.whists == {}
    assert t.pools == [0, 0, 0]


# --- misère ----------------------------------------------------------------------


def test_misere_made():
    t = Table("sochi")
    t.deal(misere(1, 0))
    assert t.pools == [0, 10, 0]
    assert t.whists == {}


def test_misere_failed_ten_a_trick():
    t = Table("sochi")
    t.deal(misere(1, 2))
    # 10 * 2 = 20 to the mountain, no whists, no consolation
    assert t.mountains == [0, 20, 0]
    assert t.whists == {}
    assert t.pools == [0, 0, 0]


# --- all-passes ------------------------------------------------------------------


def test_allpass_per_trick_cost_one():
    t = Table("sochi")
    t.deal(allpass({0: 2, 1: 5, 2: 3}))
    # c = 1: mountains 2, 5, 3
    assert t.mountains == [2, 5, 3]
    assert t.pools == [0, 0, 0]


def test_allpass_clean_player_one_cost_to_pool():
    t = Table("sochi")
    t.deal(allpass({0: 0, 1: 6, 2: 4}))
    # c = 1: mountains 0, 6, 4; seat 0 clean: +1 to the pool
    assert t.mountains == [0, 6, 4]
    assert t.pools == [1, 0, 0]


def test_allpass_costs_option_1_2_3_progression():
    t = Table("sochi", allpass_costs=[1, 2, 3])
    t.deal(allpass({0: 2, 1: 5, 2: 3}))  # c = 1 -> 2, 5, 3
    t.deal(allpass({0: 2, 1: 5, 2: 3}))  # c = 2 -> +4, +10, +6
    t.deal(allpass({0: 2, 1: 5, 2: 3}))  # c = 3 -> +6, +15, +9
    t.deal(allpass({0: 1, 1: 5, 2: 4}))  # c = 3 (last) -> +3, +15, +12
    assert t.mountains == [2 + 4 + 6 + 3, 5 + 10 + 15 + 15, 3 + 6 + 9 + 12]


def test_allpass_four_players_dealer_talon_tricks_count_clean_dealer_nothing():
    t = Table("sochi", players=4)
    t.deal(allpass({0: 1, 1: 3, 2: 3, 3: 3}))
    # dealer 0 holds 1 talon trick -> 1 * 1 to his mountain
    assert t.mountains == [1, 3, 3, 3]
    t2 = Table("sochi", players=4)
    t2.deal(allpass({0: 0, 1: 3, 2: 3, 3: 4}))
    # a clean dealer of a 4-player table gets nothing in sochi
    assert t2.pools == [0, 0, 0, 0]
    assert t2.mountains == [0, 3, 3, 4]


# --- streak -------------------------------------------------------------------


def test_streak_default_cost_one_exit_six():
    t = Table("sochi")
    for streak in range(4):
        ap = t.allpass
        # costs [1], exits [6]: always 1 and 6; level = min(streak, 2) + 1
        assert (ap["streak"], ap["level"], ap["next_trick_cost"], ap["min_contract"]) == (
            streak,
            min(streak, 2) + 1,
            1,
            6,
        )
        t.deal(allpass({0: 3, 1: 3, 2: 4}))


def test_streak_exit_option_6_7_7():
    t = Table("sochi", exit_levels=[6, 7, 7], allpass_costs=[1, 2, 3])
    seen = []
    for _ in range(4):
        seen.append((t.allpass["next_trick_cost"], t.allpass["min_contract"]))
        t.deal(allpass({0: 3, 1: 3, 2: 4}))
    # after 0, 1, 2, 3 all-passes: (1, 6), (2, 7), (3, 7), (3, 7)
    assert seen == [(1, 6), (2, 7), (3, 7), (3, 7)]


def test_streak_ended_by_any_made_game_unwhisted_included():
    t = Table("sochi", exit_levels=[6, 7, 7])
    t.deal(allpass({0: 3, 1: 3, 2: 4}))  # streak 1, dealer moves to 1
    t.deal(contract(2, "7H", {0: "pass", 1: "pass"}))  # made unwhisted: "any made game"
    assert t.allpass["streak"] == 0
    t.deal(allpass({0: 3, 1: 3, 2: 4}))
    t.deal(misere(1, 0))  # a made misère is a made game too
    assert t.allpass["streak"] == 0


def test_streak_not_ended_by_failed_game_or_remise():
    t = Table("sochi")
    t.deal(allpass({0: 3, 1: 3, 2: 4}))
    t.deal(contract(2, "6H", {0: "whist", 1: "whist"}, {2: 5, 0: 3, 1: 2}))  # failed
    assert t.allpass["streak"] == 1
    t.deal(remise(2, "6H"))
    assert t.allpass["streak"] == 1
    t.deal(misere(2, 1))  # failed misère
    assert t.allpass["streak"] == 1


# --- end of game ----------------------------------------------------------------


def test_end_when_all_pools_closed_even_inside_a_streak():
    # sochi's end is "all pools closed" (no "not inside a streak"): the clean player's pool
    # point in an all-pass closes the last pool -> finished although the streak is 1.
    t = Table("sochi").set(pools=(20, 20, 19))
    t.deal(allpass({0: 5, 1: 5, 2: 0}))
    # c = 1: seat 2 clean +1 -> 20
    assert t.pools == [20, 20, 20]
    assert t.mountains == [5, 5, 0]
    assert t.state.finished is True
    assert t.settle().final is True


def test_not_finished_while_a_pool_is_open():
    t = Table("sochi").set(pools=(20, 20, 10))
    t.deal(contract(1, "6H", {2: "pass", 0: "pass"}))
    assert t.state.finished is False
