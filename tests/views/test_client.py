"""The command-line client against the app served by uvicorn on 127.0.0.1 (real httpx)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from app.cli.main import main


@pytest.fixture
def run(live_url, owner_key):
    runner = CliRunner()

    def invoke(*args: str, expect: int = 0):
        result = runner.invoke(
            main, list(args), env={"PREFSCORE_URL": live_url, "PREFSCORE_KEY": owner_key, "COLUMNS": "160"}
        )
        assert result.exit_code == expect, (result.output, result.exception)
        return result

    return invoke


def create(run, *extra: str) -> str:
    result = run("table", "create", "--convention", "piter", "--players", "Anna,Boris,Vera", *extra)
    return result.stdout.strip().splitlines()[-1]


def test_create_add_sheet_settle(run, client, owner_key):
    table_id = create(
        run, "--pool-target", "10", "--option", "stalingrad=false", "--option", "allpass_costs=[2,4,8]"
    )
    table = client.get(f"/v1/tables/{table_id}", headers={"Authorization": f"Bearer {owner_key}"}).json()
    assert table["pool_target"] == 10
    assert table["options"]["stalingrad"] is False and table["options"]["allpass_costs"] == [2, 4, 8]

    out = run("deal", "add", table_id, "7H", "1", "w2", "p0", "1:6", "2:3", "0:1").output
    assert "deal 1: 7♥ 1 w2 p0 1:6 2:3 0:1" in out  # the suit as its symbol
    assert "mountain" in out and "whists on Boris" in out
    run("deal", "add", table_id, "pass 0:2 1:5 2:3")

    out = run("sheet", table_id).output
    assert "Anna" in out and "Boris" in out and "Vera" in out
    assert "all-pass level 2" in out and "trick cost 4" in out and "lowest contract 7" in out
    assert "2 deals" in out

    out = run("settle", table_id, "--stake", "0.5").output
    assert "Settlement" in out and "stake 0.5" in out and "Transfers" in out
    assert "1/2" not in out  # no fraction where a person reads


def test_refused_deal_prints_the_reason(run):
    table_id = create(run)
    result = run("deal", "add", table_id, "7H 1 w2 p0 1:6 2:3 0:2", expect=1)
    assert "422" in result.output and "tricks" in result.output
    bad = run("deal", "add", table_id, "7Q 1", expect=2)
    assert "a deal starts with a contract" in bad.output


def test_wrong_key_and_unreachable_server(live_url, owner_key):
    runner = CliRunner()
    r = runner.invoke(main, ["sheet", "abc", "--url", live_url, "--key", "pk_wrong"])
    assert r.exit_code == 1 and "401" in r.output
    r = runner.invoke(main, ["sheet", "abc", "--url", "http://127.0.0.1:9", "--key", owner_key])
    assert r.exit_code == 1 and "cannot reach" in r.output


def test_import_stops_at_the_first_refused_deal(run, tmp_path, client, owner_key):
    table_id = create(run)
    deals = [
        {
            "type": "contract",
            "declarer": 1,
            "contract": "7H",
            "defenders": {"2": "whist", "0": "pass"},
            "tricks": {"1": 7, "2": 3, "0": 0},
        },
        "pass 0:2 1:5 2:3",
        {
            "number": 3,
            "type": "misere",
            "declarer": 0,
            "tricks": {"0": 0},
            "entries": [{"kind": "pool", "seat": 0, "amount": 10}],
        },
        {
            "type": "contract",
            "declarer": 2,
            "contract": "6S",
            "defenders": {"0": "whist", "1": "whist"},
            "tricks": {"2": 6, "0": 2, "1": 2},
        },  # refused: below the lowest contract after an all-pass
        "pass 0:2 1:5 2:3",
    ]
    path = tmp_path / "deals.json"
    path.write_text(json.dumps({"deals": deals}))
    result = run("import", table_id, str(path), expect=1)
    assert "deal 4 of deals.json refused" in result.output
    assert "422" in result.output and "contract" in result.output
    assert "3/5" in result.output  # the bar stopped there
    headers = {"Authorization": f"Bearer {owner_key}"}
    assert client.get(f"/v1/tables/{table_id}", headers=headers).json()["deal_count"] == 3

    # fixed and run again: the first three are not posted twice (idempotency keys)
    deals[3]["contract"] = "7S"
    deals[3]["tricks"] = {"2": 7, "0": 2, "1": 1}
    path.write_text(json.dumps(deals))
    result = run("import", table_id, str(path))
    assert "imported 5 deals" in result.output
    assert client.get(f"/v1/tables/{table_id}", headers=headers).json()["deal_count"] == 5


def test_import_of_a_bad_file(run, tmp_path):
    path = tmp_path / "deals.json"
    path.write_text('{"not": "a list"}')
    assert "expected a JSON list" in run("import", "x", str(path), expect=2).output
    path.write_text('["7Z 1"]')
    assert "deal 1" in run("import", "x", str(path), expect=2).output


@pytest.mark.parametrize("shape", ["keyed page", "shared page", "first shared shape", "list"])
def test_import_reads_every_listing_shape(run, tmp_path, client, owner_key, shape):
    """What one table's listing answers, imported into another: the keyed page and the share
    link's page ({items, next}), the share link's first shape ({deals}) and a plain list."""
    headers = {"Authorization": f"Bearer {owner_key}"}
    source = create(run)
    run("deal", "add", source, "7H", "1", "w2", "p0", "1:6", "2:3", "0:1")
    run("deal", "add", source, "pass 0:2 1:5 2:3")
    token = client.get(f"/v1/tables/{source}", headers=headers).json()["share_token"]
    keyed = client.get(f"/v1/tables/{source}/deals", headers=headers).json()
    shared = client.get(f"/v1/shared/{token}/deals").json()
    data = {
        "keyed page": keyed,
        "shared page": {"items": shared["items"], "next": shared["next"]},
        "first shared shape": {"deals": shared["items"]},  # a file saved from the first version
        "list": keyed["items"],
    }[shape]
    path = tmp_path / "deals.json"
    path.write_text(json.dumps(data))
    target = create(run)
    assert "imported 2 deals" in run("import", target, str(path)).output
    copied = client.get(f"/v1/tables/{target}/deals", headers=headers).json()["items"]
    strip = lambda d: {k: v for k, v in d.items() if k != "created_at"}  # noqa: E731
    assert [strip(d) for d in copied] == [strip(d) for d in keyed["items"]]


# --- the tables collection, the log and the record -----------------------------------------
def test_table_list_show_rename_archive_delete(run, client, owner_key):
    headers = {"Authorization": f"Bearer {owner_key}"}
    first = create(run)
    second = create(run)
    out = run("table", "list").output
    assert first in out and second in out and "2 tables" in out
    assert out.index(second) < out.index(first)  # latest activity first

    out = run(
        "table",
        "rename",
        first,
        "--players",
        "Anna,Boris,Vera K.",
        "--title",
        "Tuesday",
        "--note",
        "at Vera's",
    ).output
    assert "Tuesday" in out and "Vera K." in out
    out = run("table", "show", first).output
    assert "Tuesday" in out and "at Vera's" in out and "Vera K." in out and "share link" in out
    bad = run("table", "rename", first, "--players", "Anna,anna,Vera", expect=1)
    assert "422" in bad.output and "players" in bad.output and "distinct" in bad.output

    assert "archived" in run("table", "archive", first).output
    assert first not in run("table", "list").output
    assert first in run("table", "list", "--status", "archived").output
    refused = run("deal", "add", first, "pass 0:2 1:5 2:3", expect=1)
    assert "409" in refused.output and "archived" in refused.output
    assert "not archived" in run("table", "unarchive", first).output
    assert first in run("table", "list", "--player", "Vera K.").output

    assert f"deleted table {first}" in run("table", "delete", first, "--yes").output
    assert client.get(f"/v1/tables/{first}", headers=headers).status_code == 404
    assert "404" in run("table", "show", first, expect=1).output


def test_deal_list_undo_correct(run, client, owner_key):
    headers = {"Authorization": f"Bearer {owner_key}"}
    table_id = create(run)
    run("deal", "add", table_id, "7H", "1", "w2", "p0", "1:6", "2:3", "0:1")
    run("deal", "add", table_id, "pass 0:2 1:5 2:3")
    out = run("deal", "list", table_id).output
    # The stored (canonical) deal, in the notation; what it wrote, by name.
    assert "2 deals" in out and "7♥ 1 p0 w2 0:1 1:6 2:3" in out and "pass 0:2 1:5 2:3" in out
    assert "Boris mountain" in out and "Vera whists on Boris" in out

    out = run("deal", "correct", table_id, "1", "7H", "1", "w2", "p0", "1:7", "2:3", "0:0").output
    assert "deal 1 is now: 7♥ 1 w2 p0 1:7 2:3 0:0" in out
    assert client.get(f"/v1/tables/{table_id}/deals/1", headers=headers).json()["tricks"]["1"] == 7
    bad = run("deal", "correct", table_id, "1", "7Q 1", expect=2)
    assert "a deal starts with a contract" in bad.output

    assert "undid deal 2" in run("deal", "undo", table_id).output
    assert client.get(f"/v1/tables/{table_id}", headers=headers).json()["deal_count"] == 1
    assert "404" in run("deal", "undo", table_id, "5", expect=1).output
    run("deal", "undo", table_id)
    assert "no deal to undo" in run("deal", "undo", table_id, expect=1).output


def test_export_and_import_a_record(run, tmp_path, client, owner_key):
    headers = {"Authorization": f"Bearer {owner_key}"}
    source = create(run)
    run("deal", "add", source, "7H", "1", "w2", "p0", "1:6", "2:3", "0:1")
    run("deal", "add", source, "pass 0:2 1:5 2:3")
    record = json.loads(run("export", source).stdout)
    assert record["format"] == "prefscore-record" and len(record["deals"]) == 2

    path = tmp_path / "game.json"
    run("export", source, "--output", str(path))
    out = run("export", source, "--format", "csv").stdout
    assert out.splitlines()[0] == "deal,type,declarer,contract,seat,kind,on,amount,amount_exact,created_at"

    result = run("import", str(path))
    new_id = result.stdout.strip().splitlines()[-1]
    assert new_id != source and "imported 2 deals of game.json as a new table" in result.output
    new = client.get(f"/v1/tables/{new_id}", headers=headers).json()
    assert (
        new["deal_count"] == 2
        and new["sheet"] == client.get(f"/v1/tables/{source}/sheet", headers=headers).json()
    )

    # A record is not a deal file, and a deal file is not a record: each shape says so.
    assert "is a game record" in run("import", source, str(path), expect=2).output
    deals = tmp_path / "deals.json"
    deals.write_text(json.dumps(["pass 0:2 1:5 2:3"]))
    assert "is not a game record" in run("import", str(deals), expect=2).output

    # A record that disagrees with its re-scoring is refused, naming the deal.
    record["deals"][1]["entries"][0]["amount"] = 99
    path.write_text(json.dumps(record))
    refused = run("import", str(path), expect=1)
    assert "422" in refused.output and "deals.1.entries" in refused.output
