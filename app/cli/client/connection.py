"""The service over HTTP for the client commands: the server and key options, the calls they
make, a refusal as its problem+json reason in the client's language.

``--url``, ``--key`` and ``--lang`` are accepted before the command's name as after it
(``prefscore --lang en table list`` as ``prefscore table list --lang en``): the groups have
them too, and whichever is given last wins; what is not given comes from the environment."""

from __future__ import annotations

import io
import json as jsonlib
import os
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import click
import httpx
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table

from app.cli.client.language import Failure, current_lang, lang_option
from app.kit.i18n import N_, Lang

DEFAULT_URL = "http://127.0.0.1:8000"
TIMEOUT = httpx.Timeout(30.0, connect=5.0)
_TABLE_ID = re.compile(r"[0-9a-f]{32}")  # as app/kit/etags.py TABLE_ID_RE
_ID_PREFIX = re.compile(r"[0-9a-fA-F]{1,31}")
# Where each server option is kept in click's context (shared by a group and its commands).
_OPTIONS = {
    "url": ("prefscore.url", "PREFSCORE_URL", DEFAULT_URL),
    "key": ("prefscore.key", "PREFSCORE_KEY", None),
}

# The problem titles the service sends, and what a refusal of each kind means, in the
# client's language (the service words its problems in English).
_TITLES = (
    N_("Bad request"),
    N_("Unauthorized"),
    N_("Forbidden"),
    N_("Not found"),
    N_("Method not allowed"),
    N_("Conflict"),
    N_("Precondition failed"),
    N_("Content too large"),
    N_("Invalid request"),
    N_("Too many requests"),
    N_("Internal server error"),
    N_("Service unavailable"),
)
_MEANINGS = {
    400: N_("the service could not read the request"),
    409: N_("the request does not fit the table's state"),
    422: N_("a value is refused; each refused field is named below"),
    401: N_("no API key, or not a valid one"),
    403: N_("this key may not do that"),
    404: N_("no such table, deal or player (or it is another key owner's)"),
    412: N_("the table changed meanwhile; nothing was written"),
    413: N_("the request is too large"),
    429: N_("too many requests; try again in a moment"),
    503: N_("the service cannot reach its database; try again in a moment"),
}
_HOW_TO_GIVE_A_KEY = N_(
    "give the API key with --key KEY or in the environment variable PREFSCORE_KEY "
    "(the server's operator makes one: prefscore keys create NAME)"
)
# 409's reason, a word for programs (docs/api.md), said to a person.
_CONFLICTS = {
    "archived": N_("the table is archived: `prefscore table unarchive TABLE` brings it back"),
    "finished": N_("the game is finished: every pool is closed"),
    "dealer_mismatch": N_("the deal names another dealer than the table's next one"),
    "later_deal_invalid": N_("a later deal would no longer fit: nothing was changed"),
    "deal_limit": N_("the table has as many deals as a table may have"),
    "table_limit": N_("the key's owner has as many tables as one owner may have"),
}


class ApiError(Failure):
    """A refused request: the problem+json reason, printed by click; exit code 1."""

    def __init__(self, response: httpx.Response):
        self.response = response
        self.problem = problem_of(response)
        self.language = response.headers.get("content-language")
        super().__init__(describe_problem(self.problem, current_lang(), self.language))


def problem_of(response: httpx.Response) -> dict[str, Any]:
    try:
        data = response.json()
    except ValueError:
        data = None
    if not isinstance(data, dict):
        data = {
            "status": response.status_code,
            "title": response.reason_phrase,
            "detail": response.text[:300],
        }
    return data


def describe_problem(problem: dict[str, Any], lang: Lang | None = None, said_in: str | None = None) -> str:
    """A refusal for a person: the status, its title and what it means in ``lang``, each
    refused field. ``said_in``: the answer's Content-Language. A server that worded the
    problem in ``lang`` is quoted as it is (a conflict's advice of the client's own after
    it); an older one speaks English, so in another language its words follow, quoted as
    the server's."""
    lang = lang or current_lang()
    status = problem.get("status", "?")
    title = str(problem.get("title", ""))
    conflict = _CONFLICTS.get(str(problem.get("reason"))) if status == 409 else None
    meaning = conflict or _MEANINGS.get(status)
    detail = problem.get("detail")
    if said_in and said_in.split("-", 1)[0].strip().lower() == lang.code:
        text = f"{status} {title}".strip() + (f": {detail}" if detail else "")
        if conflict and lang.code != "en":
            text += f"; {lang._(conflict)}"
        return text + _key(status, lang) + _fields(problem)
    text = f"{status} {lang._(title) if title in _TITLES else title}".strip()
    if lang.code == "en":
        return text + (f": {detail}" if detail else "") + _key(status, lang) + _fields(problem)
    text += f": {lang._(meaning)}" if meaning else ""
    said = "\n  " + lang._("the server says: {detail}", detail=detail) if detail else ""
    return text + _key(status, lang) + said + _fields(problem)


def _key(status: Any, lang: Lang) -> str:
    """How to give a key, on the refusal's line (a 401)."""
    return f"; {lang._(_HOW_TO_GIVE_A_KEY)}" if status == 401 else ""


def _fields(problem: dict[str, Any]) -> str:
    """The lines after a refusal's: each refused field."""
    text = ""
    for err in problem.get("errors") or []:
        if isinstance(err, dict):
            text += f"\n  - {err.get('field', '?')}: {err.get('reason') or err.get('message') or err}"
    return text


class Client:
    """The few API calls the commands make."""

    def __init__(self, url: str, key: str | None, http: httpx.Client | None = None):
        # The language asked for, so that a service that words its answers in it does.
        headers = {"Accept": "application/json", "Accept-Language": current_lang().code}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        self.http = http or httpx.Client(base_url=url.rstrip("/"), headers=headers, timeout=TIMEOUT)

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def request(self, method: str, path: str, **kw: Any) -> httpx.Response:
        try:
            response = self.http.request(method, path, **kw)
        except httpx.HTTPError as exc:
            raise Failure(
                current_lang()._("cannot reach {url}: {error}", url=self.http.base_url, error=exc)
            ) from exc
        if response.status_code >= 400:
            raise ApiError(response)
        return response

    def json(self, method: str, path: str, **kw: Any) -> Any:
        """The answer's JSON, its amounts read as the decimals sent (never a float)."""
        return self.request(method, path, **kw).json(parse_float=Decimal)

    def table_id(self, text: str) -> str:
        """A table's id from the id or its beginning (``9991f3``), if only one of the key's
        tables (archived ones too) has an id that starts so; a whole id is taken as it is."""
        text = text.strip()
        if _TABLE_ID.fullmatch(text) or not _ID_PREFIX.fullmatch(text):
            return text  # a whole id, or not one at all: the service answers for it
        found = sorted(
            {
                t["id"]
                for status in (None, "archived")
                for t in self.tables({"limit": 200, **({"status": status} if status else {})})
                if t["id"].startswith(text.lower())
            }
        )
        lang = current_lang()
        if not found:
            raise Failure(lang._("no table of this key has an id starting with {prefix}", prefix=text))
        if len(found) > 1:
            raise Failure(
                lang.ngettext(
                    "{n} table has an id starting with {prefix}: {ids}; give more of the id",
                    "{n} tables have an id starting with {prefix}: {ids}; give more of the id",
                    len(found),
                    prefix=text,
                    ids=", ".join(found),
                )
            )
        return found[0]

    def create_table(self, body: dict[str, Any]) -> dict[str, Any]:
        return self.json("POST", "/v1/tables", json=body)

    def post_deal(
        self, table_id: str, body: dict[str, Any], idempotency_key: str | None = None
    ) -> dict[str, Any]:
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


def _resolve(name: str) -> Callable[[click.Context, click.Parameter, Any], Any]:
    """The option's value: given here (kept for the commands below), else given to a group
    above, else the environment, else the default."""
    meta, env, default = _OPTIONS[name]

    def callback(ctx: click.Context, _param: click.Parameter, value: Any) -> Any:
        if value is not None:
            ctx.meta[meta] = value
            return value
        return ctx.meta.get(meta) or os.environ.get(env) or default

    return callback


def _server_option_decorators(expose: bool) -> list[Callable[..., Any]]:
    return [
        click.option(
            "--url",
            callback=_resolve("url"),
            expose_value=expose,
            is_eager=True,
            help=f"the service; default: PREFSCORE_URL, else {DEFAULT_URL}",
        ),
        click.option(
            "--key",
            callback=_resolve("key"),
            expose_value=expose,
            is_eager=True,
            help="API key (Authorization: Bearer ...); default: PREFSCORE_KEY",
        ),
    ]


def server_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """Every command's --url, --key and --lang."""
    for option in _server_option_decorators(expose=True):
        f = option(f)
    return lang_option(f)


def global_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """The same options on a group, for the commands below it (``prefscore --lang en sheet T``)."""
    for option in _server_option_decorators(expose=False):
        f = option(f)
    return lang_option(f)


def stdout() -> Console:
    return Console(highlight=False)


def show(*renderables: Any) -> None:
    """Print terminal tables on stdout whole: a table wider than the terminal (or than 80
    columns in a pipe) widens the output rather than cutting a column to "…", so an id is
    always printed in full and can be copied."""
    console = stdout()
    width = console.width
    for renderable in renderables:
        console.width = _whole_width(renderable, width) if isinstance(renderable, Table) else width
        console.print(renderable)


def _whole_width(table: Table, width: int) -> int:
    """The width to print the table at: ``width``, or more when the table does not fit in it,
    so that its ``no_wrap`` cells (its ids) are printed whole; the other columns fold a long
    word over lines rather than cut it."""
    for column in table.columns:
        if not column.no_wrap:
            column.overflow = "fold"
    whole = [str(cell) for column in table.columns if column.no_wrap for cell in column.cells]
    console = stdout()
    # from the width at which each column fits its longest word (rich's minimum) up
    fits = Measurement.get(console, console.options.update_width(10_000), table)
    for tried in range(max(width, fits.minimum), max(width, fits.maximum) + 1, 4):
        page = Console(file=io.StringIO(), width=tried, highlight=False, color_system=None)
        page.print(table)
        if all(cell in page.file.getvalue() for cell in whole):  # type: ignore[attr-defined]
            return tried
    return max(width, fits.maximum)  # every cell on one line


def json_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--json", "as_json", is_flag=True, help="print the service's JSON answer instead (for scripts)"
    )(f)


def quiet_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("-q", "--quiet", is_flag=True, help="print the ids only, one a line (for scripts)")(f)


def echo_json(data: Any) -> None:
    """JSON on stdout, indented, amounts as the numbers the service sent."""
    click.echo(jsonlib.dumps(data, ensure_ascii=False, indent=2, default=_number))


def _number(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    raise TypeError(f"{type(value).__name__} is not JSON")
