"""The seating draw: the plan of tables and byes, repeated meetings, byes, seats, determinism."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from app.tournaments.draw import (
    History,
    Seating,
    draw,
    history_of,
    meeting_cost,
    repeated_meetings,
    table_plan,
)

THREE, FOUR, MIXED = frozenset({3}), frozenset({4}), frozenset({3, 4})


def names(count: int) -> list[str]:
    return [f"p{i:03}" for i in range(count)]


def rounds_of(players, sizes, count, seed=0, swiss=None):
    """`count` successive draws, each fed the history of the ones before."""
    seatings: list[Seating] = []
    for number in range(count):
        seatings.append(draw(players, sizes, history_of(seatings), seed=seed * 1000 + number, swiss=swiss))
    return seatings


def test_table_plan():
    assert table_plan(9, THREE) == ((3, 3, 3), 0)
    assert table_plan(10, THREE) == ((3, 3, 3), 1)
    assert table_plan(11, THREE) == ((3, 3, 3), 2)
    assert table_plan(10, FOUR) == ((4, 4), 2)
    # mixed: as many 3-player tables as possible, a 4-player table seats who they cannot
    assert table_plan(7, MIXED) == ((4, 3), 0)
    assert table_plan(12, MIXED) == ((3, 3, 3, 3), 0)
    assert table_plan(13, MIXED) == ((4, 3, 3, 3), 0)
    assert table_plan(5, MIXED) == ((4,), 1)
    assert table_plan(3, FOUR | THREE) == ((3,), 0)
    with pytest.raises(ValueError):
        table_plan(2, THREE)
    with pytest.raises(ValueError):
        table_plan(3, FOUR)
    with pytest.raises(ValueError):
        table_plan(9, frozenset())


def test_mixed_tables_seat_every_count_from_six_without_a_bye():
    for count in range(6, 200):
        plan, byes = table_plan(count, MIXED)
        assert byes == 0 and sum(plan) == count and set(plan) <= {3, 4}
    seating = draw(names(17), MIXED, History(), seed=3)
    assert seating.byes == () and sorted(len(t) for t in seating.tables) == [3, 3, 3, 4, 4]


@pytest.mark.parametrize("seed", range(10))
def test_nine_players_meet_at_most_once_in_four_rounds(seed):
    # 9 players at three 3-player tables: the four parallel classes of the affine plane of
    # order 3 are four rounds in which every pair meets exactly once (36 pairs = 4 × 9).
    seatings = rounds_of(names(9), THREE, 4, seed=seed)
    pairs = Counter(frozenset(p) for s in seatings for t in s.tables for p in itertools.combinations(t, 2))
    assert len(pairs) == 36 and set(pairs.values()) == {1}
    # a fifth round must repeat: every table of three then holds three pairs that met
    fifth = draw(names(9), THREE, history_of(seatings), seed=seed)
    assert repeated_meetings(fifth, history_of(seatings)) == 9
    assert meeting_cost(fifth, history_of(seatings)) == 9


def test_the_draw_quality_of_a_larger_field():
    # 24 players at 3-player tables: eight rounds without a repeated meeting (each player
    # meets 16 of the 23 others)
    seatings = rounds_of(names(24), THREE, 8, seed=1)
    assert all(repeated_meetings(s, history_of(seatings[:n])) == 0 for n, s in enumerate(seatings))


def test_byes_rotate_to_the_players_with_fewest():
    # 10 players at 3-player tables: one bye a round; after 10 rounds everyone has had one
    seatings = rounds_of(names(10), THREE, 10, seed=4)
    byes = Counter(p for s in seatings for p in s.byes)
    assert len(byes) == 10 and set(byes.values()) == {1}
    # 11 players: two byes a round; after 11 rounds 22 byes, two each
    seatings = rounds_of(names(11), THREE, 11, seed=5)
    assert set(Counter(p for s in seatings for p in s.byes).values()) == {2}


def test_a_withdrawn_player_is_never_seated_and_a_late_entry_is():
    players = names(12)
    seatings = rounds_of(players, THREE, 2)
    later = [p for p in players if p != "p005"] + ["late"]
    seating = draw(later, THREE, history_of(seatings), seed=9)
    seated = [p for t in seating.tables for p in t]
    assert "p005" not in seated and "late" in seated and sorted(seated) == sorted(later)


def test_the_draw_is_deterministic_for_a_seed_and_the_players_order_does_not_matter():
    players = names(30)
    history = history_of(rounds_of(players, MIXED, 3))
    one = draw(players, MIXED, history, seed=42)
    assert draw(list(reversed(players)), MIXED, history, seed=42) == one
    assert any(draw(players, MIXED, history, seed=s) != one for s in range(43, 46))
    with pytest.raises(ValueError):
        draw(players + ["p001"], MIXED, history, seed=1)


def test_seats_and_first_dealers_are_balanced():
    # 9 players, 6 rounds at 3-player tables: each player sits at each seat 2 times, give or
    # take 1, and deals first (seat 0) exactly 2 times: the fair share, 6 rounds / 3 seats
    seatings = rounds_of(names(9), THREE, 6, seed=2)
    history = history_of(seatings)
    for player in names(9):
        seats = [history.seats[player].get(seat, 0) for seat in range(3)]
        assert max(seats) - min(seats) <= 2 and sum(seats) == 6
        assert seats[0] == 2
    # 120 players at 4-player tables over 8 rounds: each deals first 8 / 4 = 2 times
    history = history_of(rounds_of(names(120), FOUR, 8, seed=3))
    assert {history.seats[p].get(0, 0) for p in names(120)} == {2}
    # 10 players, one bye a round, 10 rounds: 27 first deals over 10 players, 2 to 4 each
    history = history_of(rounds_of(names(10), THREE, 10, seed=3))
    assert {history.seats[p].get(0, 0) for p in names(10)} <= {2, 3, 4}


def test_the_first_dealer_is_who_dealt_first_least():
    # a, b, c at one table; a and b have dealt first before, c never: c deals first
    history = History(seats={"a": {0: 2}, "b": {0: 1, 1: 1}, "c": {1: 1, 2: 1}})
    assert draw(["a", "b", "c"], THREE, history, seed=0).tables[0][0] == "c"


def test_a_swiss_draw_groups_players_of_close_standing():
    # round 1: no history; the standing order p000 > p001 > ... groups the top three, etc.
    players = names(12)
    seating = draw(players, THREE, History(), seed=1, swiss=players)
    assert [sorted(t) for t in seating.tables] == [players[0:3], players[3:6], players[6:9], players[9:12]]
    # the lowest standing gets the bye among those with fewest
    seating = draw(names(10), THREE, History(), seed=1, swiss=names(10))
    assert seating.byes == ("p009",)
    # meetings still come first: after that round, the top three are not seated together again
    first = draw(players, THREE, History(), seed=1, swiss=players)
    second = draw(players, THREE, history_of([first]), seed=1, swiss=players)
    assert repeated_meetings(second, history_of([first])) == 0
    # and the grouping is the closest possible: with standings 0..11 and no pair of round 1
    # together again, the least sum over tables of the squared differences of standing is 304
    # (found by going through all 15,400 ways to seat 12 players at four tables of three),
    # e.g. (0, 3, 6) 9 + 36 + 9 = 54, (1, 4, 9) 9 + 64 + 25 = 98, (2, 7, 10) 98, (5, 8, 11) 54.
    rank = {p: i for i, p in enumerate(players)}
    assert (
        sum((rank[a] - rank[b]) ** 2 for t in second.tables for a, b in itertools.combinations(t, 2)) == 304
    )
    # tables are numbered from the top of the standing
    assert [min(rank[p] for p in t) for t in second.tables] == sorted(
        min(rank[p] for p in t) for t in second.tables
    )


def test_history_of_counts_meetings_byes_and_seats():
    one = Seating(tables=(("a", "b", "c"),), byes=("d",))
    two = Seating(tables=(("b", "a", "d"),), byes=("c",))
    history = history_of([one, two])
    assert history.meetings[frozenset("ab")] == 2 and frozenset("cd") not in history.meetings
    assert dict(history.byes) == {"d": 1, "c": 1}
    assert history.seats["a"] == {0: 1, 1: 1} and history.seats["d"] == {2: 1}
    assert repeated_meetings(Seating((("a", "b", "d"),), ()), history) == 3
    assert meeting_cost(Seating((("a", "b", "d"),), ()), history) == 4 + 1 + 1  # ab twice: 2²


def test_the_draw_is_the_same_in_another_process():
    # str hashing is salted per process (PYTHONHASHSEED): nothing of the draw may hang on a
    # set's or a dict's order of strings, or a stored seed would not draw its round again
    script = (
        "import hashlib\n"
        "from app.tournaments.draw import draw, history_of\n"
        "players = [f'player-{i}' for i in range(40)]\n"
        "rounds = []\n"
        "for n in range(4):\n"
        "    rounds.append(draw(players, frozenset({3, 4}), history_of(rounds), seed=n,"
        " swiss=players[::-1] if n % 2 else None))\n"
        "print(hashlib.sha256(repr(rounds).encode()).hexdigest())\n"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": salt},
            cwd=Path(__file__).resolve().parents[2],
        ).stdout
        for salt in ("0", "1", "4242")
    }
    assert len(outputs) == 1 and len(next(iter(outputs)).strip()) == 64
