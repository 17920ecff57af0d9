"""rostov (docs/rules.md §5, seed 001): s = 1, whists V a trick, undertrick V, consolation 10 a
trick, failed whist V/2, misère 10, 8: second, Stalingrad on, no remise, Rostov all-passes
(5 whists a trick from the winner, no streak), clean -1, talon bonus and discard.
3 players unless said, dealer 0 first; declarer 1 has defenders 2 (first) and 0."""

from .helpers import Table, allpass, contract, misere


def test_made_one_whister():
    t = Table("rostov")
    t.deal(contract(1, "7H", {2: "whist", 0: "pass"}, {1: 8, 2: 2, 0: 0}))
    # pool 4; 2 tricks * 4 = 8
    assert t.pools == [0, 4, 0]
    assert t.whists == {(2, 1): 8}


def test_failed_two_whisters_consolation_ten_a_trick():
    t = Table("rostov")
    t.deal(contract(1, "7H", {2: "whist", 0: "whist"}, {1: 5, 2: 3, 0: 2}))
    # u = 2: mountain 4 * 2 = 8; 2: 3*4 + 10*2 = 32; 0: 2*4 + 20 = 28
    assert t.mountains == [0, 8, 0]
    assert t.whists == {(2, 1): 32, (0, 1): 28}


def test_failed_one_whister_not_gentlemen():
    t = Table("rostov")
    t.deal(contract(1, "7H", {2: "whist", 0: "pass"}, {1: 5, 2: 4, 0: 1}))
    # whister credited d = 5 * 4 = 20 + 20 -> 40; passer consolation 20
    assert t.mountains == [0, 8, 0]
    assert t.whists == {(2, 1): 40, (0, 1): 20}


def test_consolation_from_four_player_dealer():
    t = Table("rostov", players=4)  # dealer 0; declarer 1, defenders 2, 3
    t.deal(contract(1, "6H", {2: "whist", 3: "whist"}, {1: 5, 2: 3, 3: 2}))
    # u = 1: mountain 2; 2: 3*2 + 10 = 16; 3: 2*2 + 10 = 14; dealer: 10
    assert t.mountains == [0, 2, 0, 0]
    assert t.whists == {(2, 1): 16, (3, 1): 14, (0, 1): 10}


def test_failed_whist_half_v_on_7_and_8():
    t = Table("rostov")
    t.deal(contract(1, "7H", {2: "whist", 0: "pass"}, {1: 9, 2: 1, 0: 0}))
    # S = 1 * V/2 = 2
    assert t.mountains == [0, 0, 2]
    t2 = Table("rostov")
    t2.deal(contract(1, "8H", {2: "whist", 0: "whist"}, {1: 10, 2: 0, 0: 0}))
    # two whisters on 8: the second (0) gets S * 3 = 3
    assert t2.mountains == [3, 0, 0]


def test_failed_whisted_ten_five_to_mountain():
    t = Table("rostov", whisted_tens=True)
    t.deal(contract(1, "10H", {2: "whist", 0: "pass"}, {1: 10, 2: 0, 0: 0}))
    # seed 001: "gets 5 to the mountain" = V/2
    assert t.mountains == [0, 0, 5]
    assert t.pools == [0, 10, 0]


def test_half_whist_on_6():
    t = Table("rostov")
    t.deal(contract(1, "6H", {2: "pass", 0: "half_whist"}))
    # s*V*2 = 4
    assert t.whists == {(0, 1): 4}
    assert t.pools == [0, 2, 0]


def test_misere():
    t = Table("rostov")
    t.deal(misere(1, 0))
    t.deal(misere(2, 2))
    assert t.pools == [0, 10, 0]
    assert t.mountains == [0, 0, 20]


# --- all-passes ---------------------------------------------------------------


def test_allpass_single_winner_five_a_trick():
    t = Table("rostov")
    t.deal(allpass({0: 1, 1: 4, 2: 5}))
    # winner 0: on 1 5*4 = 20, on 2 5*5 = 25; no mountain
    assert t.whists == {(0, 1): 20, (0, 2): 25}
    assert t.mountains == [0, 0, 0]


def test_allpass_clean_winner_writes_off_one():
    t = Table("rostov")
    t.deal(allpass({0: 0, 1: 4, 2: 6}))
    # winner 0: 20 on 1, 30 on 2; clean: -1 mountain
    assert t.whists == {(0, 1): 20, (0, 2): 30}
    assert t.mountains == [-1, 0, 0]


def test_allpass_two_clean_winners():
    t = Table("rostov")
    t.deal(allpass({0: 0, 1: 0, 2: 10}))
    # tied winners 2.5 * 10 = 25 each on 2; each clean -1
    assert t.whists == {(0, 2): 25, (1, 2): 25}
    assert t.mountains == [-1, -1, 0]


def test_allpass_four_players_dealer_takes_no_part():
    t = Table("rostov", players=4)
    t.deal(allpass({1: 2, 2: 3, 3: 5}))
    # winner 1: 15 on 2, 25 on 3; dealer 0 nothing
    assert t.whists == {(1, 2): 15, (1, 3): 25}
    assert t.mountains == [0, 0, 0, 0]


def test_allpass_four_players_dealer_clean_option():
    t = Table("rostov", players=4, dealer_clean=True)
    t.deal(allpass({1: 2, 2: 3, 3: 5}))
    # the dealer holds nothing (closed talon) -> clean: -1
    assert t.mountains == [-1, 0, 0, 0]


def test_no_streak():
    t = Table("rostov")
    for _ in range(3):
        t.deal(allpass({0: 3, 1: 3, 2: 4}))
        ap = t.allpass
        assert (ap["streak"], ap["level"], ap["next_trick_cost"], ap["min_contract"]) == (0, 1, None, 6)


# --- talon ----------------------------------------------------------------------


def test_talon_bonus_four_players_written_by_dealer():
    for bonus, amount in (("ace", 10), ("marriage", 10), ("ace_king", 20), ("two_aces", 30)):
        t = Table("rostov", players=4)  # dealer 0
        t.deal(contract(1, "7H", {2: "pass", 3: "pass"}, talon={"bonus": bonus}))
        assert t.pools == [0, 4, 0, 0]
        assert t.whists == {(0, 1): amount}, bonus


def test_talon_bonus_adds_to_whists_of_a_played_game():
    t = Table("rostov")
    t.deal(contract(1, "7H", {2: "whist", 0: "pass"}, {1: 8, 2: 2, 0: 0}, talon={"bonus": "ace_king"}))
    # trick whists 2*4 = 8 by 2, plus 20 split 10 / 10 -> 2: 18, 0: 10
    assert t.whists == {(2, 1): 18, (0, 1): 10}


def test_talon_discarded_three_players_five_on_each_opponent():
    t = Table("rostov")
    t.deal(contract(1, "6H", {2: "pass", 0: "pass"}, talon={"discarded": True}))
    # the declarer writes 5 on each opponent
    assert t.whists == {(1, 2): 5, (1, 0): 5}


def test_talon_discarded_four_players_ten_on_dealer():
    t = Table("rostov", players=4)
    t.deal(contract(1, "6H", {2: "pass", 3: "pass"}, talon={"discarded": True}))
    assert t.whists == {(1, 0): 10}


def test_end_all_pools_closed():
    t = Table("rostov").set(pools=(20, 20, 18))
    t.deal(contract(2, "6H", {0: "pass", 1: "pass"}))
    assert t.state.finished is True
