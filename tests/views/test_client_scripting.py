"""The command-line client in scripts and pipes: ids printed whole at any width (and a
table's id taken by its beginning), --json and -q, the server options before or after the
command, refusals in the chosen language, a 401 that says how to give a key, and the scorer
link a phone can open, with its QR code."""

from __future__ import annotations

import json
import re
from decimal import Decimal

import pytest
from click.testing import CliRunner

from app.cli.client import scorer_link
from app.cli.main import main

ELLIPSIS = "…"


@pytest.fixture
def runner(live_url, owner_key):
    # 80 columns, as a pipe gives rich (CliRunner's output is not a terminal); English locale
    return CliRunner(
        env={
            "PREFSCORE_URL": live_url,
            "PREFSCORE_KEY": owner_key,
            "COLUMNS": "80",
            "PREFSCORE_LANG": None,
            "LC_ALL": None,
            "LC_MESSAGES": None,
            "LANG": "en_US.UTF-8",
            "PREFSCORE_PUBLIC_URL": None,
        }
    )


@pytest.fixture
def run(runner):
    def invoke(*args: str, expect: int = 0):
        result = runner.invoke(main, list(args))
        assert result.exit_code == expect, (result.output, result.exception)
        return result

    return invoke


def create(run, *players: str) -> str:
    return run(
        "table",
        "create",
        "--convention",
        "piter",
        "--players",
        ",".join(players or ("Anna", "Boris", "Vera")),
        "--first-dealer",
        "0",
    ).stdout.strip()


def test_ids_are_never_cut_at_80_columns_nor_in_a_pipe(run):
    ids = [
        create(run, "Anna Karenina-Vronskaya", "Boris Godunov-Shuisky", "Vera Pavlovna Rozalskaya")
        for _ in range(2)
    ]
    run("table", "rename", ids[0], "--title", "a long title that has to wrap over several lines of the table")
    out = run("table", "list").stdout
    for table_id in ids:
        assert table_id in out, out  # whole, on one line
    assert ELLIPSIS not in out, out
    # -q: the ids alone, one a line; --json: the service's listing
    # (latest activity first: the renamed one)
    assert run("table", "list", "-q").stdout.split() == ids
    listed = json.loads(run("table", "list", "--json").stdout)
    assert [t["id"] for t in listed] == ids


def test_a_table_is_named_by_the_beginning_of_its_id(run, client, owner_key):
    table_id = create(run)
    run("deal", "add", table_id[:8], "pass", "0:2", "1:5", "2:3")
    sheet = json.loads(run("sheet", table_id[:8], "--json").stdout)
    assert sheet["deal_count"] == 1
    # 17 tables: two ids at least begin with the same character (16 hex digits)
    headers = {"Authorization": f"Bearer {owner_key}"}
    ids = [table_id] + [
        client.post(
            "/v1/tables", json={"players": ["A", "B", "C"], "convention": "piter"}, headers=headers
        ).json()["id"]
        for _ in range(16)
    ]
    first = {}
    for i in ids:
        first.setdefault(i[0], []).append(i)
    prefix, shared = next((p, s) for p, s in first.items() if len(s) > 1)
    refused = run("sheet", prefix, expect=1).output
    assert f"tables have an id starting with {prefix}" in refused and "give more of the id" in refused
    for i in shared:
        assert i in refused
    absent = next(c for c in "0123456789abcdef" if c not in first) if len(first) < 16 else None
    if absent:
        assert "no table of this key has an id starting with" in run("sheet", absent, expect=1).output


def test_json_on_every_command_that_prints_data(run):
    table_id = create(run)
    added = json.loads(
        run("deal", "add", table_id, "7H", "1", "w2", "p0", "1:6", "2:3", "0:1", "--json").stdout
    )
    assert added["deal"]["number"] == 1 and added["sheet"]["deal_count"] == 1
    deals = json.loads(run("deal", "list", table_id, "--json").stdout)
    assert [d["number"] for d in deals] == [1]
    assert run("deal", "list", table_id, "-q").stdout.split() == ["1"]
    run("deal", "add", table_id, "pass 0:2 1:5 2:3")
    # Boris (seat 1) 7♥ one down, 6 tricks: mountain 8 in piter (docs/rules.md)
    sheet = json.loads(run("sheet", table_id, "--json").stdout)
    assert sheet["players"][1]["mountain"] >= 8
    shown = json.loads(run("table", "show", table_id, "--json").stdout)
    assert shown["id"] == table_id and shown["deal_count"] == 2
    settled = json.loads(run("settle", table_id, "--stake", "0.5", "--json").stdout, parse_float=Decimal)
    assert sum(p["balance"] for p in settled["players"]) == 0
    assert json.loads(run("deal", "correct", table_id, "2", "pass", "0:3", "1:4", "2:3", "--json").stdout)[
        "sheet"
    ]
    assert json.loads(run("deal", "undo", table_id, "--json").stdout)["deal"]["number"] == 2
    assert (
        json.loads(run("table", "rename", table_id, "--title", "Tuesday", "--json").stdout)["title"]
        == "Tuesday"
    )
    assert json.loads(run("table", "archive", table_id, "--json").stdout)["archived"] is True
    assert json.loads(run("table", "unarchive", table_id, "--json").stdout)["archived"] is False
    created = json.loads(
        run("table", "create", "--convention", "sochi", "--players", "A,B,C", "--json").stdout
    )
    assert created["convention"] == "sochi"
    player = run("player", "add", "Anna").stdout.strip()
    assert run("player", "list", "-q").stdout.split() == [player]
    assert json.loads(run("player", "list", "--json").stdout)[0]["id"] == player
    assert json.loads(run("player", "stats", player, "--json").stdout)["player"]["id"] == player


def test_server_options_before_or_after_the_command(runner, live_url, owner_key):
    table_id = runner.invoke(
        main,
        [
            "--url",
            live_url,
            "--key",
            owner_key,
            "table",
            "create",
            "--convention",
            "piter",
            "--players",
            "Anna,Boris,Vera",
        ],
        env={"PREFSCORE_URL": "http://127.0.0.1:9", "PREFSCORE_KEY": "pk_wrong"},
    ).stdout.strip()
    assert re.fullmatch(r"[0-9a-f]{32}", table_id), table_id
    for args in (
        ["--lang", "ru", "table", "list"],
        ["table", "--lang", "ru", "list"],
        ["table", "list", "--lang", "ru"],
    ):
        out = runner.invoke(main, args).output
        assert "1 стол" in out, (args, out)
    # given twice, the one nearer the command wins
    out = runner.invoke(main, ["--lang", "ru", "sheet", table_id, "--lang", "en"]).output
    assert "pool to 20" in " ".join(out.split()), out


def test_refusals_in_the_chosen_language(run):
    table_id = create(run)
    missing = "0" * 32
    out = run("--lang", "ru", "table", "show", missing, expect=1).output
    # the server words its refusal in Russian when asked: its sentence, not a quote of English
    assert f"404 Не найдено: нет стола '{missing}'" in " ".join(out.split()), out
    assert "сервер ответил" not in out, out
    run("table", "archive", table_id)
    out = " ".join(
        run("--lang", "ru", "deal", "add", table_id, "pass", "0:2", "1:5", "2:3", expect=1).output.split()
    )
    # the server's sentence, then the client's own advice for the conflict
    assert (
        f"409 Конфликт: стол {table_id} в архиве" in out
        and "стол в архиве" in out
        and "prefscore table unarchive" in out
    ), out
    out = " ".join(run("deal", "add", table_id, "pass", "0:2", "1:5", "2:3", expect=1).output.split())
    assert out.startswith("Error: 409 Conflict: table") and "archived" in out, out


@pytest.mark.parametrize("lang, words", [("en", "PREFSCORE_KEY"), ("ru", "PREFSCORE_KEY")])
def test_a_401_says_how_to_give_a_key(run, lang, words):
    output = run("--lang", lang, "table", "list", "--key", "pk_wrong", expect=1).output
    # one line, in one language: the prefix too
    [line] = output.splitlines()
    assert line.startswith({"en": "Error: 401", "ru": "Ошибка: 401"}[lang]), output
    out = " ".join(output.split())
    assert "401" in out and "--key" in out and words in out and "prefscore keys create" in out, out
    if lang == "ru":
        assert "Не авторизован" in out and "ключ" in out and "Error" not in out


@pytest.mark.parametrize("lang, prefix", [("en", "Error: "), ("ru", "Ошибка: ")])
def test_a_failure_of_the_client_s_own_is_in_its_language(run, lang, prefix):
    """An error the client finds itself (no table with that id's beginning), in one language."""
    output = run("--lang", lang, "deal", "undo", "abcdef", expect=1).output
    [line] = output.splitlines()
    assert line.startswith(prefix) and "abcdef" in line, output
    if lang == "ru":
        assert "Error" not in output


def test_the_client_asks_for_its_language():
    """Accept-Language carries the chosen language, so that a service wording its problems
    in the asker's language answers in it."""
    import httpx

    from app.cli.client.connection import Client

    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers.get("accept-language"))
        return httpx.Response(200, json={"items": [], "next": None})

    import click

    @click.command()
    @click.option("--lang", default="ru")
    def probe(lang: str) -> None:
        click.get_current_context().meta["prefscore.lang"] = lang
        client = Client("http://prefscore.test", None)
        client.http = httpx.Client(
            base_url="http://prefscore.test",
            headers=client.http.headers,
            transport=httpx.MockTransport(handler),
        )
        client.tables({})

    CliRunner().invoke(probe, ["--lang", "ru"], catch_exceptions=False)
    CliRunner().invoke(probe, ["--lang", "en"], catch_exceptions=False)
    assert seen == ["ru", "en"]


QR_BLOCKS = set("█▀▄")
# Two rows of modules a character, light drawn (for a dark terminal) and dark left blank:
# (top is dark, bottom is dark).
HALVES = {"█": (False, False), " ": (True, True), "▀": (False, True), "▄": (True, False)}


def modules(lines: list[str]) -> list[list[bool]]:
    """The QR code's modules (True: dark) read back from the printed half blocks."""
    rows: list[list[bool]] = []
    for line in lines:
        pairs = [HALVES[c] for c in line]
        rows += [[top for top, _ in pairs], [bottom for _, bottom in pairs]]
    return rows


def expected_modules(link: str) -> list[list[bool]]:
    """The modules of the link's code with its quiet zone of 4, and for an odd count of rows
    a last half line left blank (the terminal's background: read as dark)."""
    import segno

    code = segno.make(link, error="m")
    size = len(code.matrix) + 8
    rows = [[False] * size for _ in range(4)]
    rows += [[False] * 4 + [bool(m) for m in row] + [False] * 4 for row in code.matrix]
    rows += [[False] * size for _ in range(4)]
    if len(rows) % 2:
        rows.append([True] * size)
    return rows


def test_scorer_link_for_the_phone_with_a_qr_code(run, runner, monkeypatch):
    table_id = create(run)
    result = run("table", "scorer-link", table_id, "--public-url", "http://192.168.1.20:8000/")
    link = result.stdout.strip()
    assert re.fullmatch(r"http://192\.168\.1\.20:8000/score/\S+", link), (
        result.stdout
    )  # stdout: the link alone
    qr_lines = [line for line in result.stderr.splitlines() if line and set(line) <= QR_BLOCKS | {" "}]
    assert len(qr_lines) >= 15, result.stderr  # version 3+: 29+ modules, two rows a line
    assert len({len(line) for line in qr_lines}) == 1  # a square, every line as wide
    assert modules(qr_lines) == expected_modules(link)  # the code printed is the link's

    # the setting in the environment; --json gives the whole link with its address
    monkeypatch.setenv("PREFSCORE_PUBLIC_URL", "https://prefs.example.org")
    made = json.loads(
        runner.invoke(
            main,
            ["table", "scorer-link", table_id, "--json"],
            env={"PREFSCORE_PUBLIC_URL": "https://prefs.example.org"},
        ).stdout
    )
    assert made["url"].startswith("https://prefs.example.org/score/") and made["url"].endswith(made["link"])

    # no public address given: the loopback host of --url becomes this machine's address
    monkeypatch.setattr(scorer_link, "lan_address", lambda: "10.1.2.3")
    result = run("table", "scorer-link", table_id, "--no-qr")
    assert re.fullmatch(r"http://10\.1\.2\.3:\d+/score/\S+", result.stdout.strip()), result.stdout
    assert "prefscore serve --host 0.0.0.0" in " ".join(result.stderr.split())
    assert not QR_BLOCKS & set(result.stderr)
    # -q: the link alone, nothing on stderr
    quiet = run("table", "scorer-link", table_id, "-q", "--public-url", "http://192.168.1.20:8000")
    assert quiet.stderr == "" and quiet.stdout.startswith("http://192.168.1.20:8000/score/")

    listed = json.loads(run("table", "scorer-link", table_id, "--list", "--json").stdout)
    assert len(listed) == 4
    assert run("table", "scorer-link", table_id, "--list", "-q").stdout.split() == [
        str(x["id"]) for x in listed
    ]
    revoked = json.loads(
        run("table", "scorer-link", table_id, "--revoke", str(listed[0]["id"]), "--json").stdout
    )
    assert revoked["revoked_at"]
    out = run("--lang", "ru", "table", "scorer-link", table_id, "--list").stdout
    assert "отозвана" in out and "действует" in out


def test_a_refused_field_in_russian(run):
    """A 422: what it means in Russian, the service's words and the refused field after it.
    7♥ by seat 1 with tricks 6 + 3 + 2 = 11: more than the 10 tricks of a deal."""
    table_id = create(run)
    out = run("--lang", "ru", "deal", "add", table_id, "7H 1 w2 p0 1:6 2:3 0:2", expect=1).output
    lines = out.splitlines()
    assert (
        lines[0]
        == "Ошибка: 422 Недопустимый запрос: сдача не подходит к столу: tricks: взяток в сумме 11, а не 10"
    ), out
    assert lines[1] == "  - tricks: взяток в сумме 11, а не 10", out


def test_an_older_server_answering_in_english_is_quoted():
    """A server that does not word its problems in the asker's language (no Content-Language,
    or English): the client says what the status means and quotes the server's words."""
    from app.cli.client.connection import describe_problem
    from app.kit.i18n import language

    problem = {
        "status": 422,
        "title": "Invalid request",
        "detail": "the deal does not fit the table: tricks: tricks add up to 11, not 10",
        "errors": [{"field": "tricks", "reason": "tricks add up to 11, not 10"}],
    }
    for said_in in (None, "en"):
        lines = describe_problem(problem, language("ru"), said_in).splitlines()
        assert lines[0] == "422 Недопустимый запрос: значение отклонено; каждое отклонённое поле названо ниже"
        assert (
            lines[1]
            == "  сервер ответил: the deal does not fit the table: tricks: tricks add up to 11, not 10"
        )
        assert lines[2] == "  - tricks: tricks add up to 11, not 10"
    # in English, as before, whatever the server says of its language
    assert (
        describe_problem(problem, language("en"), "en").splitlines()[0]
        == "422 Invalid request: " + problem["detail"]
    )
    assert (
        describe_problem(problem, language("en"), None).splitlines()[0]
        == "422 Invalid request: " + problem["detail"]
    )
