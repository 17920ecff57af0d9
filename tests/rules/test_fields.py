"""Every field value of the rule table, hand-computed in at least two presets (docs/rules.md
§4). 3 players unless said, dealer 0 first; declarer 1 has defenders 2 (first) and 0 (second);
at 4 players (dealer 0) declarer 1 has defenders 2 and 3.
V: 6→2, 7→4, 8→6, 9→8, 10→10; s the scale (sochi, vmk 1; piter, piter_gentleman 2)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.rules import InvalidDeal, InvalidTable, TableFinished, make_rules

from .helpers import Table, allpass, contract, fields, misere

# --- whist_responsibility ---------------------------------------------------------------------

# 7H: declarer 1 takes 9, whister 2 takes 1, passer 0 none: d = 1 < obligation 2, short 1.
# full: s·V·1; semi: s·V·1/2; none: nothing.
RESPONSIBILITY = [
    ("sochi", "full", 4),
    ("sochi", "semi", 2),
    ("sochi", "none", 0),  # s = 1: 4, 2, 0
    ("vmk", "full", 4),
    ("vmk", "semi", 2),
    ("vmk", "none", 0),  # s = 1: 4, 2, 0
    ("piter", "full", 8),
    ("piter", "semi", 4),
    ("piter", "none", 0),  # s = 2: 8, 4, 0
]


@pytest.mark.parametrize("conv,value,penalty", RESPONSIBILITY)
def test_whist_responsibility(conv, value, penalty):
    t = Table(conv, whist_responsibility=value)
    t.deal(contract(1, "7H", {2: "whist", 0: "pass"}, {1: 9, 2: 1, 0: 0}))
    assert t.pools == [0, 4, 0]
    assert t.mountains == [0, 0, penalty]
    # the whister writes s·V for the one trick (one whister: open, or gentlemen on a made game)
    s = t.rules.scale
    assert t.whists == {(2, 1): s * 4}


def test_no_responsibility_means_nobody_is_kept_from_help():
    # vmk: a failed whister cannot be helped -- but with none, nobody failed
    t = Table("vmk", whist_responsibility="none").set(pools=(0, 18, 10))
    t.deal(contract(1, "8H", {2: "whist", 0: "pass"}, {1: 10, 2: 0, 0: 0}))
    # pool 18 + 6: 2 close it, 4 help the largest open pool, seat 2 (10 -> 14), 40 whists
    assert t.pools == [0, 20, 14] and t.mountains == [0, 0, 0]
    assert t.whists == {(1, 2): 40}


# --- single_whister ---------------------------------------------------------------------------

# Failed 7H: declarer 1 takes 6 (u = 1), whister 2 takes 3, passer 0 takes 1 (d = 4).
# sochi s = 1, V = 4: tricks' whists 4 a trick, consolation 4 from each of 2 and 0.
#   open: 2 writes 4·4 + 4 = 20, 0 writes 4; closed: 2 4·3 + 4 = 16, 0 4·1 + 4 = 8;
#   gentlemen(_always): 16 split 8/8: each 8 + 4 = 12.
# piter s = 2: 8 a trick, consolation 8. open: 32 + 8 = 40 / 8; closed: 24 + 8 = 32 / 8 + 8 = 16;
#   gentlemen(_always): 32 split 16/16: each 24.
FAILED_SINGLE = [
    ("sochi", "open", 20, 4),
    ("sochi", "closed", 16, 8),
    ("sochi", "gentlemen", 12, 12),
    ("sochi", "gentlemen_always", 12, 12),
    ("piter", "open", 40, 8),
    ("piter", "closed", 32, 16),
    ("piter", "gentlemen", 24, 24),
    ("piter", "gentlemen_always", 24, 24),
]


@pytest.mark.parametrize("conv,value,whister,passer", FAILED_SINGLE)
def test_single_whister_on_a_failed_contract(conv, value, whister, passer):
    t = Table(conv, single_whister=value)
    t.deal(contract(1, "7H", {2: "whist", 0: "pass"}, {1: 6, 2: 3, 0: 1}))
    assert t.mountains == [0, t.rules.scale * 4, 0]  # s·V·u
    assert t.whists == {(2, 1): whister, (0, 1): passer}


# Made 7H: declarer 1 takes 7, whister 2 takes 2, passer 0 takes 1 (d = 3, obligation met).
# sochi: open 4·3 = 12 / 0; closed 8 / 4; gentlemen 12 / 0 (kept on a made game); always 6 / 6.
# piter: open 24 / 0; closed 16 / 8; gentlemen 24 / 0; always 12 / 12.
MADE_SINGLE = [
    ("sochi", "open", 12, 0),
    ("sochi", "closed", 8, 4),
    ("sochi", "gentlemen", 12, 0),
    ("sochi", "gentlemen_always", 6, 6),
    ("piter", "open", 24, 0),
    ("piter", "closed", 16, 8),
    ("piter", "gentlemen", 24, 0),
    ("piter", "gentlemen_always", 12, 12),
]


@pytest.mark.parametrize("conv,value,whister,passer", MADE_SINGLE)
def test_single_whister_on_a_made_contract(conv, value, whister, passer):
    t = Table(conv, single_whister=value)
    t.deal(contract(1, "7H", {2: "whist", 0: "pass"}, {1: 7, 2: 2, 0: 1}))
    assert t.pools == [0, 4, 0]
    expected = {(2, 1): whister, (0, 1): passer}
    assert t.whists == {k: v for k, v in expected.items() if v}


def test_gentlemen_whist_keeps_its_classic_name():
    assert make_rules("sochi", 3, options={"gentlemen_whist": True}).single_whister.value == "gentlemen"
    assert make_rules("sochi", 3, options={"gentlemen_whist": False}).single_whister.value == "open"
    with pytest.raises(InvalidTable) as info:
        make_rules("sochi", 3, options={"gentlemen_whist": True, "single_whister": "closed"})
    assert {e.field for e in info.value.errors} == {"options.gentlemen_whist"}


# --- consolation ------------------------------------------------------------------------------

# Failed 7H, both whist: declarer 1 takes 6 (u = 1), 2 takes 3, 0 takes 1.
# sochi scaled_value: 2: 4·3 + 4 = 16, 0: 4 + 4 = 8; ten: 12 + 10 = 22, 4 + 10 = 14.
# piter ten: 2: 8·3 + 10 = 34, 0: 8 + 10 = 18.  vmk scaled_value (V): 16, 8 as sochi.
CONSOLATION = [
    ("sochi", "scaled_value", 16, 8),
    ("sochi", "ten", 22, 14),
    ("piter", "ten", 34, 18),
    ("piter", "scaled_value", 32, 16),
    ("vmk", "scaled_value", 16, 8),
    ("rostov", "scaled_value", 16, 8),
]


@pytest.mark.parametrize("conv,value,first,second", CONSOLATION)
def test_consolation(conv, value, first, second):
    t = Table(conv, consolation=value)
    t.deal(contract(1, "7H", {2: "whist", 0: "whist"}, {1: 6, 2: 3, 0: 1}))
    assert t.whists == {(2, 1): first, (0, 1): second}


def test_rostov_direct_whists_at_four_players_the_dealer_writes_too():
    # sochi with consolation ten, 4 players: 7H failed by 3 (declarer 1 takes 4), 2 and 3 take 3 each.
    # mountain 4·3 = 12; 2: 4·3 + 10·3 = 42; 3: 42; the dealer 0: 30
    t = Table("sochi", players=4, consolation="ten")
    t.deal(contract(1, "7H", {2: "whist", 3: "whist"}, {1: 4, 2: 3, 3: 3}))
    assert t.mountains == [0, 12, 0, 0]
    assert t.whists == {(2, 1): 42, (3, 1): 42, (0, 1): 30}


# --- failed_declarer_doubled --------------------------------------------------------------------


def test_doubled_whists_on_a_failed_declarer_in_sochi():
    # failed 7H both whist (1 takes 6, 2 takes 3, 0 takes 1): (12 + 4)·2 = 32, (4 + 4)·2 = 16;
    # the declarer's mountain is not doubled: 4
    t = Table("sochi", failed_declarer_doubled=True)
    t.deal(contract(1, "7H", {2: "whist", 0: "whist"}, {1: 6, 2: 3, 0: 1}))
    assert t.mountains == [0, 4, 0]
    assert t.whists == {(2, 1): 32, (0, 1): 16}


@pytest.mark.parametrize("doubled,first,second,dealer", [(True, 64, 32, 16), (False, 32, 16, 8)])
def test_doubled_whists_on_a_failed_declarer_in_piter_races(doubled, first, second, dealer):
    # 4 players, 7H: declarer 1 takes 6 (u = 1), 2 takes 3, 3 takes 1; s = 2, V = 4:
    # 2: 8·3 + 8 = 32, 3: 8 + 8 = 16, dealer 0: consolation 8; doubled (the default): 64, 32, 16
    t = Table("piter_races", players=4, failed_declarer_doubled=doubled).set(compulsory_cost=None)
    t.deal(contract(1, "7H", {2: "whist", 3: "whist"}, {1: 6, 2: 3, 3: 1}))
    assert t.mountains == [0, 8, 0, 0]
    assert t.whists == {(2, 1): first, (3, 1): second, (0, 1): dealer}


# --- two_whisters_high -------------------------------------------------------------------------

# 8H, both whist, declarer 1 takes all 10: short 1. sochi semi: s·V/2 = 3 per short trick;
# vmk full: 6. second_then_both on 8: the second defender (0) the whole; both: each the whole;
# shared: each half (sochi 3/2, vmk 3).
HIGH = [
    ("sochi", "second_then_both", [3, 0, 0]),
    ("sochi", "both", [3, 0, 3]),
    ("sochi", "shared", [Fraction(3, 2), 0, Fraction(3, 2)]),
    ("vmk", "second_then_both", [6, 0, 0]),
    ("vmk", "both", [6, 0, 6]),
    ("vmk", "shared", [3, 0, 3]),
]


@pytest.mark.parametrize("conv,value,mountains", HIGH)
def test_two_whisters_on_eight(conv, value, mountains):
    t = Table(conv, two_whisters_high=value)
    t.deal(contract(1, "8H", {2: "whist", 0: "whist"}, {1: 10, 2: 0, 0: 0}))
    got = t.mountains
    assert [got[0], got[2]] == [mountains[0], mountains[2]]
    assert got[1] == 0


# --- allpass_scoring ----------------------------------------------------------------------------

# tricks 2, 3, 5. per_trick: c·t; amnesty: c·(t − 2); rostov: the fewest (seat 0) writes 5 a trick
# on the others: 15 on 1, 25 on 2.
ALLPASS = [
    ("sochi", "per_trick", {}, [2, 3, 5]),
    ("sochi", "amnesty", {}, [0, 1, 3]),  # c = 1
    ("piter", "per_trick", {}, [4, 6, 10]),
    ("piter", "amnesty", {}, [0, 2, 6]),  # c = 2
    ("vmk", "amnesty", {}, [0, 2, 6]),  # c = 2 ([2,4,4])
]


@pytest.mark.parametrize("conv,value,extra,mountains", ALLPASS)
def test_allpass_scoring(conv, value, extra, mountains):
    t = Table(conv, allpass_scoring=value, **extra)
    t.deal(allpass({0: 2, 1: 3, 2: 5}))
    assert t.mountains == mountains


@pytest.mark.parametrize("conv", ["sochi", "piter"])
def test_rostov_allpass_in_another_convention(conv):
    t = Table(conv, allpass_scoring="rostov", clean_player="mountain_one")
    t.deal(allpass({0: 2, 1: 3, 2: 5}))
    assert t.mountains == [0, 0, 0]
    assert t.whists == {(0, 1): 15, (0, 2): 25}
    # no streak and no trick cost
    assert t.allpass["streak"] == 0 and t.allpass["next_trick_cost"] is None


def test_rostov_allpass_needs_a_clean_rule_without_a_cost():
    with pytest.raises(InvalidTable) as info:
        make_rules("sochi", 3, options={"allpass_scoring": "rostov"})
    assert fields(info.value) == {"options.allpass_scoring"}  # sochi's clean player writes a cost


# --- allpass_costs and exit_levels ---------------------------------------------------------------

LADDERS = [
    ([1], [1, 1, 1, 1, 1]),
    ([1, 2, 3], [1, 2, 3, 3, 3]),
    ([1, 2, 4], [1, 2, 4, 4, 4]),
    ([2, 4, 6], [2, 4, 6, 6, 6]),
    ([2, 4, 8], [2, 4, 8, 8, 8]),
    ({"start": 1, "step": 1}, [1, 2, 3, 4, 5]),
    ({"start": 2, "step": 3}, [2, 5, 8, 11, 14]),
]


@pytest.mark.parametrize("conv", ["sochi", "vmk"])
@pytest.mark.parametrize("ladder,costs", LADDERS)
def test_cost_ladders_by_streak(conv, ladder, costs):
    for streak, cost in enumerate(costs):
        t = Table(conv, allpass_costs=ladder).set(streak=streak)
        assert t.allpass["next_trick_cost"] == cost


@pytest.mark.parametrize("conv", ["piter", "piter_gentleman"])
def test_cost_ladders_under_scale_two(conv):
    # the unbounded ladder 2, 4, 6, 8, ...: the fourth all-pass in a row (streak 3) costs 8
    t = Table(conv, allpass_costs={"start": 2, "step": 2}, allpass_scoring="per_trick").set(streak=3)
    t.deal(allpass({0: 2, 1: 3, 2: 5}))
    assert t.mountains == [16, 24, 40]  # 8·2, 8·3, 8·5
    # odd costs are refused: scale 2 writes every cost doubled
    with pytest.raises(InvalidTable) as info:
        make_rules(conv, 3, options={"allpass_costs": [1, 2, 4]})
    assert fields(info.value) == {"options.allpass_costs"}


def test_unbounded_ladder_scores_the_sixth_allpass():
    # sochi {1, 1}: streak 5 -> cost 6; tricks 2, 3, 5 -> 12, 18, 30
    t = Table("sochi", allpass_costs={"start": 1, "step": 1}).set(streak=5)
    t.deal(allpass({0: 2, 1: 3, 2: 5}))
    assert t.mountains == [12, 18, 30]


EXITS = [([6], [6, 6, 6, 6]), ([6, 7, 7], [6, 7, 7, 7]), ([6, 7, 8], [6, 7, 8, 8])]


@pytest.mark.parametrize("conv", ["sochi", "vmk", "rostov"])
@pytest.mark.parametrize("ladder,levels", EXITS)
def test_exit_ladders_by_streak(conv, ladder, levels):
    for streak, level in enumerate(levels):
        t = Table(conv, exit_levels=ladder, allpass_scoring="per_trick", clean_player="mountain").set(
            streak=streak
        )
        assert t.allpass["min_contract"] == level


# --- clean_player and clean_dealer ----------------------------------------------------------------


@pytest.mark.parametrize("conv,writeoff,mountain0", [("sochi", 1, -1), ("sochi", 2, -2), ("vmk", 2, -4)])
def test_clean_player_mountain_in_other_presets(conv, writeoff, mountain0):
    # tricks 0, 4, 6; sochi c = 1: 4, 6 and the clean seat 0 writes off writeoff·1;
    # vmk c = 2: 8, 12 and -2·2
    t = Table(conv, clean_player="mountain", clean_writeoff=writeoff)
    t.deal(allpass({0: 0, 1: 4, 2: 6}))
    c = t.rules.allpass_costs.at(0)
    assert t.mountains == [mountain0, 4 * c, 6 * c] and t.pools == [0, 0, 0]


@pytest.mark.parametrize("conv", ["piter", "sochi"])
def test_clean_player_choice_in_other_presets(conv):
    # the clean seat 0: +c to the pool by default, or choices.writeoff: -2c off the mountain
    t = Table(conv, clean_player="choice", allpass_scoring="per_trick")
    c = t.rules.allpass_costs.at(0)
    t.deal(allpass({0: 0, 1: 4, 2: 6}))
    assert t.pools == [c, 0, 0] and t.mountains == [0, 4 * c, 6 * c]
    t = Table(conv, clean_player="choice", allpass_scoring="per_trick")
    t.deal(allpass({0: 0, 1: 4, 2: 6}, choices={"writeoff": [0]}))
    assert t.pools == [0, 0, 0] and t.mountains == [-2 * c, 4 * c, 6 * c]


# 4 players, dealer 0 holds no talon trick; tricks 3, 3, 4 for seats 1-3.
# sochi c = 1 per trick: 3, 3, 4; piter amnesty c = 2 with the dealer's 0: m = 0: 6, 6, 8.
DEALER = [
    ("sochi", "pool_cost", [0, 3, 3, 4], [1, 0, 0, 0]),  # +c to the dealer's pool
    ("piter", "pool_cost", [0, 6, 6, 8], [2, 0, 0, 0]),
    ("sochi", "mountain_cost", [-1, 3, 3, 4], [0, 0, 0, 0]),
    ("vmk", "mountain_cost", [-2, 6, 6, 8], [0, 0, 0, 0]),  # c = 2
    ("sochi", "mountain_one", [-1, 3, 3, 4], [0, 0, 0, 0]),
    ("piter", "mountain_one", [-1, 6, 6, 8], [0, 0, 0, 0]),
    ("sochi", "nothing", [0, 3, 3, 4], [0, 0, 0, 0]),
    ("piter_gentleman", "nothing", [0, 6, 6, 8], [0, 0, 0, 0]),  # per trick c = 2
]


@pytest.mark.parametrize("conv,value,mountains,pools", DEALER)
def test_clean_dealer(conv, value, mountains, pools):
    t = Table(conv, players=4, clean_dealer=value)
    t.deal(allpass({1: 3, 2: 3, 3: 4}))
    assert t.mountains == mountains and t.pools == pools


def test_dealer_clean_keeps_its_classic_meaning():
    assert (
        make_rules("piter_gentleman", 4, options={"dealer_clean": True}).clean_dealer.value == "mountain_cost"
    )
    assert make_rules("rostov", 4, options={"dealer_clean": True}).clean_dealer.value == "mountain_one"
    assert make_rules("sochi", 4, options={"dealer_clean": True}).clean_dealer.value == "mountain_cost"


# --- end_of_game and end_outside_streak -------------------------------------------------------------


@pytest.mark.parametrize("conv", ["sochi", "vmk"])
def test_end_by_total_pool(conv):
    # uncapped pools 30, 26, 0 (target 20, n·target 60); seat 1's unwhisted 7 makes 26 + 4 = 30:
    # 30 + 30 + 0 = 60 -> finished, though seat 2's pool is empty
    t = Table(conv, end_of_game="total_pool", pool_overflow="no_cap").set(pools=(30, 26, 0))
    t.deal(contract(1, "7H", {2: "pass", 0: "pass"}))
    assert t.pools == [30, 30, 0] and t.state.finished


@pytest.mark.parametrize("conv", ["sochi", "piter"])
def test_end_by_one_closed_pool(conv):
    # seat 1 at 18 makes an unwhisted 6 (+2): 20 -> finished (piter: not inside a streak, streak 0)
    t = Table(conv, end_of_game="one_closed").set(pools=(0, 18, 0))
    t.deal(contract(1, "6H", {2: "pass", 0: "pass"}))
    assert t.state.finished


@pytest.mark.parametrize("conv", ["piter_gentleman", "vmk"])
def test_end_when_all_pools_are_closed(conv):
    t = Table(conv, end_of_game="all_closed", pool_overflow="help_others").set(pools=(20, 20, 16))
    t.deal(contract(2, "7H", {0: "whist", 1: "pass"}, {2: 7, 0: 3, 1: 0}))
    assert t.pools == [20, 20, 20] and t.state.finished


def test_end_after_a_number_of_deals_in_sochi():
    t = Table("sochi", end_of_game="deals", game_deals=3)
    t.play(allpass({0: 2, 1: 3, 2: 5}), allpass({0: 2, 1: 3, 2: 5}))
    assert not t.state.finished
    t.deal(allpass({0: 2, 1: 3, 2: 5}))
    assert t.state.finished and t.state.deal_count == 3
    # settled with the pools unclosed: final
    assert t.settle().final is True
    t.refuse(allpass({0: 2, 1: 3, 2: 5}), TableFinished)


def test_end_after_a_number_of_deals_waits_for_the_streak_in_piter():
    # piter does not end inside a streak: after 2 all-passes (streak 2) the game goes on;
    # the made, whisted 7 ends the streak and the game (3 deals >= 2)
    t = Table("piter", end_of_game="deals", game_deals=2)
    t.play(allpass({0: 2, 1: 3, 2: 5}), allpass({0: 2, 1: 3, 2: 5}))
    assert not t.state.finished and t.allpass["streak"] == 2
    t.deal(contract(1, "7H", {2: "whist", 0: "pass"}, {1: 7, 2: 3, 0: 0}))
    assert t.state.finished


@pytest.mark.parametrize("conv", ["sochi", "piter"])
def test_the_caller_closes_a_game_played_for_deals(conv):
    # "на время": the table ends when the caller closes it; the close writes nothing
    t = Table(conv, end_of_game="deals", game_deals=100)
    t.deal(contract(1, "7H", {2: "whist", 0: "pass"}, {1: 7, 2: 3, 0: 0}))
    before = (t.pools, t.mountains, t.whists)
    assert t.deal({"type": "close"}) == {}
    assert t.state.finished and (t.pools, t.mountains, t.whists) == before
    assert t.settle().final is True


@pytest.mark.parametrize("conv", ["sochi", "piter_races"])
def test_close_is_refused_unless_the_game_is_played_for_deals(conv):
    t = Table(conv, players=4 if conv == "piter_races" else 3)
    assert fields(t.refuse({"type": "close"}, InvalidDeal)) == {"type"}


def test_end_outside_streak_in_sochi():
    # pools 20, 20, 19; an all-pass where seat 2 takes nothing: +1 to his pool, all closed, but
    # the all-pass starts a streak: sochi ends there (default), with the field on it does not
    t = Table("sochi").set(pools=(20, 20, 19))
    t.deal(allpass({0: 4, 1: 6, 2: 0}))
    assert t.pools == [20, 20, 20] and t.state.finished
    t = Table("sochi", end_outside_streak=True).set(pools=(20, 20, 19))
    t.deal(allpass({0: 4, 1: 6, 2: 0}))
    assert t.pools == [20, 20, 20] and not t.state.finished


def test_end_outside_streak_off_in_piter():
    # piter's unwhisted 7 closes every pool but leaves the streak: finished only with the field off
    t = Table("piter", end_outside_streak=False).set(pools=(20, 20, 16), streak=1)
    t.deal(contract(2, "7H", {0: "pass", 1: "pass"}))
    assert t.allpass["streak"] == 1 and t.state.finished


# --- pool_overflow ---------------------------------------------------------------------------------


@pytest.mark.parametrize("conv", ["sochi", "vmk"])
def test_no_cap(conv):
    # seat 0 at 18 makes an unwhisted 8 (+6): 24, nothing helps anybody; a help choice is refused
    t = Table(conv, pool_overflow="no_cap").set(pools=(18, 10, 5))
    assert fields(t.refuse(contract(0, "8H", {1: "pass", 2: "pass"}, choices={"help": 1}))) == {
        "choices.help"
    }
    t.deal(contract(0, "8H", {1: "pass", 2: "pass"}))
    assert t.pools == [24, 10, 5] and t.whists == {}


def test_mountain_first_in_sochi():
    # pools 18, 10, 5; mountains 3, 0, 0. Seat 0's unwhisted 8 (+6): 2 close his pool; of the 4
    # beyond, 3 come off his own mountain first (k = 1: 3 -> 0); the last 1 helps the largest open
    # pool, seat 1 (10 -> 11), at 10 whists a point
    t = Table("sochi", pool_overflow="mountain_first").set(pools=(18, 10, 5), mountains=(3, 0, 0))
    t.deal(contract(0, "8H", {1: "pass", 2: "pass"}))
    assert t.pools == [20, 11, 5] and t.mountains == [0, 0, 0]
    assert t.whists == {(0, 1): 10}


def test_mountain_first_in_piter():
    # k = 2; pools 18, 10, 5; mountains 5, 0, 0. Unwhisted 8 by seat 0 (+6): 2 close the pool;
    # of the 4 beyond, whole points off the mountain at 2 each: 2 points (5 -> 1); the last 2
    # help seat 1 (10 -> 12) at 20 whists a point: 40
    t = Table("piter", pool_overflow="mountain_first").set(pools=(18, 10, 5), mountains=(5, 0, 0))
    t.deal(contract(0, "8H", {1: "pass", 2: "pass"}))
    assert t.pools == [20, 12, 5] and t.mountains == [1, 0, 0]
    assert t.whists == {(0, 1): 40}


def test_mountain_first_with_no_mountain_helps_as_usual():
    t = Table("vmk", pool_overflow="mountain_first").set(pools=(18, 10, 5))
    t.deal(contract(0, "8H", {1: "pass", 2: "pass"}))
    assert t.pools == [20, 14, 5] and t.whists == {(0, 1): 40}


# --- made_game_writeoff and unwhisted_writeoff --------------------------------------------------------


@pytest.mark.parametrize("conv,off", [("sochi", -4), ("piter", -8)])
def test_made_game_writeoff_once_closed_in_other_presets(conv, off):
    # seat 1's pool is closed before the deal: his made 7 (V = 4) comes off his mountain at k
    t = Table(conv, made_game_writeoff="closed_pool").set(pools=(0, 20, 0))
    t.deal(contract(1, "7H", {2: "whist", 0: "pass"}, {1: 7, 2: 3, 0: 0}, choices={"writeoff": [1]}))
    assert t.pools == [0, 20, 0] and t.mountains == [0, off, 0]
    t = Table(conv, made_game_writeoff="closed_pool").set(pools=(0, 19, 0))
    assert fields(
        t.refuse(contract(1, "7H", {2: "whist", 0: "pass"}, {1: 7, 2: 3, 0: 0}, choices={"writeoff": [1]}))
    ) == {"choices.writeoff"}


# made_game_writeoff beyond_target (the first rule table's VMK reading, kept for tables of rules
# version 1): seat 0's pool is 18 of 20; his made, whisted 8H (V = 6, whister 1 takes 2 tricks)
# writes 2 to his pool (20, closed) and the 4 beyond the target off his own mountain at k
# instead of helping seat 1 (whose pool stays 10). sochi, vmk (k = 1): mountain -4, whists
# 2·1·6 = 12; piter (s = 2, k = 2): mountain -4·2 = -8, whists 2·2·6 = 24 (made: open).
# With the pool closed before the deal all of V = 6 is beyond: -6 (k = 1), -12 (k = 2).
BEYOND_TARGET = [
    ("sochi", {}, -4, 12, -6),
    ("piter", {}, -8, 24, -12),
    ("vmk", {"rules_version": 1}, -4, 12, -6),
]


@pytest.mark.parametrize("conv,how,off,whists,closed_off", BEYOND_TARGET)
def test_made_game_writeoff_beyond_target(conv, how, off, whists, closed_off):
    options = {} if how else {"made_game_writeoff": "beyond_target"}
    t = Table(conv, **how, **options).set(pools=(18, 10, 5))
    assert t.rules.made_game_writeoff.value == "beyond_target"
    t.deal(contract(0, "8H", {1: "whist", 2: "pass"}, {0: 8, 1: 2, 2: 0}, choices={"writeoff": [0]}))
    assert t.pools == [20, 10, 5]
    assert t.mountains == [off, 0, 0]
    assert t.whists == {(1, 0): whists}


@pytest.mark.parametrize("conv,how,off,whists,closed_off", BEYOND_TARGET)
def test_made_game_writeoff_beyond_target_once_closed_and_with_nothing_beyond(
    conv, how, off, whists, closed_off
):
    options = {} if how else {"made_game_writeoff": "beyond_target"}
    # pool closed before the deal: all of V = 6 is beyond the target, -6·k off the mountain
    t = Table(conv, **how, **options).set(pools=(20, 10, 5))
    t.deal(contract(0, "8H", {1: "whist", 2: "pass"}, {0: 8, 1: 2, 2: 0}, choices={"writeoff": [0]}))
    assert t.pools == [20, 10, 5] and t.mountains == [closed_off, 0, 0]
    # 10 + 6 = 16 stays under the target: nothing beyond it to write off, refused
    t = Table(conv, **how, **options).set(pools=(10, 10, 5))
    assert fields(
        t.refuse(contract(0, "8H", {1: "whist", 2: "pass"}, {0: 8, 1: 2, 2: 0}, choices={"writeoff": [0]}))
    ) == {"choices.writeoff"}


@pytest.mark.parametrize("conv", ["sochi", "piter"])
def test_unwhisted_writeoff_value(conv):
    # an unwhisted 7 written off: -V = -4 off the mountain, nothing to the pool, at any time
    t = Table(conv, unwhisted_writeoff="value")
    t.deal(contract(1, "7H", {2: "pass", 0: "pass"}, choices={"writeoff": [1]}))
    assert t.pools == [0, 0, 0] and t.mountains == [0, -4, 0]


@pytest.mark.parametrize("conv", ["sochi", "vmk"])
def test_unwhisted_writeoff_double_high(conv):
    # an unwhisted 8: -2V = -12; a clean misère: -20; a 7 has nothing to write off
    t = Table(conv, unwhisted_writeoff="double_high")
    t.deal(contract(1, "8H", {2: "pass", 0: "pass"}, choices={"writeoff": [1]}))
    t.deal(misere(2, 0, choices={"writeoff": [2]}))
    assert t.pools == [0, 0, 0] and t.mountains == [0, -12, -20]
    assert fields(t.refuse(contract(0, "7H", {1: "pass", 2: "pass"}, choices={"writeoff": [0]}))) == {
        "choices.writeoff"
    }


# --- fixed_dealer_scope (with sliding_allpass off) ---------------------------------------------------


# dealer 0: an all-pass (streak 1, 0 deals again); then declarer 1's whisted 7H fails by one
# (6 tricks), which does not end the streak. whole_streak: still in all-passes, 0 deals again
# and again after the next all-pass (streak 2). allpass_deals: only the all-pass kept the
# dealer, so after the failed 7 the deal passes to 1, and 1 keeps it after the next all-pass.
@pytest.mark.parametrize("conv", ["sochi", "piter", "vmk"])
@pytest.mark.parametrize("scope,dealers", [("whole_streak", (0, 0, 0)), ("allpass_deals", (0, 1, 1))])
def test_fixed_dealer_scope(conv, scope, dealers):
    t = Table(conv, sliding_allpass=False, fixed_dealer_scope=scope)
    t.deal(allpass({0: 2, 1: 3, 2: 5}))
    assert (t.state.streak, t.state.next_dealer) == (1, dealers[0])
    t.deal(contract(1, "7H", {2: "whist", 0: "whist"}, {1: 6, 2: 2, 0: 2}))
    assert (t.state.streak, t.state.next_dealer) == (1, dealers[1])
    t.deal(allpass({0: 2, 1: 3, 2: 5}))
    assert (t.state.streak, t.state.next_dealer) == (2, dealers[2])


@pytest.mark.parametrize("conv", ["sochi", "piter"])
def test_fixed_dealer_scope_counts_only_with_sliding_off(conv):
    # sliding on: the deal passes on after every deal, the all-pass included (0 -> 1 -> 2)
    t = Table(conv, sliding_allpass=True, fixed_dealer_scope="allpass_deals")
    t.deal(allpass({0: 2, 1: 3, 2: 5}))
    assert t.state.next_dealer == 1
    t.deal(contract(2, "7H", {0: "whist", 1: "whist"}, {2: 6, 0: 2, 1: 2}))
    assert t.state.next_dealer == 2


def test_fixed_dealer_scope_of_a_version_1_table():
    # a piter table of rules version 1 with sliding off keeps the first rule table's reading
    t = Table("piter", sliding_allpass=False, rules_version=1)
    assert t.rules.fixed_dealer_scope.value == "allpass_deals"
    t.deal(allpass({0: 2, 1: 3, 2: 5}))
    t.deal(contract(1, "7H", {2: "whist", 0: "whist"}, {1: 6, 2: 2, 0: 2}))
    assert (t.state.streak, t.state.next_dealer) == (1, 1)


# --- half_whist_exit ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "conv,value,streak",
    [
        ("sochi", False, 1),
        ("vmk", False, 1),
        ("sochi", True, 0),
        ("piter_races", True, 0),
        ("piter_races", False, 1),
    ],
)
def test_half_whist_exit(conv, value, streak):
    players = 4 if conv == "piter_races" else 3
    t = Table(conv, players=players, half_whist_exit=value).set(streak=1, compulsory_cost=None)
    defenders = {2: "pass", 3: "half_whist"} if players == 4 else {2: "pass", 0: "half_whist"}
    t.deal(contract(1, "7H", defenders))
    assert t.allpass["streak"] == streak


# --- talon, scale, penalties, compulsory all-passes in other presets -----------------------------------


@pytest.mark.parametrize("conv", ["sochi", "vmk"])
def test_talon_bonuses_elsewhere(conv):
    # an ace in the talon, 3 players: 10 whists on the declarer, 5 from each opponent
    t = Table(conv, talon_bonuses=True)
    t.deal(contract(1, "7H", {2: "pass", 0: "pass"}, talon={"bonus": "ace"}))
    assert t.whists == {(2, 1): 5, (0, 1): 5}


@pytest.mark.parametrize("conv,penalty,taken,mountain", [("sochi", 20, 2, 40), ("piter", 10, 3, 30)])
def test_misere_penalty(conv, penalty, taken, mountain):
    t = Table(conv, misere_penalty=penalty)
    t.deal(misere(1, taken))
    assert t.mountains == [0, mountain, 0]


@pytest.mark.parametrize("conv,scale,mountain", [("sochi", 2, 16), ("piter", 1, 8)])
def test_scale(conv, scale, mountain):
    # 7H failed by 2 (declarer takes 5): s·V·u = s·4·2 (scale 2 needs even all-pass costs)
    t = Table(conv, scale=scale, allpass_costs=[2, 4, 6])
    t.deal(contract(1, "7H", {2: "whist", 0: "whist"}, {1: 5, 2: 3, 0: 2}))
    assert t.mountains == [0, mountain, 0]


@pytest.mark.parametrize("conv,rate,balance1", [("sochi", 2, 40), ("piter", 1, 20)])
def test_pool_rate(conv, rate, balance1):
    # pools 0, 3, 0: G = (0, −3k, 0), mean −k; balance_1 = 10·(−k + 3k) = 20k
    t = Table(conv, pool_rate=rate).set(pools=(0, 3, 0))
    assert t.settle().balances[1] == balance1


@pytest.mark.parametrize("conv", ["sochi", "vmk"])
def test_compulsory_allpass_elsewhere(conv):
    # each game opens with an all-pass at the first cost; a failed misère with 2 tricks forces
    # one at the second cost ([1,2,3]: 2)
    t = Table(conv, compulsory_allpass=True, allpass_costs=[1, 2, 3])
    assert t.allpass["compulsory"] and t.allpass["next_trick_cost"] == 1
    t.deal(allpass({0: 2, 1: 3, 2: 5}))
    t.deal(misere(1, 2))
    assert t.allpass["compulsory"] and t.allpass["next_trick_cost"] == 2


def test_games_need_match_bonuses():
    with pytest.raises(InvalidTable) as info:
        make_rules("sochi", 3, options={"games": 3})
    assert fields(info.value) == {"options.games"}
    assert make_rules("sochi", 4, options={"games": 3, "match_bonuses": True}).games == 3


@pytest.mark.parametrize(
    "conv,on,penalty,help_whists",
    [
        ("sochi", True, 3, {(0, 2): 40}),
        ("sochi", False, 3, {(0, 1): 40}),
        ("piter", True, 6, {(0, 2): 80}),
        ("piter", False, 6, {(0, 1): 80}),
    ],
)
def test_failed_whister_unhelped(conv, on, penalty, help_whists):
    # pools 18, 10, 5; declarer 0 (defenders 1 first, 2 second) makes all ten tricks of an 8
    # whisted by 1 alone: 1 is short 1, semi: s·V/2 = 3 (sochi) or 6 (piter) to his mountain.
    # The 4 points beyond the target help the largest open pool -- seat 1 (10), unless he
    # failed his whist and cannot be helped: then seat 2 (5 -> 9). 10·k whists a point.
    t = Table(conv, failed_whister_unhelped=on).set(pools=(18, 10, 5))
    t.deal(contract(0, "8H", {1: "whist", 2: "pass"}, {0: 10, 1: 0, 2: 0}))
    assert t.mountains == [0, penalty, 0]
    assert t.pools == ([20, 10, 9] if on else [20, 14, 5])
    assert t.whists == help_whists


def test_a_whister_no_one_holds_responsible_has_not_failed_and_may_be_helped():
    # as above (piter, pools 18, 10, 5; declarer 0 makes all ten tricks of an 8 whisted by 1
    # alone), but no whister is responsible: 1 is short 1 and pays nothing, so he has not failed
    # his whist and the help may name him: the 4 points beyond the target go to seat 1 (10 -> 14),
    # 10·k = 20 whists a point: 80 on him.
    t = Table("piter", failed_whister_unhelped=True, whist_responsibility="none").set(pools=(18, 10, 5))
    t.deal({**contract(0, "8H", {1: "whist", 2: "pass"}, {0: 10, 1: 0, 2: 0}), "choices": {"help": 1}})
    assert t.mountains == [0, 0, 0]
    assert t.pools == [20, 14, 5]
    assert t.whists == {(0, 1): 80}


@pytest.mark.parametrize("conv", ["sochi", "vmk"])
def test_return_talon_elsewhere(conv):
    # 4 players, dealer 0: seat 1's unwhisted 7 with the talon returned: pool 4, the dealer V = 4
    t = Table(conv, players=4, return_talon=True)
    t.deal(contract(1, "7H", {2: "pass", 3: "pass"}, talon={"returned": True}))
    assert t.pools == [0, 4, 0, 0] and t.mountains == [4, 0, 0, 0]


@pytest.mark.parametrize("conv", ["sochi", "vmk"])
def test_match_bonuses_elsewhere(conv):
    # a one-game match: pools 20, 20, 16, mountains 0, 4, 4, seat 0 first to the target. Seat 2's
    # unwhisted 7 closes every pool: the game ends. Game bonuses: seat 0 first (300 on each),
    # seat 0 the smallest mountain (200 on each). Match bonuses: the largest total pool is a
    # three-way tie (300/3 = 100 from each on each other), the smallest total mountain seat 0
    # (200 on each). (0, 1) = (0, 2) = 300 + 200 + 100 + 200 = 800; every other cell 100.
    t = Table(conv, match_bonuses=True).set(
        pools=(20, 20, 16),
        mountains=(0, 4, 4),
        first_to_target=(0,),
        match_pools=(0, 0, 0),
        match_mountains=(0, 0, 0),
    )
    t.deal(contract(2, "7H", {0: "pass", 1: "pass"}))
    assert t.state.finished
    assert t.whists == {(0, 1): 800, (0, 2): 800, (1, 0): 100, (1, 2): 100, (2, 0): 100, (2, 1): 100}
    assert t.sheet["match"]["games"] == 1
