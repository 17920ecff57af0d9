"""What the client commands print as terminal tables (rich): the sheet, the settlement, what a
deal wrote; amounts written the language's way."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from rich.table import Table

from app.kit import amounts
from app.kit.i18n import Lang
from app.kit.i18n import game_words as gw


def amount(lang: Lang, value: Any) -> str:
    """An amount as sent (an int, a decimal rounded to 0.01, or exact "p/q" text) written the
    language's way: 12, 2,5, −33,33 in Russian."""
    if value is None or isinstance(value, bool):
        return str(value)
    if isinstance(value, Decimal):
        return lang.number(value, digits=min(2, max(0, -int(value.as_tuple().exponent))))
    exact = amounts.parse(value)
    # as many decimals as it has, up to 2: 1/2 is 0,5 as the JSON number 0.5 is; 370/3 is 123,33
    digits = next((d for d in (0, 1) if (exact * 10**d).denominator == 1), 2)
    return lang.number(exact, digits=digits)


def table_state(lang: Lang, archived: bool, finished: bool) -> str:
    return lang._("archived") if archived else lang._("finished") if finished else lang._("active")


def sheet_table(lang: Lang, sheet: dict[str, Any], title: str | None = None) -> Table:
    players = sorted(sheet["players"], key=lambda p: p["seat"])
    names = {p["seat"]: p.get("name", f"#{p['seat']}") for p in players}
    n = sheet.get("deal_count", 0)
    table = Table(
        title=title or lang.ngettext("Sheet after {n} deal", "Sheet after {n} deals", n), title_justify="left"
    )
    table.add_column(lang._("seat"), justify="right")
    table.add_column(lang._("player"))
    table.add_column(lang._("pool"), justify="right")
    table.add_column(lang._("mountain"), justify="right")
    for p in players:
        table.add_column(lang._("whists on {name}", name=names[p["seat"]]), justify="right")
    for p in players:
        pool = amount(lang, p["pool"]) + (" ✓" if p.get("pool_closed") else "")
        whists = [
            ("" if q["seat"] == p["seat"] else amount(lang, p["whists"].get(str(q["seat"]), 0)))
            for q in players
        ]
        table.add_row(str(p["seat"]), names[p["seat"]], pool, amount(lang, p["mountain"]), *whists)
    allpass = sheet.get("allpass") or {}
    parts = [lang._("all-pass level {level}", level=allpass.get("level", 1))]
    if allpass.get("next_trick_cost") is not None:
        parts.append(lang._("trick cost {cost}", cost=amount(lang, allpass["next_trick_cost"])))
    if allpass.get("min_contract") is not None:
        parts.append(lang._("lowest contract {level}", level=allpass["min_contract"]))
    if allpass.get("compulsory"):
        parts.append(lang._("compulsory"))
    if sheet.get("finished"):
        state = lang._("finished")
    else:
        state = lang._("next dealer {name}", name=names.get(sheet.get("next_dealer"), "?"))
    table.caption = ", ".join(parts) + f"; {state}"
    table.caption_justify = "left"
    return table


def settlement_tables(lang: Lang, settlement: dict[str, Any]) -> list[Table]:
    names = {p["seat"]: p["name"] for p in settlement["players"]}
    # the stake as a person writes it (0.5); a service of the first version sent only "1/2"
    stake = settlement.get("stake_text") or settlement.get("stake")
    final = bool(settlement.get("final"))
    if stake is None:
        title = lang._("Settlement (final)") if final else lang._("Settlement (if the game ended now)")
    else:
        stake = lang.number(amounts.parse(stake)) if "/" in stake else amount(lang, Decimal(stake))
        title = (
            lang._("Settlement (final), stake {stake}", stake=stake)
            if final
            else lang._("Settlement (if the game ended now), stake {stake}", stake=stake)
        )
    balances = Table(title=title, title_justify="left")
    balances.add_column(lang._("player"))
    balances.add_column(lang._("balance"), justify="right")
    balances.add_column(lang._("exact"), justify="right", style="dim")
    for p in settlement["players"]:
        b = p["balance"]
        style = "green" if b > 0 else "red" if b < 0 else ""
        shown = amount(lang, b)
        balances.add_row(
            p["name"], f"[{style}]{shown}[/]" if style else shown, str(p.get("balance_exact", ""))
        )
    transfers = Table(title=lang._("Transfers"), title_justify="left")
    transfers.add_column(lang._("from"))
    transfers.add_column(lang._("to"))
    transfers.add_column(lang._("amount"), justify="right")
    for t in settlement.get("transfers", []):
        transfers.add_row(
            names.get(t["from"], str(t["from"])), names.get(t["to"], str(t["to"])), amount(lang, t["amount"])
        )
    return [balances, transfers]


def entry_words(lang: Lang, entry: dict[str, Any], names: dict[int, str]) -> str:
    """What an entry writes: "pool", "whists on Boris" ("висты на Boris")."""
    kind = gw.word(lang, gw.ENTRY_KINDS, entry["kind"])
    if entry.get("on") is None:
        return kind
    return lang._("{kind} on {name}", kind=kind, name=names.get(entry["on"], entry["on"]))


def entries_table(lang: Lang, entries: list[dict[str, Any]], names: dict[int, str]) -> Table:
    table = Table(title=lang._("Written"), title_justify="left")
    table.add_column(lang._("player"))
    table.add_column(lang._("what"))
    table.add_column(lang._("amount"), justify="right")
    for e in entries:
        table.add_row(
            names.get(e["seat"], str(e["seat"])), entry_words(lang, e, names), amount(lang, e["amount"])
        )
    return table
