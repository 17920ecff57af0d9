"""``prefscore deal ...``: add, list, undo and correct the deals of a table, in the short notation
(app/cli/client/notation.py)."""

from __future__ import annotations

import json
from typing import Any

import click
from rich.table import Table

from app.cli.client.connection import (
    Client,
    echo_json,
    global_options,
    json_option,
    quiet_option,
    server_options,
    show,
    stdout,
)
from app.cli.client.language import Failure, current_lang
from app.cli.client.notation import NotationError, format_deal, parse_deal
from app.cli.client.printing import amount, entries_table, entry_words, sheet_table
from app.kit.i18n import Lang
from app.kit.i18n import game_words as gw

# Fields of a stored deal (GET .../deals) that are outputs, not part of a deal body.
STORED_ONLY = ("number", "entries", "created_at")


@click.group("deal")
@global_options
def deal_group() -> None:
    """Deals of a table."""


@deal_group.command("add", context_settings={"ignore_unknown_options": True})
@click.argument("table_id")
@click.argument("notation", nargs=-1, required=True)
@json_option
@server_options
def deal_add(table_id: str, notation: tuple[str, ...], as_json: bool, url: str, key: str | None) -> None:
    """Post one deal written in the short notation, e.g.

    \b
      7H 1 w2 p0 1:6 2:3 0:1   contract 7H by seat 1, seat 2 whists, seat 0 passes, tricks
      8NT 2 p0 p1              both defenders pass
      7D 1 p2 h0               half-whist
      mis 0 0:1                misère, seat 0 took one trick
      rem 2 8S                 remise (without three)
      pass 0:2 1:5 2:3         all-pass
    \b
    Options: dealer=N writeoff=S,S help=S talon=ace|marriage|ace_king|two_aces discarded
    returned over_misere note=free text to the end.
    """
    try:
        body = parse_deal(" ".join(notation))
    except NotationError as exc:
        raise click.BadParameter(exc.in_(current_lang()), param_hint="NOTATION") from exc
    with Client(url, key) as client:
        result = client.post_deal(client.table_id(table_id), body)
    if as_json:
        echo_json(result)
        return
    lang = current_lang()
    sheet = result["sheet"]
    names = {p["seat"]: p["name"] for p in sheet["players"]}
    console = stdout()
    console.print(
        lang._("deal {number}: {deal}", number=result["deal"]["number"], deal=format_deal(body, lang)),
        markup=False,
    )
    show(entries_table(lang, result["deal"]["entries"], names), sheet_table(lang, sheet))


@deal_group.command("list")
@click.argument("table_id")
@json_option
@quiet_option
@server_options
def deal_list(table_id: str, as_json: bool, quiet: bool, url: str, key: str | None) -> None:
    """Every deal of a table, in the short notation, with what it wrote (-q: the numbers)."""
    with Client(url, key) as client:
        table_id = client.table_id(table_id)
        names = {p["seat"]: p["name"] for p in client.table(table_id)["players"]}
        deals = client.deals(table_id)
    if as_json:
        echo_json(deals)
        return
    if quiet:
        for d in deals:
            click.echo(d["number"])
        return
    lang = current_lang()
    table = Table(title=gw.deal_count(lang, len(deals)), title_justify="left")
    table.add_column("#", justify="right")
    table.add_column(lang._("deal"))
    table.add_column(lang._("written"))
    for d in deals:
        body = {k: v for k, v in d.items() if k not in STORED_ONLY}
        written = "; ".join(
            f"{names.get(e['seat'], e['seat'])} {entry_words(lang, e, names)} {amount(lang, e['amount'])}"
            for e in d["entries"]
        )
        table.add_row(str(d["number"]), format_deal_safe(body, lang), written)
    show(table)


@deal_group.command("undo")
@click.argument("table_id")
@click.argument("number", required=False, type=click.IntRange(min=1))
@json_option
@server_options
def deal_undo(table_id: str, number: int | None, as_json: bool, url: str, key: str | None) -> None:
    """Undo the last deal (NUMBER, when given, must be the last one's)."""
    with Client(url, key) as client:
        table_id = client.table_id(table_id)
        if number is None:
            number = client.table(table_id)["deal_count"]
            if number == 0:
                raise Failure(current_lang()._("table {table} has no deal to undo", table=table_id))
        result = client.undo_deal(table_id, number)
    if as_json:
        echo_json(result)
        return
    lang = current_lang()
    console = stdout()
    undone = format_deal_safe({k: v for k, v in result["deal"].items() if k not in STORED_ONLY}, lang)
    console.print(lang._("undid deal {number}: {deal}", number=number, deal=undone), markup=False)
    show(sheet_table(lang, result["sheet"]))


@deal_group.command("correct", context_settings={"ignore_unknown_options": True})
@click.argument("table_id")
@click.argument("number", type=click.IntRange(min=1))
@click.argument("notation", nargs=-1, required=True)
@json_option
@server_options
def deal_correct(
    table_id: str, number: int, notation: tuple[str, ...], as_json: bool, url: str, key: str | None
) -> None:
    """Correct deal NUMBER with a deal in the short notation (as `deal add`); later deals are
    re-scored, or nothing changes if one of them no longer fits."""
    try:
        body = parse_deal(" ".join(notation))
    except NotationError as exc:
        raise click.BadParameter(exc.in_(current_lang()), param_hint="NOTATION") from exc
    with Client(url, key) as client:
        result = client.correct_deal(client.table_id(table_id), number, body)
    if as_json:
        echo_json(result)
        return
    lang = current_lang()
    console = stdout()
    console.print(
        lang._("deal {number} is now: {deal}", number=number, deal=format_deal(body, lang)), markup=False
    )
    if result.get("rescored"):
        console.print(
            lang._("re-scored: deals {numbers}", numbers=", ".join(str(n) for n in result["rescored"])),
            markup=False,
        )
    show(sheet_table(lang, result["sheet"]))


def format_deal_safe(body: dict[str, Any], lang: Lang | None = None) -> str:
    try:
        return format_deal(body, lang)
    except (KeyError, TypeError, AttributeError):
        return json.dumps(body, ensure_ascii=False)[:200]
