"""Small helpers so that rule tests read like a paper sheet.

    t = Table("piter")                      # 3 players, first dealer seat 0
    t.deal({"type": "contract", ...})       # apply one API deal body
    assert t.pools == [0, 4, 0]
    assert t.mountains == [0, 0, 0]
    assert t.whists == {(2, 1): 24}          # (writer, written on): amount, non-zero cells only

Every expected number in the tests is computed by hand from docs/rules.md (and the seeds)
and written in a comment next to the assertion; none is copied from the engine.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest

from app.rules import (
    RULES_VERSION,
    Deal,
    RulesError,
    TableState,
    apply_deal,
    make_rules,
    settle,
    sheet,
)


def _exact(value: Any) -> Any:
    assert not isinstance(value, float), f"a float in a score: {value!r}"
    assert isinstance(value, (int, Fraction)), f"not an exact amount: {value!r}"
    return value


class Table:
    """A table of one convention and its running state, advanced deal by deal."""

    def __init__(
        self,
        convention: str,
        players: int = 3,
        *,
        pool_target: int | None = None,
        first_dealer: int = 0,
        rules_version: int = RULES_VERSION,
        **options: Any,
    ):
        self.rules = make_rules(
            convention, players=players, pool_target=pool_target, options=options, rules_version=rules_version
        )
        self.state = TableState.new(self.rules, first_dealer=first_dealer)
        self.entries: tuple = ()

    # --- setting up a position without playing it -------------------------
    def set(self, **fields: Any) -> Table:
        """Start from a given position (pools near the target, a streak, ...)."""
        self.state = replace(self.state, **fields)
        return self

    # --- playing ----------------------------------------------------------
    def deal(self, body: dict[str, Any]) -> dict[tuple, Any]:
        """Apply one deal body; return what it wrote (see ``written``)."""
        result = apply_deal(self.rules, self.state, Deal.from_dict(body))
        self.entries = result.entries
        self.state = result.state
        return written(result.entries)

    def play(self, *bodies: dict[str, Any]) -> Table:
        for body in bodies:
            self.deal(body)
        return self

    def refuse(self, body: Any, kind: type[RulesError] = RulesError) -> RulesError:
        """The deal is refused and the state is exactly what it was."""
        before = self.state
        before_dict = before.to_dict()
        with pytest.raises(kind) as info:
            self.deal(body)
        assert self.state is before
        assert self.state.to_dict() == before_dict
        assert info.value.errors, "a refusal must name at least one field"
        return info.value

    # --- the sheet, as on paper --------------------------------------------
    @property
    def pools(self) -> list:
        return [_exact(a) for a in self.state.pools]

    @property
    def mountains(self) -> list:
        return [_exact(a) for a in self.state.mountains]

    @property
    def whists(self) -> dict[tuple[int, int], Any]:
        """The non-zero cells of the whists matrix: (writer, written on) -> amount."""
        n = self.state.players
        return {
            (i, j): _exact(self.state.whists[i][j])
            for i in range(n)
            for j in range(n)
            if i != j and self.state.whists[i][j] != 0
        }

    @property
    def sheet(self) -> dict[str, Any]:
        return sheet(self.rules, self.state)

    @property
    def allpass(self) -> dict[str, Any]:
        return self.sheet["allpass"]

    def settle(self, stake: Fraction | None = None):
        return settle(self.rules, self.state, stake)


def written(entries) -> dict[tuple, Any]:
    """Entries summed by (kind, seat) for pool/mountain and (kind, seat, on) for whists; zeros dropped."""
    out: dict[tuple, Any] = {}
    for e in entries:
        key = ("whists", e.seat, e.on) if e.kind == "whists" else (e.kind, e.seat)
        out[key] = out.get(key, 0) + _exact(e.amount)
    return {k: v for k, v in out.items() if v != 0}


def fields(error: RulesError) -> set[str]:
    return {e.field for e in error.errors}


def names_field(error: RulesError, *prefixes: str) -> bool:
    """Some error's field is one of ``prefixes`` or lies under one ("defenders" matches "defenders.2")."""
    return any(f == p or f.startswith(p + ".") for f in fields(error) for p in prefixes)


# --- deal bodies --------------------------------------------------------------


def contract(
    declarer: int,
    contract_: str,
    defenders: dict[int, str],
    tricks: dict[int, int] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "type": "contract",
        "declarer": declarer,
        "contract": contract_,
        "defenders": {str(s): d for s, d in defenders.items()},
    }
    if tricks is not None:
        body["tricks"] = {str(s): t for s, t in tricks.items()}
    body.update(extra)
    return body


def misere(declarer: int, tricks: int, **extra: Any) -> dict[str, Any]:
    return {"type": "misere", "declarer": declarer, "tricks": {str(declarer): tricks}, **extra}


def remise(declarer: int, contract_: str, **extra: Any) -> dict[str, Any]:
    return {"type": "remise", "declarer": declarer, "contract": contract_, **extra}


def allpass(tricks: dict[int, int], **extra: Any) -> dict[str, Any]:
    return {"type": "allpass", "tricks": {str(s): t for s, t in tricks.items()}, **extra}


def made_whisted(
    declarer: int, level: int, players_active: tuple[int, int], strain: str = "H"
) -> dict[str, Any]:
    """A made contract whisted by the first defender only, declarer taking exactly his level.

    ``players_active`` are the two defenders (first, second). Used to end all-pass streaks.
    """
    first, second = players_active
    return contract(
        declarer,
        f"{level}{strain}",
        {first: "whist", second: "pass"},
        {declarer: level, first: 10 - level, second: 0},
    )
