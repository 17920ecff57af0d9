"""The seating draw of a tournament round. Pure and deterministic: no I/O, no clock.

A round's tables are chosen to minimise repeated meetings: the sum over tables of the sum
over the pairs of their players of (earlier meetings of the pair)². The search is a local
search by swaps of two players of different tables, restarted and kicked a fixed number of
times from a ``random.Random(seed)``, so the same players, sizes, history and seed give the
same seating. Among the seatings of least cost, swaps that keep the cost spread the players
who have dealt first most over the tables; then each table's seat order balances the seats,
the first dealer (seat 0) first. Byes go to the players with the fewest byes so far. With ``swiss`` (the players in standing
order) the tables also group players of close standing, second to repeated meetings.
docs/tournament-scoring.md describes it with its measured quality.
"""

from __future__ import annotations

import copy
import itertools
import operator
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from app.rules import Sentence


@dataclass(frozen=True)
class Seating:
    tables: tuple[tuple[str, ...], ...]  # each table's players in seat order; seat 0 deals first
    byes: tuple[str, ...]  # players sitting this round out


def _composition(count: int, sizes: Sequence[int]) -> list[int] | None:
    """Table sizes summing to ``count``, as many tables of the smallest size as possible."""
    if count == 0:
        return []
    if not sizes:
        return None
    smallest, rest = sizes[0], sizes[1:]
    for tables in range(count // smallest, -1, -1):
        tail = _composition(count - tables * smallest, rest)
        if tail is not None:
            return [smallest] * tables + tail
    return None


def table_plan(players: int, sizes: frozenset[int]) -> tuple[tuple[int, ...], int]:
    """How many tables of which size and how many byes: the fewest byes; sizes e.g. {3}, {4}, {3, 4}.
    Raises ValueError when fewer players than the smallest table.

    Among plans with the fewest byes, the one with the most tables of the smallest size (the
    larger tables only seat who the smaller cannot). Tables are listed largest first.
    """
    ordered = sorted(set(sizes))
    if not ordered or any(isinstance(s, bool) or not isinstance(s, int) or s < 2 for s in ordered):
        raise ValueError(Sentence("table sizes are integers of 2 or more"))
    if players < ordered[0]:
        raise ValueError(
            Sentence(
                "{players} players cannot fill a table of {ordered}", players=players, ordered=ordered[0]
            )
        )
    for byes in range(players + 1):
        plan = _composition(players - byes, ordered)
        if plan is not None:
            return tuple(sorted(plan, reverse=True)), byes
    raise AssertionError("unreachable: the smallest table always fits")


@dataclass(frozen=True)
class History:  # what earlier rounds did, for balancing
    meetings: Mapping[frozenset[str], int] = field(default_factory=dict)  # pair -> times at one table
    byes: Mapping[str, int] = field(default_factory=dict)  # player -> byes so far (fewest first)
    seats: Mapping[str, Mapping[int, int]] = field(default_factory=dict)  # player -> seat -> times


def history_of(rounds: Iterable[Seating]) -> History:
    meetings: dict[frozenset[str], int] = {}
    byes: dict[str, int] = {}
    seats: dict[str, dict[int, int]] = {}
    for seating in rounds:
        for table in seating.tables:
            for seat, player in enumerate(table):
                seats.setdefault(player, {})
                seats[player][seat] = seats[player].get(seat, 0) + 1
            for pair in itertools.combinations(table, 2):
                key = frozenset(pair)
                meetings[key] = meetings.get(key, 0) + 1
        for player in seating.byes:
            byes[player] = byes.get(player, 0) + 1
    return History(meetings=meetings, byes=byes, seats=seats)


def repeated_meetings(seating: Seating, history: History) -> int:
    """The draw quality: the number of pairs seated together this round who had met before."""
    return sum(
        1
        for table in seating.tables
        for pair in itertools.combinations(table, 2)
        if history.meetings.get(frozenset(pair), 0) > 0
    )


def meeting_cost(seating: Seating, history: History) -> int:
    """What the draw minimises: over tables and their pairs, (earlier meetings of the pair)²."""
    return sum(
        history.meetings.get(frozenset(pair), 0) ** 2
        for table in seating.tables
        for pair in itertools.combinations(table, 2)
    )


# The search's budget, counted (never timed) so that a seed always gives the same seating: at
# most STARTS starts, each kicked (a few random swaps, then the local search again) until
# PATIENCE kicks in a row bring nothing better, and at most WORK // players² local searches in
# all (one pass of a local search tries about players² / 2 swaps), but never fewer than 2.
STARTS = 6
PATIENCE = 40
WORK = 1_000_000


def draw(
    players: Sequence[str],
    sizes: frozenset[int],
    history: History,
    seed: int,
    swiss: Sequence[str] | None = None,
) -> Seating:
    """Tables minimising sum over tables of sum over pairs of meetings(pair)**2, byes to the players with
    fewest byes, seats balanced; deterministic for (players, sizes, history, seed); `swiss` = players in
    standing order, to group players of close standing."""
    if len(set(players)) != len(players):
        raise ValueError(Sentence("a player is listed twice"))
    plan, bye_count = table_plan(len(players), sizes)
    rng = random.Random(seed)
    roster = sorted(players)  # the order players are given in does not change the draw
    rank = _ranks(roster, swiss)
    byes = _byes(roster, bye_count, history, rank, rng)
    seated = [p for p in roster if p not in byes]
    groups = _Search(seated, plan, history, rank, rng).best()
    if rank is not None:
        groups.sort(key=lambda group: min(rank[p] for p in group))
    tables = tuple(_seat_order(group, history, rng) for group in groups)
    return Seating(tables=tables, byes=tuple(sorted(byes, key=roster.index)))


def _ranks(roster: Sequence[str], swiss: Sequence[str] | None) -> dict[str, int] | None:
    """Each player's standing (0 = top) for a Swiss draw; players missing from it rank last."""
    if swiss is None:
        return None
    rank: dict[str, int] = {}
    present = set(roster)
    for player in swiss:
        if player in present:
            rank.setdefault(player, len(rank))
    for player in roster:
        rank.setdefault(player, len(rank))
    return rank


def _byes(
    roster: Sequence[str], count: int, history: History, rank: Mapping[str, int] | None, rng: random.Random
) -> set[str]:
    """The fewest byes so far first; among equals the lowest standing (Swiss), else by lot."""
    lot = {p: rng.random() for p in roster}
    if rank is None:
        order = sorted(roster, key=lambda p: (history.byes.get(p, 0), lot[p]))
    else:
        order = sorted(roster, key=lambda p: (history.byes.get(p, 0), -rank[p]))
    return set(order[:count])


class _Search:
    """A local search over partitions of the seated players into tables of the planned sizes.

    The weight of a pair is meetings² (times a factor above any Swiss spread, so that repeated
    meetings always come first) plus, in a Swiss draw, the squared distance of their standings.
    The swaps themselves are made by a ``_Sweep``.
    """

    def __init__(
        self,
        seated: Sequence[str],
        plan: Sequence[int],
        history: History,
        rank: Mapping[str, int] | None,
        rng: random.Random,
    ) -> None:
        self.players = list(seated)
        self.plan = list(plan)
        self.rng = rng
        self.rank = None if rank is None else [rank[p] for p in seated]
        n = len(seated)
        index = {p: i for i, p in enumerate(seated)}
        if self.rank is None:
            weight = [[0] * n for _ in range(n)]
        else:
            weight = [[(r - s) * (r - s) for s in self.rank] for r in self.rank]
        # any table's spread is below n² per pair; all pairs of all tables below n² · n · 3
        factor = n * n * n * max(plan, default=1) + 1 if rank is not None else 1
        for pair, times in history.meetings.items():
            if times and len(pair) == 2:
                a, b = tuple(pair)
                if a in index and b in index:
                    i, j = index[a], index[b]
                    weight[i][j] += factor * times * times
                    weight[j][i] += factor * times * times
        self.weight = weight
        self.lower_bound = 0 if rank is None else None  # a Swiss draw never knows it is done
        # the first dealers: a pair weighs the product of its players' first deals so far, so
        # that players who dealt first often are spread over the tables (each table then has
        # someone who dealt first less to deal first now)
        self.dealt = [history.seats.get(p, {}).get(0, 0) for p in seated]

    def best(self) -> list[list[str]]:
        if not self.players:
            return []
        budget = max(2, WORK // len(self.players) ** 2)
        best_table: list[int] = []
        best_cost: int | None = None
        for start in range(STARTS):
            if budget <= 0:
                break
            current = _Sweep(self.weight, self._start(first=start == 0), len(self.plan))
            current.run()
            current_cost = current.cost()
            budget -= 1
            stale = 0
            while True:
                if best_cost is None or current_cost < best_cost:
                    best_table, best_cost = current.table[:], current_cost
                if best_cost == self.lower_bound or stale >= PATIENCE or budget <= 0:
                    break
                trial = current.kicked(self.rng)
                trial.run()
                cost = trial.cost()
                budget -= 1
                stale = 0 if cost < current_cost else stale + 1
                if cost <= current_cost:  # sideways moves too: they wander the plateaus
                    current, current_cost = trial, cost
            if best_cost == self.lower_bound:
                break
        self._polish(best_table)
        return self._groups(best_table)

    def _start(self, first: bool) -> list[int]:
        """table[i] = the table of player i: by lot, or for a Swiss draw by standing (kicked
        after the first start: a seating by lot is far from any good Swiss one)."""
        slots = [t for t, size in enumerate(self.plan) for _ in range(size)]
        order = list(range(len(self.players)))
        if self.rank is not None:
            order.sort(key=self.rank.__getitem__)
        else:
            self.rng.shuffle(order)
        table = [0] * len(self.players)
        for slot, player in zip(slots, order):
            table[player] = slot
        if self.rank is not None and not first:
            self._kick(table)
        return table

    def _kick(self, table: list[int]) -> None:
        n = len(table)
        for _ in range(self.rng.randint(1, 3)):
            a, b = self.rng.randrange(n), self.rng.randrange(n)
            table[a], table[b] = table[b], table[a]

    def _polish(self, table: list[int]) -> None:
        """Swaps that leave the cost as it is and spread the first dealers better."""
        if sum(1 for d in self.dealt if d) >= 2:  # else no pair of first dealers to spread
            _Polish(self.weight, table, len(self.plan), self.dealt).run()

    def _groups(self, table: list[int]) -> list[list[str]]:
        groups: list[list[str]] = [[] for _ in self.plan]
        for player, t in zip(self.players, table):
            groups[t].append(player)
        return groups


class _Sweep:
    """Swaps of two players of different tables, in the order (a, b), a < b, of the players,
    made while a swap lowers the cost.

    ``columns[t][p]`` is the weight player ``p`` has with table ``t`` and ``own[p]`` that with
    their own table, so that a swap's gain is O(1) and a swap O(players). A swap changes only
    the columns of its two tables: a player whose last look found nothing looks again only at
    the players of the tables changed since (the same swaps as looking at everyone, faster).
    """

    def __init__(self, weight: list[list[int]], table: list[int], tables: int) -> None:
        self.weight, self.table = weight, table
        self.members: list[list[int]] = [[] for _ in range(tables)]
        for p, t in enumerate(table):
            self.members[t].append(p)
        self.columns = [self._column(group) for group in self.members]
        self.own = [self.columns[t][p] for p, t in enumerate(table)]
        self.changed: list[int] = []  # the two tables of each swap made, in order
        # when each player last found no swap: the length of self.changed then
        self.settled: list[int | None] = [None] * len(table)

    def _column(self, group: list[int]) -> list[int]:
        if not group:
            return [0] * len(self.table)
        column: Iterable[int] = self.weight[group[0]]
        for q in group[1:]:
            column = map(operator.add, column, self.weight[q])
        return list(column)

    def cost(self) -> int:
        return sum(self.own) // 2

    def kicked(self, rng: random.Random) -> _Sweep:
        """A copy kicked by a few random swaps, as ``_Search._kick`` kicks; once this sweep has
        run, only the pairs of the kicked tables need a look (every other pair is as it was)."""
        trial = copy.copy(self)
        trial.table, trial.own, trial.changed = self.table[:], self.own[:], []
        trial.members = [group[:] for group in self.members]
        trial.columns = self.columns[:]  # a swap replaces its tables' columns, never changes one
        trial.settled = [0] * len(self.table)
        n = len(self.table)
        for _ in range(rng.randint(1, 3)):
            a, b = rng.randrange(n), rng.randrange(n)
            if trial.table[a] != trial.table[b]:
                trial._swap(a, b)
        return trial

    def run(self) -> None:
        """Swap while a swap lowers the cost (``settled`` says who need not look at whom)."""
        n, settled = len(self.table), self.settled
        few = len(self.members) // 2
        improved = True
        while improved:
            improved = False
            for a in range(n):
                since = settled[a]
                players: Sequence[int] = range(a + 1, n)
                if since is not None:
                    if since == len(self.changed):
                        continue
                    # many changes since: looking at everyone costs no more
                    changed = (
                        set(self.changed[since:]) if len(self.changed) - since < few else {self.table[a]}
                    )
                    if self.table[a] not in changed:
                        players = sorted(b for t in changed for b in self.members[t] if b > a)
                swapped = False
                while (b := self._first(a, players)) is not None:
                    self._swap(a, b)
                    swapped = improved = True
                    players = range(b + 1, n)
                settled[a] = None if swapped else len(self.changed)

    def _bars(self, a: int) -> list[int]:
        """For each table t, what own[b] - columns[table[a]][b] + 2 weight[a][b] must pass for
        a's swap with a player b of t to lower the cost; nothing passes a's own table's."""
        ta = self.table[a]
        base = self.columns[ta][a]
        bars = [column[a] - base for column in self.columns]
        bars[ta] = 2 * base + 1  # above 2 weight[a][b] for any b at a's table
        return bars

    def _first(self, a: int, players: Sequence[int]) -> int | None:
        """The first of ``players`` whose swap with ``a`` lowers the cost."""
        table, columns, own, weight_a = self.table, self.columns, self.own, self.weight[a]
        ta = table[a]
        column_a = columns[ta]
        if len(players) > len(columns):  # many to look at: the bars first
            bars = self._bars(a)
            for b in players:
                if own[b] - column_a[b] + 2 * weight_a[b] > bars[table[b]]:
                    return b
            return None
        base = column_a[a]
        for b in players:
            tb = table[b]
            if tb != ta and own[b] - column_a[b] + 2 * weight_a[b] > columns[tb][a] - base:
                return b
        return None

    def _swap(self, a: int, b: int) -> None:
        table, columns = self.table, self.columns
        ta, tb = table[a], table[b]
        weight_a, weight_b = self.weight[a], self.weight[b]
        columns[ta] = list(map(operator.sub, map(operator.add, columns[ta], weight_b), weight_a))
        columns[tb] = list(map(operator.sub, map(operator.add, columns[tb], weight_a), weight_b))
        table[a], table[b] = tb, ta
        for t, gone, come in ((ta, a, b), (tb, b, a)):
            group = self.members[t]
            group[group.index(gone)] = come
            for p in group:
                self.own[p] = columns[t][p]
        self.changed += (ta, tb)


class _Polish(_Sweep):
    """Swaps that keep the cost and spread the first dealers: a pair weighs the product of its
    players' first deals (``dealt``), kept as each table's sum of first deals."""

    def __init__(self, weight: list[list[int]], table: list[int], tables: int, dealt: list[int]) -> None:
        super().__init__(weight, table, tables)
        self.dealt = dealt
        self.dealt_at = [sum(dealt[p] for p in group) for group in self.members]

    def _first(self, a: int, players: Sequence[int]) -> int | None:
        """The first of ``players`` whose swap with ``a`` keeps the cost and spreads the first
        dealers better: with d the first deals and D a table's sum of them, the dealers' weight
        falls by (d_a - d_b)(D_ta - D_tb - d_a + d_b)."""
        table, own, weight_a, column_a = self.table, self.own, self.weight[a], self.columns[self.table[a]]
        dealt, dealt_at = self.dealt, self.dealt_at
        bars = self._bars(a)
        ta, da = table[a], dealt[a]
        for b in players:
            tb = table[b]
            if own[b] - column_a[b] + 2 * weight_a[b] != bars[tb]:
                continue
            if (da - dealt[b]) * (dealt_at[ta] - dealt_at[tb] - da + dealt[b]) > 0:
                return b
        return None

    def _swap(self, a: int, b: int) -> None:
        ta, tb = self.table[a], self.table[b]
        moved = self.dealt[b] - self.dealt[a]
        self.dealt_at[ta] += moved
        self.dealt_at[tb] -= moved
        super()._swap(a, b)


def _seat_order(group: Sequence[str], history: History, rng: random.Random) -> tuple[str, ...]:
    """The seat order balancing seats: first whoever dealt first least, then the seats' counts
    (by lot among equals)."""

    def times(player: str, seat: int) -> int:
        return history.seats.get(player, {}).get(seat, 0)

    if len(group) <= 5:
        orders = list(itertools.permutations(group))
        rng.shuffle(orders)
        return min(orders, key=lambda o: (times(o[0], 0), sum(times(p, s) for s, p in enumerate(o))))
    # larger tables: seat after seat, whoever sat there least
    left, order = list(group), []
    rng.shuffle(left)
    for seat in range(len(group)):
        player = min(left, key=lambda p: times(p, seat))
        left.remove(player)
        order.append(player)
    return tuple(order)
