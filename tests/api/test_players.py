"""The player registry and a player's statistics across tables (docs/api.md "Players and
statistics"): linking seats, the registry's routes, and the numbers of a short pulka."""

from __future__ import annotations

from fractions import Fraction

from .samples import ALLPASS, PULKA, pass_6s


def _player(api, name="Anna", **body):
    r = api.post("/v1/players", json={"name": name, **body})
    assert r.status_code == 201, r.text
    return r.json()


def test_create_get_and_update_a_player(api):
    p = _player(api, "Anna", external_id="user-1")
    assert p["name"] == "Anna" and p["external_id"] == "user-1" and len(p["id"]) == 32
    r = api.get(f"/v1/players/{p['id']}")
    assert r.status_code == 200 and r.json() == p and r.headers["ETag"]
    r = api.client.patch(f"/v1/players/{p['id']}", json={"name": "Anna K."}, headers=api.headers)
    assert r.status_code == 200, r.text
    assert r.json()["name"] == "Anna K." and r.json()["external_id"] == "user-1"
    r = api.client.patch(f"/v1/players/{p['id']}", json={"external_id": None}, headers=api.headers)
    assert r.json()["external_id"] is None and r.json()["name"] == "Anna K."


def test_list_is_keyset_paged_in_creation_order(api):
    ids = [_player(api, f"P{i}")["id"] for i in range(5)]
    seen, url = [], "/v1/players?limit=2"
    while url:
        page = api.get(url).json()
        assert len(page["items"]) <= 2
        seen += [p["id"] for p in page["items"]]
        url = page["next"]
    assert seen == ids


def test_plain_names_link_nothing(api):
    _player(api, "Anna")
    t = api.table(players=["Anna", "Boris", "Vera"])
    api.deal(t["id"], pass_6s(0))
    anna = api.get("/v1/players").json()["items"][0]
    stats = api.get(f"/v1/players/{anna['id']}/stats").json()
    assert stats["tables"] == 0 and stats["deals"] == 0


def test_an_unknown_external_id_registers_a_player_and_a_known_one_links_it(api):
    t1 = api.table(players=[{"name": "Anna", "external_id": "u-anna"}, "Boris", "Vera"])
    players = api.get("/v1/players").json()["items"]
    assert [(p["name"], p["external_id"]) for p in players] == [("Anna", "u-anna")]
    t2 = api.table(players=["Boris", {"name": "Anna", "external_id": "u-anna"}, "Vera"])
    assert [p["name"] for p in api.get("/v1/players").json()["items"]] == ["Anna"]
    api.deal(t1["id"], pass_6s(0))
    api.deal(t2["id"], pass_6s(0))
    stats = api.get(f"/v1/players/{players[0]['id']}/stats").json()
    assert stats["tables"] == 2 and stats["deals"] == 2
    # she declared 6S at the first table (seat 0), not at the second (seat 1)
    assert stats["declared"] == [
        {"kind": "contract", "level": 6, "deals": 1, "made": 1, "failed": 0, "undertricks": 0}
    ]


def test_a_seat_names_a_registered_player(api):
    anna = _player(api, "Anna")
    t = api.table(players=[{"name": "Anya", "player": anna["id"]}, "Boris", "Vera"])
    assert t["players"][0]["name"] == "Anya"  # the sheet keeps the name given for the table
    stats = api.get(f"/v1/players/{anna['id']}/stats").json()
    assert stats["tables"] == 1 and stats["finished"] == 0


def test_the_pulka_for_each_player(api):
    """README's short pulka (sochi, pool 4), every seat registered."""
    ids = [_player(api, n)["id"] for n in ("Anna", "Boris", "Vera")]
    t = api.table(
        players=[{"name": n, "player": i} for n, i in zip(("Anna", "Boris", "Vera"), ids)], pool_target=4
    )
    for body in PULKA:
        api.deal(t["id"], body)
    settlement = api.get(f"/v1/tables/{t['id']}/settlement?stake=0.5").json()
    assert settlement["final"] is True
    sheet = api.get(f"/v1/tables/{t['id']}/sheet").json()
    s = [api.get(f"/v1/players/{i}/stats?stake=0.5").json() for i in ids]
    for seat in range(3):
        assert s[seat]["tables"] == 1 and s[seat]["finished"] == 1 and s[seat]["deals"] == 4
        # ?stake=0.5: the settlement's balances are already multiplied by the stake
        assert Fraction(s[seat]["money_exact"]) == Fraction(settlement["players"][seat]["balance_exact"])
        assert Fraction(s[seat]["money_exact"]) == Fraction(s[seat]["balance_exact"]) / 2
        written = sum(Fraction(str(v)) for v in sheet["players"][seat]["whists"].values())
        assert Fraction(s[seat]["whists"]["written_exact"]) == written
        # the all-pass (0: 2 tricks, 1: 5, 2: 3): each played it, nobody clean
        assert s[seat]["allpass"]["played"] == 1 and s[seat]["allpass"]["clean"] == 0
    assert [x["allpass"]["tricks"] for x in s] == [2, 5, 3]
    # Boris 6S unwhisted (made), Anna 7H with 7 tricks (made), Vera a clean misère (made)
    assert s[1]["declared"] == [
        {"kind": "contract", "level": 6, "deals": 1, "made": 1, "failed": 0, "undertricks": 0}
    ]
    assert s[0]["declared"] == [
        {"kind": "contract", "level": 7, "deals": 1, "made": 1, "failed": 0, "undertricks": 0}
    ]
    assert s[2]["misere"] == {"deals": 1, "made": 1, "failed": 0, "tricks": 0}
    # Boris whisted the 7H and took 3 tricks: he wrote whists on Anna, she received them
    assert Fraction(s[1]["whists"]["written_exact"]) > 0
    assert s[0]["whists"]["received_exact"] == s[1]["whists"]["written_exact"]
    assert sum(Fraction(x["balance_exact"]) for x in s) == 0


def test_a_failed_contract_and_undertricks(api):
    ids = [_player(api, n)["id"] for n in ("Anna", "Boris", "Vera")]
    t = api.table(players=[{"name": n, "player": i} for n, i in zip(("Anna", "Boris", "Vera"), ids)])
    # Anna declares 8S and takes 6: two undertricks
    api.deal(
        t["id"],
        {
            "type": "contract",
            "declarer": 0,
            "contract": "8S",
            "defenders": {"1": "whist", "2": "pass"},
            "tricks": {"0": 6, "1": 4, "2": 0},
        },
    )
    s = api.get(f"/v1/players/{ids[0]}/stats").json()
    assert s["declared"] == [
        {"kind": "contract", "level": 8, "deals": 1, "made": 0, "failed": 1, "undertricks": 2}
    ]
    assert s["finished"] == 0 and s["balance_exact"] == "0"  # net whists count finished tables only


def test_undo_and_correction_keep_the_stats(api):
    ids = [_player(api, n)["id"] for n in ("Anna", "Boris", "Vera")]
    t = api.table(players=[{"name": n, "player": i} for n, i in zip(("Anna", "Boris", "Vera"), ids)])
    api.deal(t["id"], ALLPASS)
    api.deal(t["id"], pass_6s(1))
    assert api.delete(f"/v1/tables/{t['id']}/deals/2").status_code == 200
    s = api.get(f"/v1/players/{ids[1]}/stats").json()
    assert s["deals"] == 1 and s["declared"] == [] and s["allpass"]["tricks"] == 5
    r = api.put(f"/v1/tables/{t['id']}/deals/1", json={"type": "allpass", "tricks": {"0": 0, "1": 6, "2": 4}})
    assert r.status_code == 200, r.text
    s = [api.get(f"/v1/players/{i}/stats").json() for i in ids]
    assert [x["allpass"]["tricks"] for x in s] == [0, 6, 4]
    assert [x["allpass"]["clean"] for x in s] == [1, 0, 0]


def test_filters_by_convention_and_date(api):
    anna = _player(api, "Anna")
    api.table(players=[{"name": "Anna", "player": anna["id"]}, "B", "V"], convention="sochi")
    api.table(players=[{"name": "Anna", "player": anna["id"]}, "B", "V"], convention="piter")
    url = f"/v1/players/{anna['id']}/stats"
    assert api.get(url).json()["tables"] == 2
    r = api.get(url + "?convention=piter").json()
    assert r["tables"] == 1 and r["convention"] == "piter"
    assert api.get(url + "?from=2000-01-01&to=2000-12-31").json()["tables"] == 0
    assert api.get(url + "?from=2000-01-01").json()["tables"] == 2


def test_long_streaks(api):
    anna = _player(api, "Anna")
    t = api.table(players=[{"name": "Anna", "player": anna["id"]}, "B", "V"])
    for _ in range(4):  # one streak of 4 all-passes: counted once when it reaches 3
        api.deal(t["id"], ALLPASS)
    s = api.get(f"/v1/players/{anna['id']}/stats").json()
    assert s["allpass"]["played"] == 4 and s["allpass"]["long_streaks"] == 1


def test_a_stored_row_holds_the_balance_once_the_table_is_finished(api, db):
    """Only a finished table's balance is counted, so a row keeps 0 until then: a post settles
    nothing while the game is played, and an undo of the last deal takes the balance back."""
    from app.players import stats as player_stats

    ids = [_player(api, n)["id"] for n in ("Anna", "Boris", "Vera")]
    t = api.table(
        players=[{"name": n, "player": i} for n, i in zip(("Anna", "Boris", "Vera"), ids)], pool_target=4
    )

    def stored():
        with db.read() as session:
            return player_stats.stored_rows(session, t["id"])

    for body in PULKA[:-1]:
        api.deal(t["id"], body)
    assert [(r.finished, r.balance) for r in stored().values()] == [(False, 0)] * 3
    api.deal(t["id"], PULKA[-1])  # Vera's misère closes the last pool of 4
    final = api.get(f"/v1/tables/{t['id']}/settlement").json()
    assert final["final"] is True
    rows = stored()
    assert [(rows[s].finished, rows[s].balance) for s in range(3)] == [
        (True, Fraction(p["balance_exact"])) for p in final["players"]
    ]
    assert api.delete(f"/v1/tables/{t['id']}/deals/4").status_code == 200
    assert [(r.finished, r.balance) for r in stored().values()] == [(False, 0)] * 3
