"""The standings kept up to date (app/tournaments/tally.py) equal a full computation
(app/tournaments/scoring.py ``standings``) after any sequence of changes: a table finished or
corrected, a round closed (its sums kept) or reopened, a bye, an adjustment, a round cut."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from app.tournaments import tally
from app.tournaments.scoring import TRANSFORMS, Adjustment, Scoring, TableResult, _small, standings

PLAYERS = [str(n) for n in range(1, 11)]  # 10 entrants: 3 tables of 3 and a bye a round
ROUNDS = 3

scorings = st.sampled_from(
    [
        Scoring("whists"),
        Scoring("whists", transform=TRANSFORMS["gambler_ru"]),
        Scoring("places"),
        Scoring("places", tie_breaks=("firsts", "best_round"), bye_score=Fraction(3, 2)),
    ]
)
balances = st.integers(-40, 40).map(Fraction) | st.integers(-60, 60).map(lambda n: Fraction(n, 3))
# a change: ("table", round, table, balances or None: unfinished), ("close"/"reopen", round),
# ("adjust", player, amount, round or None)
changes = st.one_of(
    st.tuples(
        st.just("table"),
        st.integers(1, ROUNDS),
        st.integers(0, 2),
        st.none() | st.lists(balances, min_size=3, max_size=3),
    ),
    st.tuples(st.sampled_from(["close", "reopen"]), st.integers(1, ROUNDS)),
    st.tuples(
        st.just("adjust"),
        st.sampled_from(PLAYERS),
        st.integers(-5, 5).map(Fraction),
        st.none() | st.integers(1, 3),
    ),
)


class Kept:
    """What the service keeps: each table's scores by its content, each closed round's scores
    and the sums of the closed rounds, by the closed rounds' versions."""

    def __init__(self, scoring: Scoring) -> None:
        self.scoring = scoring
        self.tables: dict[object, tally.Scored] = {}
        self.closed: dict[tuple[int, int], tally.RoundScores] = {}
        self.folded: dict[tuple[tuple[int, int], ...], dict[str, tally.Sums]] = {}
        self.playing: dict[int, tally.Folded] = {}  # by the rounds counted
        self.ranked: dict[int, tally.Ranked] = {}  # the last ranking, by the rounds counted

    def table(self, balances: dict[str, Fraction]) -> tally.Scored:
        key = tuple(sorted(balances.items()))
        if key not in self.tables:
            self.tables[key] = tally.score_table(self.scoring, balances)
        return self.tables[key]


def _seats(number: int, table: int) -> list[str]:
    shift = (number * 3) % len(PLAYERS)
    order = PLAYERS[shift:] + PLAYERS[:shift]
    return order[3 * table : 3 * table + 3]


def _bye(number: int) -> str:
    shift = (number * 3) % len(PLAYERS)
    return (PLAYERS[shift:] + PLAYERS[:shift])[9]


def _kept_standings(kept: Kept, state: dict, count: int) -> tally.Ranked:
    closed_keys, open_rounds = [], []
    for number in range(1, count + 1):
        tables = [kept.table(b) for (n, _), b in sorted(state["results"].items()) if n == number]
        if number in state["closed"]:
            version = (number, state["closed"][number])
            if version not in kept.closed:
                kept.closed[version] = tally.round_scores(kept.scoring, number, tables, [_bye(number)])
            closed_keys.append(version)
        else:
            open_rounds.append(tally.round_scores(kept.scoring, number, tables, [_bye(number)]))
    key = tuple(closed_keys)
    if key not in kept.folded:
        kept.folded[key] = tally.fold({}, [kept.closed[k] for k in key])
    folded = tally.refold(kept.folded[key], open_rounds, kept.playing.get(count))
    kept.playing[count] = folded
    sums = folded.sums
    rounds = [kept.closed[k] for k in key] + open_rounds
    adjustments = [a for a in state["adjustments"] if a.round is None or a.round <= count]
    got = tally.ranked(kept.scoring, PLAYERS, sums, rounds, adjustments, count, kept.ranked.get(count))
    # the ranking patched from the last one is the ranking made whole, ties included
    whole = tally.ranked(kept.scoring, PLAYERS, sums, rounds, adjustments, count)
    assert (got.rows, got.keys) == (whole.rows, whole.keys)
    kept.ranked[count] = got
    return got


@settings(max_examples=60, deadline=None)
@given(scorings, st.lists(changes, max_size=25), st.integers(1, ROUNDS))
def test_kept_standings_equal_a_full_computation_after_every_change(scoring, steps, cut):
    kept = Kept(scoring)
    state: dict = {"results": {}, "closed": {}, "adjustments": []}
    closings = 0
    for step in steps:
        if step[0] == "table" and step[1] not in state["closed"]:
            _, number, table, values = step
            if values is None:
                state["results"].pop((number, table), None)
            else:
                state["results"][(number, table)] = dict(zip(_seats(number, table), values))
        elif step[0] == "close" and step[1] not in state["closed"]:
            closings += 1  # a round closed again is a new version of it (its closing's moment)
            state["closed"][step[1]] = closings
        elif step[0] == "reopen":
            state["closed"].pop(step[1], None)
        elif step[0] == "adjust":
            _, player, amount, number = step
            state["adjustments"].append(Adjustment(player, amount, "fine", number))
        for count in (ROUNDS, cut):
            full = standings(
                scoring,
                PLAYERS,
                [TableResult(n, t + 1, b) for (n, t), b in sorted(state["results"].items())],
                byes={n: [_bye(n)] for n in range(1, ROUNDS + 1)},
                adjustments=state["adjustments"],
                rounds=count,
            )
            got = _kept_standings(kept, state, count)
            assert list(got.rows) == full
            # a row's key names its content: equal keys, equal rows but for the place
            by_key = {}
            for row, key in zip(got.rows, got.keys):
                assert by_key.setdefault(key, (row.player, row.total, row.rounds)) == (
                    row.player,
                    row.total,
                    row.rounds,
                )


@settings(max_examples=80, deadline=None)
@given(
    scorings,
    st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), min_size=24, max_size=24),
    st.integers(1, 3),
    st.lists(
        st.lists(
            st.tuples(st.integers(0, 23), st.integers(0, 2), st.integers(0, 2), st.integers(1, 3)), max_size=6
        ),
        max_size=12,
    ),
)
def test_a_ranking_patched_after_any_moves_is_the_ranking_made_whole(scoring, start, first_over, moves):
    """Many ties (a few values for 24 players), a few players' sums moved at a time: the
    patched order and places are the full sort's."""
    players = [f"p{n}" for n in range(24)]

    def sums_of(total: int, balance: int, over: int) -> tally.Sums:
        # whole points, halves and thirds: a moved player may need a new common denominator
        score = _small(Fraction(total, over))
        return tally.Sums({1: score}, score, balance, balance % 2, 0, score)

    sums = {p: sums_of(*v, first_over) for p, v in zip(players, start)}
    previous = tally.ranked(scoring, players, sums, [], [], 1)
    for step in moves:
        sums = dict(sums)
        for who, *values in step:
            sums[players[who]] = sums_of(*values)
        got = tally.ranked(scoring, players, sums, [], [], 1, previous)
        whole = tally.ranked(scoring, players, sums, [], [], 1)
        assert (got.rows, got.keys) == (whole.rows, whole.keys)
        previous = got


def test_a_player_scored_twice_in_a_round_is_refused_as_the_full_computation_refuses():
    scoring = Scoring("whists")
    one = tally.score_table(scoring, {"1": Fraction(1), "2": Fraction(-1), "3": Fraction(0)})
    two = tally.score_table(scoring, {"1": Fraction(1), "4": Fraction(-1), "5": Fraction(0)})
    try:
        tally.round_scores(scoring, 1, [one, two], [])
    except ValueError:
        pass
    else:
        raise AssertionError("a player scored twice in a round was not refused")
    try:
        tally.round_scores(scoring, 1, [one], ["1"])
    except ValueError:
        pass
    else:
        raise AssertionError("a bye and a score in one round were not refused")


def test_a_moved_player_needing_a_finer_denominator_is_patched_not_ranked_whole(monkeypatch):
    """Whole points, then one player at 10/3: every merit is scaled by 3 (the order is the
    same) instead of the field being ranked again."""
    scoring = Scoring("whists")
    players = [f"p{n}" for n in range(6)]

    def sums_of(score: Fraction | int) -> tally.Sums:
        score = _small(score)
        return tally.Sums({1: score}, score, 0, 0, 0, score)

    sums = {p: sums_of(n) for n, p in enumerate(players)}  # 0 … 5 points
    previous = tally.ranked(scoring, players, sums, [], [], 1)
    whole = tally._ranked_whole
    made_whole = []
    monkeypatch.setattr(tally, "_ranked_whole", lambda *a: made_whole.append(a) or whole(*a))
    sums = {**sums, "p0": sums_of(Fraction(10, 3))}  # 3⅓: between p3 (3) and p4 (4)
    got = tally.ranked(scoring, players, sums, [], [], 1, previous)
    assert made_whole == []  # before: the field ranked whole again
    assert got.order is not None and got.order.over == 3
    assert [row.player for row in got.rows] == ["p5", "p4", "p0", "p3", "p2", "p1"]
    again = whole(scoring, players, [sums[p] for p in players], (), 1)
    assert (got.rows, got.keys) == (again.rows, again.keys)
