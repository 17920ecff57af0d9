"""How a tournament scores a round and orders its standings. Pure: no I/O, exact Fractions.

A round's score of a player comes from the player's balance in whists at the table:

- ``whists``: the balance itself, or the balance through a capped transform (a piecewise-linear
  function given by breakpoints and slopes; two presets in ``TRANSFORMS``);
- ``places``: points for the player's place at the table, ordered by balance (tied players
  share the points of the places they cover).

Standings add the rounds, byes and the director's adjustments, and order by the total, then by
the tie-breaks in the order the scoring names them. docs/tournament-scoring.md explains the
rules with their numbers.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

from app.rules import Sentence

ZERO = Fraction(0)

# The tie-breaks a scoring may name, each a Standing attribute where more is better.
TIE_BREAKS: tuple[str, ...] = ("balance", "firsts", "best_round")


# Inside the module a value is kept "small": an int when it is whole, else a Fraction. Exact
# either way, and int arithmetic is some thirty times faster than Fraction's (standings of a
# 200-player, 10-round tournament add a few thousand values); what leaves is a Fraction.
Exact = int | Fraction


def _small(value: Exact) -> Exact:
    if type(value) is int:
        return value
    value = value if isinstance(value, Fraction) else Fraction(value)
    return value.numerator if value.denominator == 1 else value


def _sum(values: Iterable[Exact]) -> Exact:
    """An exact sum of small values: the whole ones as ints, the others over one denominator."""
    whole, parts = 0, []
    for value in values:
        if type(value) is int:
            whole += value
        else:
            parts.append(value)
    if not parts:
        return whole
    denominator = math.lcm(*{part.denominator for part in parts})
    numerator = whole * denominator + sum(
        part.numerator * (denominator // part.denominator) for part in parts
    )
    return _small(Fraction(numerator, denominator))


def _fraction(value: object, what: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
        raise ValueError(
            Sentence("{what} must be an integer or a Fraction, not {value!r}", what=what, value=value)
        )
    return Fraction(value)


@dataclass(frozen=True)
class Transform:
    """A capped piecewise-linear transform of a whists balance.

    From 0 up, the value grows with ``slopes[0]`` up to ``breakpoints[0]``, then with
    ``slopes[1]`` up to ``breakpoints[1]``, …, and with ``slopes[-1]`` above the last
    breakpoint (a slope of 0 caps it). A negative balance is unchanged, or ``max(balance,
    floor)`` when a floor is given. The slopes are never negative, so a transform never
    ranks a better balance lower (it is non-decreasing).
    """

    breakpoints: tuple[Fraction, ...]
    slopes: tuple[Fraction, ...]
    floor: Fraction | None = None
    # apply()'s integer pieces (point, start, a, b, q) and the floor as a small value
    _pieces: tuple[tuple[Exact | None, Exact, int, int, int], ...] = field(
        init=False, repr=False, compare=False
    )
    _floor: Exact | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        points = tuple(_fraction(b, "a breakpoint") for b in self.breakpoints)
        slopes = tuple(_fraction(s, "a slope") for s in self.slopes)
        if len(slopes) != len(points) + 1:
            raise ValueError(Sentence("a transform needs one slope more than its breakpoints"))
        if any(b <= 0 for b in points[:1]) or any(b <= a for a, b in zip(points, points[1:])):
            raise ValueError(Sentence("breakpoints must be positive and strictly ascending"))
        if any(s < 0 for s in slopes):
            raise ValueError(Sentence("slopes must not be negative (a better balance never scores less)"))
        floor = None if self.floor is None else _fraction(self.floor, "the floor")
        if floor is not None and floor > 0:
            raise ValueError(Sentence("the floor bounds the negative side: it must not be positive"))
        object.__setattr__(self, "breakpoints", points)
        object.__setattr__(self, "slopes", slopes)
        object.__setattr__(self, "floor", floor)
        # the pieces in integers for apply(): up to `point`, f(w) = (a + b (w - start)) / q
        pieces, value, start = [], ZERO, ZERO
        for point, slope in zip(points + (None,), slopes):
            q = math.lcm(value.denominator, slope.denominator)
            pieces.append(
                (None if point is None else _small(point), _small(start), int(value * q), int(slope * q), q)
            )
            if point is not None:
                value += slope * (point - start)
                start = point
        object.__setattr__(self, "_pieces", tuple(pieces))
        object.__setattr__(self, "_floor", None if floor is None else _small(floor))

    def __call__(self, balance: Fraction) -> Fraction:
        return Fraction(self.apply(_small(balance)))

    def apply(self, balance: Exact) -> Exact:
        """The transform of a small value (an int or a Fraction), as a small value."""
        if balance < 0:
            return balance if self._floor is None or balance >= self._floor else self._floor
        for point, start, a, b, q in self._pieces:
            if point is None or balance <= point:
                numerator = a + b * (balance - start)
                if type(numerator) is int:
                    return numerator // q if numerator % q == 0 else Fraction(numerator, q)
                return _small(Fraction(numerator, q))
        raise AssertionError("unreachable: the last piece has no end")


TRANSFORMS: dict[str, Transform] = {
    # gambler.ru: w up to 200, 200 + (w - 200)/10 up to 650, then 245 (capped).
    "gambler_ru": Transform(
        breakpoints=(Fraction(200), Fraction(650)), slopes=(Fraction(1), Fraction(1, 10), ZERO)
    ),
    # playelephant.lt: w up to 50, 50 + (w - 50)/2 up to 100, 75 + (w - 100)/10 above.
    "playelephant_lt": Transform(
        breakpoints=(Fraction(50), Fraction(100)), slopes=(Fraction(1), Fraction(1, 2), Fraction(1, 10))
    ),
}

# The default points per place, before the rule of the only player in plus (see _default_points).
DEFAULT_PLACE_POINTS: dict[int, tuple[Fraction, ...]] = {
    3: (Fraction(3), Fraction(2), ZERO),
    4: (Fraction(4), Fraction(3), Fraction(1), ZERO),
}


@dataclass(frozen=True)
class Scoring:
    """How a round is scored and the standings ordered.

    ``place_points`` (places only) maps a table size to the points of each place, best first;
    None plays the defaults (``DEFAULT_PLACE_POINTS`` with the rule of the only player in plus).
    ``bye_score`` None is the default: 0 for whists; for places the mean points per seat of
    the round's finished tables (5/3 at 3-player tables), or of a table of the smallest size
    while none has finished.
    """

    kind: Literal["whists", "places"]
    transform: Transform | None = None
    place_points: Mapping[int, tuple[Fraction, ...]] | None = None
    tie_breaks: tuple[str, ...] = ("balance", "firsts", "best_round")
    bye_score: Fraction | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("whists", "places"):
            raise ValueError(Sentence("unknown scoring kind {kind!r}", kind=self.kind))
        if self.transform is not None and self.kind != "whists":
            raise ValueError(Sentence("a transform applies to the whists scoring only"))
        if self.place_points is not None:
            if self.kind != "places":
                raise ValueError(Sentence("place points apply to the places scoring only"))
            points: dict[int, tuple[Fraction, ...]] = {}
            for size, row in self.place_points.items():
                row = tuple(_fraction(p, "a place's points") for p in row)
                if isinstance(size, bool) or not isinstance(size, int) or size < 2 or len(row) != size:
                    raise ValueError(
                        Sentence("place points give one value per place of a table of 2 or more players")
                    )
                if any(b > a for a, b in zip(row, row[1:])):
                    raise ValueError(Sentence("a better place never scores fewer points"))
                points[size] = row
            object.__setattr__(self, "place_points", points)
        tie_breaks = tuple(self.tie_breaks)
        unknown = [t for t in tie_breaks if t not in TIE_BREAKS]
        if unknown or len(set(tie_breaks)) != len(tie_breaks):
            raise ValueError(
                Sentence("tie-breaks are distinct names among {tie_breaks}", tie_breaks=", ".join(TIE_BREAKS))
            )
        object.__setattr__(self, "tie_breaks", tie_breaks)
        if self.bye_score is not None:
            object.__setattr__(self, "bye_score", _fraction(self.bye_score, "the bye score"))


def _default_points(ordered: Sequence[Exact]) -> list[Exact]:
    """The default points of each place for balances ordered best first.

    3 players: 3, 2, 0; 4 players: 4, 3, 1, 0. A balance of 0 counts as plus. When the 2nd
    place is not in plus (at a zero-sum table: the 1st is the only player in plus) the 2nd's
    point for being in plus goes to the 1st: 4, 1, 0 and 5, 2, 1, 0. The table's total stays
    fixed: 5 at three players, 8 at four.
    """
    base = _DEFAULT_SMALL.get(len(ordered))
    if base is None:
        raise ValueError(
            Sentence("no default place points for a table of {ordered} players", ordered=len(ordered))
        )
    points = list(base)
    if ordered[1] < 0:
        points[0] += 1
        points[1] -= 1
    return points


_DEFAULT_SMALL = {size: tuple(_small(p) for p in row) for size, row in DEFAULT_PLACE_POINTS.items()}


def _place_points(scoring: Scoring, balances: Mapping[str, Exact]) -> dict[str, Exact]:
    ordered = sorted(balances.values(), reverse=True)
    if scoring.place_points is None:
        per_place = _default_points(ordered)
    else:
        row = scoring.place_points.get(len(ordered))
        if row is None:
            raise ValueError(
                Sentence("no place points for a table of {ordered} players", ordered=len(ordered))
            )
        per_place = [_small(p) for p in row]
    shared: dict[Exact, Exact] = {}
    start = 0
    while start < len(ordered):
        end = start + 1
        while end < len(ordered) and ordered[end] == ordered[start]:
            end += 1
        if end - start == 1:
            shared[ordered[start]] = per_place[start]
        else:
            shared[ordered[start]] = _small(Fraction(sum(per_place[start:end]), end - start))
        start = end
    return {player: shared[balance] for player, balance in balances.items()}


def _table_scores(scoring: Scoring, balances: Mapping[str, Exact]) -> dict[str, Exact]:
    if not balances:
        raise ValueError(Sentence("a table has players"))
    if scoring.kind == "places":
        return _place_points(scoring, balances)
    if scoring.transform is None:
        return dict(balances)
    apply = scoring.transform.apply
    return {player: apply(balance) for player, balance in balances.items()}


def place_points(scoring: Scoring, balances: Mapping[str, Fraction]) -> dict[str, Fraction]:
    """Each player's points for the place at the table; tied players share (average) the
    points of the places they cover."""
    small = {player: _small(balance) for player, balance in balances.items()}
    return {player: Fraction(points) for player, points in _place_points(scoring, small).items()}


def table_scores(scoring: Scoring, balances: Mapping[str, Fraction]) -> dict[str, Fraction]:
    """The round score of each player of one finished table, from the table's balances (whists)."""
    small = {player: _small(balance) for player, balance in balances.items()}
    return {player: Fraction(score) for player, score in _table_scores(scoring, small).items()}


@dataclass(frozen=True)
class TableResult:
    round: int  # 1-based
    table: int  # 1-based within the round
    balances: Mapping[str, Fraction]  # player -> balance in whists at that table


@dataclass(frozen=True)
class Adjustment:
    player: str
    amount: Fraction  # in the scoring's unit (whists or points)
    reason: str
    round: int | None = None


@dataclass(frozen=True)
class Standing:
    player: str
    place: int  # shared places allowed when fully tied
    total: Fraction  # sum of round scores + bye scores + adjustments
    rounds: tuple[Fraction | None, ...]  # per round: score, or the bye score, or None (absent)
    balance: Fraction  # sum of raw balances (tie-break)
    firsts: int  # first places at a table (tie-break)
    best_round: Fraction  # best single round score (tie-break)
    adjustments: tuple[Adjustment, ...] = field(default=())
    byes: int = 0  # rounds sat out with a bye


def bye_score(scoring: Scoring, round_results: Sequence[TableResult]) -> Fraction:
    """The score of a bye in a round whose (finished) tables are ``round_results``."""
    if scoring.bye_score is not None:
        return scoring.bye_score
    if scoring.kind == "whists":
        return ZERO
    if round_results:
        seats = sum(len(r.balances) for r in round_results)
        points = sum((sum(table_scores(scoring, r.balances).values(), ZERO) for r in round_results), ZERO)
        return points / seats
    if scoring.place_points is None:
        size = min(DEFAULT_PLACE_POINTS)
        return sum(DEFAULT_PLACE_POINTS[size], ZERO) / size
    size = min(scoring.place_points)
    return sum(scoring.place_points[size], ZERO) / size


class _Tally:
    """One player's sums while the standings are added up (small values)."""

    __slots__ = ("rounds", "balance", "firsts", "byes", "adjustments")

    def __init__(self, count: int) -> None:
        self.rounds: list[Exact | None] = [None] * count
        self.balance: Exact = 0
        self.firsts = 0
        self.byes = 0
        self.adjustments: list[Adjustment] = []


def standings(
    scoring: Scoring,
    players: Sequence[str],
    results: Iterable[TableResult],
    byes: Mapping[int, Sequence[str]] = {},
    adjustments: Sequence[Adjustment] = (),
    rounds: int | None = None,
) -> list[Standing]:
    """Standings after the given results (all rounds, or up to `rounds`), ordered by place.

    Every player of ``players`` is listed, and any other player met in the results, byes or
    adjustments after them. A player may sit at one table or have a bye in a round, not both.
    """
    kept = [r for r in results if rounds is None or r.round <= rounds]
    kept_byes = {n: tuple(names) for n, names in byes.items() if rounds is None or n <= rounds}
    kept_adjustments = [a for a in adjustments if rounds is None or a.round is None or a.round <= rounds]
    numbers = (
        [r.round for r in kept] + list(kept_byes) + [a.round for a in kept_adjustments if a.round is not None]
    )
    if any(number < 1 for number in numbers):
        raise ValueError(Sentence("rounds are numbered from 1"))
    count = rounds if rounds is not None else max(numbers, default=0)

    tallies: dict[str, _Tally] = {name: _Tally(count) for name in players}
    by_round: dict[int, list[TableResult]] = {}
    for result in kept:
        by_round.setdefault(result.round, []).append(result)
        balances = {name: _small(balance) for name, balance in result.balances.items()}
        scores = _table_scores(scoring, balances)
        top = max(balances.values())
        slot = result.round - 1
        for name, balance in balances.items():
            tally = tallies.get(name)
            if tally is None:
                tally = tallies[name] = _Tally(count)
            if tally.rounds[slot] is not None:
                raise ValueError(
                    Sentence("{name} is scored twice in round {round}", name=name, round=result.round)
                )
            tally.rounds[slot] = scores[name]
            tally.balance = (
                tally.balance + balance if type(balance) is int else _sum((tally.balance, balance))
            )
            if balance == top:
                tally.firsts += 1
    for number in sorted(kept_byes):
        score = _small(bye_score(scoring, by_round.get(number, [])))
        for name in kept_byes[number]:
            tally = tallies.get(name)
            if tally is None:
                tally = tallies[name] = _Tally(count)
            if tally.rounds[number - 1] is not None:
                raise ValueError(
                    Sentence(
                        "{name} has a bye in round {number} and a score (or a second bye)",
                        name=name,
                        number=number,
                    )
                )
            tally.rounds[number - 1] = score
            tally.byes += 1
    for adjustment in kept_adjustments:
        tally = tallies.get(adjustment.player)
        if tally is None:
            tally = tallies[adjustment.player] = _Tally(count)
        tally.adjustments.append(adjustment)

    # ordered on the small values, and each Standing made once with its place
    merits = []
    for index, (name, tally) in enumerate(tallies.items()):
        played = [score for score in tally.rounds if score is not None]
        total = _sum(played + [_small(a.amount) for a in tally.adjustments])
        best = max(played, default=0)
        values = {"balance": tally.balance, "firsts": tally.firsts, "best_round": best}
        merit = (total, *(values[name] for name in scoring.tie_breaks))
        merits.append((tuple(-v for v in merit), index, name, tally, total, best))
    merits.sort(key=lambda m: (m[0], m[1]))
    ranked: list[Standing] = []
    place, previous = 0, None
    for position, (key, _, name, tally, total, best) in enumerate(merits, 1):
        if key != previous:
            place, previous = position, key
        ranked.append(
            Standing(
                player=name,
                place=place,
                total=Fraction(total),
                rounds=tuple(
                    score if score is None or type(score) is Fraction else Fraction(score)
                    for score in tally.rounds
                ),
                balance=Fraction(tally.balance),
                firsts=tally.firsts,
                best_round=Fraction(best),
                adjustments=tuple(tally.adjustments),
                byes=tally.byes,
            )
        )
    return ranked
