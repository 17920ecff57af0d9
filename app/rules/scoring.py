"""Scoring one deal (RULES.md sections 5-7): entries written and the new state."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .conventions import Rules
from .deal import Deal
from .state import Entry, TableState


@dataclass(frozen=True, slots=True)
class DealResult:
    entries: tuple[Entry, ...]
    state: TableState


@dataclass(frozen=True, slots=True)
class Replay:
    state: TableState
    entries: tuple[tuple[Entry, ...], ...]  # per deal, in order


def apply_deal(rules: Rules, state: TableState, deal: Deal) -> DealResult:
    """Score ``deal`` on ``state``. Raises InvalidDeal (or a subclass); ``state`` is never changed."""
    raise NotImplementedError


def replay(rules: Rules, first_dealer: int, deals: Iterable[Deal]) -> Replay:
    """Fold a deal log from a new table. Raises ReplayError naming the first refused deal."""
    raise NotImplementedError
