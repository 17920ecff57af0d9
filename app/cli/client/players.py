"""``prefscore player ...``: register players, list them, their statistics across tables."""

from __future__ import annotations

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
)
from app.cli.client.language import current_lang
from app.cli.client.printing import amount
from app.kit.i18n import N_, Lang
from app.kit.i18n import game_words as gw


@click.group("player")
@global_options
def player_group() -> None:
    """Registered players and their statistics across tables."""


@player_group.command("add")
@click.argument("name")
@click.option("--external-id", help="your own id for the person (unique per owner)")
@json_option
@server_options
def player_add(name: str, external_id: str | None, as_json: bool, url: str, key: str | None) -> None:
    """Register a player and print the player's id."""
    body: dict[str, Any] = {"name": name}
    if external_id is not None:
        body["external_id"] = external_id
    with Client(url, key) as client:
        player = client.json("POST", "/v1/players", json=body)
    if as_json:
        echo_json(player)
        return
    click.echo(player["id"])


@player_group.command("list")
@json_option
@quiet_option
@server_options
def player_list(as_json: bool, quiet: bool, url: str, key: str | None) -> None:
    """Every registered player: id, name, external id."""
    client = Client(url, key)
    rows: list[dict[str, Any]] = []
    try:
        path: str | None = "/v1/players?limit=200"
        while path:
            page = client.json("GET", path)
            rows += page["items"]
            path = page["next"]
    finally:
        client.close()
    if as_json:
        echo_json(rows)
        return
    if quiet:
        for p in rows:
            click.echo(p["id"])
        return
    lang = current_lang()
    table = Table(title=lang.ngettext("{n} player", "{n} players", len(rows)))
    for column in (N_("id"), N_("name"), N_("external id")):
        table.add_column(lang._(column), no_wrap=column == "id")
    for p in rows:
        table.add_row(p["id"], p["name"], p["external_id"] or "")
    show(table)


@player_group.command("stats")
@click.argument("player_id")
@click.option("--stake", help="money per whist, e.g. 0.5: the money over finished tables")
@click.option("--convention", help="only the tables of this convention")
@json_option
@server_options
def player_stats_command(
    player_id: str, stake: str | None, convention: str | None, as_json: bool, url: str, key: str | None
) -> None:
    """A player's statistics across tables: tables, net whists, games declared, misères,
    whists, all-passes."""
    params = {k: v for k, v in (("stake", stake), ("convention", convention)) if v is not None}
    with Client(url, key) as client:
        stats = client.json("GET", f"/v1/players/{player_id}/stats", params=params)
    if as_json:
        echo_json(stats)
        return
    show(*player_stats_tables(current_lang(), stats))


def player_stats_tables(lang: Lang, stats: dict[str, Any]) -> list[Table]:
    counts = ", ".join(
        [
            lang.ngettext("{n} table", "{n} tables", stats["tables"]),
            lang._("{n} finished", n=stats["finished"]),
            gw.deal_count(lang, stats["deals"]),
        ]
    )
    summary = Table(title=f"{stats['player']['name']}: {counts}")
    summary.add_column("")
    summary.add_column("", justify="right")

    def exact(text: str) -> str:
        return amount(lang, text)

    summary.add_row(lang._("net whists (finished tables)"), exact(stats["balance_exact"]))
    if "money_exact" in stats:
        summary.add_row(
            lang._("money at stake {stake}", stake=exact(stats["stake_exact"])), exact(stats["money_exact"])
        )
    summary.add_row(lang._("whists written"), exact(stats["whists"]["written_exact"]))
    summary.add_row(lang._("whists received"), exact(stats["whists"]["received_exact"]))
    m = stats["misere"]
    summary.add_row(lang._("misères made / failed"), f"{m['made']} / {m['failed']}")
    a = stats["allpass"]
    summary.add_row(lang._("all-passes played / clean"), f"{a['played']} / {a['clean']}")
    summary.add_row(lang._("all-pass tricks"), lang.number(a["tricks"]))
    summary.add_row(lang._("all-pass streaks of 3+"), lang.number(a["long_streaks"]))
    declared = Table(title=lang._("Games declared"))
    for column in (N_("game"), N_("deals"), N_("made"), N_("failed"), N_("undertricks")):
        declared.add_column(lang._(column), justify="right" if column != "game" else "left")
    for d in stats["declared"]:
        game = str(d["level"]) + (
            f" ({gw.word(lang, gw.DEAL_TYPES, 'remise')})" if d["kind"] == "remise" else ""
        )
        declared.add_row(game, *(lang.number(d[k]) for k in ("deals", "made", "failed", "undertricks")))
    return [summary, declared]
