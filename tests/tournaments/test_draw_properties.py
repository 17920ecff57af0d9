"""Properties of the seating draw over random fields, histories, withdrawals and seeds."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from app.tournaments.draw import History, draw, history_of, table_plan

SIZES = st.sampled_from([frozenset({3}), frozenset({4}), frozenset({3, 4})])


@st.composite
def situations(draw_, max_players=30):
    """A field, the history of up to three earlier draws among a larger field (some of whom
    have withdrawn since), the table sizes, a seed and perhaps a Swiss standing order."""
    sizes = draw_(SIZES)
    everyone = [f"p{i}" for i in range(draw_(st.integers(4, max_players)))]
    earlier = []
    for number in range(draw_(st.integers(0, 3))):
        earlier.append(draw(everyone, sizes, history_of(earlier), seed=number))
    players = draw_(st.lists(st.sampled_from(everyone), unique=True, min_size=4, max_size=len(everyone)))
    players += [f"late{i}" for i in range(draw_(st.integers(0, 2)))]
    seed = draw_(st.integers(0, 2**32))
    swiss = None
    if draw_(st.booleans()):
        swiss = list(everyone)
        random.Random(seed).shuffle(swiss)
    return players, sizes, history_of(earlier), seed, swiss


@settings(max_examples=60, deadline=None)
@given(situations())
def test_a_draw_seats_each_present_player_once_or_gives_a_bye(situation):
    players, sizes, history, seed, swiss = situation
    seating = draw(players, sizes, history, seed, swiss)
    seated = [p for t in seating.tables for p in t]
    # nobody twice, nobody absent from `players` (a withdrawn player), everyone seated or a bye
    assert len(seated) + len(seating.byes) == len(set(seated) | set(seating.byes)) == len(players)
    assert set(seated) | set(seating.byes) == set(players)
    plan, byes = table_plan(len(players), sizes)
    assert sorted(len(t) for t in seating.tables) == sorted(plan) and len(seating.byes) == byes
    # byes go to the players with the fewest byes so far
    if seating.byes:
        assert max(history.byes.get(p, 0) for p in seating.byes) <= min(
            history.byes.get(p, 0) for p in seated
        )


@settings(max_examples=30, deadline=None)
@given(situations(max_players=20))
def test_a_draw_is_deterministic_for_its_seed(situation):
    players, sizes, history, seed, swiss = situation
    one = draw(players, sizes, history, seed, swiss)
    assert (
        draw(
            list(players),
            sizes,
            History(dict(history.meetings), dict(history.byes), dict(history.seats)),
            seed,
            None if swiss is None else list(swiss),
        )
        == one
    )
    assert draw(sorted(players, reverse=True), sizes, history, seed, swiss) == one


@given(st.integers(6, 2000))
def test_mixed_tables_fit_every_count_from_six(count):
    plan, byes = table_plan(count, frozenset({3, 4}))
    assert byes == 0 and sum(plan) == count
