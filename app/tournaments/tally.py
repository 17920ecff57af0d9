"""The standings kept up to date: each table scored once, each round's scores gathered once,
the rounds added up player by player. Pure: no I/O, exact values (app/tournaments/scoring.py's
small ints and Fractions).

``scoring.standings`` computes the standings whole from the tables' balances; this module
gives the same standings (the tests hold them equal) from parts that a caller keeps and
reuses: a table's scores (``score_table``: re-scored only when the table moved), a round's
(``round_scores``), and the sums of a set of rounds (``fold``: the closed rounds added once,
the rounds being played added on top). What changes at one table costs that table, its
round's gathering, and the ranking of the players; not the scoring of every table again.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from app.rules import Sentence
from app.tournaments.scoring import (
    Adjustment,
    Exact,
    Scoring,
    Standing,
    _small,
    _sum,
    _table_scores,
    bye_score,
)

# A table's scores: player -> (round score, balance, first at the table), in small values.
Scored = Mapping[str, tuple[Exact, Exact, bool]]


def score_table(scoring: Scoring, balances: Mapping[str, Fraction]) -> Scored:
    """The scores of one finished table (its players' balances in whists)."""
    small = {name: _small(balance) for name, balance in balances.items()}
    scores = _table_scores(scoring, small)
    top = max(small.values())
    return {name: (scores[name], balance, balance == top) for name, balance in small.items()}


@dataclass(frozen=True)
class RoundScores:
    """One round's scores gathered: each seated player's, and the round's byes with their score."""

    number: int
    seated: Scored
    byes: tuple[str, ...]
    bye: Exact


def _bye(scoring: Scoring, tables: Sequence[Scored]) -> Exact:
    """``scoring.bye_score`` of a round from its tables' scores (the same exact value)."""
    if scoring.bye_score is not None or scoring.kind == "whists" or not tables:
        return _small(bye_score(scoring, []))
    seats = sum(len(t) for t in tables)
    points = _sum(score for t in tables for score, _, _ in t.values())
    return _small(Fraction(points) / seats)


def round_scores(scoring: Scoring, number: int, tables: Sequence[Scored], byes: Sequence[str]) -> RoundScores:
    """A round's finished tables' scores and its byes gathered; a player scored twice in it,
    or with a bye and a score, is refused as ``scoring.standings`` refuses them."""
    if number < 1:
        raise ValueError(Sentence("rounds are numbered from 1"))
    seated: dict[str, tuple[Exact, Exact, bool]] = {}
    for table in tables:
        for name, scores in table.items():
            if name in seated:
                raise ValueError(Sentence("{name} is scored twice in round {round}", name=name, round=number))
            seated[name] = scores
    if any(name in seated for name in byes) or len(set(byes)) != len(byes):
        raise ValueError(
            Sentence("a player has a bye in round {number} and a score (or a second bye)", number=number)
        )
    return RoundScores(number, seated, tuple(byes), _bye(scoring, tables))


class Sums:
    """One player's sums over some rounds (shared between the sums of many versions: never
    changed once made)."""

    __slots__ = ("slots", "total", "balance", "firsts", "byes", "best", "_rounds", "_row", "_ties", "_over")

    def __init__(
        self,
        slots: dict[int, Exact],
        total: Exact,
        balance: Exact,
        firsts: int,
        byes: int,
        best: Exact | None,
    ) -> None:
        self.slots = slots  # round number -> score (a table's or a bye's)
        self.total = total
        self.balance = balance
        self.firsts = firsts
        self.byes = byes
        self.best = best  # None before any round
        self._rounds: tuple[int, tuple[Fraction | None, ...], Key] | None = None
        self._row: Standing | None = None
        self._ties: tuple[tuple[str, ...], int, tuple[int, ...]] | None = None
        self._over: int | None = None

    def merit(self, names: tuple[str, ...], over: int) -> tuple[int, ...]:
        """The total and the tie-breaks named, negated, times ``over`` (a multiple of their
        denominators), made once per names and multiple."""
        made = self._ties
        if made is None or made[0] != names or made[1] != over:
            best = 0 if self.best is None else self.best
            values = {"balance": self.balance, "firsts": self.firsts, "best_round": best}
            merit = (_scaled(self.total, over), *(_scaled(values[name], over) for name in names))
            made = (names, over, merit)
            self._ties = made
        return made[2]

    def denominator(self) -> int:
        """A multiple of the total's and the tie-breaks' denominators, made once."""
        over = self._over
        if over is None:
            values = (self.total, self.balance, self.best)
            over = math.lcm(*(1 if v is None or type(v) is int else v.denominator for v in values))
            self._over = over
        return over

    def row(
        self, player: str, place: int, total: Exact, adjustments: tuple[Adjustment, ...], count: int
    ) -> tuple[Standing, Key]:
        """The player's Standing (the last made from these sums when it is the same), and the
        sums' content as a key."""
        made = self._row
        exact, content = self.rounds(count)
        if (
            made is not None
            and made.place == place
            and made.player == player
            and made.rounds is exact
            and made.adjustments == adjustments
        ):
            return made, content
        best = 0 if self.best is None else self.best
        made = Standing(
            player,
            place,
            _exact(total),
            exact,
            _exact(self.balance),
            self.firsts,
            _exact(best),
            adjustments,
            self.byes,
        )
        self._row = made
        return made, content

    def rounds(self, count: int) -> tuple[tuple[Fraction | None, ...], Key]:
        """The score of each of ``count`` rounds (None: absent), and the sums' content over
        them as a key, made once per count."""
        made = self._rounds
        if made is None or made[0] != count:
            small = tuple(self.slots.get(n) for n in range(1, count + 1))
            content = Key((small, self.balance, self.firsts, self.best, self.byes))
            made = (count, tuple(_fraction(v) for v in small), content)
            self._rounds = made
        return made[1], made[2]


class Key:
    """A value as a key whose hash is made once: a row's content is looked up at every
    computation, and a Fraction's hash is slow."""

    __slots__ = ("value", "_hash")

    def __init__(self, value: Hashable) -> None:
        self.value = value
        self._hash = hash(value)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return self is other or (
            isinstance(other, Key) and self._hash == other._hash and self.value == other.value
        )


_EMPTY = Sums({}, 0, 0, 0, 0, None)


def _plus(a: Exact, b: Exact) -> Exact:
    return a + b if type(a) is int and type(b) is int else _small(Fraction(a) + b)


def _added(s: Sums, number: int, score: Exact, balance: Exact, first: bool, bye: int) -> Sums:
    if number in s.slots:
        raise ValueError(Sentence("a player is scored twice in round {number}", number=number))
    return Sums(
        {**s.slots, number: score},
        _plus(s.total, score),
        _plus(s.balance, balance) if balance else s.balance,
        s.firsts + first,
        s.byes + bye,
        score if s.best is None or score > s.best else s.best,
    )


def fold(sums: Mapping[str, Sums], rounds: Iterable[RoundScores]) -> dict[str, Sums]:
    """``sums`` with these rounds added (a new mapping; the players untouched keep their sums)."""
    out = dict(sums)
    for r in rounds:
        number = r.number
        for name, (score, balance, first) in r.seated.items():
            out[name] = _added(out.get(name, _EMPTY), number, score, balance, first, 0)
        for name in r.byes:
            out[name] = _added(out.get(name, _EMPTY), number, r.bye, 0, False, 1)
    return out


@dataclass(frozen=True)
class Folded:
    """Sums of some players' sums (``base``) and some rounds (those being played), kept to be
    folded again when one of those rounds moves (``refold``)."""

    base: Mapping[str, Sums]
    rounds: tuple[RoundScores, ...]
    sums: dict[str, Sums]


def refold(base: Mapping[str, Sums], rounds: Sequence[RoundScores], previous: Folded | None) -> Folded:
    """``fold(base, rounds)``, the players whose scores in these rounds are the very scores of
    ``previous`` (over the same ``base``) keeping their sums: after a change at one table,
    only its players' sums are made again."""
    rounds = tuple(rounds)
    if (
        previous is None
        or previous.base is not base
        or [r.number for r in previous.rounds] != [r.number for r in rounds]
    ):
        return Folded(base, rounds, fold(base, rounds))
    moved: set[str] = set()
    for old, new in zip(previous.rounds, rounds):
        if old is new:
            continue
        was, now = old.seated, new.seated
        moved.update(name for name in was.keys() | now.keys() if was.get(name) is not now.get(name))
        if old.byes != new.byes or old.bye != new.bye:
            moved.update(old.byes + new.byes)
    if not moved:
        return Folded(base, rounds, previous.sums)
    sums = dict(previous.sums)
    for name in moved:
        s = base.get(name, _EMPTY)
        for r in rounds:
            scores = r.seated.get(name)
            if scores is not None:
                s = _added(s, r.number, scores[0], scores[1], scores[2], 0)
            elif name in r.byes:
                s = _added(s, r.number, r.bye, 0, False, 1)
        if s is _EMPTY:
            sums.pop(name, None)
        else:
            sums[name] = s
    return Folded(base, rounds, sums)


_FRACTIONS: dict[Exact, Fraction] = {}


def _fraction(value: Exact | None) -> Fraction | None:
    return None if value is None else _exact(value)


def _exact(value: Exact) -> Fraction:
    """A small value as the Fraction a Standing holds (the few values met made once)."""
    if type(value) is Fraction:
        return value
    found = _FRACTIONS.get(value)
    if found is None:
        if len(_FRACTIONS) > 4096:
            _FRACTIONS.clear()
        found = _FRACTIONS[value] = Fraction(value)
    return found


@dataclass(frozen=True)
class Ranked:
    """The standings, and each row's content but its place in small values (equal keys: equal
    rows but for the place), for whoever keeps what is made of a row; and the order they were
    ranked in, for the next ranking to patch (``ranked``'s ``previous``)."""

    rows: tuple[Standing, ...]
    keys: tuple[Hashable, ...]
    order: Order | None = None


@dataclass(frozen=True)
class Order:
    """A ranking's inputs and its merits sorted: the next ranking of the same players and
    adjustments re-sorts only the players whose sums moved."""

    names: list[str]
    adjustments: tuple[Adjustment, ...]
    tie_breaks: tuple[str, ...]
    count: int
    over: int  # the merits' common denominator (a multiple: the order is the same)
    found: list[Sums]  # by player, in ``names``' order
    owns: list[tuple[Adjustment, ...]]
    totals: list[Exact]
    merits: list[tuple[int, ...]]
    ordered: list[tuple[tuple[int, ...], int]]  # (merit, player's index), best first: a stable sort


def _order(
    players: Sequence[str], rounds: Sequence[RoundScores], adjustments: Sequence[Adjustment]
) -> list[str]:
    """Every player in ``scoring.standings``' order: ``players``, then the others as met in the
    tables (round by round), the byes, the adjustments."""
    order = list(dict.fromkeys(players))
    known = set(order)
    if all(r.seated.keys() <= known and known.issuperset(r.byes) for r in rounds) and all(
        a.player in known for a in adjustments
    ):
        return order  # every player an entrant: the usual case, told apart at C speed
    met = [name for r in rounds for name in r.seated if name not in known]
    met += [name for r in rounds for name in r.byes if name not in known]
    met += [a.player for a in adjustments if a.player not in known]
    return order + list(dict.fromkeys(met))


def ranked(
    scoring: Scoring,
    players: Sequence[str],
    sums: Mapping[str, Sums],
    rounds: Sequence[RoundScores],
    adjustments: Sequence[Adjustment],
    count: int,
    previous: Ranked | None = None,
) -> Ranked:
    """The standings of ``count`` rounds from the players' sums over them (``rounds``, by
    number) and the adjustments of those rounds, ordered as ``scoring.standings`` orders them.
    With the ``previous`` ranking of the same players and adjustments, only the players whose
    sums moved are placed again (the tests hold it equal to a ranking whole)."""
    adjustments = tuple(adjustments)
    names = _order(players, sorted(rounds, key=lambda r: r.number), adjustments)
    get = sums.get
    found = [get(name, _EMPTY) for name in names]
    kept = previous.order if previous is not None else None
    if (
        previous is not None
        and kept is not None
        and kept.count == count
        and kept.tie_breaks == scoring.tie_breaks
        and kept.adjustments == adjustments
        and kept.names == names
    ):
        return _patched(previous, kept, found)
    return _ranked_whole(scoring, names, found, adjustments, count)


def _ranked_whole(
    scoring: Scoring, names: list[str], found: list[Sums], adjustments: tuple[Adjustment, ...], count: int
) -> Ranked:
    by_player: dict[str, tuple[Adjustment, ...]] = {}
    for a in adjustments:
        by_player[a.player] = by_player.get(a.player, ()) + (a,)
    if by_player:
        owns = [by_player.get(name, ()) for name in names]
        totals = [_total(s, own) for s, own in zip(found, owns)]
    else:
        owns = [()] * len(names)
        totals = [s.total for s in found]
    over, merits = _in_integers(totals, found, scoring.tie_breaks)
    order = sorted(range(len(names)), key=merits.__getitem__)  # stable: ties stay in order
    rows, keys = [], []
    place, previous = 0, None
    for position, i in enumerate(order, 1):
        merit = merits[i]
        if merit != previous:
            place, previous = position, merit
        row, content = found[i].row(names[i], place, totals[i], owns[i], count)
        rows.append(row)
        keys.append((names[i], content, owns[i]))
    ordered = [(merits[i], i) for i in order]
    kept = Order(names, adjustments, scoring.tie_breaks, count, over, found, owns, totals, merits, ordered)
    return Ranked(tuple(rows), tuple(keys), kept)


def _patched(previous: Ranked, kept: Order, found: list[Sums]) -> Ranked:
    """``previous`` with the players whose sums moved taken out of the order and put back by
    bisection, the rows between the first and the last position touched made again (and the
    rest of a tie they end in)."""
    moved = [i for i, (now, was) in enumerate(zip(found, kept.found)) if now is not was]
    if not moved:
        return previous
    totals, merits, over = list(kept.totals), list(kept.merits), kept.over
    needed = over
    for i in moved:
        totals[i] = total = _total(found[i], kept.owns[i])
        needed = math.lcm(needed, found[i].denominator(), 1 if type(total) is int else total.denominator)
    ordered = list(kept.ordered)
    if needed != over:
        # A moved player's merit needs a finer denominator: every merit is linear in it, so
        # each one times the same factor is the merit over the new one, in the same order.
        factor, over = needed // over, needed
        merits = [tuple(factor * part for part in merit) for merit in merits]
        ordered = [(merits[i], i) for _merit_was, i in ordered]
    touched = []
    for i in moved:
        at = bisect_left(ordered, (merits[i], i))
        del ordered[at]
        touched.append(at)
    for i in moved:
        merits[i] = _merit(totals[i], found[i], kept.tie_breaks, over)
        at = bisect_left(ordered, (merits[i], i))
        ordered.insert(at, (merits[i], i))
        touched.append(at)
    # before the first position touched nothing moved; after the last (plus as many as moved)
    # each player is where he was, his place the same once a tie started after the touched ones
    low, end, was = min(touched), min(len(ordered), max(touched) + len(moved) + 1), kept.ordered
    while end < len(ordered) and (ordered[end][0] == ordered[end - 1][0] or was[end][0] == was[end - 1][0]):
        end += 1
    rows, keys = [], []
    place, last = (previous.rows[low - 1].place, ordered[low - 1][0]) if low else (0, None)
    names, owns, count = kept.names, kept.owns, kept.count
    for position in range(low, end):
        merit, i = ordered[position]
        if merit != last:
            place, last = position + 1, merit
        row, content = found[i].row(names[i], place, totals[i], owns[i], count)
        rows.append(row)
        keys.append((names[i], content, owns[i]))
    order = Order(names, kept.adjustments, kept.tie_breaks, count, over, found, owns, totals, merits, ordered)
    return Ranked(
        previous.rows[:low] + tuple(rows) + previous.rows[end:],
        previous.keys[:low] + tuple(keys) + previous.keys[end:],
        order,
    )


def _total(s: Sums, own: tuple[Adjustment, ...]) -> Exact:
    return _sum([s.total, *(_small(a.amount) for a in own)]) if own else s.total


def _scaled(value: Exact, over: int) -> int:
    return -(value * over) if type(value) is int else -(value.numerator * (over // value.denominator))


def _merit(total: Exact, s: Sums, names: tuple[str, ...], over: int) -> tuple[int, ...]:
    """A player's merit: the merit of his sums, made once, unless adjustments moved his total."""
    return s.merit(names, over) if total is s.total else (_scaled(total, over), *s.merit(names, over)[1:])


def _in_integers(
    totals: list[Exact], found: list[Sums], names: tuple[str, ...]
) -> tuple[int, list[tuple[int, ...]]]:
    """The merits (the total, then the tie-breaks) negated (more is better: first when sorted)
    over one common denominator, in the same order, and that denominator: ints compare many
    times faster than Fractions."""
    denominators = {s.denominator() for s in found} | {t.denominator for t in totals if type(t) is not int}
    over = math.lcm(*denominators)
    return over, [_merit(total, s, names, over) for total, s in zip(totals, found)]
