"""``prefscore table ...``: create, list, show, rename, archive, unarchive, delete a table; its
scorer links (the link for the phone, with a QR code to scan: app/cli/client/scorer_link.py)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import click
from rich.console import Console
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
from app.cli.client.language import current_lang
from app.cli.client.printing import sheet_table, table_state
from app.cli.client.scorer_link import print_qr, public_base
from app.kit.i18n import N_, Lang
from app.kit.i18n import game_words as gw
from app.rules.conventions import CONVENTION_NAMES


def _parse_option(text: str) -> tuple[str, Any]:
    key, sep, raw = text.partition("=")
    if not sep or not key:
        raise click.BadParameter(
            current_lang()._(
                "{text}: write NAME=VALUE, e.g. stalingrad=false or allpass_costs=[2,4,8]", text=repr(text)
            )
        )
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    return key.strip(), value


@click.group("table")
@global_options
def table_group() -> None:
    """Tables on the service."""


@table_group.command("create")
@click.option("--convention", required=True, help=", ".join(CONVENTION_NAMES))
@click.option("--players", required=True, help="3 or 4 names, comma-separated: Anna,Boris,Vera")
@click.option("--pool-target", type=click.IntRange(min=1), help="default 20 (piter_races 22)")
@click.option("--first-dealer", type=click.IntRange(min=0), default=0, show_default=True)
@click.option(
    "--option", "options", multiple=True, metavar="NAME=VALUE", help="a convention option (JSON value)"
)
@json_option
@server_options
def table_create(
    convention: str,
    players: str,
    pool_target: int | None,
    first_dealer: int,
    options: tuple[str, ...],
    as_json: bool,
    url: str,
    key: str | None,
) -> None:
    """Create a table and print its id and share link."""
    body: dict[str, Any] = {
        "players": [p.strip() for p in players.split(",")],
        "convention": convention,
        "first_dealer": first_dealer,
        "options": dict(_parse_option(o) for o in options),
    }
    if pool_target is not None:
        body["pool_target"] = pool_target
    with Client(url, key) as client:
        table = client.create_table(body)
    if as_json:
        echo_json(table)
        return
    # The id alone on stdout (TABLE=$(prefscore table create ...)); the rest on stderr.
    lang = current_lang()
    err = Console(stderr=True, highlight=False)
    names = ", ".join(p["name"] for p in table["players"])
    err.print(
        lang._(
            "table for {names} ({convention}, pool to {pool}); share link:",
            names=names,
            convention=table["convention"],
            pool=table["pool_target"],
        ),
        markup=False,
    )
    err.print(f"{url.rstrip('/')}/shared/{table['share_token']}", markup=False)
    click.echo(table["id"])


@table_group.command("scorer-link")
@click.argument("table_id")
@click.option("--list", "listing", is_flag=True, help="list the table's scorer links instead")
@click.option(
    "--revoke", "revoke", type=click.IntRange(min=1), metavar="LINK_ID", help="revoke this link instead"
)
@click.option(
    "--public-url",
    help="the address the phone opens, e.g. http://192.168.1.20:8000; default: PREFSCORE_PUBLIC_URL, "
    "else --url, its loopback host (127.0.0.1, localhost) replaced by this machine's address on the network",
)
@click.option(
    "--qr/--no-qr",
    default=True,
    show_default=True,
    help="a QR code of the link in the terminal (on stderr), for the phone to scan",
)
@json_option
@quiet_option
@server_options
def table_scorer_link(
    table_id: str,
    listing: bool,
    revoke: int | None,
    public_url: str | None,
    qr: bool,
    as_json: bool,
    quiet: bool,
    url: str,
    key: str | None,
) -> None:
    """A new scoring page for a phone at the table: the link is printed (once) to open there,
    with a QR code to scan; it may score this table's deals and nothing else."""
    lang = current_lang()
    with Client(url, key) as client:
        table_id = client.table_id(table_id)
        if revoke is not None:
            _revoke_scorer_link(client, table_id, revoke, lang, as_json=as_json, quiet=quiet)
            return
        if listing:
            _list_scorer_links(client, table_id, lang, as_json=as_json, quiet=quiet)
            return
        link = client.scorer_link(table_id)
    _print_new_scorer_link(link, public_url, url, lang, qr=qr, as_json=as_json, quiet=quiet)


def _revoke_scorer_link(
    client: Client, table_id: str, revoke: int, lang: Lang, *, as_json: bool, quiet: bool
) -> None:
    link = client.revoke_scorer_link(table_id, revoke)
    if as_json:
        echo_json(link)
    elif quiet:
        click.echo(link["id"])
    else:
        click.echo(lang._("revoked scorer link {id} ({prefix}...)", id=link["id"], prefix=link["prefix"]))


def _list_scorer_links(client: Client, table_id: str, lang: Lang, *, as_json: bool, quiet: bool) -> None:
    links = client.scorer_links(table_id)
    if as_json:
        echo_json(links)
        return
    for link in links:
        if quiet:
            click.echo(link["id"])
            continue
        when = {
            k: lang.datetime(datetime.fromisoformat(link[k])) for k in ("created_at", "revoked_at") if link[k]
        }
        state = lang._("revoked {when}", when=when["revoked_at"]) if link["revoked_at"] else lang._("working")
        made = lang._("made {when}", when=when["created_at"])
        click.echo(f"{link['id']}\t{link['prefix']}...\t{made}\t{state}")


def _print_new_scorer_link(
    link: dict[str, Any],
    public_url: str | None,
    url: str,
    lang: Lang,
    *,
    qr: bool,
    as_json: bool,
    quiet: bool,
) -> None:
    base, guessed = public_base(public_url, url)
    address = f"{base}{link['link']}"
    if as_json:
        echo_json({**link, "url": address})
        return
    # The link alone on stdout (LINK=$(prefscore table scorer-link ...)); the rest on stderr.
    if not quiet:
        err = Console(stderr=True, highlight=False)
        err.print(
            lang._("scorer link {id}: open it on the phone; revoke with --revoke {id}", id=link["id"]),
            markup=False,
        )
        if guessed:
            err.print(
                lang._(
                    "{url} is this machine's address on the network: the server must listen there (prefscore serve --host 0.0.0.0); "
                    "give --public-url or PREFSCORE_PUBLIC_URL if the phone reaches it by another address",
                    url=base,
                ),
                markup=False,
            )
        if qr:
            print_qr(address)
    click.echo(address)


@table_group.command("list")
@click.option(
    "--status",
    type=click.Choice(["active", "finished", "archived"]),
    help="default: every table not archived",
)
@click.option("--convention", help="only this convention's tables")
@click.option("--player", help="only the tables with a player of this name")
@json_option
@quiet_option
@server_options
def table_list(
    status: str | None,
    convention: str | None,
    player: str | None,
    as_json: bool,
    quiet: bool,
    url: str,
    key: str | None,
) -> None:
    """The key owner's tables, latest activity first (ids in full: copy one, or its
    beginning, into the other commands)."""
    params = {k: v for k, v in (("status", status), ("convention", convention), ("player", player)) if v}
    with Client(url, key) as client:
        tables = client.tables({**params, "limit": 200})
    if as_json:
        echo_json(tables)
        return
    if quiet:
        for t in tables:
            click.echo(t["id"])
        return
    lang = current_lang()
    table = Table(title=lang.ngettext("{n} table", "{n} tables", len(tables)), title_justify="left")
    for column in (
        N_("id"),
        N_("title"),
        N_("convention"),
        N_("players"),
        N_("deals"),
        N_("state"),
        N_("updated"),
    ):
        table.add_column(
            lang._(column), justify="right" if column == "deals" else "left", no_wrap=column == "id"
        )
    for t in tables:
        table.add_row(
            t["id"],
            t["title"] or "",
            t["convention"],
            ", ".join(p["name"] for p in t["players"]),
            lang.number(t["deal_count"]),
            table_state(lang, t["archived"], t["finished"]),
            lang.datetime(datetime.fromisoformat(t["updated_at"])),
        )
    show(table)


@table_group.command("show")
@click.argument("table_id")
@json_option
@server_options
def table_show(table_id: str, as_json: bool, url: str, key: str | None) -> None:
    """A table: its title, note, settings and sheet."""
    with Client(url, key) as client:
        t = client.table(client.table_id(table_id))
    if as_json:
        echo_json(t)
        return
    lang = current_lang()
    console = stdout()
    names = ", ".join(p["name"] for p in t["players"])
    console.print(
        lang._(
            "{title}: {names} ({convention}, pool to {pool}; {state})",
            title=t["title"] or lang._("untitled"),
            names=names,
            convention=t["convention"],
            pool=t["pool_target"],
            state=table_state(lang, t["archived"], t["sheet"]["finished"]),
        ),
        markup=False,
    )
    if t.get("note"):
        console.print(lang._("note: {note}", note=t["note"]), markup=False)
    link = f"{url.rstrip('/')}/shared/{t['share_token']}"
    console.print(lang._("share link: {url}", url=link), markup=False)
    console.print(lang._("id: {id}", id=t["id"]), markup=False)
    show(sheet_table(lang, t["sheet"], gw.deal_count(lang, t["deal_count"])))


@table_group.command("rename")
@click.argument("table_id")
@click.option("--players", help="every seat's new name, comma-separated: Anna,Boris,Vera")
@click.option("--title", help='a title ("" removes it)')
@click.option("--note", help='a free note ("" removes it)')
@json_option
@server_options
def table_rename(
    table_id: str,
    players: str | None,
    title: str | None,
    note: str | None,
    as_json: bool,
    url: str,
    key: str | None,
) -> None:
    """Rename the players (the sheet is unchanged), set the title or the note."""
    body: dict[str, Any] = {}
    if players is not None:
        body["players"] = [p.strip() for p in players.split(",")]
    if title is not None:
        body["title"] = title or None
    if note is not None:
        body["note"] = note or None
    if not body:
        raise click.UsageError(current_lang()._("give --players, --title or --note"))
    _patch(table_id, body, as_json, url, key)


def _patch(table_id: str, body: dict[str, Any], as_json: bool, url: str, key: str | None) -> None:
    with Client(url, key) as client:
        t = client.patch_table(client.table_id(table_id), body)
    if as_json:
        echo_json(t)
        return
    lang = current_lang()
    names = ", ".join(p["name"] for p in t["players"])
    state = lang._("archived") if t["archived"] else lang._("not archived")
    click.echo(f"{t['id']}: {t['title'] or lang._('untitled')}; {names}; {state}")


@table_group.command("archive")
@click.argument("table_id")
@json_option
@server_options
def table_archive(table_id: str, as_json: bool, url: str, key: str | None) -> None:
    """Archive a table: it takes no deal and leaves `table list` (see --status archived)."""
    _patch(table_id, {"archived": True}, as_json, url, key)


@table_group.command("unarchive")
@click.argument("table_id")
@json_option
@server_options
def table_unarchive(table_id: str, as_json: bool, url: str, key: str | None) -> None:
    """Bring an archived table back."""
    _patch(table_id, {"archived": False}, as_json, url, key)


@table_group.command("delete")
@click.argument("table_id")
@click.option("--yes", is_flag=True, help="do not ask")
@server_options
def table_delete(table_id: str, yes: bool, url: str, key: str | None) -> None:
    """Delete a table for good, with its deals and its share link."""
    lang = current_lang()
    with Client(url, key) as client:
        table_id = client.table_id(table_id)
        if not yes:
            click.confirm(
                lang._("delete table {table} and all its deals for good?", table=table_id), abort=True
            )
        client.delete_table(table_id)
    click.echo(lang._("deleted table {table}", table=table_id))
