"""The draw's search: the same seatings as the search it replaced, the invariants of a draw of the
largest field, and the swaps' bookkeeping checked against a recomputation from scratch."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.tournaments.draw import (
    Seating,
    _Polish,
    _Sweep,
    draw,
    history_of,
    repeated_meetings,
    table_plan,
)

# Seatings drawn at 61bafb5, before the search kept its sums per table: players p000, p001, …
# as numbers, each case's rounds drawn one after the other, each fed the history of those before
RECORDED = json.loads((Path(__file__).parent / "fixtures" / "draws_at_61bafb5.json").read_text())


def names(count: int) -> list[str]:
    return [f"p{i:03}" for i in range(count)]


def standing_order(count: int, seed: int, number: int) -> list[int]:
    order = list(range(count))
    random.Random(seed * 100 + number).shuffle(order)
    return order


@pytest.mark.parametrize(
    "case",
    RECORDED,
    ids=[f"{c['players']}-{c['sizes']}-{'swiss' if c['swiss'] else 'plain'}" for c in RECORDED],
)
def test_the_draw_seats_as_the_search_it_replaced(case):
    players = names(case["players"])
    seatings: list[Seating] = []
    for number, recorded in enumerate(case["rounds"]):
        order = (
            [players[i] for i in standing_order(len(players), case["seed"], number)]
            if case["swiss"]
            else None
        )
        seating = draw(
            players,
            frozenset(case["sizes"]),
            history_of(seatings),
            seed=case["seed"] * 1000 + number,
            swiss=order,
        )
        assert [[int(p[1:]) for p in t] for t in seating.tables] == recorded["tables"], f"round {number + 1}"
        assert [int(p[1:]) for p in seating.byes] == recorded["byes"]
        seatings.append(seating)


def test_a_swiss_draw_of_the_largest_field_keeps_the_rules():
    # 600 entrants (the service's largest field) at mixed tables, three Swiss rounds, as
    # docs/tournament-scoring.md states the draw
    players = names(600)
    rng = random.Random(5)
    seatings: list[Seating] = []
    for number in range(3):
        order = players[:]
        rng.shuffle(order)
        rank = {p: i for i, p in enumerate(order)}
        history = history_of(seatings)
        seating = draw(players, frozenset({3, 4}), history, seed=number, swiss=order)
        seated = [p for t in seating.tables for p in t]
        # every entrant seated exactly once, at tables of the plan's sizes, no bye (600 = 200 × 3)
        assert sorted(seated) == players and seating.byes == ()
        plan, byes = table_plan(600, frozenset({3, 4}))
        assert sorted(len(t) for t in seating.tables) == sorted(plan) and byes == 0
        # meetings first: a field this large has no repeated meeting in its first rounds
        assert repeated_meetings(seating, history) == 0
        # tables numbered from the top of the standings
        tops = [min(rank[p] for p in t) for t in seating.tables]
        assert tops == sorted(tops)
        # seat 0 deals first: whoever at the table dealt first least
        for table in seating.tables:
            firsts = [history.seats.get(p, {}).get(0, 0) for p in table]
            assert firsts[0] == min(firsts)
        if number == 0:
            # no history: the tables are the standing order cut in threes
            assert [sorted(rank[p] for p in t) for t in seating.tables] == [
                [i, i + 1, i + 2] for i in range(0, 600, 3)
            ]
        seatings.append(seating)


@st.composite
def weights_and_tables(draw_):
    """A symmetric weight of pairs (0 on the diagonal, many equal weights so that swaps tie),
    a seating of the players at tables of 3 or 4, and each player's first deals."""
    plan = draw_(st.lists(st.sampled_from([3, 4]), min_size=2, max_size=7))
    n = sum(plan)
    values = st.integers(0, 3) | st.integers(0, 10**12)
    weight = [[0] * n for _ in range(n)]
    for i, j in itertools.combinations(range(n), 2):
        weight[i][j] = weight[j][i] = draw_(values)
    table = [t for t, size in enumerate(plan) for _ in range(size)]
    table = draw_(st.permutations(table))
    dealt = draw_(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    return weight, list(table), len(plan), dealt


def cost(weight, table):
    n = len(table)
    return sum(weight[p][q] for p in range(n) for q in range(p + 1, n) if table[p] == table[q])


def dealers_spread(dealt, table):
    n = len(table)
    return sum(dealt[p] * dealt[q] for p in range(n) for q in range(p + 1, n) if table[p] == table[q])


def swapped(table, a, b):
    out = table[:]
    out[a], out[b] = out[b], out[a]
    return out


@settings(max_examples=80, deadline=None)
@given(weights_and_tables())
def test_a_sweep_ends_where_no_swap_lowers_the_cost_and_its_sums_are_the_recomputed_ones(case):
    weight, table, tables, _ = case
    sweep = _Sweep(weight, table, tables)
    sweep.run()
    assert sweep.cost() == cost(weight, table)
    assert sweep.columns == [
        [sum(weight[p][q] for q in range(len(table)) if table[q] == t) for p in range(len(table))]
        for t in range(tables)
    ]
    assert sorted(table) == sorted(case[1])  # the same tables' sizes
    for a, b in itertools.combinations(range(len(table)), 2):
        assert cost(weight, swapped(table, a, b)) >= sweep.cost()


@settings(max_examples=80, deadline=None)
@given(weights_and_tables())
def test_a_polish_keeps_the_cost_and_leaves_no_swap_that_spreads_the_first_dealers_better(case):
    weight, table, tables, dealt = case
    _Sweep(weight, table, tables).run()
    before = cost(weight, table)
    _Polish(weight, table, tables, dealt).run()
    assert cost(weight, table) == before
    spread = dealers_spread(dealt, table)
    for a, b in itertools.combinations(range(len(table)), 2):
        other = swapped(table, a, b)
        assert cost(weight, other) != before or dealers_spread(dealt, other) >= spread
