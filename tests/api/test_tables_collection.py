"""The tables collection: list (paged, filtered, ETag), PATCH (rename, title, note, archive),
DELETE (a real deletion, checked in the database) and a new share token."""

from __future__ import annotations

import unicodedata

from sqlalchemy import func, select

from app.deals.orm import DealRow, IdempotencyRow
from app.tables.orm import TableRow

from .samples import ALLPASS, PULKA, pass_6s

PROBLEM = "application/problem+json"


def patch(api, url, body, headers=None):
    return api.client.patch(url, json=body, headers={**api.headers, **(headers or {})})


def fields(response) -> set[str]:
    assert response.headers["content-type"].startswith(PROBLEM), response.text
    return {e["field"] for e in response.json()["errors"]}


def finished_table(api, **kw):
    t = api.table(pool_target=4, **kw)
    for deal in PULKA:
        api.deal(t["id"], deal)
    assert api.get(f"/v1/tables/{t['id']}/settlement").json()["final"] is True
    return t


def all_items(api, url):
    out = []
    while url:
        r = api.get(url)
        assert r.status_code == 200, r.text
        out += r.json()["items"]
        url = r.json()["next"]
    return out


def test_an_empty_owner_lists_nothing(api):
    r = api.get("/v1/tables")
    assert r.status_code == 200
    assert r.json() == {"items": [], "next": None}
    assert r.headers["etag"].startswith('"')


def test_newest_activity_first_and_keyset_pages(api):
    ids = [api.table()["id"] for _ in range(5)]
    # A deal on the first table makes it the most recent.
    api.deal(ids[0], pass_6s(1))
    expected = [ids[0], *reversed(ids[1:])]
    r = api.get("/v1/tables?limit=2")
    assert [t["id"] for t in r.json()["items"]] == expected[:2]
    assert r.json()["next"].startswith("/v1/tables?after=")
    assert [t["id"] for t in all_items(api, "/v1/tables?limit=2")] == expected


def test_a_summary_names_what_a_list_shows(api):
    t = api.table(players=["Anna", "Boris", "Vera"])
    api.deal(t["id"], pass_6s(1))
    (item,) = api.get("/v1/tables").json()["items"]
    assert item["id"] == t["id"] and item["convention"] == "sochi" and item["deal_count"] == 1
    assert item["players"] == [
        {"seat": 0, "name": "Anna"},
        {"seat": 1, "name": "Boris"},
        {"seat": 2, "name": "Vera"},
    ]
    assert item["finished"] is False and item["archived"] is False and item["balances"] is None
    assert item["title"] is None and item["updated_at"].endswith("Z")


def test_finished_tables_carry_their_balances(api):
    t = finished_table(api)
    (item,) = api.get("/v1/tables?status=finished").json()["items"]
    settlement = api.get(f"/v1/tables/{t['id']}/settlement").json()
    assert item["finished"] is True
    assert [p["balance_exact"] for p in item["balances"]] == [
        p["balance_exact"] for p in settlement["players"]
    ]
    assert sum(p["balance"] for p in item["balances"]) == 0
    assert api.get("/v1/tables?status=active").json()["items"] == []


def test_filters_by_status_convention_and_player(api):
    a = api.table(convention="sochi", players=["Anna", "Boris", "Vera"])
    b = api.table(convention="piter", players=["Anna", "Gleb", "Dima"])
    c = api.table(convention="rostov", players=["Zoë", "Gleb", "Vera"])
    assert {t["id"] for t in api.get("/v1/tables?convention=piter").json()["items"]} == {b["id"]}
    assert {t["id"] for t in api.get("/v1/tables?player=Anna").json()["items"]} == {a["id"], b["id"]}
    assert {t["id"] for t in api.get("/v1/tables?player=Gleb&convention=rostov").json()["items"]} == {c["id"]}
    # A name typed decomposed is the stored NFC name.
    decomposed = unicodedata.normalize("NFD", "Zoë")
    assert {t["id"] for t in api.get("/v1/tables", params={"player": decomposed}).json()["items"]} == {
        c["id"]
    }
    assert {t["id"] for t in api.get("/v1/tables?status=active").json()["items"]} == {
        a["id"],
        b["id"],
        c["id"],
    }


def test_bad_queries_name_the_parameter(api):
    assert "status" in fields(api.get("/v1/tables?status=lost"))
    assert "convention" in fields(api.get("/v1/tables?convention=bridge"))
    assert "limit" in fields(api.get("/v1/tables?limit=1000"))
    assert "after" in fields(api.get("/v1/tables?after=not-a-cursor"))


def test_the_page_etag_answers_304_until_a_table_changes(api):
    t = api.table()
    r = api.get("/v1/tables")
    etag = r.headers["etag"]
    again = api.get("/v1/tables", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.headers["etag"] == etag
    api.deal(t["id"], pass_6s(1))
    changed = api.get("/v1/tables", headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["etag"] != etag
    # A rename changes the page too (the names are in it).
    etag = changed.headers["etag"]
    patch(api, f"/v1/tables/{t['id']}", {"players": ["Anna", "Boris", "Vera K."]})
    assert api.get("/v1/tables", headers={"If-None-Match": etag}).status_code == 200


def test_rename_keeps_the_sheet(api):
    t = api.table()
    api.deal(t["id"], pass_6s(1))
    api.deal(t["id"], ALLPASS)
    before = api.get(f"/v1/tables/{t['id']}/sheet").json()
    r = patch(api, f"/v1/tables/{t['id']}", {"players": ["Anna", "  Bor\u0131s ", "Vera"]})
    assert r.status_code == 200, r.text
    assert [p["name"] for p in r.json()["players"]] == ["Anna", "Bor\u0131s", "Vera"]
    after = api.get(f"/v1/tables/{t['id']}/sheet").json()
    strip = lambda s: [{k: v for k, v in p.items() if k != "name"} for p in s["players"]]  # noqa: E731
    assert strip(after) == strip(before)
    assert [p["name"] for p in after["players"]] == ["Anna", "Bor\u0131s", "Vera"]
    # Names are NFC at a rename as at creation.
    r = patch(
        api, f"/v1/tables/{t['id']}", {"players": ["Anna", unicodedata.normalize("NFD", "Zoë"), "Vera"]}
    )
    assert r.json()["players"][1]["name"] == "Zoë"


def test_a_rename_to_a_duplicate_or_the_wrong_count_is_refused(api):
    t = api.table()
    r = patch(api, f"/v1/tables/{t['id']}", {"players": ["Anna", "anna", "Vera"]})
    assert r.status_code == 422 and fields(r) == {"players"}
    assert "distinct" in r.json()["errors"][0]["reason"]
    r = patch(api, f"/v1/tables/{t['id']}", {"players": ["Anna", "Boris", "Vera", "Gleb"]})
    assert r.status_code == 422 and fields(r) == {"players"}
    assert [p["name"] for p in api.get(f"/v1/tables/{t['id']}").json()["players"]] == [
        "Anna",
        "Boris",
        "Vera",
    ]


def test_title_and_note_are_set_and_cleared(api):
    t = api.table()
    r = patch(api, f"/v1/tables/{t['id']}", {"title": "Tuesday", "note": "at Vera's"})
    assert r.status_code == 200 and r.json()["title"] == "Tuesday" and r.json()["note"] == "at Vera's"
    assert api.get("/v1/tables").json()["items"][0]["title"] == "Tuesday"
    r = patch(api, f"/v1/tables/{t['id']}", {"title": None})
    assert r.json()["title"] is None and r.json()["note"] == "at Vera's"


def test_the_share_link_shows_the_title_but_not_the_owners_note(api):
    # The note is the owner's free text; the share link is public (anyone holding it reads it).
    t = api.table()
    patch(api, f"/v1/tables/{t['id']}", {"title": "Tuesday", "note": "Boris owes me for the last one"})
    shared = api.client.get(f"/v1/shared/{t['share_token']}").json()
    assert shared["title"] == "Tuesday" and "settlement" in shared
    assert "note" not in shared
    assert "Boris owes" not in api.client.get(f"/v1/shared/{t['share_token']}").text
    assert api.get(f"/v1/tables/{t['id']}").json()["note"] == "Boris owes me for the last one"
    schema = api.client.get("/openapi.json").json()["components"]["schemas"]
    assert "note" in schema["TableOut"]["properties"] and "note" in schema["TableOut"]["required"]
    assert "note" not in schema["SharedOut"]["properties"] and "title" in schema["SharedOut"]["properties"]


def test_bounded_lengths_and_unknown_fields_are_named(api):
    t = api.table()
    assert fields(patch(api, f"/v1/tables/{t['id']}", {"title": "x" * 201})) == {"title"}
    assert fields(patch(api, f"/v1/tables/{t['id']}", {"note": "x" * 2001})) == {"note"}
    r = patch(api, f"/v1/tables/{t['id']}", {"colour": "red"})
    assert r.status_code == 422 and fields(r) == {"colour"}
    assert "colour is not a field" in r.json()["errors"][0]["reason"]
    assert fields(patch(api, f"/v1/tables/{t['id']}", {"archived": "yes"})) == {"archived"}


def test_if_match_guards_a_patch(api):
    t = api.table()
    stale = api.get(f"/v1/tables/{t['id']}").headers["etag"]
    api.deal(t["id"], pass_6s(1))
    r = patch(api, f"/v1/tables/{t['id']}", {"title": "late"}, headers={"If-Match": stale})
    assert r.status_code == 412
    assert api.get(f"/v1/tables/{t['id']}").json()["title"] is None
    current = api.get(f"/v1/tables/{t['id']}").headers["etag"]
    r = patch(api, f"/v1/tables/{t['id']}", {"title": "on time"}, headers={"If-Match": current})
    assert r.status_code == 200 and r.headers["etag"] != current


def test_an_archived_table_refuses_deals_and_leaves_the_list(api):
    t = api.table()
    api.deal(t["id"], pass_6s(1))
    r = patch(api, f"/v1/tables/{t['id']}", {"archived": True})
    assert r.status_code == 200 and r.json()["archived"] is True
    for refused in (
        api.post(f"/v1/tables/{t['id']}/deals", json=pass_6s(2)),
        api.delete(f"/v1/tables/{t['id']}/deals/1"),
        api.put(f"/v1/tables/{t['id']}/deals/1", json=pass_6s(1)),
    ):
        assert refused.status_code == 409, refused.text
        assert refused.json()["reason"] == "archived"
    assert api.get(f"/v1/tables/{t['id']}").json()["deal_count"] == 1
    assert api.get("/v1/tables").json()["items"] == []
    assert [x["id"] for x in api.get("/v1/tables?status=archived").json()["items"]] == [t["id"]]
    # Unarchived, it plays on.
    assert patch(api, f"/v1/tables/{t['id']}", {"archived": False}).json()["archived"] is False
    api.deal(t["id"], pass_6s(2))
    assert [x["id"] for x in api.get("/v1/tables").json()["items"]] == [t["id"]]


def test_an_idempotent_retry_of_a_deal_posted_before_the_archive_replays(api):
    t = api.table()
    key = {"Idempotency-Key": "before-archive"}
    api.deal(t["id"], pass_6s(1), headers=key)
    patch(api, f"/v1/tables/{t['id']}", {"archived": True})
    r = api.post(f"/v1/tables/{t['id']}/deals", json=pass_6s(1), headers=key)
    assert r.status_code == 201 and r.headers["idempotent-replayed"] == "true"


def test_a_change_bumps_the_etag_and_a_no_op_does_not(api):
    t = api.table()
    etag = api.get(f"/v1/tables/{t['id']}").headers["etag"]
    same = patch(api, f"/v1/tables/{t['id']}", {"players": ["Anna", "Boris", "Vera"], "archived": False})
    assert same.headers["etag"] == etag
    renamed = patch(api, f"/v1/tables/{t['id']}", {"title": "x"})
    assert renamed.headers["etag"] != etag
    assert renamed.json()["updated_at"] > t["created_at"]


def test_delete_removes_every_row(api, db):
    t = api.table()
    api.deal(t["id"], pass_6s(1), headers={"Idempotency-Key": "k1"})
    api.deal(t["id"], ALLPASS, headers={"Idempotency-Key": "k2"})
    token = t["share_token"]
    assert api.client.get(f"/v1/shared/{token}").status_code == 200
    assert api.client.get(f"/v1/shared/{token}/sheet.svg").status_code == 200
    r = api.delete(f"/v1/tables/{t['id']}")
    assert r.status_code == 204 and r.content == b""
    with db.read() as session:
        assert session.scalar(select(func.count()).select_from(TableRow).where(TableRow.id == t["id"])) == 0
        assert (
            session.scalar(select(func.count()).select_from(DealRow).where(DealRow.table_id == t["id"])) == 0
        )
        assert (
            session.scalar(
                select(func.count()).select_from(IdempotencyRow).where(IdempotencyRow.table_id == t["id"])
            )
            == 0
        )
    assert api.get(f"/v1/tables/{t['id']}").status_code == 404
    assert api.client.get(f"/v1/shared/{token}").status_code == 404
    assert api.client.get(f"/v1/shared/{token}/sheet.svg").status_code == 404
    assert api.client.get(f"/shared/{token}").status_code == 404
    assert api.delete(f"/v1/tables/{t['id']}").status_code == 404
    assert api.get("/v1/tables").json()["items"] == []


def test_delete_honours_if_match(api):
    t = api.table()
    r = api.delete(f"/v1/tables/{t['id']}", headers={"If-Match": '"stale"'})
    assert r.status_code == 412
    assert api.get(f"/v1/tables/{t['id']}").status_code == 200


def test_a_new_share_token_ends_the_old_link_at_once(api):
    t = api.table()
    api.deal(t["id"], pass_6s(1))
    old = t["share_token"]
    # The picture is drawn and cached, the JSON read: the caches are warm.
    assert api.client.get(f"/v1/shared/{old}/sheet.svg").status_code == 200
    assert api.client.get(f"/v1/shared/{old}").status_code == 200
    r = api.post(f"/v1/tables/{t['id']}/share-token")
    assert r.status_code == 200, r.text
    new = r.json()["share_token"]
    assert new != old
    for url in (
        f"/v1/shared/{old}",
        f"/v1/shared/{old}/sheet.svg",
        f"/v1/shared/{old}/deals",
        f"/shared/{old}",
    ):
        assert api.client.get(url).status_code == 404, url
    assert api.client.get(f"/v1/shared/{new}").status_code == 200
    assert api.client.get(f"/v1/shared/{new}/sheet.svg").status_code == 200
    assert api.get(f"/v1/tables/{t['id']}").json()["share_token"] == new


def test_the_listing_is_the_owners_alone(api, other_api):
    mine = api.table()
    other_api.table()
    assert [t["id"] for t in api.get("/v1/tables").json()["items"]] == [mine["id"]]


def test_another_owners_table_is_404_on_every_route_here(api, other_api):
    """Route by route: the collection's and the record's routes never show, change or delete
    another owner's table, and say 404 as for a table that does not exist."""
    t = api.table()
    api.deal(t["id"], pass_6s(1))
    tid = t["id"]
    calls = {
        "updateTable": lambda a: patch(a, f"/v1/tables/{tid}", {"title": "mine now"}),
        "updateTable archive": lambda a: patch(a, f"/v1/tables/{tid}", {"archived": True}),
        "updateTable rename": lambda a: patch(a, f"/v1/tables/{tid}", {"players": ["X", "Y", "Z"]}),
        "deleteTable": lambda a: a.delete(f"/v1/tables/{tid}"),
        "rotateShareToken": lambda a: a.post(f"/v1/tables/{tid}/share-token"),
        "exportTable": lambda a: a.get(f"/v1/tables/{tid}/export"),
        "exportTable csv": lambda a: a.get(f"/v1/tables/{tid}/export?format=csv"),
    }
    for name, call in calls.items():
        r = call(other_api)
        assert r.status_code == 404, (name, r.text)
        assert r.headers["content-type"].startswith(PROBLEM), name
    missing = "0" * 32
    # The same answers for a table that does not exist at all.
    assert patch(api, f"/v1/tables/{missing}", {"title": "x"}).status_code == 404
    assert api.delete(f"/v1/tables/{missing}").status_code == 404
    assert api.post(f"/v1/tables/{missing}/share-token").status_code == 404
    assert api.get(f"/v1/tables/{missing}/export").status_code == 404
    # The listing never shows it, whatever the filter.
    for query in (
        "",
        "?status=active",
        "?status=archived",
        "?status=finished",
        "?player=Anna",
        "?convention=sochi",
    ):
        assert other_api.get(f"/v1/tables{query}").json()["items"] == [], query
    # Nothing changed.
    same = api.get(f"/v1/tables/{tid}").json()
    assert same["title"] is None and same["archived"] is False and same["share_token"] == t["share_token"]
    assert [p["name"] for p in same["players"]] == ["Anna", "Boris", "Vera"] and same["deal_count"] == 1


def test_a_patch_without_a_body_changes_nothing(api):
    t = api.table()
    r = api.client.patch(f"/v1/tables/{t['id']}", headers=api.headers)
    assert r.status_code == 200 and r.headers["etag"] == api.get(f"/v1/tables/{t['id']}").headers["etag"]
    assert r.json()["updated_at"] == t["updated_at"]
