"""Running sequences, the way players write a sheet: every time a value changes the new
running total is appended (a pool written 2, then 4, then 4 reads "2 · 6 · 10").

The separator is a spaced middle dot, in every language and everywhere a sequence is shown
(the picture, the share page, the log): players write "2.6.10", but next to balances such
as "−6.66" (English) a dot between running totals reads as a decimal point, and a comma
("−6,66", Russian) would too; the middle dot is neither. Halves are "½".

Pure: folds a deal history (each deal's entries, as in docs/api.md) into, per seat, the pool,
mountain and whists-on-each-opponent sequences. Amounts are kept exact (Fraction).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from babel.numbers import get_group_symbol

from app.rules import amounts
from app.kit.i18n import DEFAULT_LANGUAGE, Lang, language
from app.rules.vocabulary import EntryKind


# The amount codec (app/rules/amounts.py), under the names this package has always exported.
to_fraction = amounts.parse
fmt_amount = amounts.paper


@dataclass
class Sequences:
    """Per seat: the running totals of its pool, mountain and whists on each other seat."""

    players: int
    pool: list[list[Fraction]] = field(default_factory=list)
    mountain: list[list[Fraction]] = field(default_factory=list)
    whists: list[dict[int, list[Fraction]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        n = self.players
        if not self.pool:
            self.pool = [[] for _ in range(n)]
            self.mountain = [[] for _ in range(n)]
            self.whists = [{j: [] for j in range(n) if j != i} for i in range(n)]


def _entries_of(item: Any) -> tuple[list[Mapping[str, Any]], int | None]:
    if isinstance(item, Mapping):
        return list(item.get("entries") or []), item.get("game")
    return list(item), None


def fold(players: int, history: Iterable[Any]) -> Sequences:
    """Fold a deal history into running sequences.

    ``history`` items are either a deal's entry list or a mapping with ``entries`` (a stored
    deal as the API returns it) and optionally ``game`` (the piter_races game the deal was
    played in: pools and mountains start again at zero in a new game; whists never do).
    """
    seq = Sequences(players)
    pool = [Fraction(0)] * players
    mountain = [Fraction(0)] * players
    whists = [[Fraction(0)] * players for _ in range(players)]
    current_game: int | None = None
    for item in history:
        entries, game = _entries_of(item)
        if game is not None and current_game is not None and game != current_game:
            pool = [Fraction(0)] * players
            mountain = [Fraction(0)] * players
            for s in range(players):
                _append(seq.pool[s], Fraction(0))
                _append(seq.mountain[s], Fraction(0))
        if game is not None:
            current_game = game
        touched: dict[tuple[str, int, int | None], None] = {}
        for e in entries:
            kind, seat = e["kind"], int(e["seat"])
            amount = to_fraction(e["amount"])
            if kind == EntryKind.POOL:
                pool[seat] += amount
            elif kind == EntryKind.MOUNTAIN:
                mountain[seat] += amount
            elif kind == EntryKind.WHISTS:
                whists[seat][int(e["on"])] += amount
            else:
                continue
            touched[(kind, seat, None if kind != EntryKind.WHISTS else int(e["on"]))] = None
        # one new running total per value the deal changed (several entries of one deal
        # on the same value are one write on paper)
        for kind, seat, on in touched:
            if kind == EntryKind.POOL:
                _append(seq.pool[seat], pool[seat])
            elif kind == EntryKind.MOUNTAIN:
                _append(seq.mountain[seat], mountain[seat])
            else:
                _append(seq.whists[seat][on], whists[seat][on])
    return seq


def _append(values: list[Fraction], value: Fraction) -> None:
    last = values[-1] if values else Fraction(0)
    if value != last:
        values.append(value)


def reconcile(values: list[Fraction], current: Any) -> list[Fraction]:
    """The sequence, ending with the sheet's current value: without a history (or a partial
    one) the sheet's value is what is written."""
    cur = to_fraction(current)
    if values and values[-1] == cur:
        return values
    if not values and cur == 0:
        return []
    return values + [cur]


SEPARATOR = " · "


def written(value: Any, lang: Lang | None = None) -> str:
    """One value of a sequence: "12", "7½", "−3", else in the language's number format
    ("33,33" in Russian, "33.33" in English)."""
    v = to_fraction(value)
    sign = amounts.MINUS if v < 0 else ""
    whole, rest = divmod(abs(v), 1)
    if rest == 0:
        return f"{sign}{int(whole)}"
    if rest == Fraction(1, 2):
        return f"{sign}{int(whole) if whole else ''}½"
    lang = lang or language(DEFAULT_LANGUAGE)
    # the language's decimal sign; no thousands grouping, as a sequence's whole values have none
    return lang.number(v).replace(get_group_symbol(lang.locale), "")


def sequence_text(values: Sequence[Any], lang: Lang | None = None) -> list[str]:
    """The tokens of a written sequence: "2 · " "6 · " "10" (joined: "2 · 6 · 10"); a line
    may break after any token."""
    tokens = [written(v, lang) for v in values]
    return [t + SEPARATOR for t in tokens[:-1]] + tokens[-1:]
