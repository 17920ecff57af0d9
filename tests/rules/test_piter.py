"""piter (docs/rules.md §5): s = 2, k = 2, whists 2V a trick, undertrick 2V, consolation 2V,
failed whist V, misère 20 a trick, 8: second / 9, 10: both, gentlemen's whist, Stalingrad
on, amnesty all-passes [2,4,6] / exits [6,7,7], clean -1 cost, streak ends on a made whisted
game, end when all pools are closed outside a streak, overflow helps at 20 whists a point.

3 players unless said: dealer 0 on the first deal; declarer 1 has defenders 2 (first) and 0."""

from .helpers import Table, allpass, contract, misere, remise

# --- made contracts ---------------------------------------------------------------


def test_made_one_whister_two_v_a_trick():
    t = Table("piter")
    t.deal(contract(1, "7H", {2: "whist", 0: "pass"}, {1: 7, 2: 3, 0: 0}))
    # pool +V = 4 (the pool is not doubled); whister credited d = 3 * 2V = 8 -> 24
    assert t.pools == [0, 4, 0]
    assert t.whists == {(2, 1): 24}
    assert t.mountains == [0, 0, 0]


def test_made_two_whisters():
    t = Table("piter")
    t.deal(contract(1, "6H", {2: "whist", 0: "whist"}, {1: 6, 2: 2, 0: 2}))
    # pool +2; 2V = 4 a trick: 2 -> 8, 0 -> 8
    assert t.pools == [0, 2, 0]
    assert t.whists == {(2, 1): 8, (0, 1): 8}


def test_stalingrad_six_spades_whisted_by_both():
    t = Table("piter")
    t.deal(contract(1, "6S", {2: "whist", 0: "whist"}, {1: 7, 2: 2, 0: 1}))
    # pool +2; 2 writes 2*4 = 8, 0 writes 1*4 = 4; d = 3, S = 1: 0 took 1 < 2 -> V = 2 to mountain
    assert t.pools == [0, 2, 0]
    assert t.whists == {(2, 1): 8, (0, 1): 4}
    assert t.mountains == [2, 0, 0]


def test_stalingrad_off_six_spades_may_be_passed():
    t = Table("piter", stalingrad=False)
    t.deal(contract(1, "6S", {2: "pass", 0: "pass"}))
    assert t.pools == [0, 2, 0]


# --- failed contracts ---------------------------------------------------------------


def test_failed_two_whisters():
    t = Table("piter")
    t.deal(contract(1, "8H", {2: "whist", 0: "whist"}, {1: 6, 2: 3, 0: 1}))
    # u = 2: mountain 2V*u = 12*2 = 24
    assert t.mountains == [0, 24, 0]
    # 2: 3*12 = 36 + consolation 12*2 = 24 -> 60; 0: 12 + 24 -> 36
    assert t.whists == {(2, 1): 60, (0, 1): 36}


def test_failed_one_whister_gentlemen_split():
    t = Table("piter")
    t.deal(contract(1, "6H", {2: "whist", 0: "pass"}, {1: 5, 2: 4, 0: 1}))
    # u = 1: mountain 4*1 = 4; trick whists d = 5 * 4 = 20 split 10/10; consolation 4 each -> 14
    assert t.mountains == [0, 4, 0]
    assert t.whists == {(2, 1): 14, (0, 1): 14}


def test_failed_one_whister_odd_trick_whists_split_in_halves():
    t = Table("piter")
    t.deal(contract(1, "9H", {2: "whist", 0: "pass"}, {1: 8, 2: 2, 0: 0}))
    # u = 1: mountain 16; trick whists 2 * 16 = 32 -> 16 each; consolation 16 each -> 32 each
    assert t.mountains == [0, 16, 0]
    assert t.whists == {(2, 1): 32, (0, 1): 32}


def test_consolation_from_four_player_dealer():
    t = Table("piter", players=4)  # dealer 0 sits out; declarer 1, defenders 2 and 3
    t.deal(contract(1, "7H", {2: "whist", 3: "whist"}, {1: 6, 2: 2, 3: 2}))
    # u = 1: mountain 8; 2: 2*8 + 8 = 24; 3: 24; dealer 0: consolation 8
    assert t.mountains == [0, 8, 0, 0]
    assert t.whists == {(2, 1): 24, (3, 1): 24, (0, 1): 8}


# --- failed whists: V per short trick -------------------------------------------------


def test_failed_whist_on_6_one_whister():
    t = Table("piter")
    t.deal(contract(1, "6H", {2: "whist", 0: "pass"}, {1: 7, 2: 3, 0: 0}))
    # S = 1 * V = 2; whists 3 * 4 = 12 (seed 002's example)
    assert t.mountains == [0, 0, 2]
    assert t.whists == {(2, 1): 12}


def test_failed_whist_on_7():
    t = Table("piter")
    t.deal(contract(1, "7H", {2: "whist", 0: "pass"}, {1: 10, 2: 0, 0: 0}))
    # S = 2 * V = 4 -> 8
    assert t.pools == [0, 4, 0]
    assert t.mountains == [0, 0, 8]


def test_failed_whist_on_8():
    t = Table("piter")
    t.deal(contract(1, "8H", {2: "whist", 0: "pass"}, {1: 10, 2: 0, 0: 0}))
    # S = 1 * 6
    assert t.mountains == [0, 0, 6]


def test_failed_whist_on_9():
    t = Table("piter")
    t.deal(contract(1, "9H", {2: "whist", 0: "pass"}, {1: 10, 2: 0, 0: 0}))
    # S = 1 * 8
    assert t.mountains == [0, 0, 8]


def test_failed_whist_on_10_whisted_tens():
    t = Table("piter", whisted_tens=True)
    t.deal(contract(1, "10H", {2: "whist", 0: "pass"}, {1: 10, 2: 0, 0: 0}))
    # S = 1 * 10 (seed 001: "gets 10 to the mountain")
    assert t.pools == [0, 10, 0]
    assert t.mountains == [0, 0, 10]


def test_failed_whist_on_7_two_whisters_only_one_responsible():
    t = Table("piter")
    t.deal(contract(1, "7H", {2: "whist", 0: "whist"}, {1: 9, 2: 1, 0: 0}))
    # S = 1; half = 1: 2 took 1 (fine), 0 took 0 -> 0 charged S = 1 * V = 4; whists 2: 1*8
    assert t.mountains == [4, 0, 0]
    assert t.whists == {(2, 1): 8}


def test_failed_whist_on_6_two_whisters_both_responsible():
    t = Table("piter")
    t.deal(contract(1, "6H", {2: "whist", 0: "whist"}, {1: 8, 2: 1, 0: 1}))
    # S = 2; both below 2: each short 1 -> 1 * 2 = 2 each; whists 4 each
    assert t.mountains == [2, 0, 2]
    assert t.whists == {(2, 1): 4, (0, 1): 4}


def test_two_whisters_on_8_second_responsible():
    t = Table("piter")
    t.deal(contract(1, "8H", {2: "whist", 0: "whist"}, {1: 10, 2: 0, 0: 0}))
    # second defender of declarer 1 is 0: S = 1 * 6
    assert t.mountains == [6, 0, 0]


def test_two_whisters_on_9_both_responsible():
    t = Table("piter")
    t.deal(contract(1, "9H", {2: "whist", 0: "whist"}, {1: 10, 2: 0, 0: 0}))
    # each S = 1 * 8
    assert t.mountains == [8, 0, 8]


def test_two_whisters_on_10_both_responsible():
    t = Table("piter", whisted_tens=True)
    t.deal(contract(1, "10H", {2: "whist", 0: "whist"}, {1: 10, 2: 0, 0: 0}))
    # ten whisted by two: as on a nine -> both, 1 * 10 each
    assert t.mountains == [10, 0, 10]


# --- not played out ---------------------------------------------------------------


def test_unwhisted_pool_only():
    t = Table("piter")
    t.deal(contract(1, "9H", {2: "pass", 0: "pass"}))
    assert t.pools == [0, 8, 0]
    assert t.whists == {}


def test_half_whist_on_6_and_7():
    t = Table("piter")
    t.deal(contract(1, "6H", {2: "pass", 0: "half_whist"}))
    # pool +2; 2V = 4 * 2 tricks = 8
    assert t.pools == [0, 2, 0]
    assert t.whists == {(0, 1): 8}
    t2 = Table("piter")
    t2.deal(contract(1, "7H", {2: "pass", 0: "half_whist"}))
    # pool +4; 8 * 1 trick = 8
    assert t2.pools == [0, 4, 0]
    assert t2.whists == {(0, 1): 8}


def test_remise():
    t = Table("piter")
    t.deal(remise(1, "7H"))
    # 2V * 3 = 8 * 3 = 24; no whists
    assert t.mountains == [0, 24, 0]
    assert t.whists == {}


def test_return_talon_dealer_gets_v_to_mountain():
    t = Table("piter", players=4, return_talon=True)  # dealer 0
    t.deal(contract(1, "7H", {2: "pass", 3: "pass"}, talon={"returned": True}))
    # declarer +4 to the pool; the dealer V = 4 to the mountain (seed 001 literal, not doubled)
    assert t.pools == [0, 4, 0, 0]
    assert t.mountains == [4, 0, 0, 0]


# --- misère ----------------------------------------------------------------------


def test_misere_made_and_failed():
    t = Table("piter")
    t.deal(misere(1, 0))
    assert t.pools == [0, 10, 0]
    t.deal(misere(2, 3))
    # 20 a trick * 3 = 60
    assert t.mountains == [0, 0, 60]
    assert t.whists == {}


# --- all-passes: amnesty ---------------------------------------------------------


def test_allpass_amnesty_three_players():
    t = Table("piter")
    t.deal(allpass({0: 2, 1: 5, 2: 3}))
    # c = 2, m = 2: (0, 3, 1) * 2 = 0, 6, 2
    assert t.mountains == [0, 6, 2]


def test_allpass_clean_player_writes_off_one_cost():
    t = Table("piter")
    t.deal(allpass({0: 0, 1: 6, 2: 4}))
    # m = 0: 0, 12, 8; clean 0 writes off c = 2 -> -2
    assert t.mountains == [-2, 12, 8]
    assert t.pools == [0, 0, 0]


def test_allpass_clean_writeoff_option_two_costs():
    t = Table("piter", clean_writeoff=2)
    t.deal(allpass({0: 0, 1: 6, 2: 4}))
    # clean 0 writes off 2c = 4
    assert t.mountains == [-4, 12, 8]


def test_allpass_four_players_dealer_without_tricks_makes_m_zero_and_gets_nothing():
    t = Table("piter", players=4)
    t.deal(allpass({1: 3, 2: 3, 3: 4}))
    # the dealer counts with 0 -> m = 0: 3*2, 3*2, 4*2; a clean dealer writes nothing off
    assert t.mountains == [0, 6, 6, 8]


def test_allpass_four_players_dealer_talon_trick_counts():
    t = Table("piter", players=4)
    t.deal(allpass({0: 1, 1: 3, 2: 3, 3: 3}))
    # m = 1: dealer 0, others 2 each * 2 = 4
    assert t.mountains == [0, 4, 4, 4]


# --- the streak ----------------------------------------------------------------------


def test_streak_costs_and_exits_default_2_4_6_and_6_7_7():
    t = Table("piter")
    seen = []
    for _ in range(4):
        ap = t.allpass
        seen.append((ap["streak"], ap["level"], ap["next_trick_cost"], ap["min_contract"]))
        t.deal(allpass({0: 2, 1: 5, 2: 3}))
    assert seen == [(0, 1, 2, 6), (1, 2, 4, 7), (2, 3, 6, 7), (3, 3, 6, 7)]
    # amnesty m = 2 every time: seat 1 three tricks' worth, seat 2 one: costs 2+4+6+6 = 18
    assert t.mountains == [0, 54, 18]


def test_streak_hard_options_2_4_8_and_6_7_8():
    t = Table("piter", allpass_costs=[2, 4, 8], exit_levels=[6, 7, 8])
    seen = []
    for _ in range(4):
        seen.append((t.allpass["next_trick_cost"], t.allpass["min_contract"]))
        t.deal(allpass({0: 3, 1: 3, 2: 4}))
    assert seen == [(2, 6), (4, 7), (8, 8), (8, 8)]


def _in_streak(**options):
    t = Table("piter", **options)
    t.deal(allpass({0: 3, 1: 3, 2: 4}))  # streak 1, min contract 7
    return t


def test_streak_reset_by_made_whisted_game():
    t = _in_streak()
    t.deal(contract(2, "7H", {0: "whist", 1: "pass"}, {2: 7, 0: 3, 1: 0}))
    assert (t.allpass["streak"], t.allpass["next_trick_cost"], t.allpass["min_contract"]) == (0, 2, 6)


def test_streak_reset_by_half_whist_game():
    t = _in_streak()
    t.deal(contract(2, "7H", {0: "pass", 1: "half_whist"}))  # a whisted, made game (5.5)
    assert t.allpass["streak"] == 0


def test_streak_kept_after_failed_game():
    t = _in_streak()
    t.deal(contract(2, "7H", {0: "whist", 1: "whist"}, {2: 6, 0: 2, 1: 2}))
    assert (t.allpass["streak"], t.allpass["min_contract"]) == (1, 7)


def test_streak_kept_after_unwhisted_game_and_made_misere():
    t = _in_streak()
    t.deal(contract(2, "7H", {0: "pass", 1: "pass"}))
    assert t.allpass["streak"] == 1
    t.deal(misere(0, 0))
    assert t.allpass["streak"] == 1
    t.deal(remise(1, "7H"))
    assert t.allpass["streak"] == 1


def test_streak_unwhisted_exit_option():
    t = _in_streak(unwhisted_exit=True)
    t.deal(contract(2, "7H", {0: "pass", 1: "pass"}))
    assert t.allpass["streak"] == 0
    t2 = _in_streak(unwhisted_exit=True)
    t2.deal(misere(2, 0))
    assert t2.allpass["streak"] == 0
    t3 = _in_streak(unwhisted_exit=True)
    t3.deal(misere(2, 1))  # a failed game never ends a streak
    assert t3.allpass["streak"] == 1


def test_sliding_allpass_dealer_moves_by_default():
    t = Table("piter")
    t.deal(allpass({0: 3, 1: 3, 2: 4}))
    assert t.state.next_dealer == 1


def test_sliding_allpass_off_same_dealer_while_in_allpasses():
    # seed 001, «Распасы скользящие» off: «в распасах все время сдает один и тот же игрок»
    # -- the same player deals for as long as the table is in all-passes (docs/rules.md,
    # §11, reading 1).
    t = Table("piter", sliding_allpass=False)
    t.deal(allpass({0: 3, 1: 3, 2: 4}))
    assert t.state.next_dealer == 0 and t.state.streak == 1
    # an unwhisted 7 does not end the streak in piter (unwhisted_exit off): still in all-passes
    t.deal(contract(1, "7H", {2: "pass", 0: "pass"}))
    assert t.state.streak == 1 and t.state.next_dealer == 0
    # a made, whisted 7 ends it: the deal passes on
    t.deal(contract(1, "7H", {2: "whist", 0: "pass"}, {1: 7, 2: 3, 0: 0}))
    assert t.state.streak == 0 and t.state.next_dealer == 1


# --- end of game ---------------------------------------------------------------------


def test_end_all_pools_closed():
    t = Table("piter").set(pools=(20, 20, 18))
    t.deal(contract(2, "6H", {0: "whist", 1: "pass"}, {2: 6, 0: 4, 1: 0}))
    assert t.pools == [20, 20, 20]
    assert t.state.finished is True


def test_end_not_inside_a_streak():
    t = Table("piter").set(pools=(20, 20, 16), streak=1)
    # deal 1 (dealer 0): seat 2 makes an unwhisted 7: pool 16 + 4 = 20, all closed, but the
    # unwhisted game does not end the streak -> not finished
    t.deal(contract(2, "7H", {0: "pass", 1: "pass"}))
    assert t.pools == [20, 20, 20]
    assert t.state.finished is False
    # deal 2: an all-pass at c = costs[1] = 4; m = 3: (0, 0, 1) * 4
    t.deal(allpass({0: 3, 1: 3, 2: 4}))
    assert t.state.finished is False
    assert t.mountains == [0, 0, 4]
    # deal 3: seat 0 makes a whisted 7 (min contract 7 at streak 2): the streak ends.
    # His pool is closed: +4 has no open pool to help -> off his own mountain at k = 2: -8.
    # Whister 1 credited with 3 tricks * 8 = 24.
    t.deal(contract(0, "7H", {1: "whist", 2: "pass"}, {0: 7, 1: 3, 2: 0}))
    assert t.mountains == [-8, 0, 4]
    assert t.whists == {(1, 0): 24}
    assert t.state.finished is True


# --- overflow (7.2) ---------------------------------------------------------------------


def test_overflow_helps_the_largest_open_pool_at_20_whists_a_point():
    t = Table("piter").set(pools=(18, 10, 5))
    wrote = t.deal(contract(0, "8H", {1: "pass", 2: "pass"}))
    # +6: 2 close seat 0's pool, 4 help seat 1 (largest open): pool +4, 0 writes 4 * 10k = 80 on 1
    assert t.pools == [20, 14, 5]
    assert t.whists == {(0, 1): 80}
    assert wrote == {("pool", 0): 2, ("pool", 1): 4, ("whists", 0, 1): 80}


def test_overflow_tie_goes_to_first_clockwise_from_helper():
    t = Table("piter").set(pools=(10, 18, 10))
    t.deal(contract(1, "8H", {2: "pass", 0: "pass"}))
    # seat 1 overflows 4; 0 and 2 tie at 10; clockwise from 1: 2 first
    assert t.pools == [10, 20, 14]
    assert t.whists == {(1, 2): 80}


def test_overflow_help_choice_names_another_open_player():
    t = Table("piter").set(pools=(18, 10, 5))
    t.deal(contract(0, "8H", {1: "pass", 2: "pass"}, choices={"help": 2}))
    assert t.pools == [20, 10, 9]
    assert t.whists == {(0, 2): 80}


def test_overflow_closes_one_then_helps_the_next():
    t = Table("piter").set(pools=(18, 19, 5))
    t.deal(contract(0, "8H", {1: "pass", 2: "pass"}))
    # 2 close 0; 1 closes seat 1 (20 whists); 3 go to seat 2 (60 whists)
    assert t.pools == [20, 20, 8]
    assert t.whists == {(0, 1): 20, (0, 2): 60}


def test_overflow_no_open_pool_written_off_own_mountain_at_k():
    t = Table("piter").set(pools=(18, 20, 20))
    t.deal(contract(0, "8H", {1: "pass", 2: "pass"}))
    # 2 close; 4 left, nobody open: 4 * k = 8 off seat 0's mountain
    assert t.pools == [20, 20, 20]
    assert t.mountains == [-8, 0, 0]
    assert t.whists == {}


def test_overflow_can_help_four_player_dealer():
    t = Table("piter", players=4).set(pools=(15, 18, 10, 5))  # dealer 0 sits out
    t.deal(contract(1, "8H", {2: "pass", 3: "pass"}))
    # 2 close seat 1; 4 help the largest open pool, the dealer's (15): 19, 80 whists on 0
    assert t.pools == [19, 20, 10, 5]
    assert t.whists == {(1, 0): 80}


def test_remise_and_failed_misere_four_players_no_whists_from_anyone():
    t = Table("piter", players=4)  # dealer 0
    t.deal(remise(1, "6H"))
    # 2V * 3 = 12; no consolation, not even from the dealer
    assert t.mountains == [0, 12, 0, 0]
    t.deal(misere(2, 1))  # dealer 1 now; 2 is active
    # 20 * 1; no whists
    assert t.mountains == [0, 12, 20, 0]
    assert t.whists == {}


def test_end_four_players_every_pool_closed_the_dealers_too():
    t = Table("piter", players=4).set(pools=(18, 20, 20, 20))
    # dealer 0 sits out with an open pool: seat 1's 6 overflows onto him (2 * 20 = 40 whists)
    t.deal(contract(1, "6H", {2: "whist", 3: "pass"}, {1: 6, 2: 4, 3: 0}))
    assert t.pools == [20, 20, 20, 20]
    assert t.whists == {(1, 0): 40, (2, 1): 16}
    assert t.state.finished is True
