"""The five readings of the seeds put right (docs/rules.md §11). Each test
quotes the seed line it reads. 3 players unless said, dealer 0 first."""

from __future__ import annotations

import pytest

from app.rules import make_rules

from .helpers import Table, allpass, contract, fields


# 1. Seed 001, «Распасы скользящие»: "Если эта опция включена, то по окончании сдачи раздача
#    всегда переходит к следующему игроку, если она выключена, то в распасах все время сдает
#    один и тот же игрок."
@pytest.mark.parametrize("conv", ["piter", "vmk"])
def test_sliding_off_the_same_player_deals_while_in_allpasses(conv):
    t = Table(conv, sliding_allpass=False)
    t.deal(allpass({0: 2, 1: 3, 2: 5}))
    assert (t.state.streak, t.state.next_dealer) == (1, 0)
    # a failed whisted 7 does not end the streak: the table is still in all-passes, 0 deals again
    t.deal(contract(1, "7H", {2: "whist", 0: "whist"}, {1: 6, 2: 2, 0: 2}))
    assert (t.state.streak, t.state.next_dealer) == (1, 0)
    t.deal(allpass({0: 2, 1: 3, 2: 5}))
    assert (t.state.streak, t.state.next_dealer) == (2, 0)
    # a made, whisted 7 ends the streak: the deal passes on
    t.deal(contract(1, "7H", {2: "whist", 0: "pass"}, {1: 7, 2: 3, 0: 0}))
    assert (t.state.streak, t.state.next_dealer) == (0, 1)
    # outside all-passes the deal passes on after every game
    t.deal(contract(2, "6H", {0: "whist", 1: "pass"}, {2: 6, 0: 4, 1: 0}))
    assert t.state.next_dealer == 2


def test_sliding_on_the_deal_always_passes_on():
    t = Table("piter")
    t.deal(allpass({0: 2, 1: 3, 2: 5}))
    t.deal(contract(2, "7H", {0: "whist", 1: "whist"}, {2: 6, 0: 2, 1: 2}))
    assert (t.state.streak, t.state.next_dealer) == (1, 2)


# 2. Seed 004: "В данной игре возможно использовать следующие дополнительные правила." -- each
#    rule after it is a field, on by default in piter_races, and a table may turn it off.
SEED_004_OPTIONAL = {
    # "В случае ремиза играющего, ему записываются висты в двойном размере."
    "failed_declarer_doubled": (True, False),
    # "Допускается вистовать все игры, в том числе десятерные."
    "whisted_tens": (True, False),
    # "6 пик - вистуется всегда - "Сталинград"."
    "stalingrad": (True, False),
    # "Не допускается уход "без трех, без вистов"." (on = no remise)
    "remise": (False, True),
    # "Вист полуответственный джентльменский."
    "single_whister": ("gentlemen", "open"),
    "whist_responsibility": ("semi", "full"),
    # "В случае двух вистующих на восьмериках, девятериках, десятериках - ответственные поровну оба"
    "two_whisters_high": ("shared", "second_then_both"),
    # "Игрок, который не взял на распасовке ни одной взятки, записывает на выбор, либо в пулю ..."
    "clean_player": ("choice", "pool"),
    # "Очки за любой независтованный восьмерик, девятерик, десятерик, чистый мизер могут быть ...
    #  в двойном размере быть списанными с горы."
    "unwhisted_writeoff": ("double_high", "never"),
}


@pytest.mark.parametrize("name", list(SEED_004_OPTIONAL))
def test_seed_004_optional_rules_are_fields_on_in_piter_races(name):
    on, off = SEED_004_OPTIONAL[name]
    default = make_rules("piter_races", 4)
    assert (
        getattr(default, name).value if hasattr(getattr(default, name), "value") else getattr(default, name)
    ) == on
    turned = make_rules("piter_races", 4, options={name: off})
    got = getattr(turned, name)
    assert (got.value if hasattr(got, "value") else got) == off


def test_seed_004_optional_rules_off_score_like_plain_piter():
    # doubled whists off: a failed 8 by 1 (s = 2, V = 6), 4 players (dealer 0), whisters 2 and 3
    # take 1 and 2: 2 writes 2·6·1 + 12 = 24, 3 writes 2·6·2 + 12 = 36, the dealer 12
    t = Table("piter_races", players=4, failed_declarer_doubled=False).set(compulsory_cost=None)
    t.deal(contract(1, "8H", {2: "whist", 3: "whist"}, {1: 7, 2: 1, 3: 2}))
    assert t.whists == {(2, 1): 24, (3, 1): 36, (0, 1): 12}
    # with the default (doubled): 48, 72, 24
    t = Table("piter_races", players=4).set(compulsory_cost=None)
    t.deal(contract(1, "8H", {2: "whist", 3: "whist"}, {1: 7, 2: 1, 3: 2}))
    assert t.whists == {(2, 1): 48, (3, 1): 72, (0, 1): 24}


# 3. Seed 004: "Выходом из распасовки считается любая завистованная сыгранная игра." A half-whisted
#    game is not played out, so in piter_races it does not end a streak; elsewhere it does.
@pytest.mark.parametrize("conv,streak", [("piter_races", 1), ("piter", 0), ("sochi", 0), ("vmk", 0)])
def test_a_half_whist_ends_a_streak_except_in_the_races(conv, streak):
    players = 4 if conv == "piter_races" else 3
    t = Table(conv, players=players).set(streak=1, compulsory_cost=None)
    defenders = {2: "pass", 3: "half_whist"} if players == 4 else {2: "pass", 0: "half_whist"}
    t.deal(contract(1, "7H", defenders))
    # the game itself is scored as before: +4 to the pool, the half-whister s·V·1
    assert t.pools[1] == 4
    assert t.allpass["streak"] == streak
    assert make_rules(conv, players).half_whist_exit is (streak == 0)


def test_a_half_whist_inside_a_streak_does_not_end_a_race_game():
    # seed 004 "Если разыгрывается распасовка, то игра продолжается, пока не произойдет выход из
    # распасовки": seat 1 at 18 reaches the target 22 with a half-whisted 7 inside a streak --
    # the game goes on
    t = Table("piter_races", players=4).set(streak=1, compulsory_cost=None, pools=(0, 18, 0, 0))
    t.deal(contract(1, "7H", {2: "pass", 3: "half_whist"}))
    assert t.pools == [0, 22, 0, 0] and t.state.game == 1 and t.allpass["streak"] == 1


# 4. Seed 001, VMK: "ЛЮБАЯ игра может быть списана с горы по желанию, но только в случае, если
#    игрок уже "закрылся"." See tests/rules/test_vmk.py::test_made_game_writeoff_refused_while_the_pool_is_open
#    and ::test_made_game_writeoff_once_the_pool_is_closed; here the half-whist, "any game".
def test_vmk_writes_off_a_half_whist_only_once_closed():
    t = Table("vmk").set(pools=(0, 20, 0))
    t.deal(contract(1, "7H", {2: "pass", 0: "half_whist"}, choices={"writeoff": [1]}))
    # V = 4 off the mountain (k = 1); the half-whister writes 1·4·1 = 4 whists as usual
    assert t.pools == [0, 20, 0] and t.mountains == [0, -4, 0] and t.whists == {(0, 1): 4}
    t = Table("vmk").set(pools=(0, 17, 0))
    assert fields(t.refuse(contract(1, "7H", {2: "pass", 0: "half_whist"}, choices={"writeoff": [1]}))) == {
        "choices.writeoff"
    }


# 5. Seed 002 (Piter, the gentlemen's table): its table of values lists whists and whist
#    undertricks for the ten ("10 ... | 10 in a pool | 20 in a mountain | 20 whists | 10 in a
#    mountain"), and "The basic trick cost in the «All pass» round is agreed before the game
#    beginning": whisted_tens and allpass_costs are options of piter_gentleman, defaults unchanged.
def test_piter_gentleman_whisted_tens_option():
    assert make_rules("piter_gentleman", 3).whisted_tens is False
    t = Table("piter_gentleman", whisted_tens=True)
    # 10H whisted by 2 alone, declarer 1 takes all ten: pool 10; short 1 -> "10 in a mountain"
    t.deal(contract(1, "10H", {2: "whist", 0: "pass"}, {1: 10, 2: 0, 0: 0}))
    assert t.pools == [0, 10, 0] and t.mountains == [0, 0, 10]
    # then 10H by 2 (defenders 0 whists, 1 passes), declarer takes 9: "20 in a mountain" (10 + 20
    # = 30 for seat 2); the whister's one trick "20 whists", split 10/10 (gentlemen), and the
    # consolation 2·10·1 = 20 from each: 30 and 30
    t.deal(contract(2, "10H", {0: "whist", 1: "pass"}, {2: 9, 0: 1, 1: 0}))
    assert t.mountains == [0, 0, 30]
    assert t.whists == {(0, 2): 30, (1, 2): 30}


@pytest.mark.parametrize("ladder,third", [([2, 4, 8], 8), ({"start": 2, "step": 2}, 6)])
def test_piter_gentleman_allpass_costs_option(ladder, third):
    assert make_rules("piter_gentleman", 3).allpass_costs.to_json() == [2, 4, 6]
    t = Table("piter_gentleman", allpass_costs=ladder).set(streak=2)
    assert t.allpass["next_trick_cost"] == third
