"""What a table is to the rest of the service: its settings and limits, the table as loaded
(``TableInfo``, with its rules and state), the listing's view of it, and the checks of the
players' names. No SQL here (app/tables/repository.py), no HTTP."""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, fields
from datetime import datetime, timedelta
from typing import Any

from app.kit.caching import Kept
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
class StoredTable:
    """A table's row as stored, as the services read it (``app/tables/model.loaded`` makes the
    table of it). ``registered`` and ``hooked`` are read by a post only (app/deals/repository.py):
    the rows of its registered seats, and whether its owner has a webhook endpoint."""

    id: str
    owner: str
    convention: str
    players: list[str]
    pool_target: int
    options: dict[str, Any]
    first_dealer: int
    share_token: str
    state: dict[str, Any]
    rules_version: int
    deal_count: int
    revision: int
    created_at: datetime
    updated_at: datetime
    title: str | None
    note: str | None
    archived_at: datetime | None
    rated: bool
    locked: str | None
    registered: list[list[Any]] | None = None
    hooked: bool = False


_COLUMNS = tuple(f.name for f in fields(StoredTable) if f.name not in ("registered", "hooked"))


def stored(row: Any) -> StoredTable:
    """The record of a table's row: an ORM instance, or a row of the table's columns (and
    perhaps ``registered`` and ``hooked``)."""
    mapping = getattr(row, "_mapping", None)  # a row of columns (SQLAlchemy's Row)
    if mapping is not None:
        return StoredTable(**mapping)
    return StoredTable(**{name: getattr(row, name) for name in _COLUMNS})


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


# The rules of a table's settings, made once per process (a few conventions and options in use).
_RULES: Kept[tuple[str, int, int, str, int], Rules] = Kept(1024)


def rules_of(row: Any) -> Rules:
    """The table's rules under the rules version it was created with: a table keeps scoring
    as it always did when a later version reads a seed passage anew (docs/rules.md)."""
    options = json.dumps(row.options, sort_keys=True)
    key = (row.convention, len(row.players), row.pool_target, options, row.rules_version)
    return _RULES.get_or_make(
        key,
        lambda: make_rules(
            row.convention,
            players=len(row.players),
            pool_target=row.pool_target,
            options=json.loads(options),
            rules_version=row.rules_version,
        ),
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
