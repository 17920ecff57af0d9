"""The service over HTTP for the client commands: the server and key options, the calls they
make, a refusal as its problem+json reason."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import click
import httpx
from rich.console import Console

from app.cli.client.language import current_lang, lang_option

DEFAULT_URL = "http://127.0.0.1:8000"
TIMEOUT = httpx.Timeout(30.0, connect=5.0)


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


def server_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """Every command's --url, --key and --lang."""
    f = click.option(
        "--key", envvar="PREFSCORE_KEY", show_envvar=True, help="API key (Authorization: Bearer ...)"
    )(f)
    f = click.option(
        "--url", envvar="PREFSCORE_URL", default=DEFAULT_URL, show_default=True, show_envvar=True, help="the service"
    )(f)
    return lang_option(f)


def stdout() -> Console:
    return Console(highlight=False)
