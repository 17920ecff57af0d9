"""The tournament's public views are built once per version of the tournament (app/kit/built.py,
app/tournaments/service.py ``public_view``): the page ``/tournament/{token}`` and the share
link's JSON ``/v1/shared/{token}/tournament`` are not built again for a repeat, and every
change the view shows (a deal at a table of the round, an adjustment, a table's new share
link, a round drawn or closed, a player's rating moved elsewhere) makes the next read a
fresh one. Each page answer keeps a script nonce of its own."""

from __future__ import annotations

import threading
import time

from app.kit.built import Built
from app.tournaments import page as page_module
from app.tournaments import router as router_module
from app.tournaments import service as svc
from tests.tournaments.test_api import draw, play, six_spades, tournament
from tests.tournaments.test_page import page, rows
from tests.tournaments.test_page_chances import _chances, _rated_players


def _builds() -> tuple[int, int, int]:
    """(views, pages, JSON answers) built so far in this process."""
    return svc._PUBLIC_VIEWS.builds, page_module._PAGES.builds, router_module._SHARED.builds


def _shared(api, token: str) -> dict:
    r = api.client.get(f"/v1/shared/{token}/tournament")
    assert r.status_code == 200, r.text
    return r.json()


# --- the kit's cache ---------------------------------------------------------------------------


def test_built_once_per_key_and_revision():
    built: Built[str] = Built(2)
    made = []

    def build(value: str):
        return lambda: made.append(value) or value

    assert built.get_or_build("a", 1, build("a1")) == "a1"
    assert built.get_or_build("a", 1, build("again")) == "a1"  # kept
    assert built.get_or_build("a", 2, build("a2")) == "a2"  # a new revision: built anew
    assert built.get("a", 1) is None and len(built) == 1  # the older one replaced
    built.get_or_build("b", 1, build("b1"))
    built.get_or_build("c", 1, build("c1"))  # beyond two keys: the least recently used goes
    assert built.get("a", 2) is None and built.get("c", 1) == "c1"
    assert made == ["a1", "a2", "b1", "c1"] and built.builds == 4


def test_built_bounded_by_bytes():
    built: Built[bytes] = Built(100, max_bytes=10, weigh=len)
    built.put("a", 1, b"12345")
    built.put("b", 1, b"12345")
    built.put("c", 1, b"123")  # over 10 bytes: "a" goes
    assert built.get("a", 1) is None and built.get("b", 1) == b"12345" and built.get("c", 1) == b"123"
    built.put("d", 1, b"x" * 11)  # larger than the whole cache: not kept
    assert built.get("d", 1) is None


def test_built_once_by_many_readers_at_once():
    built: Built[int] = Built(4)
    calls = []

    def slow() -> int:
        calls.append(1)
        time.sleep(0.1)
        return 7

    got = []
    threads = [
        threading.Thread(target=lambda: got.append(built.get_or_build("k", "r", slow))) for _ in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [7] * 8 and len(calls) == 1


# --- the tournament's public views --------------------------------------------------------------


def test_a_repeat_is_not_built_again_and_a_change_is_read_fresh(api):
    t = tournament(api, rounds=3)
    token = t["share_token"]
    tables = draw(api, t["id"], seed=3)["rounds"][0]["tables"]

    first_page, first_json = page(api, token), _shared(api, token)
    built = _builds()
    again_page, again_json = page(api, token), _shared(api, token)
    assert _builds() == built  # served as built
    assert again_json == first_json
    # the same page, byte for byte (no nonce: its scripts are static files, app/kit/pages.py)
    assert "nonce" not in again_page.headers["Content-Security-Policy"]
    assert again_page.text == first_page.text
    assert page(api, token, "ru").status_code == 200
    assert _builds()[:2] == (built[0], built[1] + 1)  # another language: the page, not the view

    # a deal at a table of the round: the next read is fresh
    api.deal(tables[0]["table_id"], six_spades(0))
    fresh = _shared(api, token)
    assert _builds()[0] == built[0] + 1
    assert fresh != first_json
    api.deal(tables[0]["table_id"], six_spades(1))  # the table's game over: its round scores shown
    seated = [s["entrant"] for s in tables[0]["seats"]]
    assert rows(page(api, token).text)[str(seated[2])][1] == "-40/3"

    # an adjustment
    r = api.post(
        f"/v1/tournaments/{t['id']}/adjustments", json={"entrant": 1, "amount": "-5/2", "reason": "late"}
    )
    assert r.status_code == 201, r.text
    assert "late" in page(api, token).text

    # a table's new share link: its live sheet's link on the page moves with it
    old = api.get(f"/v1/tables/{tables[1]['table_id']}").json()["share_token"]
    assert f"/shared/{old}?" in page(api, token).text
    r = api.post(f"/v1/tables/{tables[1]['table_id']}/share-token")
    assert r.status_code in (200, 201), r.text
    new = api.get(f"/v1/tables/{tables[1]['table_id']}").json()["share_token"]
    text = page(api, token).text
    assert f"/shared/{new}?" in text and f"/shared/{old}?" not in text

    # the round finished (closed at the read) and the next one drawn
    for table in tables[1:]:
        play(api, table)
    assert "closed" in page(api, token).text
    draw(api, t["id"], seed=4)
    assert "Round 2 of 3" in page(api, token).text
    assert _shared(api, token)["current_round"] == 2


def test_a_closed_rounds_table_with_a_new_share_link_is_read_fresh(api):
    t = tournament(api, rounds=2)
    token = t["share_token"]
    tables = draw(api, t["id"], seed=3)["rounds"][0]["tables"]
    for table in tables:
        play(api, table)
    text = page(api, token).text
    old = api.get(f"/v1/tables/{tables[0]['table_id']}").json()["share_token"]
    assert f"/shared/{old}?" in text
    r = api.post(f"/v1/tables/{tables[0]['table_id']}/share-token")
    if r.status_code in (200, 201):  # a locked table's link may be replaced: the page follows
        new = api.get(f"/v1/tables/{tables[0]['table_id']}").json()["share_token"]
        assert f"/shared/{new}?" in page(api, token).text


def test_the_chances_follow_a_rating_moved_outside_the_tournament(api):
    from tests.ratings.test_api import _play, _rated_table

    ids = _rated_players(api)
    t = tournament(api, entrants=[{"player": i} for i in ids] + ["Zhenya", "Kolya", "Lena"], rounds=2)
    draw(api, t["id"], seed=7)
    before = _chances(page(api, t["share_token"]).text)
    assert before
    built = _builds()[0]
    _play(api, _rated_table(api, ids[:3])["id"])  # a table outside the tournament
    after = _chances(page(api, t["share_token"]).text)
    assert after != before
    assert _builds()[0] == built  # the tournament's view kept; its chances read anew


def test_an_unknown_token_is_not_kept(api):
    before = len(svc._PUBLIC_VIEWS)
    assert api.client.get("/tournament/" + "x" * 32).status_code == 404
    assert api.client.get("/v1/shared/" + "x" * 32 + "/tournament").status_code == 404
    assert len(svc._PUBLIC_VIEWS) <= before
