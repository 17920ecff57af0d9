"""Properties of a round's scoring and of the standings, over random tables and transforms."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from app.tournaments.scoring import (
    DEFAULT_PLACE_POINTS,
    TRANSFORMS,
    Adjustment,
    Scoring,
    TableResult,
    Transform,
    place_points,
    standings,
    table_scores,
)

# small ranges so that ties are frequent; thirds of a whist too (a settlement's shares)
balances = st.integers(min_value=-60, max_value=60).map(Fraction) | st.integers(-90, 90).map(
    lambda n: Fraction(n, 3)
)


@st.composite
def tables(draw, sizes=(3, 4)):
    size = draw(st.sampled_from(sizes))
    values = draw(st.lists(balances, min_size=size, max_size=size))
    return {f"p{i}": v for i, v in enumerate(values)}


@st.composite
def zero_sum_tables(draw):
    table = draw(tables())
    names = sorted(table)
    table[names[-1]] -= sum(table.values())  # a real table's balances sum to 0
    return table


@st.composite
def transforms(draw):
    points = sorted(draw(st.sets(st.integers(1, 1000), max_size=4)))
    slopes = draw(
        st.lists(
            st.fractions(min_value=0, max_value=3, max_denominator=20),
            min_size=len(points) + 1,
            max_size=len(points) + 1,
        )
    )
    floor = draw(st.none() | st.integers(-1000, 0))
    return Transform(
        tuple(Fraction(p) for p in points), tuple(slopes), None if floor is None else Fraction(floor)
    )


@given(tables())
def test_default_place_points_per_table_sum_to_their_fixed_total(table):
    # 5 at three players, 8 at four, whatever the balances and their ties
    points = place_points(Scoring("places"), table)
    assert sum(points.values()) == {3: 5, 4: 8}[len(table)]


@given(tables(), st.lists(st.integers(0, 9), min_size=4, max_size=4))
def test_configured_place_points_per_table_sum_to_their_fixed_total(table, raw):
    row = tuple(Fraction(p) for p in sorted(raw, reverse=True))
    scoring = Scoring("places", place_points={3: row[:3], 4: row})
    points = place_points(scoring, table)
    assert sum(points.values()) == sum(row[: len(table)])


@given(tables(), st.sampled_from([None, {3: (5, 3, 1), 4: (6, 4, 2, 0)}]))
def test_a_better_balance_never_gets_fewer_points_and_ties_get_the_same(table, configured):
    points = place_points(Scoring("places", place_points=configured), table)
    for a in table:
        for b in table:
            if table[a] > table[b]:
                assert points[a] >= points[b]
            if table[a] == table[b]:
                assert points[a] == points[b]


@given(
    transforms() | st.sampled_from(sorted(TRANSFORMS.values(), key=repr)),
    st.fractions(min_value=-2000, max_value=2000, max_denominator=4),
    st.fractions(min_value=-2000, max_value=2000, max_denominator=4),
)
def test_a_transform_is_monotone(transform, a, b):
    low, high = min(a, b), max(a, b)
    assert transform(low) <= transform(high)
    assert transform(Fraction(0)) == 0
    if transform.floor is None and low < 0:
        assert transform(low) == low


def reference(transform: Transform, w: Fraction) -> Fraction:
    """The transform as its definition reads: the slopes' pieces added from 0 up to w."""
    if w < 0:
        return w if transform.floor is None else max(w, transform.floor)
    edges = (
        (Fraction(0),)
        + transform.breakpoints
        + (max(w, transform.breakpoints[-1] if transform.breakpoints else w),)
    )
    return sum(
        (
            slope * (min(w, high) - low)
            for low, high, slope in zip(edges, edges[1:], transform.slopes)
            if w > low
        ),
        Fraction(0),
    )


@given(
    transforms() | st.sampled_from(sorted(TRANSFORMS.values(), key=repr)),
    st.fractions(min_value=-2000, max_value=2000, max_denominator=6) | st.integers(-2000, 2000).map(Fraction),
)
def test_a_transform_is_its_definition(transform, w):
    assert transform(w) == reference(transform, w)
    assert isinstance(transform(w), Fraction)


@given(transforms(), st.integers(-2000, 2000))
def test_a_transform_never_gains_on_the_raw_balance_with_slopes_up_to_one(transform, w):
    # with every slope ≤ 1 a transform only trims a win (the presets' case)
    if all(s <= 1 for s in transform.slopes) and w >= 0:
        assert transform(Fraction(w)) <= w


@settings(max_examples=50)
@given(
    st.lists(zero_sum_tables(), min_size=1, max_size=6),
    st.sampled_from(["raw", "gambler_ru", "playelephant_lt", "places"]),
    st.lists(st.tuples(st.integers(0, 3), st.integers(-5, 5)), max_size=3),
)
def test_standings_add_up_their_rounds_and_adjustments(raw_tables, how, fines):
    # one table per round; a table of three or four of the players p0..p3
    results = [TableResult(n + 1, 1, table) for n, table in enumerate(raw_tables)]
    scoring = (
        Scoring("places")
        if how == "places"
        else Scoring("whists", transform=None if how == "raw" else TRANSFORMS[how])
    )
    players = sorted({p for t in raw_tables for p in t})
    adjustments = [Adjustment(f"p{i}", Fraction(a), "director", round=None) for i, a in fines]
    rows = standings(scoring, players, results, adjustments=adjustments)
    assert sorted(r.player for r in rows) == sorted(set(players) | {a.player for a in adjustments})
    for row in rows:
        played = [s for s in row.rounds if s is not None]
        assert row.total == sum(played, Fraction(0)) + sum((a.amount for a in row.adjustments), Fraction(0))
        assert len(row.rounds) == len(results)
    # places are ordered and shared only by the fully tied
    for before, after in zip(rows, rows[1:]):
        assert before.total >= after.total
        assert before.place <= after.place
    if how == "raw" and not fines:
        assert sum(r.total for r in rows) == 0  # whists are zero-sum
    if how == "places" and not fines:
        assert sum(r.total for r in rows) == sum(sum(DEFAULT_PLACE_POINTS[len(t)]) for t in raw_tables)
    # a round's scores are the table's scores
    for n, table in enumerate(raw_tables):
        scores = table_scores(scoring, table)
        for row in rows:
            if row.player in table:
                assert row.rounds[n] == scores[row.player]


@settings(max_examples=40)
@given(
    st.lists(zero_sum_tables(), min_size=1, max_size=5),
    st.sampled_from(["raw", "places"]),
    st.permutations(["balance", "firsts", "best_round"]).flatmap(
        lambda p: st.integers(0, 3).map(lambda k: tuple(p[:k]))
    ),
    st.integers(1, 5),
)
def test_the_order_follows_the_total_then_the_tie_breaks_and_a_round_cut(raw_tables, how, tie_breaks, cut):
    # round n: the table of raw_tables[n], and a bye for "bye" (always absent from the tables)
    results = [TableResult(n + 1, 1, table) for n, table in enumerate(raw_tables)]
    byes = {n + 1: ["bye"] for n in range(len(raw_tables))}
    scoring = Scoring("places" if how == "places" else "whists", tie_breaks=tie_breaks)
    players = ["bye", "p0", "p1", "p2", "p3"]
    rows = standings(scoring, players, results, byes=byes)

    def merit(row):
        return (row.total, *(getattr(row, name) for name in tie_breaks))

    for before, after in zip(rows, rows[1:]):
        assert merit(before) >= merit(after)
        assert (before.place == after.place) == (merit(before) == merit(after))
    assert rows[0].place == 1 and all(row.place <= n for n, row in enumerate(rows, 1))
    bye = next(r for r in rows if r.player == "bye")
    assert bye.byes == len(raw_tables) and bye.balance == 0 and bye.firsts == 0
    # the standings after round `cut` are those of the rounds up to it
    kept = min(cut, len(raw_tables))
    cut_rows = standings(scoring, players, results, byes=byes, rounds=kept)
    again = standings(
        scoring,
        players,
        [r for r in results if r.round <= kept],
        byes={n: b for n, b in byes.items() if n <= kept},
        rounds=kept,
    )
    assert cut_rows == again and all(len(r.rounds) == kept for r in cut_rows)
