"""A stored deal as the rest of the service sees it (``DealInfo``), what the deal use cases
return, and the answer an Idempotency-Key keeps, as domain objects: no SQL, no HTTP."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from types import SimpleNamespace
from typing import Any

from app.rules import Entry, TableState, amount_from_json, amount_to_json
from app.tables.model import TableInfo, rules_of


@dataclass(frozen=True)
class DealInfo:
    number: int
    body: dict[str, Any]  # canonical (Deal.to_dict())
    entries: tuple[Entry, ...]
    created_at: datetime | None = None
    dealer: int | None = None  # the seat that dealt it (as stored)


@dataclass(frozen=True)
class Posted:
    """A posted deal and the table after it; or, for a retry with the Idempotency-Key of an
    earlier post, what that post answered (``replayed``). ``earlier_answer``: the answer
    JSON itself, for a key stored before posts were kept as domain results."""

    table: TableInfo | None
    deal: DealInfo | None
    replayed: bool = False
    earlier_answer: dict[str, Any] | None = None


@dataclass(frozen=True)
class Changed:
    """An undo (the removed deal) or a correction (the corrected deal, and the later deals
    whose entries changed), with the table after it."""

    table: TableInfo
    deal: DealInfo
    rescored: tuple[int, ...] = ()


def entries_to_json(entries: tuple[Entry, ...] | list[Entry]) -> list[dict[str, Any]]:
    out = []
    for e in entries:
        d = e.to_dict()
        d["amount"] = amount_to_json(e.amount)
        out.append(d)
    return out


def entries_from_json(data: list[dict[str, Any]]) -> tuple[Entry, ...]:
    return tuple(
        Entry(kind=d["kind"], seat=d["seat"], amount=amount_from_json(d["amount"]), on=d.get("on"))
        for d in data
    )


def deal_info(row: Any) -> DealInfo:
    """A stored deal (a DealRow, or a row of its columns)."""
    return DealInfo(
        number=row.number,
        body=row.body,
        entries=entries_from_json(row.entries),
        created_at=row.created_at,
        dealer=row.dealer,
    )


def request_hash(body: dict[str, Any]) -> str:
    """The fingerprint of a posted deal's JSON as sent, kept with its Idempotency-Key: a retry
    with the key and another body is refused."""
    return hashlib.sha256(
        json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    ).hexdigest()


# --- the answer an Idempotency-Key keeps -------------------------------------------------------
# Kept as the domain result (the deal as posted and the table after it), not as the answer's
# JSON: the route renders a replay from it as it rendered the first answer, so the two are the
# same bytes, and nothing below the routes needs to know the answer's shape. The table's
# share token is not kept (no answer shows it).
ANSWER_FORMAT = 2


def _when(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def _moment(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


def kept_answer(table: TableInfo, deal: DealInfo, state: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON an Idempotency-Key keeps for a post (``state``: the table's state as JSON
    when the caller has it already)."""
    return {
        "format": ANSWER_FORMAT,
        "deal": {
            "number": deal.number,
            "body": deal.body,
            "entries": entries_to_json(deal.entries),
            "created_at": _when(deal.created_at),
            "dealer": deal.dealer,
        },
        "table": {
            "id": table.id,
            "owner": table.owner,
            "convention": table.convention,
            "players": list(table.players),
            "pool_target": table.pool_target,
            "options": table.options,
            "first_dealer": table.first_dealer,
            "deal_count": table.deal_count,
            "revision": table.revision,
            "created_at": _when(table.created_at),
            "updated_at": _when(table.updated_at),
            "title": table.title,
            "note": table.note,
            "archived_at": _when(table.archived_at),
            "rules_version": table.rules_version,
            "state": table.state.to_dict() if state is None else state,
        },
    }


def replayed(kept: dict[str, Any]) -> Posted:
    """What a kept answer replays: the deal and the table as posted, or (a key kept before
    this format) the answer's JSON as it was sent."""
    if kept.get("format") != ANSWER_FORMAT:
        return Posted(None, None, replayed=True, earlier_answer=kept)
    d, t = kept["deal"], kept["table"]
    deal = DealInfo(
        d["number"], d["body"], entries_from_json(d["entries"]), _moment(d["created_at"]), d["dealer"]
    )
    table = TableInfo(
        id=t["id"],
        owner=t["owner"],
        convention=t["convention"],
        players=tuple(t["players"]),
        pool_target=t["pool_target"],
        options=dict(t["options"]),
        first_dealer=t["first_dealer"],
        share_token="",
        deal_count=t["deal_count"],
        revision=t["revision"],
        created_at=_moment(t["created_at"]),  # type: ignore[arg-type]
        rules=rules_of(SimpleNamespace(**t)),
        state=TableState.from_dict(t["state"]),
        updated_at=_moment(t["updated_at"]),
        title=t["title"],
        note=t["note"],
        archived_at=_moment(t["archived_at"]),
        rules_version=t["rules_version"],
    )
    return Posted(table, deal, replayed=True)
