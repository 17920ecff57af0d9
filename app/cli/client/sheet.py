"""``prefscore sheet`` and ``prefscore settle``: a table's sheet, its balances and transfers."""

from __future__ import annotations

import click

from app.cli.client.connection import Client, echo_json, json_option, server_options, show
from app.cli.client.language import current_lang
from app.cli.client.printing import settlement_tables, sheet_table


@click.command("sheet")
@click.argument("table_id")
@json_option
@server_options
def sheet_command(table_id: str, as_json: bool, url: str, key: str | None) -> None:
    """Show a table's sheet: pools, mountains, whists, the all-pass level."""
    with Client(url, key) as client:
        table = client.table(client.table_id(table_id))
    if as_json:
        echo_json(table["sheet"])
        return
    lang = current_lang()
    title = lang.ngettext(
        "{convention}, pool to {pool}: {n} deal",
        "{convention}, pool to {pool}: {n} deals",
        table["deal_count"],
        convention=table["convention"],
        pool=table["pool_target"],
    )
    show(sheet_table(lang, table["sheet"], title))


@click.command("settle")
@click.argument("table_id")
@click.option("--stake", help="money per whist, e.g. 0.5")
@json_option
@server_options
def settle_command(table_id: str, stake: str | None, as_json: bool, url: str, key: str | None) -> None:
    """Show the balances and the fewest transfers that settle them."""
    with Client(url, key) as client:
        settlement = client.settlement(client.table_id(table_id), stake)
    if as_json:
        echo_json(settlement)
        return
    show(*settlement_tables(current_lang(), settlement))
