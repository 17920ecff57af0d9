"""The public tournament page ``/tournament/{token}`` (app/tournaments/page.py): written by the
server in Russian or English, the standings with each round's score and the adjustments with
their reasons, the current round's tables with their live sheets' links, the round history,
names escaped, its own 404 for an unknown token.

The tables play sochi for 2 deals (tests/tournaments/test_api.py): seats 0 and 1 each make
a passed 6♠ and end +20/3 (≈ 6.67), seat 2 ends −40/3 (≈ −13.33)."""

from __future__ import annotations

import html
import re

from tests.support.pages import only_own_scripts
from tests.tournaments.test_api import draw, play, tournament


def page(api, token: str, lang: str = "en", **headers: str):
    return api.client.get(f"/tournament/{token}", params={"lang": lang} if lang else None, headers=headers)


def rows(text: str) -> dict[str, tuple[str, str]]:
    """The standings' rows: entrant -> (place, exact total)."""
    return {
        m["entrant"]: (m["place"], m["total"])
        for m in re.finditer(
            r'<tr data-entrant="(?P<entrant>\d+)" data-total="(?P<total>[^"]+)" data-place="(?P<place>\d+)">',
            text,
        )
    }


def test_the_page_in_english_and_russian(api):
    t = tournament(api, name="Club night", rounds=2)
    body = draw(api, t["id"], seed=3)
    first = body["rounds"][0]["tables"]
    play(api, first[0])  # one table finished, two playing

    r = page(api, t["share_token"], "en")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert (
        r.headers["Content-Language"] == "en" and "script-src 'self'" in r.headers["Content-Security-Policy"]
    )
    text = r.text
    assert "<title>Club night</title>" in text and '<html lang="en">' in text
    assert "Standings" in text and "Current round: Round 1 of 2" in text
    assert "9 players · rounds drawn: 1 of 2 · scoring by whists" in text
    # the finished table's players have their round score; the others none yet
    seated = [s["entrant"] for s in first[0]["seats"]]
    got = rows(text)
    assert {got[str(seated[0])][1], got[str(seated[1])][1], got[str(seated[2])][1]} == {"20/3", "-40/3"}
    assert got[str(seated[2])][1] == "-40/3"
    assert "+6.67" in text and "−13.33" in text  # the English way: a point, a typographic minus
    # each table of the current round links to its live sheet, in the page's language
    for table in first:
        share = api.get(f"/v1/tables/{table['table_id']}").json()["share_token"]
        assert f'href="/shared/{share}?lang=en"' in text
    # the tables still playing are listened to (their share links' event streams)
    streams = re.search(r'data-streams="([^"]*)"', text)[1]
    assert html.unescape(streams).count("/events") == 2
    # table headers and the caption: a table read aloud makes sense
    assert (
        '<th scope="col" class="num">Place</th>' in text
        and "<caption>Standings after 1 round, in whists</caption>" in text
    )

    ru = page(api, t["share_token"], "ru")
    assert ru.headers["Content-Language"] == "ru" and '<html lang="ru">' in ru.text
    assert "Положение после 1 тура, в вистах" in ru.text and "Текущий тур: Тур 1 из 2" in ru.text
    assert "9 игроков · туров разыграно: 1 из 2 · зачёт по вистам" in ru.text
    assert "+6,67" in ru.text and "−13,33" in ru.text  # a decimal comma
    assert (
        f'href="/shared/{api.get("/v1/tables/" + first[0]["table_id"]).json()["share_token"]}?lang=ru"'
        in ru.text
    )
    # without ?lang=, Accept-Language chooses
    assert 'lang="en"' in page(api, t["share_token"], "", **{"Accept-Language": "en-GB,en;q=0.9"}).text
    assert 'lang="ru"' in page(api, t["share_token"], "", **{"Accept-Language": "ru"}).text


def test_history_adjustments_and_byes(api):
    # 10 players at tables of 3: one sits out each round (a bye scores 0 in whists)
    t = tournament(api, players=10, rounds=2)
    tid = t["id"]
    one = draw(api, tid, seed=5)
    for table in one["rounds"][0]["tables"]:
        play(api, table)
    bye = one["rounds"][0]["byes"][0]
    r = api.post(
        f"/v1/tournaments/{tid}/adjustments",
        json={"entrant": bye["entrant"], "amount": "-5/2", "reason": "late for round 1"},
    )
    assert r.status_code == 201, r.text
    # a player withdrawn from round 2 on keeps his round 1 in the standings, marked
    gone = one["rounds"][0]["tables"][0]["seats"][0]
    assert api.post(f"/v1/tournaments/{tid}/entrants/{gone['entrant']}/withdrawal").status_code == 200
    draw(api, tid, seed=6)
    text = page(api, t["share_token"], "en").text
    assert re.search(
        rf"<th scope=\"row\" class=\"name\">{gone['name']} <span class=\"tag\">\(withdrawn\)</span>", text
    )
    # round 1 is history now (closed as its last table finished), round 2 the current one
    assert (
        "Current round: Round 2 of 2" in text and "Round history" in text and 'data-history-round="1"' in text
    )
    assert 'Round 1 of 2 <span class="tag">(closed)</span>' in text
    assert "Sitting out (bye):" in text and "bye</span>" in text
    # the adjustment, its amount and its reason, and the player's total with it: 0 (bye) − 5/2
    assert "Adjustments" in text and "late for round 1" in text and "−2.5" in text
    assert rows(text)[str(bye["entrant"])][1] == "-5/2"
    ru = page(api, t["share_token"], "ru").text
    assert "История туров" in ru and "Поправки" in ru and "−2,5" in ru and "пропуск" in ru


def test_names_and_reasons_are_escaped(api):
    evil = '<script>alert("x")</script>'
    t = tournament(api, players=3, name=f"Night {evil}", entrants=[f"A{evil}", "B & co", 'C "quoted"'])
    table = draw(api, t["id"])["rounds"][0]["tables"][0]
    api.post(
        f"/v1/tournaments/{t['id']}/adjustments", json={"entrant": 1, "amount": 1, "reason": f"why {evil}"}
    )
    play(api, table)
    r = page(api, t["share_token"])
    text = r.text
    assert evil not in text
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in text
    assert "B &amp; co" in text and "C &#34;quoted&#34;" in text
    # and only the page's own scripts run: static files of this server, no inline one
    only_own_scripts(r)


def test_an_unknown_token_is_the_pages_own_404(api):
    for token in ("tn_nothing_here", "x" * 300, "%3Cscript%3E"):
        r = api.client.get(f"/tournament/{token}?lang=en")
        assert r.status_code == 404 and r.headers["content-type"].startswith("text/html"), r.text
        assert "This tournament link does not work" in r.text and "No such tournament" in r.text
    ru = api.client.get("/tournament/tn_nothing_here?lang=ru")
    assert ru.status_code == 404 and "Такого турнира нет" in ru.text
    # a rotated link is no longer found
    t = tournament(api, players=3)
    assert page(api, t["share_token"]).status_code == 200
    api.post(f"/v1/tournaments/{t['id']}/share-token")
    assert page(api, t["share_token"]).status_code == 404


def test_the_page_carries_the_share_views_version(api):
    """The page carries the share link's view's version it was written at: asked with it, the
    view is a 304 while nothing changed, a 200 once something did."""
    t = tournament(api, rounds=1)
    etag = html.unescape(re.search(r'data-etag="([^"]+)"', page(api, t["share_token"]).text)[1])
    view = f"/v1/shared/{t['share_token']}/tournament"
    assert api.client.get(view, headers={"If-None-Match": etag}).status_code == 304
    draw(api, t["id"])  # a round drawn: on no table's stream
    assert api.client.get(view, headers={"If-None-Match": etag}).status_code == 200


def test_no_round_drawn_yet(api):
    t = tournament(api, players=4, rounds=1)
    text = page(api, t["share_token"]).text
    assert "No round has been drawn yet." in text and 'data-streams="[]"' in text
    assert len(rows(text)) == 4  # everyone at 0, sharing the place


def test_the_page_follows_the_tournaments_own_stream_by_its_revision(api):
    """The script listens to the share link's stream (``/v1/shared/{token}/tournament/events``)
    and fetches the page again only for an event newer than ``data-revision``, the
    tournament's revision the page was written at: 0 when created, 1 once a round is drawn.
    It polls the share view only while a table playing is beyond the streams it holds
    (``data-unfollowed``): 3 players, one table, none."""
    t = tournament(api, players=3, rounds=1)
    text = page(api, t["share_token"]).text
    assert re.search(r'id="content"[^>]* data-revision="0"', text) and 'data-unfollowed="0"' in text
    [script] = [s for s in only_own_scripts(page(api, t["share_token"])) if "/tournament." in s]
    assert '"/tournament/events"' in api.get(script).text
    draw(api, t["id"])
    text = page(api, t["share_token"]).text
    assert re.search(r'id="content"[^>]* data-revision="1"', text) and 'data-unfollowed="0"' in text


def test_tables_beyond_the_streams_the_page_holds_are_counted(api):
    # 15 players: 5 tables playing, the page listens to LIVE_TABLES_MAX = 4 of them
    t = tournament(api, players=15, rounds=1)
    draw(api, t["id"])
    text = page(api, t["share_token"]).text
    assert html.unescape(re.search(r'data-streams="([^"]*)"', text)[1]).count("/events") == 4
    assert 'data-unfollowed="1"' in text
