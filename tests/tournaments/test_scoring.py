"""A round's scoring and the standings, with hand-computed numbers in the comments.

The tournament of the hand computations: nine players A..I, three rounds at three 3-player
tables, every pair meeting at most once (the balances are whists; each table sums to 0):

    round 1   T1 A +700  B -200  C -500   T2 D +120  E  +30  F -150   T3 G  +60  H  +60  I -120
    round 2   T1 A  -80  D +100  G  -20   T2 B +250  E -125  H -125   T3 C  +45  F  -45  I    0
    round 3   T1 A  +10  E  +10  I  -20   T2 B -300  F +400  G -100   T3 C  -40  D  -40  H  +80
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from app.tournaments.scoring import (
    TRANSFORMS,
    Adjustment,
    Scoring,
    TableResult,
    Transform,
    bye_score,
    place_points,
    standings,
    table_scores,
)

PLAYERS = list("ABCDEFGHI")

NINE = [
    TableResult(1, 1, {"A": F(700), "B": F(-200), "C": F(-500)}),
    TableResult(1, 2, {"D": F(120), "E": F(30), "F": F(-150)}),
    TableResult(1, 3, {"G": F(60), "H": F(60), "I": F(-120)}),
    TableResult(2, 1, {"A": F(-80), "D": F(100), "G": F(-20)}),
    TableResult(2, 2, {"B": F(250), "E": F(-125), "H": F(-125)}),
    TableResult(2, 3, {"C": F(45), "F": F(-45), "I": F(0)}),
    TableResult(3, 1, {"A": F(10), "E": F(10), "I": F(-20)}),
    TableResult(3, 2, {"B": F(-300), "F": F(400), "G": F(-100)}),
    TableResult(3, 3, {"C": F(-40), "D": F(-40), "H": F(80)}),
]


def table(rows):
    return [(r.place, r.player, r.total) for r in rows]


# -- transforms -------------------------------------------------------------------------------


def test_gambler_ru_transform():
    # f(w) = w up to 200, 200 + (w - 200)/10 up to 650, 245 above; negatives unchanged.
    f = TRANSFORMS["gambler_ru"]
    assert f(F(-1000)) == -1000
    assert f(F(0)) == 0
    assert f(F(150)) == 150
    assert f(F(200)) == 200
    assert f(F(201)) == F(2001, 10)  # 200 + 1/10
    assert f(F(400)) == 220  # 200 + 200/10
    assert f(F(650)) == 245  # 200 + 450/10
    assert f(F(651)) == 245
    assert f(F(10_000)) == 245
    # thirds of a whist: 1001/3 -> 200 + (1001/3 - 200)/10 = 200 + 401/30 = 6401/30
    assert f(F(1001, 3)) == F(6401, 30)


def test_playelephant_lt_transform():
    # f(w) = w up to 50, 50 + (w - 50)/2 up to 100, 75 + (w - 100)/10 above: continuous at 100
    # (50 + 50/2 = 75).
    f = TRANSFORMS["playelephant_lt"]
    assert f(F(-70)) == -70
    assert f(F(50)) == 50
    assert f(F(60)) == 55  # 50 + 10/2
    assert f(F(99)) == F(149, 2)  # 50 + 49/2 = 74.5
    assert f(F(100)) == 75
    assert f(F(101)) == F(751, 10)  # 75 + 1/10
    assert f(F(700)) == 135  # 75 + 600/10
    # 160/3 -> 50 + (160/3 - 50)/2 = 50 + 5/3 = 155/3
    assert f(F(160, 3)) == F(155, 3)


def test_a_floor_bounds_the_negative_side_only():
    # gambler.ru's breakpoints with a floor of -300: -500 -> -300, -200 stays, 1000 -> 245
    f = Transform(TRANSFORMS["gambler_ru"].breakpoints, TRANSFORMS["gambler_ru"].slopes, floor=F(-300))
    assert (f(F(-500)), f(F(-300)), f(F(-200)), f(F(1000))) == (-300, -300, -200, 245)


@pytest.mark.parametrize(
    "breakpoints, slopes, floor",
    [
        ((F(200), F(100)), (1, 1, 1), None),  # not ascending
        ((F(0),), (1, 1), None),  # a breakpoint at 0
        ((F(200),), (1,), None),  # one slope short
        ((F(200),), (1, -1), None),  # a falling slope
        ((F(200),), (1, 0), F(10)),  # a positive floor
        ((0.5,), (1, 0), None),  # a float
    ],
)
def test_a_transform_refuses_what_is_not_a_monotone_cap(breakpoints, slopes, floor):
    with pytest.raises(ValueError):
        Transform(breakpoints, slopes, floor)


# -- places -----------------------------------------------------------------------------------


def test_three_player_places():
    s = Scoring("places")
    # two in plus (0 counts as plus): 3, 2, 0
    assert place_points(s, {"a": F(10), "b": F(0), "c": F(-10)}) == {"a": 3, "b": 2, "c": 0}
    assert place_points(s, {"a": F(30), "b": F(5), "c": F(-35)}) == {"a": 3, "b": 2, "c": 0}
    # only a in plus: 4, 1, 0
    assert place_points(s, {"a": F(30), "b": F(-5), "c": F(-25)}) == {"a": 4, "b": 1, "c": 0}
    # a and b tied first, both in plus: they share 3 + 2 -> 5/2 each
    assert place_points(s, {"a": F(5), "b": F(5), "c": F(-10)}) == {"a": F(5, 2), "b": F(5, 2), "c": 0}
    # b and c tied second, not in plus: they share 1 + 0 -> 1/2 each; a alone in plus: 4
    assert place_points(s, {"a": F(10), "b": F(-5), "c": F(-5)}) == {"a": 4, "b": F(1, 2), "c": F(1, 2)}
    # all three at 0 (all in plus): 3 + 2 + 0 shared -> 5/3 each
    assert place_points(s, {"a": F(0), "b": F(0), "c": F(0)}) == {"a": F(5, 3), "b": F(5, 3), "c": F(5, 3)}


def test_four_player_places_the_documented_default():
    s = Scoring("places")
    # 4, 3, 1, 0 when the 2nd is in plus
    assert place_points(s, {"a": F(20), "b": F(10), "c": F(-10), "d": F(-20)}) == {
        "a": 4,
        "b": 3,
        "c": 1,
        "d": 0,
    }
    # 5, 2, 1, 0 when a is the only player in plus (the 2nd's plus point goes to the 1st)
    assert place_points(s, {"a": F(30), "b": F(-5), "c": F(-10), "d": F(-15)}) == {
        "a": 5,
        "b": 2,
        "c": 1,
        "d": 0,
    }
    # three in plus: 4, 3, 1, 0
    assert place_points(s, {"a": F(20), "b": F(10), "c": F(0), "d": F(-30)}) == {
        "a": 4,
        "b": 3,
        "c": 1,
        "d": 0,
    }
    # b, c, d tied behind a alone in plus: they share 2 + 1 + 0 -> 1 each
    assert place_points(s, {"a": F(30), "b": F(-10), "c": F(-10), "d": F(-10)}) == {
        "a": 5,
        "b": 1,
        "c": 1,
        "d": 1,
    }
    # two tied first in plus (4 + 3)/2, two tied last (1 + 0)/2
    assert place_points(s, {"a": F(10), "b": F(10), "c": F(-10), "d": F(-10)}) == {
        "a": F(7, 2),
        "b": F(7, 2),
        "c": F(1, 2),
        "d": F(1, 2),
    }


def test_configured_place_points_and_their_ties():
    s = Scoring("places", place_points={3: (F(2), F(1), F(0)), 4: (3, 2, 1, 0)})
    # fixed points whatever the signs: 2, 1, 0; a tie first shares (2 + 1)/2
    assert place_points(s, {"a": F(30), "b": F(-5), "c": F(-25)}) == {"a": 2, "b": 1, "c": 0}
    assert place_points(s, {"a": F(5), "b": F(5), "c": F(-10)}) == {"a": F(3, 2), "b": F(3, 2), "c": 0}
    assert place_points(s, {"a": F(1), "b": F(2), "c": F(3), "d": F(-6)}) == {"a": 1, "b": 2, "c": 3, "d": 0}
    with pytest.raises(ValueError):
        place_points(s, {"a": F(1), "b": F(-1)})  # no points for two players
    with pytest.raises(ValueError):
        Scoring("places", place_points={3: (F(0), F(1), F(2))})  # a better place never scores less
    with pytest.raises(ValueError):
        Scoring("places", place_points={3: (F(2), F(1))})  # one value per place


@pytest.mark.parametrize(
    "kwargs",
    [
        {"kind": "stars"},
        {"kind": "places", "transform": TRANSFORMS["gambler_ru"]},
        {"kind": "whists", "place_points": {3: (3, 2, 0)}},
        {"kind": "whists", "tie_breaks": ("balance", "balance")},
        {"kind": "whists", "tie_breaks": ("luck",)},
    ],
)
def test_a_scoring_refuses_what_it_cannot_mean(kwargs):
    with pytest.raises(ValueError):
        Scoring(**kwargs)


# -- the nine-player tournament ---------------------------------------------------------------


def test_nine_players_whists_raw():
    # A  700 -  80 +  10 =  630     F -150 - 45 + 400 =  205     D 120 + 100 - 40 = 180
    # H   60 - 125 +  80 =   15     G   60 - 20 - 100 =  -60     E  30 - 125 + 10 = -85
    # I -120 +   0 -  20 = -140     B -200 + 250 - 300 = -250    C -500 + 45 - 40 = -495
    rows = standings(Scoring("whists"), PLAYERS, NINE)
    assert table(rows) == [
        (1, "A", 630),
        (2, "F", 205),
        (3, "D", 180),
        (4, "H", 15),
        (5, "G", -60),
        (6, "E", -85),
        (7, "I", -140),
        (8, "B", -250),
        (9, "C", -495),
    ]
    a = rows[0]
    assert a.rounds == (700, -80, 10) and a.balance == 630 and a.firsts == 2 and a.best_round == 700
    # G and H tied first in round 1 (60 each): both count a first
    g, h = (next(r for r in rows if r.player == p) for p in "GH")
    assert (g.firsts, h.firsts) == (1, 2)
    assert sum(r.total for r in rows) == 0  # every table sums to 0


def test_nine_players_whists_gambler_ru():
    # f(700) = 245, f(250) = 200 + 50/10 = 205, f(400) = 200 + 200/10 = 220; the rest ≤ 200
    # or negative, unchanged:
    # D 120 + 100 - 40 = 180    A 245 - 80 + 10 = 175    F -150 - 45 + 220 = 25
    # H 60 - 125 + 80 = 15      G 60 - 20 - 100 = -60    E 30 - 125 + 10 = -85
    # I -120 + 0 - 20 = -140    B -200 + 205 - 300 = -295    C -500 + 45 - 40 = -495
    rows = standings(Scoring("whists", transform=TRANSFORMS["gambler_ru"]), PLAYERS, NINE)
    assert table(rows) == [
        (1, "D", 180),
        (2, "A", 175),
        (3, "F", 25),
        (4, "H", 15),
        (5, "G", -60),
        (6, "E", -85),
        (7, "I", -140),
        (8, "B", -295),
        (9, "C", -495),
    ]
    a = next(r for r in rows if r.player == "A")
    # the tie-break balance stays raw: 630
    assert a.rounds == (245, -80, 10) and a.balance == 630 and a.best_round == 245


def test_nine_players_whists_playelephant_lt():
    # f(700) = 75 + 600/10 = 135; f(120) = 75 + 20/10 = 77; f(100) = 75; f(250) = 75 + 15 = 90;
    # f(400) = 75 + 30 = 105; f(60) = 50 + 10/2 = 55; f(80) = 50 + 30/2 = 65; ≤ 50 unchanged.
    # D 77 + 75 - 40 = 112     A 135 - 80 + 10 = 65     H 55 - 125 + 65 = -5
    # G 55 - 20 - 100 = -65    E 30 - 125 + 10 = -85    F -150 - 45 + 105 = -90
    # I -120 + 0 - 20 = -140   B -200 + 90 - 300 = -410  C -500 + 45 - 40 = -495
    rows = standings(Scoring("whists", transform=TRANSFORMS["playelephant_lt"]), PLAYERS, NINE)
    assert table(rows) == [
        (1, "D", 112),
        (2, "A", 65),
        (3, "H", -5),
        (4, "G", -65),
        (5, "E", -85),
        (6, "F", -90),
        (7, "I", -140),
        (8, "B", -410),
        (9, "C", -495),
    ]


def test_nine_players_places():
    # round 1: T1 only A in plus: A 4, B 1, C 0; T2 D and E in plus: D 3, E 2, F 0;
    #          T3 G and H tied first in plus: (3 + 2)/2 = 5/2 each, I 0.
    # round 2: T1 only D in plus: D 4, G 1, A 0; T2 only B: B 4, E and H tied 2nd-3rd not in
    #          plus: (1 + 0)/2 = 1/2 each; T3 C and I (0 counts as plus): C 3, I 2, F 0.
    # round 3: T1 A and E tied first: 5/2 each, I 0; T2 only F: F 4, G 1, B 0;
    #          T3 only H: H 4, C and D tied: 1/2 each.
    # D 3 + 4 + 1/2 = 15/2   H 5/2 + 1/2 + 4 = 7   A 4 + 0 + 5/2 = 13/2
    # B 1 + 4 + 0 = 5 and E 2 + 1/2 + 5/2 = 5: tied; the balance breaks it: E -85 before B -250
    # G 5/2 + 1 + 1 = 9/2   F 0 + 0 + 4 = 4   C 0 + 3 + 1/2 = 7/2   I 0 + 2 + 0 = 2
    # (45 points in all: 9 tables of 5)
    rows = standings(Scoring("places"), PLAYERS, NINE)
    assert table(rows) == [
        (1, "D", F(15, 2)),
        (2, "H", 7),
        (3, "A", F(13, 2)),
        (4, "E", 5),
        (5, "B", 5),
        (6, "G", F(9, 2)),
        (7, "F", 4),
        (8, "C", F(7, 2)),
        (9, "I", 2),
    ]
    assert sum(r.total for r in rows) == 45
    e = rows[3]
    assert (
        e.rounds == (2, F(1, 2), F(5, 2)) and e.balance == -85 and e.firsts == 1 and e.best_round == F(5, 2)
    )


def test_nine_players_places_after_round_two_with_an_adjustment():
    # After round 2: A 4 + 0 = 4, B 1 + 4 = 5, C 0 + 3 = 3, D 3 + 4 = 7, E 2 + 1/2 = 5/2,
    # F 0, G 5/2 + 1 = 7/2, H 5/2 + 1/2 = 3, I 0 + 2 = 2.
    # C is fined 1 point in round 2 (3 - 1 = 2); the fine of round 3 is not counted yet.
    # C and I tied at 2: balance C -500 + 45 = -455, I -120 + 0 = -120: I before C.
    # H 3 against C 2: no tie. F last.
    fine = Adjustment("C", F(-1), "slow play", round=2)
    later = Adjustment("A", F(-2), "late", round=3)
    rows = standings(Scoring("places"), PLAYERS, NINE, adjustments=[fine, later], rounds=2)
    assert table(rows) == [
        (1, "D", 7),
        (2, "B", 5),
        (3, "A", 4),
        (4, "G", F(7, 2)),
        (5, "H", 3),
        (6, "E", F(5, 2)),
        (7, "I", 2),
        (8, "C", 2),
        (9, "F", 0),
    ]
    c = rows[7]
    assert c.adjustments == (fine,) and c.rounds == (0, 3)
    assert rows[2].adjustments == ()  # A's round-3 fine waits for round 3
    # all rounds: D 15/2, H 7, E 5, B 5 as before; A 13/2 - 2 = 9/2 ties G at 9/2, the
    # balance A 630 against G -60 puts A first; F 4, C 7/2 - 1 = 5/2, I 2.
    rows = standings(Scoring("places"), PLAYERS, NINE, adjustments=[fine, later])
    assert table(rows) == [
        (1, "D", F(15, 2)),
        (2, "H", 7),
        (3, "E", 5),
        (4, "B", 5),
        (5, "A", F(9, 2)),
        (6, "G", F(9, 2)),
        (7, "F", 4),
        (8, "C", F(5, 2)),
        (9, "I", 2),
    ]
    assert rows[4].adjustments == (later,) and rows[7].adjustments == (fine,)


# -- ties and tie-breaks ----------------------------------------------------------------------


def test_tie_breaks_in_their_default_order():
    # whists, two rounds (round 2 at a 4-player table):
    #   round 1  T1 P +20, Q +5, S -25    T2 R +10, T -5, U -5
    #   round 2  T1 Q +5, R 0, P -10, T +5 (Q and T tied first: both count a first)
    # P 20 - 10 = 10, Q 5 + 5 = 10, R 10 + 0 = 10: tied on the total and on the balance (raw
    # whists: the same sums); one first each (P round 1, R round 1, Q round 2); the best round
    # decides: P 20, R 10, Q 5. Then T -5 + 5 = 0, U -5, S -25.
    results = [
        TableResult(1, 1, {"P": F(20), "Q": F(5), "S": F(-25)}),
        TableResult(1, 2, {"R": F(10), "T": F(-5), "U": F(-5)}),
        TableResult(2, 1, {"Q": F(5), "R": F(0), "P": F(-10), "T": F(5)}),
    ]
    rows = standings(Scoring("whists"), ["P", "Q", "R", "S", "T", "U"], results)
    assert [(r.place, r.player, r.firsts, r.best_round) for r in rows] == [
        (1, "P", 1, 20),
        (2, "R", 1, 10),
        (3, "Q", 1, 5),
        (4, "T", 1, 5),
        (5, "U", 0, -5),
        (6, "S", 0, -25),
    ]


def test_tie_breaks_in_the_scorings_order_and_none():
    # places:
    #   round 1  T1 V +30, X -10, Y -20: only V in plus: V 4, X 1, Y 0
    #            T2 Z +20, W +5, K -25: Z 3, W 2, K 0
    #   round 2  T1 W +30, Z +10, V -40: W 3, Z 2, V 0
    # V 4 + 0 = 4; W 2 + 3 = 5; Z 3 + 2 = 5. W and Z: one first each, best round 3 each; the
    # balance decides: W 5 + 30 = 35 before Z 20 + 10 = 30.
    results = [
        TableResult(1, 1, {"V": F(30), "X": F(-10), "Y": F(-20)}),
        TableResult(1, 2, {"Z": F(20), "W": F(5), "K": F(-25)}),
        TableResult(2, 1, {"W": F(30), "Z": F(10), "V": F(-40)}),
    ]
    rows = standings(
        Scoring("places", tie_breaks=("firsts", "best_round", "balance")), ["V", "W", "Z"], results
    )
    assert [(r.place, r.player, r.total) for r in rows[:3]] == [(1, "W", 5), (2, "Z", 5), (3, "V", 4)]
    # with no tie-breaks W and Z share the 1st place, and V is 3rd
    rows = standings(Scoring("places", tie_breaks=()), ["V", "W", "Z"], results)
    assert [(r.place, r.player) for r in rows[:3]] == [(1, "W"), (1, "Z"), (3, "V")]


def test_a_full_tie_shares_the_place_and_the_next_place_is_skipped():
    # two tables with the same balances: a and d, b and e, c and f tie on everything
    results = [
        TableResult(1, 1, {"a": F(10), "b": F(0), "c": F(-10)}),
        TableResult(1, 2, {"d": F(10), "e": F(0), "f": F(-10)}),
    ]
    rows = standings(Scoring("whists"), list("abcdef"), results)
    assert [(r.place, r.player) for r in rows] == [(1, "a"), (1, "d"), (3, "b"), (3, "e"), (5, "c"), (5, "f")]


def test_firsts_decide_when_totals_and_balances_tie():
    # whists: M +10 then +10 = 20, 2 firsts; N +30 then -10 = 20, 1 first (round 1's T2)...
    results = [
        TableResult(1, 1, {"M": F(10), "O": F(-4), "Q": F(-6)}),
        TableResult(1, 2, {"N": F(30), "R": F(-10), "S": F(-20)}),
        TableResult(2, 1, {"M": F(10), "R": F(0), "S": F(-10)}),
        TableResult(2, 2, {"O": F(15), "N": F(-10), "Q": F(-5)}),
    ]
    # M 10 + 10 = 20 (2 firsts), N 30 - 10 = 20 (1 first): M before N although N's best is 30
    rows = standings(Scoring("whists"), list("MNOQRS"), results)
    assert [(r.player, r.total, r.firsts) for r in rows[:2]] == [("M", 20, 2), ("N", 20, 1)]
    # best round first: N (30) before M (10)
    rows = standings(Scoring("whists", tie_breaks=("best_round",)), list("MNOQRS"), results)
    assert [r.player for r in rows[:2]] == ["N", "M"]


# -- byes -------------------------------------------------------------------------------------


def test_byes_score_the_bye_score():
    # ten players, three tables and one bye per round
    r1 = [
        TableResult(1, 1, {"A": F(30), "B": F(-10), "C": F(-20)}),
        TableResult(1, 2, {"D": F(10), "E": F(0), "F": F(-10)}),
        TableResult(1, 3, {"G": F(5), "H": F(5), "I": F(-10)}),
    ]
    byes = {1: ["J"]}
    # places: the mean points per seat of the round's tables: 3 tables × 5 / 9 seats = 5/3
    rows = standings(Scoring("places"), list("ABCDEFGHIJ"), r1, byes=byes)
    j = next(r for r in rows if r.player == "J")
    assert j.rounds == (F(5, 3),) and j.total == F(5, 3) and j.byes == 1 and j.balance == 0
    # whists: a bye scores 0 by default, or the configured bye score
    rows = standings(Scoring("whists"), list("ABCDEFGHIJ"), r1, byes=byes)
    assert next(r for r in rows if r.player == "J").rounds == (0,)
    rows = standings(Scoring("whists", bye_score=F(5)), list("ABCDEFGHIJ"), r1, byes=byes)
    j = next(r for r in rows if r.player == "J")
    # J 5 behind A 30, D 10 and ahead of G, H at 5? tied on total 5: balance G 5, H 5, J 0 -> J after
    assert j.total == 5 and [r.player for r in rows[:5]] == ["A", "D", "G", "H", "J"]


def test_a_bye_before_any_table_of_its_round_has_finished():
    # places at 4-player tables: the mean of a 4-player table is 8/4 = 2, but with no table
    # finished yet a bye scores the smallest default table's mean: 5/3
    s = Scoring("places")
    assert bye_score(s, []) == F(5, 3)
    assert bye_score(s, [TableResult(1, 1, {"a": F(5), "b": F(-5), "c": F(0), "d": F(0)})]) == 2
    assert bye_score(Scoring("places", place_points={4: (3, 2, 1, 0)}), []) == F(6, 4)


def test_a_player_scored_twice_in_a_round_is_refused():
    with pytest.raises(ValueError):
        standings(
            Scoring("whists"),
            ["a", "b", "c"],
            [
                TableResult(1, 1, {"a": F(1), "b": F(-1), "c": F(0)}),
                TableResult(1, 2, {"a": F(1), "d": F(-1), "e": F(0)}),
            ],
        )
    with pytest.raises(ValueError):
        standings(
            Scoring("whists"),
            ["a", "b", "c"],
            [TableResult(1, 1, {"a": F(1), "b": F(-1), "c": F(0)})],
            byes={1: ["a"]},
        )


def test_absent_rounds_and_unlisted_players():
    # b withdrew after round 1 (absent in round 2); x, met only in a result, is listed after
    results = [
        TableResult(1, 1, {"a": F(5), "b": F(-5), "c": F(0)}),
        TableResult(2, 1, {"a": F(5), "x": F(-5), "c": F(0)}),
    ]
    rows = standings(Scoring("whists"), ["a", "b", "c"], results)
    assert {r.player: r.rounds for r in rows} == {"a": (5, 5), "c": (0, 0), "b": (-5, None), "x": (None, -5)}
    assert table_scores(Scoring("whists"), {"a": F(5), "b": F(-5)}) == {"a": 5, "b": -5}
    assert standings(Scoring("whists"), ["a"], [], rounds=2)[0].rounds == (None, None)
