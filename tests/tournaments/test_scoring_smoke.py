"""A first look at the tournament core: the names the service builds on answer sensibly."""

from fractions import Fraction

from app.tournaments.draw import History, Seating, draw, history_of, repeated_meetings, table_plan
from app.tournaments.scoring import TRANSFORMS, Scoring, TableResult, standings, table_scores


def test_a_round_scores_and_the_standings_order_by_total():
    # whists, raw: the balances are the scores; a 3, b 0, c -3 -> a first.
    scoring = Scoring("whists")
    assert table_scores(scoring, {"a": Fraction(3), "b": Fraction(0), "c": Fraction(-3)}) == {
        "a": 3,
        "b": 0,
        "c": -3,
    }
    rows = standings(
        scoring, ["a", "b", "c"], [TableResult(1, 1, {"a": Fraction(3), "b": Fraction(0), "c": Fraction(-3)})]
    )
    assert [(r.player, r.place, r.total) for r in rows] == [("a", 1, 3), ("b", 2, 0), ("c", 3, -3)]
    # gambler.ru caps at 245: 1000 -> 200 + 450/10 = 245
    assert TRANSFORMS["gambler_ru"](Fraction(1000)) == 245


def test_a_draw_seats_everyone_once():
    players = [f"p{i}" for i in range(10)]
    assert table_plan(10, frozenset({3})) == ((3, 3, 3), 1)
    seating = draw(players, frozenset({3}), History(), seed=7)
    seated = [p for table in seating.tables for p in table]
    assert sorted(seated + list(seating.byes)) == sorted(players)
    assert len(seating.byes) == 1
    assert seating == draw(players, frozenset({3}), History(), seed=7)
    assert repeated_meetings(seating, history_of([seating])) == 9
    assert isinstance(seating, Seating)
