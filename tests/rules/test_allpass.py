"""docs/rules.md §8.1 "what ends a streak" and the presets of §5, across conventions.

Every case: 4 players, a streak of 1 (one all-pass played), dealer 0, declarer 1 with
defenders 2 (first) and 3 (second), a 7 (the lowest contract after one all-pass where
the exits are [6,7,7] or [6,7,8])."""

import pytest

from .helpers import Table, allpass, contract, misere, remise

GAMES = {
    "made_whisted": contract(1, "7H", {2: "whist", 3: "pass"}, {1: 7, 2: 3, 3: 0}),
    "made_half_whist": contract(1, "7H", {2: "pass", 3: "half_whist"}),
    "made_unwhisted": contract(1, "7H", {2: "pass", 3: "pass"}),
    "made_misere": misere(1, 0),
    "failed_whisted": contract(1, "7H", {2: "whist", 3: "whist"}, {1: 6, 2: 2, 3: 2}),
    "failed_misere": misere(1, 1),
    "remise": remise(1, "7H"),
}

# streak after the game, from docs/rules.md §5 and §8.1 (1 = kept, 0 = ended):
EXPECTED = {
    # sochi: "any made game"
    "sochi": {
        "made_whisted": 0,
        "made_half_whist": 0,
        "made_unwhisted": 0,
        "made_misere": 0,
        "failed_whisted": 1,
        "failed_misere": 1,
        "remise": 1,
    },
    # piter: "a made, whisted game" (half-whist counts as whisted, 5.5)
    "piter": {
        "made_whisted": 0,
        "made_half_whist": 0,
        "made_unwhisted": 1,
        "made_misere": 1,
        "failed_whisted": 1,
        "failed_misere": 1,
        "remise": 1,
    },
    # piter_gentleman: "a made game, never a remise"
    "piter_gentleman": {
        "made_whisted": 0,
        "made_half_whist": 0,
        "made_unwhisted": 0,
        "made_misere": 0,
        "failed_whisted": 1,
        "failed_misere": 1,
        "remise": 1,
    },
    # vmk: "a made, whisted game"
    "vmk": {
        "made_whisted": 0,
        "made_half_whist": 0,
        "made_unwhisted": 1,
        "made_misere": 1,
        "failed_whisted": 1,
        "failed_misere": 1,
        "remise": 1,
    },
    # piter_races: seed 004 «Выходом из распасовки считается любая завистованная сыгранная
    # игра»: a half-whisted game is not played out (half_whist_exit off); no remise there
    "piter_races": {
        "made_whisted": 0,
        "made_half_whist": 1,
        "made_unwhisted": 1,
        "made_misere": 1,
        "failed_whisted": 1,
        "failed_misere": 1,
    },
}

CASES = [(conv, game, after) for conv, row in EXPECTED.items() for game, after in row.items()]


def _in_streak(conv):
    t = Table(conv, players=4)
    return t.set(streak=1, compulsory_cost=None)


@pytest.mark.parametrize("conv,game,after", CASES, ids=[f"{c}-{g}" for c, g, _ in CASES])
def test_what_ends_a_streak(conv, game, after):
    t = _in_streak(conv)
    t.deal(GAMES[game])
    assert t.allpass["streak"] == after


@pytest.mark.parametrize("conv", ["piter", "vmk"])
def test_unwhisted_exit_is_piter_only_option_vmk_fixed(conv):
    # piter's unwhisted_exit option makes the made unwhisted game an exit; vmk has it fixed off
    if conv == "piter":
        t = Table(conv, players=4, unwhisted_exit=True).set(streak=1)
        t.deal(GAMES["made_unwhisted"])
        assert t.allpass["streak"] == 0
    else:
        t = _in_streak(conv)
        t.deal(GAMES["made_unwhisted"])
        assert t.allpass["streak"] == 1


# (convention, options) -> next trick cost and lowest contract after 0, 1, 2, 3 all-passes
LADDERS = [
    ("sochi", {}, [(1, 6), (1, 6), (1, 6), (1, 6)]),
    ("sochi", {"allpass_costs": [1, 2, 3], "exit_levels": [6, 7, 7]}, [(1, 6), (2, 7), (3, 7), (3, 7)]),
    ("piter", {}, [(2, 6), (4, 7), (6, 7), (6, 7)]),
    ("piter", {"allpass_costs": [2, 4, 8], "exit_levels": [6, 7, 8]}, [(2, 6), (4, 7), (8, 8), (8, 8)]),
    ("piter_gentleman", {}, [(2, 6), (4, 7), (6, 8), (6, 8)]),
    ("vmk", {}, [(2, 6), (4, 7), (4, 7), (4, 7)]),
    ("rostov", {}, [(None, 6), (None, 6), (None, 6), (None, 6)]),
]


@pytest.mark.parametrize("conv,options,ladder", LADDERS, ids=[f"{c}-{o}" for c, o, _ in LADDERS])
def test_trick_cost_and_lowest_contract_after_0_1_2_3_allpasses(conv, options, ladder):
    t = Table(conv, **options)
    seen = []
    for _ in range(4):
        seen.append((t.allpass["next_trick_cost"], t.allpass["min_contract"]))
        t.deal(allpass({0: 3, 1: 3, 2: 4}))
    assert seen == ladder


def test_races_ladder_after_compulsory():
    t = Table("piter_races", players=4)
    t.deal(allpass({1: 3, 2: 3, 3: 4}))  # compulsory at 2 -> streak 1
    seen = []
    for dealer_out in (1, 2, 3):
        seen.append((t.allpass["next_trick_cost"], t.allpass["min_contract"]))
        active = [s for s in range(4) if s != dealer_out]
        t.deal(allpass({active[0]: 3, active[1]: 3, active[2]: 4}))
    # streak 1, 2, 3: costs [2,4,6] at index 1, 2, 2; exits [6,7,7]
    assert seen == [(4, 7), (6, 7), (6, 7)]


def test_level_exposed_is_min_streak_2_plus_1():
    t = Table("piter")
    levels = []
    for _ in range(4):
        levels.append(t.allpass["level"])
        t.deal(allpass({0: 3, 1: 3, 2: 4}))
    assert levels == [1, 2, 3, 3]


def test_per_trick_four_player_dealer_with_talon_tricks_vmk():
    t = Table("vmk", players=4)
    t.deal(allpass({0: 2, 1: 0, 2: 4, 3: 4}))
    # c = 2: dealer 2 * 2 = 4; 1 clean: -2 off the mountain; 2, 3: 8 each
    assert t.mountains == [4, -2, 8, 8]
