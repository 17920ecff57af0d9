"""piter_races (docs/rules.md §5, §8.1-8.5, §9; seed 004): 4 players only, s = 2, k = 2, gentlemen's
whist, failed whist V, two whisters on 8/9/10 share the shortfall, whists on a failed declarer
doubled, tens whisted, no remise, per-trick all-passes [2,4,6] / exits [6,7,7], compulsory
all-passes, target 22, a match of `games` games with 300/200 bonuses.

First dealer 0. Deal 1 (dealer 0, active 1,2,3) is the compulsory all-pass at 2; deal 2 has
dealer 1, active 0, 2, 3: declarer 2's defenders are 3 (first) and 0 (second)."""

from fractions import Fraction

import pytest

from app.rules import Bonus, InvalidTable, make_rules

from .helpers import Table, allpass, contract, misere, names_field


def _after_compulsory(**options):
    t = Table("piter_races", players=4, **options)
    t.deal(allpass({1: 3, 2: 3, 3: 4}))
    # cost 2, per trick: 6, 6, 8; dealer 0 holds nothing (clean dealer: nothing)
    assert t.mountains == [0, 6, 6, 8]
    return t


def test_four_players_only_and_target_22():
    with pytest.raises(InvalidTable) as info:
        make_rules("piter_races", players=3)
    assert "players" in {e.field for e in info.value.errors}
    assert make_rules("piter_races", players=4).pool_target == 22


def test_game_starts_with_compulsory_allpass_at_two():
    t = Table("piter_races", players=4)
    ap = t.allpass
    assert (ap["compulsory"], ap["next_trick_cost"], ap["min_contract"]) == (True, 2, None)
    err = t.refuse(contract(1, "7H", {2: "pass", 3: "pass"}))
    assert names_field(err, "type")
    t.deal(allpass({1: 3, 2: 3, 3: 4}))
    ap = t.allpass
    # cost 2 is index 0 -> the streak is left at 1: next cost 4, lowest contract 7
    assert (ap["compulsory"], ap["streak"], ap["next_trick_cost"], ap["min_contract"]) == (False, 1, 4, 7)


def test_first_contract_of_a_game_is_at_least_seven():
    t = _after_compulsory()
    err = t.refuse(contract(2, "6H", {3: "whist", 0: "whist"}, {2: 6, 3: 2, 0: 2}))
    assert names_field(err, "contract")


def test_made_whisted_game_ends_the_streak():
    t = _after_compulsory()
    t.deal(contract(2, "7H", {3: "whist", 0: "pass"}, {2: 7, 3: 3, 0: 0}))
    # pool 4; whister 3 credited 3 tricks * 8 = 24
    assert t.pools == [0, 0, 4, 0]
    assert t.whists == {(3, 2): 24}
    assert (t.allpass["streak"], t.allpass["min_contract"]) == (0, 6)


def test_unwhisted_game_does_not_end_the_streak():
    t = _after_compulsory()
    t.deal(contract(2, "7H", {3: "pass", 0: "pass"}))
    assert t.allpass["streak"] == 1


def test_failed_contract_whists_doubled_gentlemen_split_dealer_consoles():
    t = _after_compulsory()
    t.deal(contract(2, "7H", {3: "whist", 0: "pass"}, {2: 5, 3: 5, 0: 0}))
    # u = 2: mountain 2V*u = 16 -> 6 + 16 = 22
    assert t.mountains == [0, 6, 22, 8]
    # trick whists 5 * 8 = 40 split 20/20; consolation 8 * 2 = 16 from 3, 0 and dealer 1;
    # all doubled: 3: (20 + 16) * 2 = 72, 0: 72, dealer 1: 32
    assert t.whists == {(3, 2): 72, (0, 2): 72, (1, 2): 32}


def test_failed_whist_one_whister_v_per_trick():
    t = _after_compulsory()
    t.deal(contract(2, "7H", {3: "whist", 0: "pass"}, {2: 9, 3: 1, 0: 0}))
    # S = 1 * V = 4 to 3's mountain: 8 + 4 = 12; whists 1 * 8 = 8
    assert t.mountains == [0, 6, 6, 12]
    assert t.whists == {(3, 2): 8}


@pytest.mark.parametrize("level,value", [(8, 6), (9, 8), (10, 10)])
def test_two_whisters_on_8_9_10_share_the_shortfall(level, value):
    t = _after_compulsory()
    t.deal(contract(2, f"{level}H", {3: "whist", 0: "whist"}, {2: 10, 3: 0, 0: 0}))
    # S = 1, each charged S/2 * V
    half = Fraction(value, 2)
    assert t.mountains == [half, 6, 6, 8 + half]
    assert t.pools == [0, 0, value, 0]


def test_half_whist_on_7():
    t = _after_compulsory()
    t.deal(contract(2, "7H", {3: "pass", 0: "half_whist"}))
    # pool 4; 8 * 1 trick
    assert t.pools == [0, 0, 4, 0]
    assert t.whists == {(0, 2): 8}


def test_unwhisted_eight_may_be_written_off_doubled():
    t = _after_compulsory()
    t.deal(contract(2, "8H", {3: "pass", 0: "pass"}, choices={"writeoff": [2]}))
    # 2V = 12 off the mountain: 6 - 12 = -6, nothing to the pool
    assert t.pools == [0, 0, 0, 0]
    assert t.mountains == [0, 6, -6, 8]


def test_unwhisted_seven_cannot_be_written_off():
    t = _after_compulsory()
    err = t.refuse(contract(2, "7H", {3: "pass", 0: "pass"}, choices={"writeoff": [2]}))
    assert names_field(err, "choices")


def test_clean_misere_may_be_written_off_doubled():
    t = _after_compulsory()
    t.deal(misere(2, 0, choices={"writeoff": [2]}))
    # 2 * 10 = 20 off: 6 - 20 = -14
    assert t.mountains == [0, 6, -14, 8]
    assert t.pools == [0, 0, 0, 0]


@pytest.mark.parametrize("taken,cost,streak_after", [(1, 2, 1), (2, 4, 2), (4, 6, 3)])
def test_failed_misere_makes_the_next_deal_a_compulsory_allpass(taken, cost, streak_after):
    t = _after_compulsory()
    t.deal(misere(2, taken))
    # misère penalty 20 a trick
    assert t.mountains == [0, 6, 6 + 20 * taken, 8]
    ap = t.allpass
    assert (ap["compulsory"], ap["next_trick_cost"], ap["min_contract"]) == (True, cost, None)
    t.refuse(misere(0, 0))
    # deal 3: dealer 2, active 0, 1, 3; per trick at the compulsory cost
    t.deal(allpass({0: 3, 1: 3, 3: 4}))
    assert t.mountains == [3 * cost, 6 + 3 * cost, 6 + 20 * taken, 8 + 4 * cost]
    # "a compulsory all-pass at cost c leaves the streak at the index after c's index"
    assert (t.allpass["compulsory"], t.allpass["streak"]) == (False, streak_after)


def test_failed_nine_over_misere_compulsory_by_undertricks():
    t = _after_compulsory()
    t.deal(contract(2, "9H", {3: "whist", 0: "pass"}, {2: 7, 3: 3, 0: 0}, over_misere=True))
    # u = 2: mountain 16 * 2 = 32 -> 38; trick whists 3 * 16 = 48 split 24/24; consolation
    # 16 * 2 = 32 each from 3, 0, dealer 1; doubled: 3: 112, 0: 112, 1: 64
    assert t.mountains == [0, 6, 38, 8]
    assert t.whists == {(3, 2): 112, (0, 2): 112, (1, 2): 64}
    # 2 undertricks -> compulsory all-pass at 4
    assert (t.allpass["compulsory"], t.allpass["next_trick_cost"]) == (True, 4)


def test_failed_nine_without_over_misere_no_compulsory():
    t = _after_compulsory()
    t.deal(contract(2, "9H", {3: "whist", 0: "pass"}, {2: 7, 3: 3, 0: 0}))
    assert t.allpass["compulsory"] is False


# --- end of a game and the bonuses --------------------------------------------------


def _near_target(pools, mountains, **options):
    t = Table("piter_races", players=4, **options)
    return t.set(compulsory_cost=None, streak=1, pools=pools, mountains=mountains)


def test_game_ends_bonuses_and_next_game_starts():
    t = _near_target((0, 0, 20, 0), (10, 4, 6, 8))
    # dealer 0, active 1, 2, 3; declarer 2, defenders 3 (first), 1 (second)
    t.deal(contract(2, "7H", {3: "whist", 1: "pass"}, {2: 7, 3: 3, 1: 0}))
    # pool 2: 24 >= 22 and the whisted made game ends the streak -> game 1 ends.
    # first to target: 2 writes 300 on each other; min mountain 4 (seat 1): 200 on each other
    assert t.whists == {
        (3, 2): 24,
        (2, 0): 300,
        (2, 1): 300,
        (2, 3): 300,
        (1, 0): 200,
        (1, 2): 200,
        (1, 3): 200,
    }
    assert t.state.bonuses == (
        Bonus(1, "first_to_target", 2, 300),
        Bonus(1, "min_mountain", 1, 200),
    )
    # game 2 starts: zero pools and mountains, compulsory all-pass at 2; totals kept
    assert t.state.game == 2
    assert t.state.finished is False
    assert t.pools == [0, 0, 0, 0]
    assert t.mountains == [0, 0, 0, 0]
    assert (t.allpass["compulsory"], t.allpass["next_trick_cost"]) == (True, 2)
    match = t.sheet["match"]
    assert match["games"] == 7
    assert [(r["pool"], r["mountain"]) for r in match["totals"]] == [(0, 10), (0, 4), (24, 6), (0, 8)]
    assert match["bonuses"] == [
        {"game": 1, "kind": "first_to_target", "seat": 2, "amount": 300},
        {"game": 1, "kind": "min_mountain", "seat": 1, "amount": 200},
    ]


def test_target_reached_inside_a_streak_game_goes_on():
    t = _near_target((0, 0, 20, 0), (10, 4, 6, 8))
    t.deal(contract(2, "7H", {3: "pass", 1: "pass"}))  # unwhisted: no exit
    assert t.pools == [0, 0, 24, 0]
    assert t.state.game == 1
    assert t.state.bonuses == ()


def test_ties_share_the_bonuses():
    t = _near_target((0, 20, 0, 20), (4, 4, 0, 8))
    # deal 1 (dealer 0): all-pass at 4; 1 and 3 clean: +4 each -> 24, 24 in the same deal;
    # 2 takes 10: 40 to the mountain. Inside a streak: the game goes on.
    t.deal(allpass({1: 0, 2: 10, 3: 0}))
    assert t.pools == [0, 24, 0, 24]
    assert t.mountains == [4, 4, 40, 8]
    assert t.state.game == 1
    # deal 2 (dealer 1, active 0, 2, 3): 0 makes a whisted 7: defenders 2 (first), 3
    t.deal(contract(0, "7H", {2: "whist", 3: "pass"}, {0: 7, 2: 3, 3: 0}))
    # first to target: 1 and 3 together -> 300/2 = 150 each on every other player;
    # min mountain 4: 0 and 1 -> 200/2 = 100 each on every other player
    assert t.whists == {
        (2, 0): 24,
        (0, 1): 100,
        (0, 2): 100,
        (0, 3): 100,
        (1, 0): 250,
        (1, 2): 250,
        (1, 3): 250,
        (3, 0): 150,
        (3, 1): 150,
        (3, 2): 150,
    }
    assert t.state.bonuses == (
        Bonus(1, "first_to_target", 1, 150),
        Bonus(1, "first_to_target", 3, 150),
        Bonus(1, "min_mountain", 0, 100),
        Bonus(1, "min_mountain", 1, 100),
    )


def test_three_way_tie_writes_thirds():
    t = _near_target((0, 0, 20, 0), (0, 0, 0, 2))
    t.deal(contract(2, "7H", {3: "whist", 1: "pass"}, {2: 7, 3: 3, 1: 0}))
    third = Fraction(200, 3)
    # 0, 1, 2 share the min mountain (0): 200/3 each on every other player
    assert t.whists == {
        (3, 2): 24,
        (0, 1): third,
        (0, 2): third,
        (0, 3): third,
        (1, 0): third,
        (1, 2): third,
        (1, 3): third,
        (2, 0): 300 + third,
        (2, 1): 300 + third,
        (2, 3): 300 + third,
    }


def test_match_end_bonuses_and_final_settlement():
    t = _near_target((0, 0, 20, 0), (10, 4, 6, 8), games=1)
    t.deal(contract(2, "7H", {3: "whist", 1: "pass"}, {2: 7, 3: 3, 1: 0}))
    # the only game ends: game bonuses, then the match's: max total pool 2 -> 300 more,
    # min total mountain 1 -> 200 more
    assert t.state.finished is True
    assert t.state.game == 1
    assert t.pools == [0, 0, 24, 0]  # the sheet keeps the last game's pools and mountains
    assert t.mountains == [10, 4, 6, 8]
    assert t.state.bonuses == (
        Bonus(1, "first_to_target", 2, 300),
        Bonus(1, "min_mountain", 1, 200),
        Bonus(None, "max_pool", 2, 300),
        Bonus(None, "min_mountain", 1, 200),
    )
    assert t.whists == {
        (3, 2): 24,
        (2, 0): 600,
        (2, 1): 600,
        (2, 3): 600,
        (1, 0): 400,
        (1, 2): 400,
        (1, 3): 400,
    }
    s = t.settle()
    # G = mountain - 2*pool = (10, 4, -42, 8), mean -5, 10*(mean - G) = (-150, -90, 370, -130)
    # W: 0: -(600+400) = -1000; 1: 1200 - 600 = 600; 2: 1800 - 400 - 24 = 1376; 3: 24 - 1000 = -976
    assert s.final is True
    assert s.balances == (-1150, 510, 1746, -1106)
    assert s.cents == (-115000, 51000, 174600, -110600)
    t.refuse(allpass({1: 3, 2: 3, 3: 4}))


def test_second_game_bonus_uses_that_games_mountains_and_match_bonuses_use_totals():
    t = _near_target((0, 0, 20, 0), (10, 4, 6, 8), games=2)
    t.deal(contract(2, "7H", {3: "whist", 1: "pass"}, {2: 7, 3: 3, 1: 0}))
    # game 1: first to target 2 (300), min mountain 1 (200); game 2 begins
    assert t.state.game == 2
    # a position in game 2 near its end: pools (20, 0, 0, 0), mountains (3, 9, 5, 4)
    t.set(compulsory_cost=None, streak=1, pools=(20, 0, 0, 0), mountains=(3, 9, 5, 4))
    # dealer 1 (active 0, 2, 3): declarer 0, defenders 2 (first), 3
    t.deal(contract(0, "7H", {2: "whist", 3: "pass"}, {0: 7, 2: 3, 3: 0}))
    # game 2: first to target 0 (24) -> 300; min mountain of this game: 0 (3) -> 200
    # (over the match it would be 2: totals 13, 13, 11, 12).
    # Match: total pools (24, 0, 24, 0): 0 and 2 tie -> 150 each; total mountains
    # (13, 13, 11, 12): 2 -> 200.
    assert t.state.finished is True
    assert t.state.bonuses == (
        Bonus(1, "first_to_target", 2, 300),
        Bonus(1, "min_mountain", 1, 200),
        Bonus(2, "first_to_target", 0, 300),
        Bonus(2, "min_mountain", 0, 200),
        Bonus(None, "max_pool", 0, 150),
        Bonus(None, "max_pool", 2, 150),
        Bonus(None, "min_mountain", 2, 200),
    )
    assert t.pools == [24, 0, 0, 0]
    assert t.mountains == [3, 9, 5, 4]
    # 2: 300 + 150 + 200 on each other, plus 24 trick whists on 0 in game 2
    # 0: 300 + 200 + 150 on each other; 1: 200 on each other; 3: 24 on 2 (game 1)
    assert t.whists == {
        (2, 0): 674,
        (2, 1): 650,
        (2, 3): 650,
        (0, 1): 650,
        (0, 2): 650,
        (0, 3): 650,
        (1, 0): 200,
        (1, 2): 200,
        (1, 3): 200,
        (3, 2): 24,
    }
    totals = [(r["pool"], r["mountain"]) for r in t.sheet["match"]["totals"]]
    assert totals == [(24, 13), (0, 13), (24, 11), (0, 12)]


def test_next_game_compulsory_allpass_counts_in_the_match_totals():
    t = _near_target((0, 0, 20, 0), (10, 4, 6, 8))
    t.deal(contract(2, "7H", {3: "whist", 1: "pass"}, {2: 7, 3: 3, 1: 0}))
    # game 2, deal by dealer 1 (active 0, 2, 3): its compulsory all-pass at 2
    t.deal(allpass({0: 2, 2: 4, 3: 4}))
    assert t.mountains == [4, 0, 8, 8]
    totals = [(r["pool"], r["mountain"]) for r in t.sheet["match"]["totals"]]
    assert totals == [(0, 14), (0, 4), (24, 14), (0, 16)]
    assert (t.allpass["streak"], t.allpass["min_contract"]) == (1, 7)


@pytest.mark.parametrize("declarer_tricks,cost", [(9, 2), (8, 4), (7, 6), (5, 6)])
def test_failed_ten_over_misere_compulsory_by_undertricks(declarer_tricks, cost):
    t = _after_compulsory()
    rest = 10 - declarer_tricks
    t.deal(contract(2, "10H", {3: "whist", 0: "pass"}, {2: declarer_tricks, 3: rest, 0: 0}, over_misere=True))
    # u = 10 - declarer_tricks: 1 -> 2, 2 -> 4, 3 or more -> 6; mountain 2V*u = 20u
    assert t.mountains == [0, 6, 6 + 20 * (10 - declarer_tricks), 8]
    assert (t.allpass["compulsory"], t.allpass["next_trick_cost"]) == (True, cost)


def test_made_nine_over_misere_no_compulsory():
    t = _after_compulsory()
    t.deal(contract(2, "9H", {3: "whist", 0: "pass"}, {2: 9, 3: 1, 0: 0}, over_misere=True))
    # made: pool 8, whists 1 * 16 = 16; no compulsory all-pass
    assert t.pools == [0, 0, 8, 0]
    assert t.whists == {(3, 2): 16}
    assert t.allpass["compulsory"] is False
