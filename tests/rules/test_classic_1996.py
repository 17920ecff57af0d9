"""classic_1996: the game of the Кодекс преферанса (Moscow, 1996) without the options it leaves
to the table (docs/rules.md §14). s = 1: pool V (6→2 ... 10→10), undertrick V, a defender's
trick V, the consolation V from every other player, the dealer included (3.8.1.2); the
obligation 4-2-1-1-1, the ten whisted (3.8.2); each defender whists or passes on his own
(3.8.3); half-responsible, open whist; all-pass 1 a trick, clean +1 to the pool. Dealer 0 first."""

import pytest

from app.rules import InvalidTable, make_rules

from .helpers import Table, allpass, contract, misere, names_field, remise


@pytest.mark.parametrize("level,obligation", [(6, 4), (7, 2), (8, 1), (9, 1), (10, 1)])
def test_obligation_3_8_2_and_the_ten_whisted(level, obligation):
    t = Table("classic_1996")
    t.deal(contract(1, f"{level}H", {2: "whist", 0: "pass"}, {1: 10, 2: 0, 0: 0}))
    # short the whole obligation, V/2 a trick (half-responsible)
    value = {6: 2, 7: 4, 8: 6, 9: 8, 10: 10}[level]
    assert t.mountains == [0, 0, obligation * value // 2]
    assert t.pools == [0, value, 0]


def test_consolation_from_everyone_the_dealer_included_3_8_1_2():
    t = Table("classic_1996", players=4)  # dealer 0; declarer 1, defenders 2 and 3
    t.deal(contract(1, "8S", {2: "whist", 3: "pass"}, {1: 6, 2: 3, 3: 1}))
    # u = 2: mountain 12; open whist: 2 writes 4 × 6 = 24 + 12; 3 and the dealer 12 each
    assert t.mountains == [0, 12, 0, 0]
    assert t.whists == {(2, 1): 36, (3, 1): 12, (0, 1): 12}


def test_each_defender_answers_on_his_own_3_8_3():
    t = Table("classic_1996")
    # the second whists after the first passed, and the other way round
    t.deal(contract(1, "6H", {2: "pass", 0: "whist"}, {1: 6, 2: 2, 0: 2}))
    assert t.whists == {(0, 1): 8}
    t.deal(contract(2, "6H", {0: "whist", 1: "pass"}, {2: 6, 0: 2, 1: 2}))
    assert t.whists == {(0, 1): 8, (0, 2): 8}


def test_game_priced_talon_is_not_the_code():
    error = Table("classic_1996").refuse(contract(1, "6H", {2: "pass", 0: "pass"}, talon={"bonus": "ace"}))
    assert names_field(error, "talon.bonus")
    with pytest.raises(InvalidTable) as info:
        make_rules("classic_1996", 3, options={"talon_bonus_price": "game"})
    assert [e.field for e in info.value.errors] == ["options.talon_bonus_price"]


def test_whole_pulka_three_players():
    t = Table("classic_1996")
    # 1 (dealer 0): 6S by 1, 2 whists, 0 passes, 6/3/1: pool 1 +2; open: 2 writes both hands 4 × 2 = 8
    t.deal(contract(1, "6S", {2: "whist", 0: "pass"}, {1: 6, 2: 3, 0: 1}))
    # 2 (dealer 1): all-pass, 1 a trick: 0 +4, 1 +6; 2 clean: +1 to the pool
    t.deal(allpass({0: 4, 1: 6, 2: 0}))
    # 3 (dealer 2): 7H by 0 (the lowest stays 6, here 7), both whist, 6/3/1: u = 1, mountain 0 +4;
    # 1→0 3 × 4 + 4 = 16, 2→0 1 × 4 + 4 = 8
    t.deal(contract(0, "7H", {1: "whist", 2: "whist"}, {0: 6, 1: 3, 2: 1}))
    # 4 (dealer 0): 8D by 2 conceded without three: mountain 2 + 6 × 3 = 18
    t.deal(remise(2, "8D"))
    # 5 (dealer 1): 10NT by 1, 2 whists, 0 passes, 9/1/0: u = 1, mountain 1 +10; 2→1 10 + 10, 0→1 10
    t.deal(contract(1, "10NT", {2: "whist", 0: "pass"}, {1: 9, 2: 1, 0: 0}))
    # 6 (dealer 2): misère by 0 caught twice: mountain 0 + 2 × 10 = 20
    t.deal(misere(0, 2))
    # 7 (dealer 0): 6C by 2, 0 passes, 1 half-whists: pool 2 +2, 1→2 half the obligation, 2 tricks × 2 = 4
    t.deal(contract(2, "6C", {0: "pass", 1: "half_whist"}))
    # 8 (dealer 1): 8S by 0, both whist, 10/0/0: pool 0 +6; short 1: on 8 the second (2) answers, 6/2 = 3
    t.deal(contract(0, "8S", {1: "whist", 2: "whist"}, {0: 10, 1: 0, 2: 0}))
    assert t.pools == [6, 2, 3]
    # 0: 4 + 4 + 20; 1: 6 + 10; 2: 18 + 3
    assert t.mountains == [28, 16, 21]
    assert t.whists == {(2, 1): 28, (1, 0): 16, (2, 0): 8, (0, 1): 10, (1, 2): 4}


def test_whole_pulka_four_players():
    t = Table("classic_1996", players=4)
    # 1 (dealer 0): 6H by 1, 2 and 3 whist, 6/2/2: pool 1 +2; 2→1 4, 3→1 4
    t.deal(contract(1, "6H", {2: "whist", 3: "whist"}, {1: 6, 2: 2, 3: 2}))
    # 2 (dealer 1): all-pass, the dealer plays the talon's two tricks: 2 +5, 3 +3, dealer 1 +2; 0 clean +1
    t.deal(allpass({2: 5, 3: 3, 0: 0, 1: 2}))
    # 3 (dealer 2): 7NT by 3, 0 whists, 1 passes, 5/3/2: u = 2, mountain 3 +8; open: 0→3 5 × 4 + 8 = 28;
    # 1→3 8; the dealer 2→3 8
    t.deal(contract(3, "7NT", {0: "whist", 1: "pass"}, {3: 5, 0: 3, 1: 2}))
    # 4 (dealer 3): 9S by 0, pass, pass: pool 0 +8
    t.deal(contract(0, "9S", {1: "pass", 2: "pass"}))
    assert t.pools == [9, 2, 0, 0]
    assert t.mountains == [0, 2, 5, 11]
    assert t.whists == {(2, 1): 4, (3, 1): 4, (0, 3): 28, (1, 3): 8, (2, 3): 8}
