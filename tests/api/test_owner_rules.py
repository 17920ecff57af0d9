"""Who may act for an owner: no key can be made for the environment admin key's owner
("admin", whose tables it would read), and a scorer link works only while its table's owner
has a working key. Free text (names, titles, notes, external ids) refuses the characters
that make text read otherwise than it is written (Unicode's Bidi_Control)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from tests.conftest import Api, new_owner_key

PROBLEM = "application/problem+json"
DEAL = {"type": "contract", "declarer": 1, "contract": "6S", "defenders": {"0": "pass", "2": "pass"}}


def _refused(r, field: str) -> None:
    assert r.status_code == 422 and r.headers["content-type"].startswith(PROBLEM), r.text
    assert field in [e["field"] for e in r.json()["errors"]], r.text


def _key_id(client, admin_headers, key: str) -> int:
    return next(
        k["id"]
        for k in client.get("/v1/keys", headers=admin_headers).json()["items"]
        if k["prefix"] == key[:12]
    )


def test_no_key_is_made_for_the_admin_owner(client, admin_headers):
    admin_table = client.post(
        "/v1/tables", json={"players": ["A", "B", "C"], "convention": "sochi"}, headers=admin_headers
    ).json()
    before = client.get("/v1/keys", headers=admin_headers).json()["items"]
    _refused(client.post("/v1/keys", json={"owner": "admin"}, headers=admin_headers), "owner")
    assert client.get("/v1/keys", headers=admin_headers).json()["items"] == before  # nothing written
    # the environment key still reads its tables; another owner does not
    assert client.get(f"/v1/tables/{admin_table['id']}", headers=admin_headers).status_code == 200
    _owner, other = new_owner_key(client, admin_headers)
    assert (
        client.get(
            f"/v1/tables/{admin_table['id']}", headers={"Authorization": f"Bearer {other}"}
        ).status_code
        == 404
    )


def test_the_command_line_makes_no_key_for_the_admin_owner(tmp_path, monkeypatch):
    from app.cli.main import main

    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'none.db'}")
    result = CliRunner().invoke(main, ["keys", "create", "admin", "--create-database"])
    assert result.exit_code == 2 and "reserved" in result.output, result.output
    assert not (tmp_path / "none.db").exists()


def test_links_of_an_owner_without_a_working_key_stop_working(client, admin_headers):
    owner, key = new_owner_key(client, admin_headers)
    _same_owner, second = (
        client.post("/v1/keys", json={"owner": owner}, headers=admin_headers).json().values()
    )
    api = Api(client, key, owner)
    table = api.table()
    token = api.post(f"/v1/tables/{table['id']}/scorer-link").json()["link"].rsplit("/", 1)[1]
    assert client.get(f"/v1/score/{token}").status_code == 200
    assert (
        client.delete(f"/v1/keys/{_key_id(client, admin_headers, key)}", headers=admin_headers).status_code
        == 200
    )
    assert client.get(f"/v1/score/{token}").status_code == 200  # the owner has another key
    assert (
        client.delete(f"/v1/keys/{_key_id(client, admin_headers, second)}", headers=admin_headers).status_code
        == 200
    )
    for r in (
        client.get(f"/v1/score/{token}"),
        client.get(f"/score/{token}"),
        client.post(f"/v1/score/{token}/deals", json=DEAL),
    ):
        assert r.status_code == 404, r.text
    # nothing was written through it
    assert client.get(f"/v1/shared/{table['share_token']}/deals").json()["items"] == []
    # a new key for the owner: the owner's links work again
    client.post("/v1/keys", json={"owner": owner}, headers=admin_headers)
    assert client.get(f"/v1/score/{token}").status_code == 200


def test_the_admin_owners_links_work_with_the_environment_key(client, admin_headers):
    table = client.post(
        "/v1/tables", json={"players": ["A", "B", "C"], "convention": "sochi"}, headers=admin_headers
    ).json()
    link = client.post(f"/v1/tables/{table['id']}/scorer-link", headers=admin_headers).json()["link"]
    assert client.get("/v1/score/" + link.rsplit("/", 1)[1]).status_code == 200


BIDI = ["\u202e", "\u202a", "\u202d", "\u2066", "\u2069", "\u200f", "\u061c"]


@pytest.mark.parametrize("char", BIDI)
def test_bidirectional_controls_are_refused_in_free_text(api, char):
    text = f"Anna{char}gnp.exe"
    table = api.table()
    player = api.post("/v1/players", json={"name": "Boris", "external_id": "b-1"}).json()
    cases = [
        (api.post("/v1/tables", json={"players": [text, "B", "C"], "convention": "sochi"}), "players.0"),
        (
            api.post(
                "/v1/tables",
                json={"players": [{"name": "A", "external_id": text}, "B", "C"], "convention": "sochi"},
            ),
            "players.0.external_id",
        ),
        (api.client.patch(f"/v1/tables/{table['id']}", json={"title": text}, headers=api.headers), "title"),
        (api.client.patch(f"/v1/tables/{table['id']}", json={"note": text}, headers=api.headers), "note"),
        (
            api.client.patch(
                f"/v1/tables/{table['id']}", json={"players": [text, "B", "C"]}, headers=api.headers
            ),
            "players.0",
        ),
        (api.post("/v1/players", json={"name": text}), "name"),
        (api.post("/v1/players", json={"name": "Vera", "external_id": text}), "external_id"),
        (
            api.client.patch(f"/v1/players/{player['id']}", json={"external_id": text}, headers=api.headers),
            "external_id",
        ),
        (api.post(f"/v1/tables/{table['id']}/deals", json={**DEAL, "note": text}), "note"),
    ]
    for r, field in cases:
        _refused(r, field)
    # nothing written
    assert api.get(f"/v1/tables/{table['id']}").json()["title"] is None
    assert api.get(f"/v1/tables/{table['id']}").json()["deal_count"] == 0
    assert [p["name"] for p in api.get("/v1/players").json()["items"]] == ["Boris"]
    assert len(api.get("/v1/tables").json()["items"]) == 1


def test_right_to_left_text_itself_is_accepted(api):
    table = api.table(players=["אנה", "بوريس", "Vera"])
    r = api.client.patch(f"/v1/tables/{table['id']}", json={"title": "ערב שלישי"}, headers=api.headers)
    assert r.status_code == 200, r.text
