"""The ratings' routes (docs/ratings.md): a finished rated table moves its players' ratings,
which its settlement, the players' ratings and statistics and the leaderboard show; an
unrated table, or one with a plain name at a seat, moves nothing; refusals name the field."""

from __future__ import annotations

from fractions import Fraction

from app.ratings.model import INITIAL, rate
from tests.api.samples import PULKA


def _players(api, *names):
    out = []
    for n in names:
        r = api.post("/v1/players", json={"name": n})
        assert r.status_code == 201, r.text
        out.append(r.json()["id"])
    return out


def _rated_table(api, ids, names=("Anna", "Boris", "Vera"), rated=True, **body):
    return api.table(
        players=[{"name": n, "player": i} for n, i in zip(names, ids)], pool_target=4, rated=rated, **body
    )


def _play(api, table_id, deals=PULKA):
    for body in deals:
        api.deal(table_id, body)


def test_a_finished_rated_table_rates_its_players(api):
    ids = _players(api, "Anna", "Boris", "Vera")
    t = _rated_table(api, ids)
    assert t["rated"] is True
    _play(api, t["id"], PULKA[:3])
    # not finished yet: no rating work, everyone at the start
    assert api.get(f"/v1/players/{ids[0]}/rating").json()["rating"]["games"] == 0
    _play(api, t["id"], PULKA[3:])
    settlement = api.get(f"/v1/tables/{t['id']}/settlement").json()
    balances = [Fraction(p["balance_exact"]) for p in settlement["players"]]
    expected = rate([INITIAL] * 3, balances)
    for seat, pid in enumerate(ids):
        got = api.get(f"/v1/players/{pid}/rating").json()
        assert got["rating"]["mu"] == expected[seat].mu and got["rating"]["sigma"] == expected[seat].sigma
        assert got["rating"]["ordinal"] == expected[seat].mu - 3 * expected[seat].sigma
        assert got["rating"]["games"] == 1 and got["rating"]["provisional"] is True
        [change] = got["history"]
        assert change["table_id"] == t["id"] and change["before"]["mu"] == 25.0
        assert change["mu_change"] == expected[seat].mu - 25.0
        # the settlement shows the same change, seat by seat
        assert settlement["rating"][seat]["player"] == pid
        assert settlement["rating"][seat]["after"]["mu"] == expected[seat].mu
        # and the statistics
        stats = api.get(f"/v1/players/{pid}/stats").json()
        assert stats["rating"]["mu"] == expected[seat].mu and stats["rating_change"]["table_id"] == t["id"]
        # the convention's own pool took it too
        assert (
            api.get(f"/v1/players/{pid}/rating?convention=sochi").json()["rating"]["mu"] == expected[seat].mu
        )
        assert api.get(f"/v1/players/{pid}/rating?convention=piter").json()["rating"]["games"] == 0


def test_an_unrated_table_and_a_plain_seat_rate_nobody(api):
    ids = _players(api, "Anna", "Boris", "Vera")
    t = _rated_table(api, ids, rated=False)
    assert t["rated"] is False
    _play(api, t["id"])
    t2 = api.table(
        players=[{"name": "Anna", "player": ids[0]}, {"name": "Boris", "player": ids[1]}, "Vera"],
        pool_target=4,
        rated=True,
    )
    _play(api, t2["id"])
    assert all(api.get(f"/v1/players/{i}/rating").json()["rating"]["games"] == 0 for i in ids)
    assert "rating" not in api.get(f"/v1/tables/{t['id']}/settlement").json()
    assert api.get("/v1/ratings").json()["items"] == []


def test_an_undo_of_the_finishing_deal_unrates_and_a_new_finish_rates_again(api):
    ids = _players(api, "Anna", "Boris", "Vera")
    t = _rated_table(api, ids)
    _play(api, t["id"])
    assert api.delete(f"/v1/tables/{t['id']}/deals/4").status_code == 200
    assert all(api.get(f"/v1/players/{i}/rating").json()["rating"]["games"] == 0 for i in ids)
    assert api.get("/v1/ratings").json()["items"] == []
    _play(api, t["id"], PULKA[3:])
    assert all(api.get(f"/v1/players/{i}/rating").json()["rating"]["games"] == 1 for i in ids)


def test_deleting_a_rated_table_rates_the_later_ones_again(api):
    ids = _players(api, "Anna", "Boris", "Vera")
    first = _rated_table(api, ids)
    _play(api, first["id"])
    second = _rated_table(api, [ids[1], ids[2], ids[0]], names=("Boris", "Vera", "Anna"))
    _play(api, second["id"])
    assert api.get(f"/v1/players/{ids[0]}/rating").json()["rating"]["games"] == 2
    assert api.delete(f"/v1/tables/{first['id']}").status_code == 204
    # as if only the second table had been played
    settlement = api.get(f"/v1/tables/{second['id']}/settlement").json()
    expected = rate([INITIAL] * 3, [Fraction(p["balance_exact"]) for p in settlement["players"]])
    for seat, pid in enumerate([ids[1], ids[2], ids[0]]):
        got = api.get(f"/v1/players/{pid}/rating").json()["rating"]
        assert (got["mu"], got["sigma"], got["games"]) == (expected[seat].mu, expected[seat].sigma, 1)


def test_the_leaderboard_pages_by_ordinal_with_an_etag(api):
    ids = _players(api, "Anna", "Boris", "Vera")
    _play(api, _rated_table(api, ids)["id"])
    board = api.get("/v1/ratings")
    assert board.status_code == 200 and board.headers["ETag"]
    items = board.json()["items"]
    ordinals = [i["rating"]["ordinal"] for i in items]
    assert ordinals == sorted(ordinals, reverse=True) and len(items) == 3
    assert api.get("/v1/ratings", headers={"If-None-Match": board.headers["ETag"]}).status_code == 304
    seen, url = [], "/v1/ratings?limit=1"
    while url:
        page = api.get(url).json()
        seen += [i["player"] for i in page["items"]]
        url = page["next"]
    assert seen == [i["player"] for i in items]
    assert api.get("/v1/ratings?convention=sochi").json()["convention"] == "sochi"
    assert api.get("/v1/ratings?convention=piter").json()["items"] == []


def test_predict_a_seating(api):
    ids = _players(api, "Anna", "Boris", "Vera")
    r = api.post("/v1/ratings/predict", json={"players": ids})
    assert r.status_code == 200, r.text
    # three new players: a third each, all in first place
    assert [p["chance_first"] for p in r.json()["players"]] == [1 / 3] * 3
    assert [p["place"] for p in r.json()["players"]] == [1, 1, 1]
    _play(api, _rated_table(api, ids)["id"])
    chances = [
        p["chance_first"] for p in api.post("/v1/ratings/predict", json={"players": ids}).json()["players"]
    ]
    assert abs(sum(chances) - 1) < 1e-12


def test_refusals_name_the_field(api, other_api):
    ids = _players(api, "Anna", "Boris", "Vera")
    theirs = _players(other_api, "Olga")[0]
    assert api.get(f"/v1/players/{theirs}/rating").status_code == 404
    assert api.get("/v1/players/nope/rating").status_code == 404
    r = api.post("/v1/ratings/predict", json={"players": [ids[0], ids[1], theirs]})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "players.2"
    r = api.post("/v1/ratings/predict", json={"players": [ids[0], ids[1], ids[0]]})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "players.2"
    r = api.post("/v1/ratings/predict", json={"players": ids[:2]})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "players"
    r = api.get("/v1/ratings?after=garbage")
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "after"
    r = api.get("/v1/ratings?convention=chess")
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "convention"
    r = api.get("/v1/ratings?limit=0")
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "limit"
