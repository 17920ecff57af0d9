"""The public tournament page's forecast (app/tournaments/page.py, app/ratings ``chances_at_tables``):
at a table of the current round whose players are all registered and rated in the tournament's
convention's pool, each seat's chance to finish first, as POST /v1/ratings/predict gives it for
that seating (shown as a whole percentage; the float kept in ``data-chance``); no column at a
table with a plain name, nor with a player who has no rated table yet. The share link's JSON
view carries the same chances.

Six registered players are rated first at two sochi tables of the pulka (tests/api/samples.py),
so that their ratings differ; the tournament of nine (those six and three names) plays sochi
at tables of three."""

from __future__ import annotations

import html
import re

from tests.ratings.test_api import _play, _players, _rated_table
from tests.tournaments.test_api import draw, play, tournament
from tests.tournaments.test_page import page


def _chances(text: str) -> dict[int, list[tuple[str, float]]]:
    """The current round's tables' chances as shown: table -> [(percentage, float), ...] by seat."""
    found = {}
    for m in re.finditer(r'<section class="card"[^>]* data-table="(\d+)">(.*?)</section>', text, re.S):
        cells = re.findall(r'<td class="num chance" data-chance="([^"]+)">([^<]*)</td>', m[2])
        if cells:
            found[int(m[1])] = [(html.unescape(shown), float(exact)) for exact, shown in cells]
    return found


def _predicted(api, ids: list[str]) -> list[float]:
    r = api.post("/v1/ratings/predict", json={"players": ids, "convention": "sochi"})
    assert r.status_code == 200, r.text
    return [p["chance_first"] for p in r.json()["players"]]


def _rated_players(api) -> list[str]:
    ids = _players(api, "Anna", "Boris", "Vera", "Gleb", "Dasha", "Egor")
    for three in (ids[:3], ids[3:]):
        _play(api, _rated_table(api, three)["id"])
    return ids


def test_a_table_of_rated_players_shows_each_ones_chance_to_finish_first(api):
    ids = _rated_players(api)
    names = ["Zhenya", "Kolya", "Lena"]
    t = tournament(api, entrants=[{"player": i} for i in ids] + names, rounds=2)
    player_of = {p["number"]: p["player"] for p in t["players"]}
    body = draw(api, t["id"], seed=7)
    tables = body["rounds"][0]["tables"]
    seatings = {tb["number"]: [player_of[s["entrant"]] for s in tb["seats"]] for tb in tables}
    rated = {n: seated for n, seated in seatings.items() if None not in seated}
    plain = {n for n, seated in seatings.items() if None in seated}
    assert rated and plain  # the draw of seed 7 seats both kinds

    text = page(api, t["share_token"]).text
    shown = _chances(text)
    assert set(shown) == set(rated)  # a table with a plain name: no column
    for number, seated in rated.items():
        expected = _predicted(api, seated)
        assert [exact for _, exact in shown[number]] == expected
        assert abs(sum(expected) - 1) < 1e-12
        # whole percentages, rounded for the eye: they add up to 100 give or take the rounding
        percents = [int(p.rstrip("%")) for p, _ in shown[number]]
        assert percents == [round(c * 100) for c in expected] and abs(sum(percents) - 100) <= 1
    assert ">Chance</abbr>" in text
    ru = page(api, t["share_token"], "ru").text
    assert ">Шанс</abbr>" in ru and re.search(r'data-chance="[^"]+">\d+\u00a0%</td>', ru)

    # the share link's view: the same floats, by table number
    view = api.client.get(f"/v1/shared/{t['share_token']}/tournament")
    assert view.status_code == 200, view.text
    assert view.json()["chances_first"] == {str(n): _predicted(api, seated) for n, seated in rated.items()}
    # the page's version is the view's (its script asks with it)
    etag = html.unescape(re.search(r'data-etag="([^"]+)"', text)[1])
    assert view.headers["ETag"] == etag

    # a rated table played to its end keeps the forecast it was played with (the ratings
    # before it), though its players' ratings have moved
    number, seated = next(iter(rated.items()))
    before = _predicted(api, seated)
    play(api, next(tb for tb in tables if tb["number"] == number))
    assert _predicted(api, seated) != before
    assert [exact for _, exact in _chances(page(api, t["share_token"]).text)[number]] == before


def test_no_forecast_without_rated_players(api):
    # registered players with no rated table yet, and names: no table has a chance column
    ids = _players(api, "Anna", "Boris", "Vera")
    t = tournament(api, entrants=[{"player": i} for i in ids], rounds=1)
    draw(api, t["id"], seed=1)
    text = page(api, t["share_token"]).text
    assert _chances(text) == {} and "The chance to finish first" not in text
    view = api.client.get(f"/v1/shared/{t['share_token']}/tournament")
    assert view.status_code == 200, view.text
    assert "chances_first" not in view.json()
