"""What a table is to the rest of the service: its settings and limits, the table as loaded
(``TableInfo``, with its rules and state), the listing's view of it, and the checks of the
players' names. No SQL here (app/tables/repository.py), no HTTP."""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from app.kit.etags import TABLE_ID_RE, sheet_etag
from app.kit.settings import Settings, default_of
from app.rules import RULES_VERSION, FieldError, Rules, Settlement, TableState, make_rules

__all__ = ["TABLE_ID_RE"]

SHARE_TOKEN_RE = re.compile(r"^[A-Za-z0-9_-]{16,64}$")


@dataclass(frozen=True)
class Limits:
    """What one key may store (docs/configuration.md): deals per table, tables per owner,
    and how long an Idempotency-Key's answer is kept (None: for ever)."""

    # The defaults are the settings' (written there only).
    deals_per_table: int = default_of("max_deals_per_table")
    tables_per_owner: int = default_of("max_tables_per_owner")
    idempotency_ttl: timedelta | None = timedelta(days=default_of("idempotency_days"))

    @classmethod
    def of(cls, settings: Settings) -> Limits:
        days = settings.idempotency_days
        return cls(
            deals_per_table=settings.max_deals_per_table,
            tables_per_owner=settings.max_tables_per_owner,
            idempotency_ttl=timedelta(days=days) if days > 0 else None,
        )


DEFAULT_LIMITS = Limits()


@dataclass(frozen=True)
class TableInfo:
    id: str
    owner: str
    convention: str
    players: tuple[str, ...]
    pool_target: int
    options: dict[str, Any]
    first_dealer: int
    share_token: str
    deal_count: int
    revision: int
    created_at: datetime
    rules: Rules
    state: TableState
    updated_at: datetime | None = None
    title: str | None = None
    note: str | None = None
    archived_at: datetime | None = None
    rules_version: int = RULES_VERSION
    rated: bool = False  # counts for its players' ratings once finished (app/ratings)

    @property
    def archived(self) -> bool:
        return self.archived_at is not None

    @property
    def etag(self) -> str:
        return sheet_etag(self.id, self.revision, self.deal_count)


@lru_cache(maxsize=1024)
def _rules_cached(
    convention: str, players: int, pool_target: int, options_json: str, rules_version: int
) -> Rules:
    return make_rules(
        convention,
        players=players,
        pool_target=pool_target,
        options=json.loads(options_json),
        rules_version=rules_version,
    )


def rules_of(row: Any) -> Rules:
    """The table's rules under the rules version it was created with: a table keeps scoring
    as it always did when a later version reads a seed passage anew (docs/rules.md)."""
    return _rules_cached(
        row.convention,
        len(row.players),
        row.pool_target,
        json.dumps(row.options, sort_keys=True),
        row.rules_version,
    )


def state_of(row: Any) -> TableState:
    """The engine state after the table's last deal, as stored: it was written under the
    table's own rules version, which ``rules_of`` gives back, so it never needs a new fold."""
    return TableState.from_dict(row.state)


def info(row: Any, rules: Rules, state: TableState) -> TableInfo:
    """The table of a stored row (a TableRow, or a row of its columns)."""
    return TableInfo(
        id=row.id,
        owner=row.owner,
        convention=row.convention,
        players=tuple(row.players),
        pool_target=row.pool_target,
        options=dict(row.options),
        first_dealer=row.first_dealer,
        share_token=row.share_token,
        deal_count=row.deal_count,
        revision=row.revision,
        created_at=row.created_at,
        rules=rules,
        state=state,
        updated_at=row.updated_at,
        title=row.title,
        note=row.note,
        archived_at=row.archived_at,
        rules_version=row.rules_version,
        rated=bool(getattr(row, "rated", False)),
    )


def loaded(row: Any) -> TableInfo:
    """``info`` with the row's own rules and state."""
    return info(row, rules_of(row), state_of(row))


def check_names(names: list[str], field: str = "players") -> list[FieldError]:
    """The names of a table's players: not empty, printable, distinct ignoring case, in NFC."""
    if any(not n for n in names):
        return [FieldError(field, "names must not be empty")]
    if any(not n.isprintable() for n in names):
        return [FieldError(field, "names must not contain control characters")]
    if len(set(unicodedata.normalize("NFC", n.casefold()) for n in names)) != len(names):
        return [FieldError(field, "names must be distinct")]
    return []


@dataclass(frozen=True)
class ListedTable:
    """A table as the listing shows it: no state or rules, only the settlement of a finished
    table (a table being played has no final balances to show)."""

    id: str
    convention: str
    title: str | None
    players: tuple[str, ...]
    deal_count: int
    revision: int
    archived: bool
    created_at: datetime
    updated_at: datetime
    settlement: Settlement | None  # in whists, when the game is finished

    @property
    def finished(self) -> bool:
        return self.settlement is not None


@dataclass(frozen=True)
class TablePage:
    tables: tuple[ListedTable, ...]
    next_cursor: str | None


# A PATCH's field left out (None is a value: "no title").
UNSET: Any = object()
