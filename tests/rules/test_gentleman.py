"""piter_gentleman (docs/rules.md §5, seed 002): as piter for contracts (s = 2, failed whist V,
gentlemen's whist), but per-trick all-passes [2,4,6] with the hard exit [6,7,8], a clean
player +1 cost to the pool, a 4-player dealer's clean option, no pool cap, a made game
(never a remise) ends a streak, and the game ends when the total pool reaches n * target
outside a streak.  3 players unless said, dealer 0 first."""

from .helpers import Table, allpass, contract, misere, remise


def test_made_one_whister():
    t = Table("piter_gentleman")
    t.deal(contract(1, "8H", {2: "whist", 0: "pass"}, {1: 8, 2: 1, 0: 1}))
    # pool +6; whister credited d = 2 * 2V = 12 -> 24
    assert t.pools == [0, 6, 0]
    assert t.whists == {(2, 1): 24}


def test_failed_two_whisters_with_consolation():
    t = Table("piter_gentleman")
    t.deal(contract(1, "6H", {2: "whist", 0: "whist"}, {1: 4, 2: 4, 0: 2}))
    # u = 2: mountain 4 * 2 = 8; 2: 4*4 + 4*2 = 24; 0: 2*4 + 8 = 16
    assert t.mountains == [0, 8, 0]
    assert t.whists == {(2, 1): 24, (0, 1): 16}


def test_consolation_from_four_player_dealer_and_gentlemen_split():
    t = Table("piter_gentleman", players=4)  # dealer 0; declarer 1, defenders 2 and 3
    t.deal(contract(1, "8H", {2: "pass", 3: "whist"}, {1: 7, 2: 0, 3: 3}))
    # u = 1: mountain 12; trick whists 3 * 12 = 36 split 18 / 18; consolation 12 each from 2, 3
    # and the dealer 0 -> 2: 30, 3: 30, 0: 12
    assert t.mountains == [0, 12, 0, 0]
    assert t.whists == {(2, 1): 30, (3, 1): 30, (0, 1): 12}


def test_failed_whist_v_per_short_trick_on_8():
    t = Table("piter_gentleman")
    t.deal(contract(1, "8H", {2: "whist", 0: "pass"}, {1: 10, 2: 0, 0: 0}))
    assert t.mountains == [0, 0, 6]


def test_half_whist_and_remise():
    t = Table("piter_gentleman")
    t.deal(contract(1, "6H", {2: "pass", 0: "half_whist"}))
    # pool 2; 4 * 2 = 8
    assert t.pools == [0, 2, 0]
    assert t.whists == {(0, 1): 8}
    t.deal(remise(2, "6H"))
    # 4 * 3 = 12
    assert t.mountains == [0, 0, 12]


def test_misere_failed_twenty_a_trick():
    t = Table("piter_gentleman")
    t.deal(misere(1, 1))
    assert t.mountains == [0, 20, 0]


def test_allpass_per_trick_and_clean_player_to_pool():
    t = Table("piter_gentleman")
    t.deal(allpass({0: 0, 1: 6, 2: 4}))
    # c = 2: 0, 12, 8 (no amnesty); clean 0: +2 to the pool
    assert t.mountains == [0, 12, 8]
    assert t.pools == [2, 0, 0]


def test_allpass_four_player_clean_dealer_nothing_by_default():
    t = Table("piter_gentleman", players=4)
    t.deal(allpass({1: 3, 2: 3, 3: 4}))
    assert t.mountains == [0, 6, 6, 8]
    assert t.pools == [0, 0, 0, 0]


def test_allpass_four_player_clean_dealer_option_writes_off_one_cost():
    t = Table("piter_gentleman", players=4, dealer_clean=True)
    t.deal(allpass({1: 3, 2: 3, 3: 4}))
    # dealer 0 clean: -c = -2
    assert t.mountains == [-2, 6, 6, 8]
    assert t.pools == [0, 0, 0, 0]


def test_allpass_four_player_dealer_talon_tricks_per_trick():
    t = Table("piter_gentleman", players=4, dealer_clean=True)
    t.deal(allpass({0: 2, 1: 2, 2: 3, 3: 3}))
    # dealer holds 2: 2 * 2 = 4 to his mountain; not clean
    assert t.mountains == [4, 4, 6, 6]


def test_streak_hard_exit_6_7_8():
    t = Table("piter_gentleman")
    seen = []
    for _ in range(4):
        seen.append((t.allpass["next_trick_cost"], t.allpass["min_contract"]))
        t.deal(allpass({0: 3, 1: 3, 2: 4}))
    assert seen == [(2, 6), (4, 7), (6, 8), (6, 8)]


def test_streak_ended_by_made_unwhisted_game_and_made_misere():
    t = Table("piter_gentleman")
    t.deal(allpass({0: 3, 1: 3, 2: 4}))
    t.deal(contract(2, "7H", {0: "pass", 1: "pass"}))  # "a made game" (docs/rules.md §5)
    assert t.allpass["streak"] == 0
    t.deal(allpass({0: 3, 1: 3, 2: 4}))
    t.deal(misere(1, 0))
    assert t.allpass["streak"] == 0


def test_streak_not_ended_by_remise_or_failed_game():
    t = Table("piter_gentleman")
    t.deal(allpass({0: 3, 1: 3, 2: 4}))
    t.deal(remise(2, "7H"))  # "never a remise"
    assert t.allpass["streak"] == 1
    t.deal(contract(0, "7H", {1: "whist", 2: "whist"}, {0: 6, 1: 2, 2: 2}))
    assert t.allpass["streak"] == 1


def test_no_pool_cap():
    t = Table("piter_gentleman").set(pools=(19, 0, 0))
    t.deal(contract(0, "8H", {1: "pass", 2: "pass"}))
    # no cap: 19 + 6 = 25, no help whists; one pool above the target does not end the game
    assert t.pools == [25, 0, 0]
    assert t.whists == {}
    assert t.state.finished is False


def test_end_total_pool_not_inside_a_streak():
    t = Table("piter_gentleman").set(pools=(30, 20, 8), streak=1)
    # all-pass at c = 4: clean 0 +4 -> 34, total 62 >= 60, but inside a streak (now 2)
    t.deal(allpass({0: 0, 1: 5, 2: 5}))
    assert t.pools == [34, 20, 8]
    assert t.mountains == [0, 20, 20]
    assert t.state.finished is False
    # a made 8 (min contract 8 at streak 2) ends the streak: 20 + 6 = 26, total 68 -> finished
    t.deal(contract(1, "8H", {2: "pass", 0: "pass"}))
    assert t.pools == [34, 26, 8]
    assert t.state.finished is True


def test_end_total_pool_four_players_is_four_times_target():
    t = Table("piter_gentleman", players=4).set(pools=(30, 20, 20, 8))
    # dealer 0; seat 3 makes an unwhisted 6: 78 + 2 = 80 = 4 * 20 -> finished
    t.deal(contract(3, "6H", {1: "pass", 2: "pass"}))
    assert t.pools == [30, 20, 20, 10]
    assert t.state.finished is True


def test_total_pool_below_n_times_target_goes_on_four_players():
    t = Table("piter_gentleman", players=4).set(pools=(30, 20, 20, 6))
    # 76 + 2 = 78 < 80 (three times the target would already be reached: n is the players)
    t.deal(contract(3, "6H", {1: "pass", 2: "pass"}))
    assert t.state.finished is False
