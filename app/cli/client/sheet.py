"""``prefscore sheet`` and ``prefscore settle``: a table's sheet, its balances and transfers."""

from __future__ import annotations

import click

from app.cli.client.connection import Client, server_options, stdout
from app.cli.client.language import current_lang
from app.cli.client.printing import settlement_tables, sheet_table


@click.command("sheet")
@click.argument("table_id")
@server_options
def sheet_command(table_id: str, url: str, key: str | None) -> None:
    """Show a table's sheet: pools, mountains, whists, the all-pass level."""
    with Client(url, key) as client:
        table = client.table(table_id)
    lang = current_lang()
    title = lang.ngettext(
        "{convention}, pool to {pool}: {n} deal", "{convention}, pool to {pool}: {n} deals", table["deal_count"],
        convention=table["convention"], pool=table["pool_target"],
    )
    stdout().print(sheet_table(lang, table["sheet"], title))


@click.command("settle")
@click.argument("table_id")
@click.option("--stake", help="money per whist, e.g. 0.5")
@server_options
def settle_command(table_id: str, stake: str | None, url: str, key: str | None) -> None:
    """Show the balances and the fewest transfers that settle them."""
    with Client(url, key) as client:
        settlement = client.settlement(table_id, stake)
    console = stdout()
    for table in settlement_tables(current_lang(), settlement):
        console.print(table)
