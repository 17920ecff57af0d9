"""Idempotency-Keys against undo and correction: an undo or a correction of a deal retires
the keys that posted it (a post with one is then a new deal), the answers of the keys of
re-scored later deals are made again, and a retried PUT or DELETE changes nothing twice."""

from __future__ import annotations

import json

from click.testing import CliRunner

from app.cli.main import main
from tests.views.conftest import live_url, owner_key  # noqa: F401  (fixtures of the client test)

from .samples import ALLPASS, PASS_6S, pass_6s


def _post(api, tid, body, key):
    return api.post(f"/v1/tables/{tid}/deals", json=body, headers={"Idempotency-Key": key})


def test_a_post_after_an_undo_is_a_new_deal(api):
    tid = api.table()["id"]
    first = _post(api, tid, PASS_6S, "K1")
    assert first.status_code == 201 and first.json()["deal"]["number"] == 1
    assert api.delete(f"/v1/tables/{tid}/deals/1").status_code == 200
    assert api.get(f"/v1/tables/{tid}").json()["deal_count"] == 0
    again = _post(api, tid, PASS_6S, "K1")
    # before: 201 with Idempotent-Replayed and deal 1, but nothing stored (GET deal 1: 404)
    assert again.status_code == 201, again.text
    assert again.headers.get("idempotent-replayed") is None
    assert again.json()["deal"]["number"] == 1
    got = api.get(f"/v1/tables/{tid}/deals/1")
    assert got.status_code == 200 and got.json() == again.json()["deal"]
    # the new answer is the one replayed now
    replay = _post(api, tid, PASS_6S, "K1")
    assert replay.headers.get("idempotent-replayed") == "true" and replay.json() == again.json()
    assert api.get(f"/v1/tables/{tid}").json()["deal_count"] == 1


def test_an_undo_retires_only_the_undone_deals_keys(api):
    tid = api.table()["id"]
    for n, key in enumerate(["a", "b", "c"]):
        assert _post(api, tid, pass_6s(n), key).status_code == 201
    assert api.delete(f"/v1/tables/{tid}/deals/3").status_code == 200
    # a and b still replay (their deals are stored as answered), c is a new deal 3
    for n, key in enumerate(["a", "b"]):
        r = _post(api, tid, pass_6s(n), key)
        assert r.headers.get("idempotent-replayed") == "true" and r.json()["deal"]["number"] == n + 1
    r = _post(api, tid, pass_6s(2), "c")
    assert r.status_code == 201 and r.headers.get("idempotent-replayed") is None
    assert api.get(f"/v1/tables/{tid}").json()["deal_count"] == 3


def test_a_post_after_a_correction_is_a_new_deal(api):
    tid = api.table()["id"]
    posted = _post(api, tid, PASS_6S, "K1").json()["deal"]
    corrected = {**PASS_6S, "contract": "7S"}
    put = api.put(f"/v1/tables/{tid}/deals/1", json=corrected)
    assert put.status_code == 200, put.text
    again = _post(api, tid, PASS_6S, "K1")
    # before: a replay of deal 1 with the old contract, which is no longer stored
    assert again.status_code == 201 and again.headers.get("idempotent-replayed") is None
    assert again.json()["deal"]["number"] == 2 and again.json()["deal"]["contract"] == "6S"
    log = api.log(tid)
    assert [d["contract"] for d in log] == ["7S", "6S"] and posted["contract"] == "6S"


def test_the_answers_of_rescored_later_deals_are_made_again(api):
    # pool target 2: Anna's 6S fills her pool with 2; a second 6S by Anna overflows (its 2
    # go to the others' pools, sochi 7.2). Corrected to Boris, deal 1 leaves Anna's pool
    # empty and deal 2 then writes pool 2 for Anna: deal 2 is re-scored.
    tid = api.table(pool_target=2)["id"]
    assert _post(api, tid, pass_6s(0), "d1").status_code == 201
    second = _post(api, tid, pass_6s(0), "d2").json()
    put = api.put(f"/v1/tables/{tid}/deals/1", json=pass_6s(1))
    assert put.status_code == 200, put.text
    assert put.json()["rescored"] == [2]
    stored = api.get(f"/v1/tables/{tid}/deals/2").json()
    assert stored["entries"] != second["deal"]["entries"]
    replay = _post(api, tid, pass_6s(0), "d2")
    # before: the old entries of deal 2; now the deal as stored, and nothing posted twice
    assert replay.headers.get("idempotent-replayed") == "true"
    assert replay.json()["deal"] == stored
    assert replay.json()["sheet"] == api.get(f"/v1/tables/{tid}/sheet").json()
    assert api.get(f"/v1/tables/{tid}").json()["deal_count"] == 2


def test_a_retried_put_or_delete_changes_nothing_twice(api):
    tid = api.table()["id"]
    for n in range(3):
        api.deal(tid, pass_6s(n))
    corrected = {**pass_6s(1), "contract": "7S"}
    first = api.put(f"/v1/tables/{tid}/deals/2", json=corrected)
    again = api.put(f"/v1/tables/{tid}/deals/2", json=corrected)
    assert first.status_code == again.status_code == 200
    assert again.json()["deal"] == first.json()["deal"] and again.json()["sheet"] == first.json()["sheet"]
    assert again.json()["rescored"] == []
    # a DELETE names its deal: retried, the deal is gone (404) and no other deal is removed
    assert api.delete(f"/v1/tables/{tid}/deals/3").status_code == 200
    retry = api.delete(f"/v1/tables/{tid}/deals/3")
    assert retry.status_code == 404
    assert api.get(f"/v1/tables/{tid}").json()["deal_count"] == 2
    # and with If-Match a retry after another deal took the number changes nothing either
    etag = api.get(f"/v1/tables/{tid}/sheet").headers["etag"]
    api.deal(tid, ALLPASS)
    stale = api.delete(f"/v1/tables/{tid}/deals/3", headers={"If-Match": etag})
    assert stale.status_code == 412 and api.get(f"/v1/tables/{tid}").json()["deal_count"] == 3


def test_import_after_undos_puts_every_deal_back(live_url, owner_key, client, tmp_path):  # noqa: F811
    """``prefscore import`` of 3 deals, undo 3 and 2, import again: 3 deals on the table
    (before: "imported 3 deals", exit 0, and 1 deal on the table)."""
    runner = CliRunner()
    env = {"PREFSCORE_URL": live_url, "PREFSCORE_KEY": owner_key, "COLUMNS": "160"}

    def run(*args: str):
        result = runner.invoke(main, list(args), env=env)
        assert result.exit_code == 0, (result.output, result.exception)
        return result

    table_id = (
        run("table", "create", "--convention", "sochi", "--players", "Anna,Boris,Vera")
        .stdout.strip()
        .splitlines()[-1]
    )
    path = tmp_path / "deals.json"
    bodies = [pass_6s(0), pass_6s(1), pass_6s(2)]
    path.write_text(json.dumps(bodies))
    assert "imported 3 deals" in run("import", table_id, str(path)).output
    headers = {"Authorization": f"Bearer {owner_key}"}
    for n in (3, 2):
        assert client.delete(f"/v1/tables/{table_id}/deals/{n}", headers=headers).status_code == 200
    assert "imported 3 deals" in run("import", table_id, str(path)).output
    table = client.get(f"/v1/tables/{table_id}", headers=headers).json()
    assert table["deal_count"] == 3
    got = [client.get(f"/v1/tables/{table_id}/deals/{n}", headers=headers).json() for n in (1, 2, 3)]
    assert [d["declarer"] for d in got] == [0, 1, 2]


def test_the_migration_names_each_keys_deal_and_drops_the_ghosts(new_database):
    """0003 on a database written before it: a key whose deal is stored as answered gets
    its deal number; keys of undone or corrected deals (the ghosts) are deleted."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.pool import NullPool

    from app.kit.db import migrate

    with new_database("ghosts") as url:
        migrate.upgrade(url, "0002")
        engine = create_engine(url, poolclass=NullPool)
        now = "2026-11-30 12:00:00"
        with engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO tables (id, owner, convention, players, pool_target, options, first_dealer,"
                    " share_token, state, rules_version, deal_count, revision, created_at, updated_at)"
                    " VALUES ('t1', 'o', 'sochi', '[]', 20, '{}', 0, 'tok', '{}', 1, 1, 3, :now, :now)"
                ),
                {"now": now},
            )
            conn.execute(
                text(
                    "INSERT INTO deals (table_id, number, body, entries, created_at) VALUES ('t1', 1, :b, '[]', :now)"
                ),
                {"b": json.dumps(PASS_6S), "now": now},
            )
            answers = {
                "kept": {"number": 1, **PASS_6S, "entries": [], "created_at": "x"},
                "undone": {"number": 2, **ALLPASS, "entries": []},
                "corrected": {"number": 1, **PASS_6S, "contract": "7S", "entries": []},
            }
            for key, deal in answers.items():
                conn.execute(
                    text(
                        "INSERT INTO idempotency_keys (table_id, key, request_hash, status_code, response, created_at)"
                        " VALUES ('t1', :k, 'h', 201, :r, :now)"
                    ),
                    {"k": key, "r": json.dumps({"deal": deal, "sheet": {}}), "now": now},
                )
        migrate.upgrade(url)
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT key, deal_number FROM idempotency_keys")).all()
        engine.dispose()
        assert [tuple(r) for r in rows] == [("kept", 1)]


def test_a_correction_with_the_same_body_keeps_the_key(api):
    """A PUT of the body already stored changes no deal: the key that posted it still
    replays, so a retry of the post does not post the deal twice."""
    tid = api.table()["id"]
    first = _post(api, tid, PASS_6S, "K1").json()
    assert api.put(f"/v1/tables/{tid}/deals/1", json=PASS_6S).status_code == 200
    again = _post(api, tid, PASS_6S, "K1")
    assert again.headers.get("idempotent-replayed") == "true" and again.json() == first
    assert api.get(f"/v1/tables/{tid}").json()["deal_count"] == 1
