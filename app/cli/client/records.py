"""``prefscore import`` and ``prefscore export``: deals posted from a file into a table, a game
record (docs/record.md) as a new table, a table as a record or CSV."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from app.cli.client.connection import (
    ApiError,
    Client,
    describe_problem,
    echo_json,
    json_option,
    server_options,
)
from app.cli.client.deals import STORED_ONLY, format_deal_safe
from app.cli.client.language import current_lang
from app.cli.client.notation import NotationError, parse_deal

RECORD_FORMAT = "prefscore-record"


def load_deals(path: Path) -> list[dict[str, Any]]:
    """Deal bodies from a JSON file: a list of deal bodies, stored deals (their number and
    entries are dropped) or notation strings; or a page of a deal listing as the service
    answers it (``{"items": [...], "next": ...}``, keyed or shared), or the share link's
    first shape ``{"deals": [...]}``."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise click.BadParameter(f"{path}: {exc}", param_hint="DEALS_JSON") from exc
    if isinstance(data, dict):
        if isinstance(data.get("items"), list):
            data = data["items"]
        elif isinstance(data.get("deals"), list):
            data = data["deals"]
    lang = current_lang()
    if not isinstance(data, list):
        raise click.BadParameter(
            lang._('{file}: expected a JSON list of deals, or a listing page {{"items": [...]}}', file=path),
            param_hint="DEALS_JSON",
        )
    bodies = []
    for i, item in enumerate(data, start=1):
        if isinstance(item, str):
            try:
                item = parse_deal(item)
            except NotationError as exc:
                raise click.BadParameter(
                    lang._("{file}: deal {number}: {error}", file=path, number=i, error=exc.in_(lang)),
                    param_hint="DEALS_JSON",
                ) from exc
        if not isinstance(item, dict):
            raise click.BadParameter(
                lang._("{file}: deal {number} is not an object", file=path, number=i), param_hint="DEALS_JSON"
            )
        bodies.append({k: v for k, v in item.items() if k not in STORED_ONLY})
    return bodies


def read_json(path: Path, hint: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise click.BadParameter(f"{path}: {exc}", param_hint=hint) from exc


def is_record(data: Any) -> bool:
    """A game record says so in its ``format`` field (docs/record.md)."""
    return isinstance(data, dict) and data.get("format") == RECORD_FORMAT


@click.command("import")
@click.argument("table_id_or_file")
@click.argument("deals_json", required=False, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@json_option
@server_options
def import_command(
    table_id_or_file: str, deals_json: Path | None, as_json: bool, url: str, key: str | None
) -> None:
    """Two shapes:

    \b
      prefscore import TABLE_ID DEALS_JSON   post the deals of DEALS_JSON into the table
      prefscore import RECORD_JSON           a game record (its "format" is
                                             "prefscore-record") as a new table; prints its id

    Deals are posted in order, stopping at the first one the service refuses. Each carries an
    Idempotency-Key made from the table, its position in the file and its body, so running
    the import again after fixing the refused deal does not post the deals before it twice.
    A record is one request: the service re-scores it and refuses it whole if it disagrees.
    With --json, the new table as the service answered (a record's import)."""
    if deals_json is None:
        import_record_file(Path(table_id_or_file), as_json, url, key)
        return
    if is_record(read_json(deals_json, "DEALS_JSON")):
        raise click.BadParameter(
            current_lang()._(
                "{file} is a game record: import it as a new table with `prefscore import {file}`",
                file=deals_json,
            ),
            param_hint="DEALS_JSON",
        )
    import_deals(table_id_or_file, deals_json, url, key)


def import_record_file(path: Path, as_json: bool, url: str, key: str | None) -> None:
    lang = current_lang()
    if not path.is_file():
        raise click.BadParameter(lang._("{file}: no such file", file=path), param_hint="RECORD_JSON")
    data = read_json(path, "RECORD_JSON")
    if not is_record(data):
        raise click.BadParameter(
            lang._(
                '{file} is not a game record (no "format": "{format}"); to post deals into a table: prefscore import TABLE_ID {file}',
                file=path,
                format=RECORD_FORMAT,
            ),
            param_hint="RECORD_JSON",
        )
    with Client(url, key) as client:
        table = client.import_record(data)
    if as_json:
        echo_json(table)
        return
    err = Console(stderr=True, highlight=False)
    n = table["deal_count"]
    err.print(
        current_lang().ngettext(
            "imported {n} deal of {file} as a new table; share link:",
            "imported {n} deals of {file} as a new table; share link:",
            n,
            file=path.name,
        ),
        markup=False,
    )
    err.print(f"{url.rstrip('/')}/shared/{table['share_token']}", markup=False)
    click.echo(table["id"])


def import_deals(table_id: str, deals_json: Path, url: str, key: str | None) -> None:
    bodies = load_deals(deals_json)
    lang = current_lang()
    console = Console(stderr=True, highlight=False)
    client = Client(url, key)
    posted = 0
    try:
        table_id = client.table_id(table_id)
        with Progress(
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=console,
            transient=False,
        ) as progress:
            task = progress.add_task(lang._("importing deals"), total=len(bodies))
            for number, body in enumerate(bodies, start=1):
                try:
                    client.post_deal(table_id, body, idempotency_key=import_key(table_id, number, body))
                except ApiError as exc:
                    progress.stop()
                    refused = lang._("deal {number} of {file} refused", number=number, file=deals_json.name)
                    console.print(f"[red]{escape(refused)}[/] ({escape(format_deal_safe(body, lang))})")
                    console.print(describe_problem(exc.problem, lang, exc.language), markup=False)
                    raise SystemExit(1) from None
                posted += 1
                progress.advance(task)
    finally:
        client.close()
    console.print(
        lang.ngettext(
            "imported {n} deal into table {table}",
            "imported {n} deals into table {table}",
            posted,
            table=table_id,
        ),
        markup=False,
    )


def import_key(table_id: str, position: int, body: dict[str, Any]) -> str:
    raw = json.dumps([table_id, position, body], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "import-" + hashlib.sha256(raw.encode()).hexdigest()[:32]


@click.command("export")
@click.argument("table_id")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["json", "csv"]),
    default="json",
    show_default=True,
    help="json: the game record (docs/record.md); csv: one row per entry",
)
@click.option(
    "--output", "-o", type=click.Path(dir_okay=False, path_type=Path), help="a file (default: stdout)"
)
@server_options
def export_command(table_id: str, fmt: str, output: Path | None, url: str, key: str | None) -> None:
    """Export a table as a game record (or its entries as CSV)."""
    with Client(url, key) as client:
        text = client.export(client.table_id(table_id), fmt)
    if fmt == "json":
        text = json.dumps(json.loads(text), ensure_ascii=False, indent=2) + "\n"
    if output is None:
        click.echo(text, nl=False)
    else:
        output.write_text(text, encoding="utf-8", newline="")
        Console(stderr=True, highlight=False).print(
            current_lang()._("wrote {file}", file=output), markup=False
        )
