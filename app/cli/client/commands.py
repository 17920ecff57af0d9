"""Client commands of the ``prefscore`` tool, talking to a running service over HTTP (httpx):

    prefscore table create --convention piter --players Anna,Boris,Vera [--pool-target 20] [--option k=v ...]
    prefscore deal add TABLE_ID 7H 1 w2 p0 1:6 2:3 0:1        (notation: app/cli/client/notation.py)
    prefscore sheet TABLE_ID
    prefscore settle TABLE_ID [--stake 0.5]
    prefscore import TABLE_ID deals.json                      (deals posted into a table)
    prefscore import record.json                              (a game record: a new table)
    prefscore table list [--status S] [--convention C] [--player NAME]
    prefscore table show / rename / archive / unarchive / delete TABLE_ID ...
    prefscore table scorer-link TABLE_ID [--list | --revoke LINK_ID]   (a phone's scoring page)
    prefscore deal list / undo TABLE_ID;  prefscore deal correct TABLE_ID N NOTATION...
    prefscore export TABLE_ID [--format json|csv] [--output FILE]
    prefscore player add NAME [--external-id ID] | player list | player stats PLAYER_ID [--stake 0.5] [--convention piter]

The server is ``--url`` / ``PREFSCORE_URL`` (default http://127.0.0.1:8000), the API key
``--key`` / ``PREFSCORE_KEY``. Tables and progress are drawn with rich, in Russian or English
(``--lang``, else the environment: app/cli/client/language.py); the words are in the catalogues
of app/kit/i18n, numbers and dates are written the language's way.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import click
import httpx
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from app.rules import amounts
from app.kit.i18n import N_, Lang
from app.kit.i18n import game_words as gw
from app.cli.client.language import current_lang, lang_option
from app.cli.client.notation import NotationError, format_deal, parse_deal

DEFAULT_URL = "http://127.0.0.1:8000"
TIMEOUT = httpx.Timeout(30.0, connect=5.0)
# Fields of a stored deal (GET .../deals) that are outputs, not part of a deal body.
STORED_ONLY = ("number", "entries", "created_at")


class ApiError(click.ClickException):
    """A refused request: the problem+json reason, printed by click; exit code 1."""

    def __init__(self, response: httpx.Response):
        self.response = response
        self.problem = problem_of(response)
        super().__init__(describe_problem(self.problem))


def problem_of(response: httpx.Response) -> dict[str, Any]:
    try:
        data = response.json()
    except ValueError:
        data = None
    if not isinstance(data, dict):
        data = {"status": response.status_code, "title": response.reason_phrase, "detail": response.text[:300]}
    return data


def describe_problem(problem: dict[str, Any]) -> str:
    text = f"{problem.get('status', '?')} {problem.get('title', '')}".strip()
    if problem.get("detail"):
        text += f": {problem['detail']}"
    for err in problem.get("errors") or []:
        if isinstance(err, dict):
            text += f"\n  - {err.get('field', '?')}: {err.get('reason') or err.get('message') or err}"
    return text


class Client:
    """The few API calls the commands make."""

    def __init__(self, url: str, key: str | None, http: httpx.Client | None = None):
        headers = {"Accept": "application/json"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        self.http = http or httpx.Client(base_url=url.rstrip("/"), headers=headers, timeout=TIMEOUT)

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def request(self, method: str, path: str, **kw: Any) -> httpx.Response:
        try:
            response = self.http.request(method, path, **kw)
        except httpx.HTTPError as exc:
            raise click.ClickException(current_lang()._("cannot reach {url}: {error}", url=self.http.base_url, error=exc)) from exc
        if response.status_code >= 400:
            raise ApiError(response)
        return response

    def json(self, method: str, path: str, **kw: Any) -> Any:
        """The answer's JSON, its amounts read as the decimals sent (never a float)."""
        return self.request(method, path, **kw).json(parse_float=Decimal)

    def create_table(self, body: dict[str, Any]) -> dict[str, Any]:
        return self.json("POST", "/v1/tables", json=body)

    def post_deal(self, table_id: str, body: dict[str, Any], idempotency_key: str | None = None) -> dict[str, Any]:
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
        return self.json("POST", f"/v1/tables/{table_id}/deals", json=body, headers=headers)

    def table(self, table_id: str) -> dict[str, Any]:
        return self.json("GET", f"/v1/tables/{table_id}")

    def tables(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        """Every listed table, following ``next`` to the last page."""
        out: list[dict[str, Any]] = []
        page = self.json("GET", "/v1/tables", params=params)
        out += page["items"]
        while page.get("next"):
            page = self.json("GET", page["next"])
            out += page["items"]
        return out

    def deals(self, table_id: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        url: str | None = f"/v1/tables/{table_id}/deals?limit=200"
        while url:
            page = self.json("GET", url)
            out += page["items"]
            url = page.get("next")
        return out

    def patch_table(self, table_id: str, body: dict[str, Any]) -> dict[str, Any]:
        return self.json("PATCH", f"/v1/tables/{table_id}", json=body)

    def delete_table(self, table_id: str) -> None:
        self.request("DELETE", f"/v1/tables/{table_id}")

    def undo_deal(self, table_id: str, number: int) -> dict[str, Any]:
        return self.json("DELETE", f"/v1/tables/{table_id}/deals/{number}")

    def correct_deal(self, table_id: str, number: int, body: dict[str, Any]) -> dict[str, Any]:
        return self.json("PUT", f"/v1/tables/{table_id}/deals/{number}", json=body)

    def scorer_link(self, table_id: str) -> dict[str, Any]:
        return self.request("POST", f"/v1/tables/{table_id}/scorer-link").json()

    def scorer_links(self, table_id: str) -> list[dict[str, Any]]:
        return self.request("GET", f"/v1/tables/{table_id}/scorer-links").json()["items"]

    def revoke_scorer_link(self, table_id: str, link_id: int) -> dict[str, Any]:
        return self.request("DELETE", f"/v1/tables/{table_id}/scorer-links/{link_id}").json()

    def export(self, table_id: str, fmt: str) -> str:
        return self.request("GET", f"/v1/tables/{table_id}/export", params={"format": fmt}).text

    def import_record(self, record: dict[str, Any]) -> dict[str, Any]:
        return self.json("POST", "/v1/tables/import", json=record)

    def settlement(self, table_id: str, stake: str | None) -> dict[str, Any]:
        params = {"stake": stake} if stake is not None else {}
        return self.json("GET", f"/v1/tables/{table_id}/settlement", params=params)


# Tests replace this to talk to an app in the same process.
make_client: Callable[[str, str | None], Client] = Client


def _server_options(f: Callable[..., Any]) -> Callable[..., Any]:
    f = click.option(
        "--key", envvar="PREFSCORE_KEY", show_envvar=True, help="API key (Authorization: Bearer ...)"
    )(f)
    f = click.option(
        "--url", envvar="PREFSCORE_URL", default=DEFAULT_URL, show_default=True, show_envvar=True, help="the service"
    )(f)
    return lang_option(f)


def _console() -> Console:
    return Console(highlight=False)


def _num(lang: Lang, value: Any) -> str:
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


def _state(lang: Lang, archived: bool, finished: bool) -> str:
    return lang._("archived") if archived else lang._("finished") if finished else lang._("active")


# --- terminal tables -----------------------------------------------------------------------
def sheet_table(lang: Lang, sheet: dict[str, Any], title: str | None = None) -> Table:
    players = sorted(sheet["players"], key=lambda p: p["seat"])
    names = {p["seat"]: p.get("name", f"#{p['seat']}") for p in players}
    n = sheet.get("deal_count", 0)
    table = Table(title=title or lang.ngettext("Sheet after {n} deal", "Sheet after {n} deals", n), title_justify="left")
    table.add_column(lang._("seat"), justify="right")
    table.add_column(lang._("player"))
    table.add_column(lang._("pool"), justify="right")
    table.add_column(lang._("mountain"), justify="right")
    for p in players:
        table.add_column(lang._("whists on {name}", name=names[p["seat"]]), justify="right")
    for p in players:
        pool = _num(lang, p["pool"]) + (" ✓" if p.get("pool_closed") else "")
        whists = [("" if q["seat"] == p["seat"] else _num(lang, p["whists"].get(str(q["seat"]), 0))) for q in players]
        table.add_row(str(p["seat"]), names[p["seat"]], pool, _num(lang, p["mountain"]), *whists)
    allpass = sheet.get("allpass") or {}
    parts = [lang._("all-pass level {level}", level=allpass.get("level", 1))]
    if allpass.get("next_trick_cost") is not None:
        parts.append(lang._("trick cost {cost}", cost=_num(lang, allpass["next_trick_cost"])))
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
        stake = lang.number(amounts.parse(stake)) if "/" in stake else _num(lang, Decimal(stake))
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
        shown = _num(lang, b)
        balances.add_row(p["name"], f"[{style}]{shown}[/]" if style else shown, str(p.get("balance_exact", "")))
    transfers = Table(title=lang._("Transfers"), title_justify="left")
    transfers.add_column(lang._("from"))
    transfers.add_column(lang._("to"))
    transfers.add_column(lang._("amount"), justify="right")
    for t in settlement.get("transfers", []):
        transfers.add_row(names.get(t["from"], str(t["from"])), names.get(t["to"], str(t["to"])), _num(lang, t["amount"]))
    return [balances, transfers]


def _written(lang: Lang, entry: dict[str, Any], names: dict[int, str]) -> str:
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
        table.add_row(names.get(e["seat"], str(e["seat"])), _written(lang, e, names), _num(lang, e["amount"]))
    return table


# --- commands ------------------------------------------------------------------------------
def _parse_option(text: str) -> tuple[str, Any]:
    key, sep, raw = text.partition("=")
    if not sep or not key:
        raise click.BadParameter(current_lang()._("{text}: write NAME=VALUE, e.g. stalingrad=false or allpass_costs=[2,4,8]", text=repr(text)))
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    return key.strip(), value


@click.group("table")
def table_group() -> None:
    """Tables on the service."""


@table_group.command("create")
@click.option("--convention", required=True, help="sochi, piter, piter_gentleman, rostov, vmk, piter_races")
@click.option("--players", required=True, help="3 or 4 names, comma-separated: Anna,Boris,Vera")
@click.option("--pool-target", type=click.IntRange(min=1), help="default 20 (piter_races 22)")
@click.option("--first-dealer", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE", help="a convention option (JSON value)")
@_server_options
def table_create(
    convention: str, players: str, pool_target: int | None, first_dealer: int, options: tuple[str, ...], url: str, key: str | None
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
    with make_client(url, key) as client:
        table = client.create_table(body)
    # The id alone on stdout (TABLE=$(prefscore table create ...)); the rest on stderr.
    lang = current_lang()
    err = Console(stderr=True, highlight=False)
    names = ", ".join(p["name"] for p in table["players"])
    err.print(
        lang._("table for {names} ({convention}, pool to {pool}); share link:", names=names, convention=table["convention"], pool=table["pool_target"]),
        markup=False,
    )
    err.print(f"{url.rstrip('/')}/shared/{table['share_token']}", markup=False)
    click.echo(table["id"])


@table_group.command("scorer-link")
@click.argument("table_id")
@click.option("--list", "listing", is_flag=True, help="list the table's scorer links instead")
@click.option("--revoke", "revoke", type=click.IntRange(min=1), metavar="LINK_ID", help="revoke this link instead")
@_server_options
def table_scorer_link(table_id: str, listing: bool, revoke: int | None, url: str, key: str | None) -> None:
    """A new scoring page for a phone at the table: the link is printed (once) to open there;
    it may score this table's deals and nothing else."""
    with make_client(url, key) as client:
        if revoke is not None:
            link = client.revoke_scorer_link(table_id, revoke)
            click.echo(f"revoked scorer link {link['id']} ({link['prefix']}...)")
            return
        if listing:
            for link in client.scorer_links(table_id):
                state = f"revoked {link['revoked_at']}" if link["revoked_at"] else "working"
                click.echo(f"{link['id']}\t{link['prefix']}...\tmade {link['created_at']}\t{state}")
            return
        link = client.scorer_link(table_id)
    # The link alone on stdout (LINK=$(prefscore table scorer-link ...)); the rest on stderr.
    Console(stderr=True, highlight=False).print(
        f"scorer link {link['id']}: open it on the phone; revoke with --revoke {link['id']}", markup=False
    )
    click.echo(f"{url.rstrip('/')}{link['link']}")


@click.group("deal")
def deal_group() -> None:
    """Deals of a table."""


@deal_group.command("add", context_settings={"ignore_unknown_options": True})
@click.argument("table_id")
@click.argument("notation", nargs=-1, required=True)
@_server_options
def deal_add(table_id: str, notation: tuple[str, ...], url: str, key: str | None) -> None:
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
    with make_client(url, key) as client:
        result = client.post_deal(table_id, body)
    lang = current_lang()
    sheet = result["sheet"]
    names = {p["seat"]: p["name"] for p in sheet["players"]}
    console = _console()
    console.print(lang._("deal {number}: {deal}", number=result["deal"]["number"], deal=format_deal(body, lang)), markup=False)
    console.print(entries_table(lang, result["deal"]["entries"], names))
    console.print(sheet_table(lang, sheet))


@click.command("sheet")
@click.argument("table_id")
@_server_options
def sheet_command(table_id: str, url: str, key: str | None) -> None:
    """Show a table's sheet: pools, mountains, whists, the all-pass level."""
    with make_client(url, key) as client:
        table = client.table(table_id)
    lang = current_lang()
    title = lang.ngettext(
        "{convention}, pool to {pool}: {n} deal", "{convention}, pool to {pool}: {n} deals", table["deal_count"],
        convention=table["convention"], pool=table["pool_target"],
    )
    _console().print(sheet_table(lang, table["sheet"], title))


@click.command("settle")
@click.argument("table_id")
@click.option("--stake", help="money per whist, e.g. 0.5")
@_server_options
def settle_command(table_id: str, stake: str | None, url: str, key: str | None) -> None:
    """Show the balances and the fewest transfers that settle them."""
    with make_client(url, key) as client:
        settlement = client.settlement(table_id, stake)
    console = _console()
    for table in settlement_tables(current_lang(), settlement):
        console.print(table)


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
            lang._('{file}: expected a JSON list of deals, or a listing page {{"items": [...]}}', file=path), param_hint="DEALS_JSON"
        )
    bodies = []
    for i, item in enumerate(data, start=1):
        if isinstance(item, str):
            try:
                item = parse_deal(item)
            except NotationError as exc:
                raise click.BadParameter(lang._("{file}: deal {number}: {error}", file=path, number=i, error=exc.in_(lang)), param_hint="DEALS_JSON") from exc
        if not isinstance(item, dict):
            raise click.BadParameter(lang._("{file}: deal {number} is not an object", file=path, number=i), param_hint="DEALS_JSON")
        bodies.append({k: v for k, v in item.items() if k not in STORED_ONLY})
    return bodies


RECORD_FORMAT = "prefscore-record"


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
@_server_options
def import_command(table_id_or_file: str, deals_json: Path | None, url: str, key: str | None) -> None:
    """Two shapes:

    \b
      prefscore import TABLE_ID DEALS_JSON   post the deals of DEALS_JSON into the table
      prefscore import RECORD_JSON           a game record (its "format" is
                                             "prefscore-record") as a new table; prints its id

    Deals are posted in order, stopping at the first one the service refuses. Each carries an
    Idempotency-Key made from the table, its position in the file and its body, so running
    the import again after fixing the refused deal does not post the deals before it twice.
    A record is one request: the service re-scores it and refuses it whole if it disagrees."""
    if deals_json is None:
        import_record_file(Path(table_id_or_file), url, key)
        return
    if is_record(read_json(deals_json, "DEALS_JSON")):
        raise click.BadParameter(
            current_lang()._("{file} is a game record: import it as a new table with `prefscore import {file}`", file=deals_json),
            param_hint="DEALS_JSON",
        )
    import_deals(table_id_or_file, deals_json, url, key)


def import_record_file(path: Path, url: str, key: str | None) -> None:
    lang = current_lang()
    if not path.is_file():
        raise click.BadParameter(lang._("{file}: no such file", file=path), param_hint="RECORD_JSON")
    data = read_json(path, "RECORD_JSON")
    if not is_record(data):
        raise click.BadParameter(
            lang._(
                '{file} is not a game record (no "format": "{format}"); to post deals into a table: prefscore import TABLE_ID {file}',
                file=path, format=RECORD_FORMAT,
            ),
            param_hint="RECORD_JSON",
        )
    with make_client(url, key) as client:
        table = client.import_record(data)
    err = Console(stderr=True, highlight=False)
    n = table["deal_count"]
    err.print(
        current_lang().ngettext(
            "imported {n} deal of {file} as a new table; share link:", "imported {n} deals of {file} as a new table; share link:", n, file=path.name
        ),
        markup=False,
    )
    err.print(f"{url.rstrip('/')}/shared/{table['share_token']}", markup=False)
    click.echo(table["id"])


def import_deals(table_id: str, deals_json: Path, url: str, key: str | None) -> None:
    bodies = load_deals(deals_json)
    lang = current_lang()
    console = Console(stderr=True, highlight=False)
    client = make_client(url, key)
    posted = 0
    try:
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
                    console.print(describe_problem(exc.problem), markup=False)
                    raise SystemExit(1) from None
                posted += 1
                progress.advance(task)
    finally:
        client.close()
    console.print(lang.ngettext("imported {n} deal into table {table}", "imported {n} deals into table {table}", posted, table=table_id), markup=False)


# --- the tables collection, the log, the record ------------------------------------------
@table_group.command("list")
@click.option("--status", type=click.Choice(["active", "finished", "archived"]), help="default: every table not archived")
@click.option("--convention", help="only this convention's tables")
@click.option("--player", help="only the tables with a player of this name")
@_server_options
def table_list(status: str | None, convention: str | None, player: str | None, url: str, key: str | None) -> None:
    """The key owner's tables, latest activity first."""
    params = {k: v for k, v in (("status", status), ("convention", convention), ("player", player)) if v}
    with make_client(url, key) as client:
        tables = client.tables({**params, "limit": 200})
    lang = current_lang()
    table = Table(title=lang.ngettext("{n} table", "{n} tables", len(tables)), title_justify="left")
    for column in (N_("id"), N_("title"), N_("convention"), N_("players"), N_("deals"), N_("state"), N_("updated")):
        table.add_column(lang._(column), justify="right" if column == "deals" else "left")
    for t in tables:
        table.add_row(
            t["id"], t["title"] or "", t["convention"], ", ".join(p["name"] for p in t["players"]),
            lang.number(t["deal_count"]), _state(lang, t["archived"], t["finished"]),
            lang.datetime(datetime.fromisoformat(t["updated_at"])),
        )
    _console().print(table)


@table_group.command("show")
@click.argument("table_id")
@_server_options
def table_show(table_id: str, url: str, key: str | None) -> None:
    """A table: its title, note, settings and sheet."""
    with make_client(url, key) as client:
        t = client.table(table_id)
    lang = current_lang()
    console = _console()
    names = ", ".join(p["name"] for p in t["players"])
    console.print(
        lang._(
            "{title}: {names} ({convention}, pool to {pool}; {state})",
            title=t["title"] or lang._("untitled"), names=names, convention=t["convention"], pool=t["pool_target"],
            state=_state(lang, t["archived"], t["sheet"]["finished"]),
        ),
        markup=False,
    )
    if t.get("note"):
        console.print(lang._("note: {note}", note=t["note"]), markup=False)
    link = f"{url.rstrip('/')}/shared/{t['share_token']}"
    console.print(lang._("share link: {url}", url=link), markup=False)
    console.print(sheet_table(lang, t["sheet"], gw.deal_count(lang, t["deal_count"])))


@table_group.command("rename")
@click.argument("table_id")
@click.option("--players", help="every seat's new name, comma-separated: Anna,Boris,Vera")
@click.option("--title", help='a title ("" removes it)')
@click.option("--note", help='a free note ("" removes it)')
@_server_options
def table_rename(table_id: str, players: str | None, title: str | None, note: str | None, url: str, key: str | None) -> None:
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
    _patch(table_id, body, url, key)


def _patch(table_id: str, body: dict[str, Any], url: str, key: str | None) -> None:
    with make_client(url, key) as client:
        t = client.patch_table(table_id, body)
    lang = current_lang()
    names = ", ".join(p["name"] for p in t["players"])
    state = lang._("archived") if t["archived"] else lang._("not archived")
    click.echo(f"{t['id']}: {t['title'] or lang._('untitled')}; {names}; {state}")


@table_group.command("archive")
@click.argument("table_id")
@_server_options
def table_archive(table_id: str, url: str, key: str | None) -> None:
    """Archive a table: it takes no deal and leaves `table list` (see --status archived)."""
    _patch(table_id, {"archived": True}, url, key)


@table_group.command("unarchive")
@click.argument("table_id")
@_server_options
def table_unarchive(table_id: str, url: str, key: str | None) -> None:
    """Bring an archived table back."""
    _patch(table_id, {"archived": False}, url, key)


@table_group.command("delete")
@click.argument("table_id")
@click.option("--yes", is_flag=True, help="do not ask")
@_server_options
def table_delete(table_id: str, yes: bool, url: str, key: str | None) -> None:
    """Delete a table for good, with its deals and its share link."""
    lang = current_lang()
    if not yes:
        click.confirm(lang._("delete table {table} and all its deals for good?", table=table_id), abort=True)
    with make_client(url, key) as client:
        client.delete_table(table_id)
    click.echo(lang._("deleted table {table}", table=table_id))


@deal_group.command("list")
@click.argument("table_id")
@_server_options
def deal_list(table_id: str, url: str, key: str | None) -> None:
    """Every deal of a table, in the short notation, with what it wrote."""
    with make_client(url, key) as client:
        names = {p["seat"]: p["name"] for p in client.table(table_id)["players"]}
        deals = client.deals(table_id)
    lang = current_lang()
    table = Table(title=gw.deal_count(lang, len(deals)), title_justify="left")
    table.add_column("#", justify="right")
    table.add_column(lang._("deal"))
    table.add_column(lang._("written"))
    for d in deals:
        body = {k: v for k, v in d.items() if k not in STORED_ONLY}
        written = "; ".join(
            f"{names.get(e['seat'], e['seat'])} {_written(lang, e, names)} {_num(lang, e['amount'])}" for e in d["entries"]
        )
        table.add_row(str(d["number"]), format_deal_safe(body, lang), written)
    _console().print(table)


@deal_group.command("undo")
@click.argument("table_id")
@click.argument("number", required=False, type=click.IntRange(min=1))
@_server_options
def deal_undo(table_id: str, number: int | None, url: str, key: str | None) -> None:
    """Undo the last deal (NUMBER, when given, must be the last one's)."""
    with make_client(url, key) as client:
        if number is None:
            number = client.table(table_id)["deal_count"]
            if number == 0:
                raise click.ClickException(current_lang()._("table {table} has no deal to undo", table=table_id))
        result = client.undo_deal(table_id, number)
    lang = current_lang()
    console = _console()
    undone = format_deal_safe({k: v for k, v in result["deal"].items() if k not in STORED_ONLY}, lang)
    console.print(lang._("undid deal {number}: {deal}", number=number, deal=undone), markup=False)
    console.print(sheet_table(lang, result["sheet"]))


@deal_group.command("correct", context_settings={"ignore_unknown_options": True})
@click.argument("table_id")
@click.argument("number", type=click.IntRange(min=1))
@click.argument("notation", nargs=-1, required=True)
@_server_options
def deal_correct(table_id: str, number: int, notation: tuple[str, ...], url: str, key: str | None) -> None:
    """Correct deal NUMBER with a deal in the short notation (as `deal add`); later deals are
    re-scored, or nothing changes if one of them no longer fits."""
    try:
        body = parse_deal(" ".join(notation))
    except NotationError as exc:
        raise click.BadParameter(exc.in_(current_lang()), param_hint="NOTATION") from exc
    with make_client(url, key) as client:
        result = client.correct_deal(table_id, number, body)
    lang = current_lang()
    console = _console()
    console.print(lang._("deal {number} is now: {deal}", number=number, deal=format_deal(body, lang)), markup=False)
    if result.get("rescored"):
        console.print(lang._("re-scored: deals {numbers}", numbers=", ".join(str(n) for n in result["rescored"])), markup=False)
    console.print(sheet_table(lang, result["sheet"]))


@click.command("export")
@click.argument("table_id")
@click.option("--format", "fmt", type=click.Choice(["json", "csv"]), default="json", show_default=True,
              help="json: the game record (docs/record.md); csv: one row per entry")
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), help="a file (default: stdout)")
@_server_options
def export_command(table_id: str, fmt: str, output: Path | None, url: str, key: str | None) -> None:
    """Export a table as a game record (or its entries as CSV)."""
    with make_client(url, key) as client:
        text = client.export(table_id, fmt)
    if fmt == "json":
        text = json.dumps(json.loads(text), ensure_ascii=False, indent=2) + "\n"
    if output is None:
        click.echo(text, nl=False)
    else:
        output.write_text(text, encoding="utf-8", newline="")
        Console(stderr=True, highlight=False).print(current_lang()._("wrote {file}", file=output), markup=False)


def import_key(table_id: str, position: int, body: dict[str, Any]) -> str:
    raw = json.dumps([table_id, position, body], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "import-" + hashlib.sha256(raw.encode()).hexdigest()[:32]


def format_deal_safe(body: dict[str, Any], lang: Lang | None = None) -> str:
    try:
        return format_deal(body, lang)
    except (KeyError, TypeError, AttributeError):
        return json.dumps(body, ensure_ascii=False)[:200]


# --- players: prefscore player add / list / stats -----------------------------------------


@click.group("player")
def player_group() -> None:
    """Registered players and their statistics across tables."""


@player_group.command("add")
@click.argument("name")
@click.option("--external-id", help="your own id for the person (unique per owner)")
@_server_options
def player_add(name: str, external_id: str | None, url: str, key: str | None) -> None:
    """Register a player and print the player's id."""
    body: dict[str, Any] = {"name": name}
    if external_id is not None:
        body["external_id"] = external_id
    with make_client(url, key) as client:
        player = client.json("POST", "/v1/players", json=body)
    click.echo(player["id"])


@player_group.command("list")
@_server_options
def player_list(url: str, key: str | None) -> None:
    """Every registered player: id, name, external id."""
    client = make_client(url, key)
    rows: list[dict[str, Any]] = []
    try:
        path: str | None = "/v1/players?limit=200"
        while path:
            page = client.json("GET", path)
            rows += page["items"]
            path = page["next"]
    finally:
        client.close()
    lang = current_lang()
    table = Table(title=lang.ngettext("{n} player", "{n} players", len(rows)))
    for column in (N_("id"), N_("name"), N_("external id")):
        table.add_column(lang._(column))
    for p in rows:
        table.add_row(p["id"], p["name"], p["external_id"] or "")
    _console().print(table)


@player_group.command("stats")
@click.argument("player_id")
@click.option("--stake", help="money per whist, e.g. 0.5: the money over finished tables")
@click.option("--convention", help="only the tables of this convention")
@_server_options
def player_stats_command(player_id: str, stake: str | None, convention: str | None, url: str, key: str | None) -> None:
    """A player's statistics across tables: tables, net whists, games declared, misères,
    whists, all-passes."""
    params = {k: v for k, v in (("stake", stake), ("convention", convention)) if v is not None}
    with make_client(url, key) as client:
        stats = client.json("GET", f"/v1/players/{player_id}/stats", params=params)
    console = _console()
    for table in player_stats_tables(current_lang(), stats):
        console.print(table)


def player_stats_tables(lang: Lang, stats: dict[str, Any]) -> list[Table]:
    counts = ", ".join([
        lang.ngettext("{n} table", "{n} tables", stats["tables"]),
        lang._("{n} finished", n=stats["finished"]),
        gw.deal_count(lang, stats["deals"]),
    ])
    summary = Table(title=f"{stats['player']['name']}: {counts}")
    summary.add_column("")
    summary.add_column("", justify="right")

    def exact(text: str) -> str:
        return _num(lang, text)

    summary.add_row(lang._("net whists (finished tables)"), exact(stats["balance_exact"]))
    if "money_exact" in stats:
        summary.add_row(lang._("money at stake {stake}", stake=exact(stats["stake_exact"])), exact(stats["money_exact"]))
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
        game = str(d["level"]) + (f" ({gw.word(lang, gw.DEAL_TYPES, 'remise')})" if d["kind"] == "remise" else "")
        declared.add_row(game, *(lang.number(d[k]) for k in ("deals", "made", "failed", "undertricks")))
    return [summary, declared]


def register(group: click.Group) -> None:
    """Add the client commands to the ``prefscore`` group."""
    group.add_command(table_group)
    group.add_command(deal_group)
    group.add_command(sheet_command)
    group.add_command(settle_command)
    group.add_command(import_command)
    group.add_command(export_command)
    group.add_command(player_group)
