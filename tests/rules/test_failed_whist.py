"""docs/rules.md §6.4 (whist_responsibility, who is responsible), for every convention and every level.

4 players, dealer 0 sits out; declarer 1, defenders 2 (first, whists alone) and 3 (passes).
The declarer takes just enough for the defenders to be one trick short (S = 1):
6: 7-3, 7: 9-1, 8/9/10: 10-0. The whister is credited with all d tricks."""

from fractions import Fraction

import pytest

from app.rules import TableState

from .helpers import Table, contract

# per short trick, as a multiple of V (docs/rules.md §5: s·V or s·V/2)
FACTOR = {
    "sochi": Fraction(1, 2),
    "piter": 1,
    "piter_gentleman": 1,
    "rostov": Fraction(1, 2),
    "vmk": 1,
    "piter_races": 1,
}
SCALE = {"sochi": 1, "piter": 2, "piter_gentleman": 2, "rostov": 1, "vmk": 1, "piter_races": 2}
VALUE = {6: 2, 7: 4, 8: 6, 9: 8, 10: 10}
DECLARER_TRICKS = {6: 7, 7: 9, 8: 10, 9: 10, 10: 10}

CASES = [
    (conv, level)
    for conv in FACTOR
    for level in (6, 7, 8, 9, 10)
    if not (level == 10 and conv == "vmk")  # vmk: tens are never whisted
]


def _table(conv):
    options = {"whisted_tens": True} if conv in ("sochi", "piter", "piter_gentleman", "rostov") else {}
    t = Table(conv, players=4, **options)
    if conv == "piter_races":
        t.set(compulsory_cost=None, streak=0)  # past the game's compulsory all-pass
    return t


@pytest.mark.parametrize("conv,level", CASES, ids=[f"{c}-{lv}" for c, lv in CASES])
def test_failed_whist_one_short_trick(conv, level):
    t = _table(conv)
    decl = DECLARER_TRICKS[level]
    t.deal(contract(1, f"{level}H", {2: "whist", 3: "pass"}, {1: decl, 2: 10 - decl, 3: 0}))
    v = VALUE[level]
    # declarer made: +V to the pool; whister: FACTOR * V * 1 to the mountain;
    # whists s * V for each of his 10 - decl tricks
    assert t.pools == [0, v, 0, 0]
    assert t.mountains == [0, 0, FACTOR[conv] * v, 0]
    expected_whists = {(2, 1): SCALE[conv] * v * (10 - decl)} if decl < 10 else {}
    assert t.whists == expected_whists


def test_state_with_shared_thirds_round_trips_exactly():
    # the races' three-way shared bonus (200/3) is the one non-half amount (docs/rules.md §3)
    t = Table("piter_races", players=4).set(
        compulsory_cost=None, streak=1, pools=(0, 0, 20, 0), mountains=(0, 0, 0, 2)
    )
    t.deal(contract(2, "7H", {3: "whist", 1: "pass"}, {2: 7, 3: 3, 1: 0}))
    assert t.whists[(0, 1)] == Fraction(200, 3)
    stored = t.state.to_dict()
    assert TableState.from_dict(stored) == t.state
