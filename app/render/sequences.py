"""Running sequences, the way players write a sheet: every time a value changes the new
running total is appended (a pool written 2, then 4, then 4 reads "2 · 6 · 10").

The separator is a spaced middle dot, in every language and everywhere a sequence is shown
(the picture, the share page, the log): players write "2.6.10", but next to balances such
as "−6.66" (English) a dot between running totals reads as a decimal point, and a comma
("−6,66", Russian) would too; the middle dot is neither. Halves are "½".

Pure: folds a deal history (each deal's entries: the engine's ``Entry`` objects) into, per
seat, the pool, mountain and whists-on-each-opponent sequences. Amounts stay the engine's
exact values (int or Fraction) from the entries to the text written: none is parsed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from babel.numbers import get_group_symbol

from app.render.words import Language
from app.rules import Entry, amounts
from app.rules.vocabulary import EntryKind

Amount = int | Fraction


def exact(value: Any) -> Amount:
    """An amount as the engine keeps it (int or Fraction), passed through; the JSON forms a
    caller without the engine may give (a float, "p/q") are read by the amount codec."""
    if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
        return value
    return amounts.parse(value)


@dataclass(frozen=True, slots=True)
class Played:
    """One deal of the history: the entries it wrote and, in a match (piter_races), the game
    it was played in (pools and mountains start again at zero in a new game)."""

    entries: tuple[Entry, ...]
    game: int | None = None
    penalty: bool = False  # a judge's penalty: the values it wrote are marked on the sheet


@dataclass
class Sequences:
    """Per seat: the running totals of its pool, mountain and whists on each other seat."""

    players: int
    pool: list[list[Amount]] = field(default_factory=list)
    mountain: list[list[Amount]] = field(default_factory=list)
    whists: list[dict[int, list[Amount]]] = field(default_factory=list)
    # the values a penalty wrote: (kind, seat, on, index in its sequence)
    marks: set[tuple[str, int, int | None, int]] = field(default_factory=set)

    def marked(self, kind: str, seat: int, on: int | None = None) -> set[int]:
        """The places in a sequence of the values a penalty wrote."""
        return {i for k, s, o, i in self.marks if (k, s, o) == (kind, seat, on)}

    def __post_init__(self) -> None:
        n = self.players
        if not self.pool:
            self.pool = [[] for _ in range(n)]
            self.mountain = [[] for _ in range(n)]
            self.whists = [{j: [] for j in range(n) if j != i} for i in range(n)]


def _entries_of(item: Any) -> tuple[Sequence[Any], int | None, bool]:
    if isinstance(item, Played):
        return item.entries, item.game, item.penalty
    if isinstance(item, Mapping):
        return list(item.get("entries") or []), item.get("game"), bool(item.get("penalty"))
    return item, None, False


def _entry(e: Any) -> tuple[str, int, int | None, Amount]:
    """(kind, seat, on, amount) of an engine ``Entry`` (or of its JSON form)."""
    if isinstance(e, Entry):
        return e.kind, e.seat, e.on, e.amount
    on = e.get("on")
    return e["kind"], int(e["seat"]), None if on is None else int(on), exact(e["amount"])


def fold(players: int, history: Iterable[Any]) -> Sequences:
    """Fold a deal history into running sequences.

    ``history`` items are ``Played`` deals (the engine's entries and, in a match, the game),
    or a deal's entry list. Whists never start again at zero; a match's pools and mountains
    do in each new game. (A mapping with ``entries`` and ``game``, entries in their JSON
    form, is read too.)
    """
    seq = Sequences(players)
    pool: list[Amount] = [0] * players
    mountain: list[Amount] = [0] * players
    whists: list[list[Amount]] = [[0] * players for _ in range(players)]
    current_game: int | None = None
    for item in history:
        entries, game, penalty = _entries_of(item)
        if game is not None and current_game is not None and game != current_game:
            pool = [0] * players
            mountain = [0] * players
            for s in range(players):
                _append(seq.pool[s], 0)
                _append(seq.mountain[s], 0)
        if game is not None:
            current_game = game
        touched: dict[tuple[str, int, int | None], None] = {}
        for e in entries:
            kind, seat, on, amount = _entry(e)
            if kind == EntryKind.POOL:
                pool[seat] += amount
            elif kind == EntryKind.MOUNTAIN:
                mountain[seat] += amount
            elif kind == EntryKind.WHISTS:
                whists[seat][on] += amount  # type: ignore[index]
            else:
                continue
            touched[(kind, seat, None if kind != EntryKind.WHISTS else on)] = None
        # one new running total per value the deal changed (several entries of one deal
        # on the same value are one write on paper)
        for kind, seat, on in touched:
            if kind == EntryKind.POOL:
                values, value = seq.pool[seat], pool[seat]
            elif kind == EntryKind.MOUNTAIN:
                values, value = seq.mountain[seat], mountain[seat]
            else:
                values, value = seq.whists[seat][on], whists[seat][on]  # type: ignore[index]
            _append(values, value)
            if penalty and values and values[-1] == value:
                seq.marks.add((kind, seat, on, len(values) - 1))
    return seq


def _append(values: list[Amount], value: Amount) -> None:
    last = values[-1] if values else 0
    if value != last:
        values.append(value)


def reconcile(values: list[Amount], current: Amount) -> list[Amount]:
    """The sequence, ending with the sheet's current value: without a history (or a partial
    one) the sheet's value is what is written."""
    cur = exact(current)
    if values and values[-1] == cur:
        return values
    if not values and cur == 0:
        return []
    return values + [cur]


SEPARATOR = " · "


def written(value: Amount, lang: Language | None = None) -> str:
    """One value of a sequence: "12", "7½", "−3", else in the language's number format
    ("33,33" in Russian, "33.33" in English; as on a Russian paper sheet without one)."""
    v = exact(value)
    sign = amounts.MINUS if v < 0 else ""
    whole, rest = divmod(-v if v < 0 else v, 1)
    if rest == 0:
        return f"{sign}{int(whole)}"
    if rest == Fraction(1, 2):
        return f"{sign}{int(whole) if whole else ''}½"
    if lang is None:
        return amounts.paper(v)
    # the language's decimal sign; no thousands grouping, as a sequence's whole values have none
    return lang.number(v).replace(get_group_symbol(lang.locale), "")


PENALTY_MARK = "*"  # after a value a judge's penalty wrote


def sequence_text(
    values: Sequence[Amount], lang: Language | None = None, marked: set[int] | None = None
) -> list[str]:
    """The tokens of a written sequence: "2 · " "6 · " "10" (joined: "2 · 6 · 10"); a line
    may break after any token. ``marked``: the places of values a penalty wrote ("12*")."""
    tokens = [
        written(v, lang) + (PENALTY_MARK if marked and i in marked else "") for i, v in enumerate(values)
    ]
    return [t + SEPARATOR for t in tokens[:-1]] + tokens[-1:]
