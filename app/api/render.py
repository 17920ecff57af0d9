"""Exact engine values to JSON: amounts are ints when whole, else floats rounded to 0.01
(multiples of 0.5 stay exact); settlement shows cents and the exact fraction."""

from __future__ import annotations

from datetime import datetime, timezone
from fractions import Fraction
from typing import Any

from app.rules import Entry, Settlement, sheet
from app.services.deals import DealInfo
from app.services.tables import TableInfo


def number(value: Any) -> Any:
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return int(value.numerator)
        return round(float(value), 2)
    if isinstance(value, float):
        return int(value) if value.is_integer() else round(value, 2)
    return value


def _numbers(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _numbers(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_numbers(v) for v in obj]
    if isinstance(obj, (int, Fraction, float)) and not isinstance(obj, bool):
        return number(obj)
    return obj


def timestamp(value: datetime | None) -> str | None:
    if value is None:
        return None
    if value.tzinfo is None:  # SQLite hands back naive UTC datetimes
        value = value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def render_sheet(table: TableInfo) -> dict[str, Any]:
    """API.md "Sheet": the engine's sheet with JSON numbers and each player's name."""
    out = _numbers(sheet(table.rules, table.state))
    out["players"] = [
        {"seat": p["seat"], "name": table.players[p["seat"]], **{k: v for k, v in p.items() if k != "seat"}}
        for p in out["players"]
    ]
    return out


def render_entries(entries: tuple[Entry, ...]) -> list[dict[str, Any]]:
    return [_numbers(e.to_dict()) for e in entries]


def render_deal(deal: DealInfo) -> dict[str, Any]:
    out: dict[str, Any] = {"number": deal.number, **deal.body, "entries": render_entries(deal.entries)}
    if deal.created_at is not None:
        out["created_at"] = timestamp(deal.created_at)
    return out


def render_table(table: TableInfo) -> dict[str, Any]:
    return {
        "id": table.id,
        "convention": table.convention,
        "pool_target": table.pool_target,
        "first_dealer": table.first_dealer,
        "options": table.options,
        "players": [{"seat": i, "name": n} for i, n in enumerate(table.players)],
        "deal_count": table.deal_count,
        "share_token": table.share_token,
        "created_at": timestamp(table.created_at),
        "sheet": render_sheet(table),
    }


def exact_string(value: Fraction | int) -> str:
    value = Fraction(value)
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def cents(value: int) -> int | float:
    return value // 100 if value % 100 == 0 else round(value / 100, 2)


def render_settlement(table: TableInfo, result: Settlement, stake: Fraction | None) -> dict[str, Any]:
    out: dict[str, Any] = {"final": result.final}
    if stake is not None:
        out["stake"] = exact_string(stake)
    out["players"] = [
        {
            "seat": seat,
            "name": table.players[seat],
            "balance": cents(result.cents[seat]),
            "balance_exact": exact_string(result.balances[seat]),
        }
        for seat in range(len(table.players))
    ]
    out["transfers"] = [{"from": t.payer, "to": t.payee, "amount": cents(t.cents)} for t in result.transfers]
    return out


def deal_response(table: TableInfo, deal: DealInfo | None) -> dict[str, Any]:
    return {"deal": render_deal(deal) if deal is not None else None, "sheet": render_sheet(table)}
