"""Tournaments through the API (app/tournaments): created and owned like tables, rounds drawn
as ordinary tables with scorer links, closed (locked) and reopened, adjustments, the audit,
the standings with their ETag, the share link, the export — and the refusals, each naming
its field.

The tables play sochi for a number of deals (game_end "deals"): two 6♠ contracts passed by
both defenders, declared by seat 0 then seat 1, end a table. Each declarer writes 2 to his
pool (k = 1 whist per pool point... times 10 in the balance), so with G = mountain − pool:
G = (−2, −2, 0), mean(G) = −4/3, balance_i = W_i + 10·(mean(G) − G_i):
seat 0 and seat 1: 10·(−4/3 + 2) = 20/3; seat 2: 10·(−4/3 − 0) = −40/3 (they sum to 0)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

PROBLEM = "application/problem+json"
SIX = Fraction(20, 3)
MINUS = Fraction(-40, 3)


def six_spades(declarer: int, players: int = 3) -> dict[str, Any]:
    return {
        "type": "contract",
        "declarer": declarer,
        "contract": "6S",
        "defenders": {str(s): "pass" for s in range(players) if s != declarer},
    }


def tournament(api, players: int = 9, **body: Any) -> dict[str, Any]:
    body.setdefault("name", "Club night")
    body.setdefault("convention", "sochi")
    body.setdefault("rounds", 3)
    body.setdefault("game_end", {"kind": "deals", "deals": 2})
    body.setdefault("entrants", [f"Player {i}" for i in range(1, players + 1)])
    r = api.post("/v1/tournaments", json=body)
    assert r.status_code == 201, r.text
    assert r.headers["Location"] == f"/v1/tournaments/{r.json()['id']}"
    return r.json()


def draw(api, tid: str, **body: Any) -> dict[str, Any]:
    r = api.post(f"/v1/tournaments/{tid}/rounds", json=body or None)
    assert r.status_code == 201, r.text
    return r.json()


def play(api, table: dict[str, Any]) -> None:
    """The two deals that end a table (seat 0 then seat 1 declares)."""
    for declarer in (0, 1):
        api.deal(table["table_id"], six_spades(declarer))


def standings(api, tid: str, **params: Any) -> dict[str, Any]:
    r = api.get(f"/v1/tournaments/{tid}/standings", params=params)
    assert r.status_code == 200, r.text
    return r.json()


def refused(r, status: int, field: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith(PROBLEM)
    body = r.json()
    assert field in [e["field"] for e in body.get("errors", [])], body
    return body


def test_a_tournament_is_created_read_and_listed_by_its_owner_only(api, other_api):
    t = tournament(api, scoring="gambler_ru", table_sizes=[3, 4])
    assert t["table_sizes"] == [3, 4] and t["rounds_planned"] == 3 and t["rounds_drawn"] == 0
    assert [p["number"] for p in t["players"]] == list(range(1, 10))
    assert t["scoring"]["preset"] == "gambler_ru"
    assert t["scoring"]["transform"] == {
        "breakpoints": ["200", "650"],
        "slopes": ["1", "1/10", "0"],
        "floor": None,
    }
    got = api.get(f"/v1/tournaments/{t['id']}").json()
    assert got["id"] == t["id"] and got["share_token"] == t["share_token"]
    assert t["id"] in [x["id"] for x in api.get("/v1/tournaments").json()["items"]]
    # another owner's tournament is not found, whatever is asked of it
    tid = t["id"]
    for r in (
        other_api.get(f"/v1/tournaments/{tid}"),
        other_api.get(f"/v1/tournaments/{tid}/standings"),
        other_api.get(f"/v1/tournaments/{tid}/audit"),
        other_api.post(f"/v1/tournaments/{tid}/rounds"),
        other_api.post(f"/v1/tournaments/{tid}/entrants", json={"entrants": ["X"]}),
        other_api.post(f"/v1/tournaments/{tid}/adjustments", json={"entrant": 1, "amount": 1, "reason": "r"}),
        other_api.get(f"/v1/tournaments/{tid}/export"),
    ):
        assert r.status_code == 404 and r.headers["content-type"].startswith(PROBLEM), r.text
    assert tid not in [x["id"] for x in other_api.get("/v1/tournaments").json()["items"]]
    assert api.client.get(f"/v1/tournaments/{tid}").status_code == 401


def test_the_listing_pages(api):
    ids = [tournament(api, players=3, name=f"T{i}")["id"] for i in range(3)]
    first = api.get("/v1/tournaments?limit=2").json()
    assert [x["id"] for x in first["items"]] == ids[::-1][:2]
    second = api.get(first["next"]).json()
    assert [x["id"] for x in second["items"]][:1] == [ids[0]]
    refused(api.get("/v1/tournaments?after=nonsense"), 422, "after")


def test_a_full_tournament(api):
    t = tournament(api)
    tid = t["id"]
    body = draw(api, tid, seed=7)
    r1 = body["rounds"][0]
    assert r1["seed"] == 7 and r1["status"] == "open" and r1["byes"] == []
    assert len(r1["tables"]) == 3
    seated = sorted(s["entrant"] for table in r1["tables"] for s in table["seats"])
    assert seated == list(range(1, 10))  # everyone once
    for n, table in enumerate(r1["tables"], 1):
        assert table["title"] == f"Club night · round 1 · table {n}"
        assert table["scorer_link"].startswith("/score/sc_")
        # an ordinary table of the owner, its seats the entrants' names, seat 0 dealing first
        ordinary = api.get(f"/v1/tables/{table['table_id']}").json()
        assert [p["name"] for p in ordinary["players"]] == [s["name"] for s in table["seats"]]
        assert ordinary["first_dealer"] == 0 and ordinary["title"] == table["title"]
    # the links are shown in the draw's answer only
    assert "scorer_link" not in api.get(f"/v1/tournaments/{tid}").json()["rounds"][0]["tables"][0]

    # a scorer link scores its table like the key does
    table1 = r1["tables"][0]
    token = table1["scorer_link"].removeprefix("/score/")
    for declarer in (0, 1):
        r = api.client.post(f"/v1/score/{token}/deals", json=six_spades(declarer))
        assert r.status_code == 201, r.text
    for table in r1["tables"][1:]:
        play(api, table)

    st = standings(api, tid)
    assert st["rounds"] == 1 and st["rounds_closed"] == 1  # every table finished: closed
    by_entrant = {row["entrant"]: row for row in st["items"]}
    for table in r1["tables"]:
        s0, s1, s2 = (s["entrant"] for s in table["seats"])
        assert by_entrant[s0]["total_exact"] == by_entrant[s1]["total_exact"] == "20/3"
        assert by_entrant[s2]["total_exact"] == "-40/3"
    # 6 players on 20/3 share place 1 (equal on every tie-break), 3 on -40/3 share place 7
    assert sorted(row["place"] for row in st["items"]) == [1] * 6 + [7] * 3

    # the round is locked: the table refuses an undo, a correction and a post, by key and by link
    table_id = table1["table_id"]
    body = refused_lock = api.delete(f"/v1/tables/{table_id}/deals/2")
    assert refused_lock.status_code == 409 and refused_lock.json()["reason"] == "locked", body.text
    assert api.put(f"/v1/tables/{table_id}/deals/1", json=six_spades(2)).status_code == 409
    assert api.client.delete(f"/v1/score/{token}/deals/2").status_code == 409
    # an adjustment of the locked round is refused, naming the round
    refused(
        api.post(
            f"/v1/tournaments/{tid}/adjustments", json={"entrant": 1, "amount": 5, "reason": "r", "round": 1}
        ),
        409,
        "round",
    )

    # the director reopens it with a reason: the undo goes through, the round counts the table no more
    refused(api.post(f"/v1/tournaments/{tid}/rounds/1/reopen", json={"reason": " "}), 422, "reason")
    r = api.post(f"/v1/tournaments/{tid}/rounds/1/reopen", json={"reason": "table 1 wrote deal 2 wrongly"})
    assert r.status_code == 200 and r.json()["rounds"][0]["status"] == "reopened"
    assert api.delete(f"/v1/tables/{table_id}/deals/2").status_code == 200
    st = standings(api, tid)
    s0, s1, s2 = (s["entrant"] for s in table1["seats"])
    assert {row["entrant"]: row["rounds"] for row in st["items"]}[s0] == [None]
    # a reopened round is not closed by its tables finishing: the director closes it
    api.deal(table_id, six_spades(2))  # seat 2 declares this time: seats 0 and 2 on 20/3
    assert standings(api, tid)["rounds_closed"] == 0
    refused(api.post(f"/v1/tournaments/{tid}/rounds"), 409, "round")
    # an adjustment of the open round, and one of no round
    a = api.post(
        f"/v1/tournaments/{tid}/adjustments",
        json={"entrant": s1, "amount": "5/2", "reason": "a late penalty undone", "round": 1},
    )
    assert a.status_code == 201 and a.json()["amount_exact"] == "5/2" and a.json()["by"].startswith("key ")
    assert (
        api.post(
            f"/v1/tournaments/{tid}/adjustments", json={"entrant": s1, "amount": -10, "reason": "slow play"}
        ).status_code
        == 201
    )
    r = api.post(f"/v1/tournaments/{tid}/rounds/1/close")
    assert r.status_code == 200 and r.json()["rounds"][0]["status"] == "closed"
    refused(api.post(f"/v1/tournaments/{tid}/rounds/1/close"), 409, "round")
    st = {row["entrant"]: row for row in standings(api, tid)["items"]}
    assert st[s0]["total_exact"] == st[s2]["total_exact"] == "20/3"
    # s1: -40/3 + 5/2 - 10 = (-80 + 15 - 60)/6 = -125/6
    assert st[s1]["total_exact"] == "-125/6"
    assert [a["reason"] for a in st[s1]["adjustments"]] == ["a late penalty undone", "slow play"]

    # round 2, then its standings after round 1 only
    body = draw(api, tid)
    r2 = body["rounds"][1]
    assert r2["status"] == "open" and len(r2["tables"]) == 3
    assert standings(api, tid, after_round=1)["rounds"] == 1
    assert standings(api, tid)["rounds"] == 2

    audit = api.get(f"/v1/tournaments/{tid}/audit").json()["items"]
    assert [e["action"] for e in audit] == [
        "draw",
        "lock",
        "reopen",
        "adjustment",
        "adjustment",
        "lock",
        "draw",
    ]
    assert audit[1]["by"] == "the tables finished"
    assert audit[2]["detail"]["reason"] == "table 1 wrote deal 2 wrongly" and audit[2]["by"].startswith(
        "key "
    )


def test_refusals_name_their_field(api):
    # a table size the rules do not seat: piter_races is played by 4
    refused(
        api.post(
            "/v1/tournaments",
            json={"name": "R", "convention": "piter_races", "rounds": 2, "table_sizes": [3]},
        ),
        422,
        "table_sizes",
    )
    refused(
        api.post(
            "/v1/tournaments", json={"name": "R", "convention": "sochi", "rounds": 2, "table_sizes": [5]}
        ),
        422,
        "table_sizes.0",
    )
    refused(
        api.post(
            "/v1/tournaments", json={"name": "R", "convention": "sochi", "rounds": 2, "table_sizes": [3, 3]}
        ),
        422,
        "table_sizes",
    )
    # the game's end is the tournament's to say
    refused(
        api.post(
            "/v1/tournaments",
            json={"name": "R", "convention": "sochi", "rounds": 2, "options": {"end_of_game": "deals"}},
        ),
        422,
        "options.end_of_game",
    )
    refused(
        api.post("/v1/tournaments", json={"name": "R", "convention": "sochi", "rounds": 0}), 422, "rounds"
    )
    # a scoring the core cannot take: breakpoints not ascending, points not one per place
    bad = {"kind": "whists", "transform": {"breakpoints": [650, 200], "slopes": [1, "1/10", 0]}}
    refused(
        api.post("/v1/tournaments", json={"name": "R", "convention": "sochi", "rounds": 2, "scoring": bad}),
        422,
        "scoring",
    )
    bad = {"kind": "places", "place_points": {"3": [3, 2, 1, 0]}}
    refused(
        api.post("/v1/tournaments", json={"name": "R", "convention": "sochi", "rounds": 2, "scoring": bad}),
        422,
        "scoring",
    )
    own = {"kind": "places", "place_points": {"3": [2, 1, 0]}, "tie_breaks": ["firsts"], "bye_score": "1/2"}
    assert (
        api.post(
            "/v1/tournaments", json={"name": "R", "convention": "sochi", "rounds": 2, "scoring": own}
        ).status_code
        == 201
    )
    refused(
        api.post(
            "/v1/tournaments", json={"name": "R", "convention": "sochi", "rounds": 2, "entrants": ["A", "a"]}
        ),
        422,
        "entrants.1.name",
    )
    refused(
        api.post(
            "/v1/tournaments",
            json={"name": "R", "convention": "sochi", "rounds": 2, "entrants": [{"player": "0" * 32}]},
        ),
        422,
        "entrants.0.player",
    )
    # too few players for a table
    t = tournament(api, players=2)
    refused(api.post(f"/v1/tournaments/{t['id']}/rounds"), 422, "entrants")
    # a round drawn while the last is open
    t = tournament(api, players=3, rounds=1)
    r1 = draw(api, t["id"])["rounds"][0]
    body = refused(api.post(f"/v1/tournaments/{t['id']}/rounds"), 409, "round")
    assert "round 1" in body["detail"]
    play(api, r1["tables"][0])
    # more rounds than planned
    refused(api.post(f"/v1/tournaments/{t['id']}/rounds"), 409, "rounds")
    # an adjustment of an entrant or a round that is not there
    refused(
        api.post(f"/v1/tournaments/{t['id']}/adjustments", json={"entrant": 9, "amount": 1, "reason": "r"}),
        422,
        "entrant",
    )
    refused(
        api.post(
            f"/v1/tournaments/{t['id']}/adjustments",
            json={"entrant": 1, "amount": 1, "reason": "r", "round": 2},
        ),
        422,
        "round",
    )
    refused(
        api.post(f"/v1/tournaments/{t['id']}/adjustments", json={"entrant": 1, "amount": 1.5, "reason": "r"}),
        422,
        "amount",
    )
    assert api.post(f"/v1/tournaments/{t['id']}/rounds/2/close").status_code == 404


def test_withdrawals_and_late_entries(api):
    t = tournament(api, players=6)
    tid = t["id"]
    r1 = draw(api, tid)["rounds"][0]
    for table in r1["tables"]:
        play(api, table)
    r = api.post(f"/v1/tournaments/{tid}/entrants/2/withdrawal")
    assert r.status_code == 200 and r.json()["players"][1]["withdrawn_round"] == 2
    assert api.post(f"/v1/tournaments/{tid}/entrants/2/withdrawal").status_code == 409
    assert api.post(f"/v1/tournaments/{tid}/entrants/99/withdrawal").status_code == 404
    r = api.post(f"/v1/tournaments/{tid}/entrants", json={"entrants": ["Late", "Later"]})
    assert r.status_code == 200, r.text
    assert [(p["number"], p["joined_round"]) for p in r.json()["players"][-2:]] == [(7, 2), (8, 2)]
    refused(api.post(f"/v1/tournaments/{tid}/entrants", json={"entrants": ["late"]}), 422, "entrants.0.name")
    r2 = draw(api, tid)["rounds"][1]
    seated = sorted(s["entrant"] for table in r2["tables"] for s in table["seats"]) + [
        b["entrant"] for b in r2["byes"]
    ]
    assert sorted(seated) == [1, 3, 4, 5, 6, 7, 8]  # 7 players: two tables of 3, one bye
    assert len(r2["byes"]) == 1
    st = {row["entrant"]: row for row in standings(api, tid)["items"]}
    assert st[2]["withdrawn"] and st[2]["rounds"][1] is None  # absent, the round played stays
    assert st[7]["rounds"][0] is None
    audit = [e["action"] for e in api.get(f"/v1/tournaments/{tid}/audit").json()["items"]]
    assert audit == ["draw", "lock", "withdrawal", "late_entry", "late_entry", "draw"]


def test_the_director_swaps_players_before_a_round_starts(api):
    t = tournament(api, players=7)
    tid = t["id"]
    r1 = draw(api, tid, seed=3)["rounds"][0]
    bye = r1["byes"][0]["entrant"]
    a = r1["tables"][0]["seats"][1]["entrant"]
    b = r1["tables"][1]["seats"][2]["entrant"]
    old = [table["table_id"] for table in r1["tables"]]
    r = api.post(f"/v1/tournaments/{tid}/rounds/1/swap", json={"a": a, "b": b})
    assert r.status_code == 200, r.text
    swapped = r.json()["rounds"][0]
    assert (
        swapped["tables"][0]["seats"][1]["entrant"] == b and swapped["tables"][1]["seats"][2]["entrant"] == a
    )
    assert all(table["scorer_link"].startswith("/score/") for table in swapped["tables"])
    assert api.get(f"/v1/tables/{old[0]}").status_code == 404  # made again
    # a player with a bye changes places with one at a table
    r = api.post(f"/v1/tournaments/{tid}/rounds/1/swap", json={"a": bye, "b": a})
    assert r.status_code == 200 and r.json()["rounds"][0]["byes"][0]["entrant"] == a
    # two players of one table: its seat order changes (who deals first with it)
    x, y, z = (s["entrant"] for s in r.json()["rounds"][0]["tables"][1]["seats"])
    r = api.post(f"/v1/tournaments/{tid}/rounds/1/swap", json={"a": z, "b": x})
    assert [s["entrant"] for s in r.json()["rounds"][0]["tables"][1]["seats"]] == [z, y, x]
    # once a deal is posted the round has started
    api.deal(r.json()["rounds"][0]["tables"][0]["table_id"], six_spades(0))
    refused(api.post(f"/v1/tournaments/{tid}/rounds/1/swap", json={"a": a, "b": b}), 409, "round")
    refused(api.post(f"/v1/tournaments/{tid}/rounds/1/swap", json={"a": a, "b": a}), 422, "b")
    assert [e["action"] for e in api.get(f"/v1/tournaments/{tid}/audit").json()["items"]] == [
        "draw",
        "swap",
        "swap",
        "swap",
    ]


def test_a_swap_in_a_reopened_round_shows_its_new_links_at_its_own_tables(api):
    """The scorer links of the tables a swap makes are shown in the swapped round, not at the
    tables of the same numbers in the last round (whose scorers would be handed links that
    score another round's table)."""
    tid = tournament(api, players=6)["id"]
    draw(api, tid, seed=1)
    assert api.post(f"/v1/tournaments/{tid}/rounds/1/close").status_code == 200  # before any deal
    draw(api, tid, seed=2)
    assert (
        api.post(f"/v1/tournaments/{tid}/rounds/1/reopen", json={"reason": "seated wrong"}).status_code == 200
    )
    a, b = (
        s["entrant"] for s in api.get(f"/v1/tournaments/{tid}").json()["rounds"][0]["tables"][0]["seats"][:2]
    )
    r = api.post(f"/v1/tournaments/{tid}/rounds/1/swap", json={"a": a, "b": b})
    assert r.status_code == 200, r.text
    first, last = r.json()["rounds"]
    assert "scorer_link" not in str(last["tables"])
    made = first["tables"][0]
    link = made["scorer_link"]
    scored = api.client.get(f"/v1/score/{link.rsplit('/', 1)[-1]}")
    assert scored.status_code == 200 and scored.json()["id"] == made["table_id"]


def test_the_standings_etag(api):
    t = tournament(api, players=3)
    tid = t["id"]
    table = draw(api, tid)["rounds"][0]["tables"][0]
    r = api.get(f"/v1/tournaments/{tid}/standings")
    etag = r.headers["ETag"]
    again = api.get(f"/v1/tournaments/{tid}/standings", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.headers["ETag"] == etag
    api.deal(table["table_id"], six_spades(0))  # a deal at a table of the round being played
    r = api.get(f"/v1/tournaments/{tid}/standings", headers={"If-None-Match": etag})
    assert r.status_code == 200 and r.headers["ETag"] != etag
    etag = r.headers["ETag"]
    api.post(f"/v1/tournaments/{tid}/adjustments", json={"entrant": 1, "amount": 1, "reason": "r"})
    assert api.get(f"/v1/tournaments/{tid}/standings", headers={"If-None-Match": etag}).status_code == 200
    # another owner's standings: 404 before any 304
    assert api.get(f"/v1/tournaments/{'0' * 32}/standings", headers={"If-None-Match": "*"}).status_code == 404


def test_the_director_closes_a_round_played_for_time(api):
    t = tournament(api, players=3, game_end={"kind": "director"})
    tid = t["id"]
    table = draw(api, tid)["rounds"][0]["tables"][0]
    api.deal(table["table_id"], six_spades(0))
    assert standings(api, tid)["items"][0]["rounds"] == [None]  # a table being played counts nothing yet
    r = api.post(f"/v1/tournaments/{tid}/rounds/1/close")
    assert r.status_code == 200
    # as if the game ended now: seat 0 wrote 2 to his pool; G = (-2, 0, 0), mean -2/3:
    # seat 0: 10·(-2/3 + 2) = 40/3, seats 1 and 2: 10·(-2/3) = -20/3
    st = {row["entrant"]: row["total_exact"] for row in standings(api, tid)["items"]}
    seats = [s["entrant"] for s in table["seats"]]
    assert [st[n] for n in seats] == ["40/3", "-20/3", "-20/3"]
    assert api.post(f"/v1/tables/{table['table_id']}/deals", json=six_spades(1)).status_code == 409


def test_places_scoring_with_byes(api):
    # 4 players at 3-player tables: one table and one bye a round. Places (defaults, 3
    # players): 1st 3 points (4 if the only one in plus), 2nd 2 if in plus else 1, 3rd 0;
    # tied players share their places' points. Balances 20/3, 20/3, -40/3: the two first
    # share 3 + 2 = 5 -> 5/2 each; the third 0. The bye scores the round's mean points per
    # seat: (5/2 + 5/2 + 0) / 3 = 5/3.
    t = tournament(api, players=4, scoring="places")
    tid = t["id"]
    r1 = draw(api, tid)["rounds"][0]
    play(api, r1["tables"][0])
    st = {row["entrant"]: row["total_exact"] for row in standings(api, tid)["items"]}
    seats = [s["entrant"] for s in r1["tables"][0]["seats"]]
    assert [st[n] for n in seats] == ["5/2", "5/2", "0"]
    assert st[r1["byes"][0]["entrant"]] == "5/3"


def test_the_share_link_and_the_export(api, client):
    t = tournament(api, players=3)
    tid = t["id"]
    table = draw(api, tid)["rounds"][0]["tables"][0]
    play(api, table)
    r = client.get(f"/v1/shared/{t['share_token']}/tournament")
    assert r.status_code == 200, r.text
    body = r.json()
    assert (
        body["tournament"]["id"] == tid
        and "share_token" not in body["tournament"]
        and "adjustments" not in body["tournament"]
    )
    assert body["current_round"] == 1
    assert [row["total_exact"] for row in body["standings"]["items"]] == ["20/3", "20/3", "-40/3"]
    shared = api.get(f"/v1/tables/{table['table_id']}").json()["share_token"]
    assert body["live_links"] == {"1": f"/v1/shared/{shared}/events"}
    assert (
        client.get(
            f"/v1/shared/{t['share_token']}/tournament", headers={"If-None-Match": r.headers["ETag"]}
        ).status_code
        == 304
    )
    assert client.get("/v1/shared/nosuchtokenatallhere/tournament").status_code == 404
    new = api.post(f"/v1/tournaments/{tid}/share-token").json()["share_token"]
    assert client.get(f"/v1/shared/{t['share_token']}/tournament").status_code == 404
    assert client.get(f"/v1/shared/{new}/tournament").status_code == 200

    doc = api.get(f"/v1/tournaments/{tid}/export").json()
    assert [row["total"] for row in doc["standings"]] == ["20/3", "20/3", "-40/3"]
    assert [row["balance"] for row in doc["results"]] == ["20/3", "20/3", "-40/3"]
    r = api.get(f"/v1/tournaments/{tid}/export?format=csv")
    assert r.headers["content-type"].startswith("text/csv")
    lines = r.text.splitlines()
    assert lines[0].startswith("place,entrant,name,total") and len(lines) == 4
    r = api.get(f"/v1/tournaments/{tid}/export?format=csv&part=results")
    assert r.text.splitlines()[0].startswith("round,table,table_id,seat,entrant")
    record = api.get(f"/v1/tournaments/{tid}/export?format=record").json()
    assert record["format"] == "prefscore-tournament/1"
    table_record = record["rounds"][0]["tables"][0]["record"]
    # each table's record imports as a table elsewhere
    imported = api.post("/v1/tables/import", json=table_record)
    assert imported.status_code == 201, imported.text
    refused(api.get(f"/v1/tournaments/{tid}/export?format=xml"), 422, "format")


def test_registered_players_enter_and_sit_linked(api):
    anna = api.post("/v1/players", json={"name": "Anna"}).json()
    twice = {
        "name": "L",
        "convention": "sochi",
        "rounds": 1,
        "entrants": [{"player": anna["id"]}, "Boris", {"player": anna["id"], "name": "A2"}],
    }
    refused(api.post("/v1/tournaments", json=twice), 422, "entrants.2.player")
    t = tournament(api, rounds=1, entrants=[{"player": anna["id"]}, "Boris", "Vera"])
    assert t["players"][0] == {
        "number": 1,
        "name": "Anna",
        "player": anna["id"],
        "joined_round": 1,
        "withdrawn_round": None,
    }
    table = draw(api, t["id"])["rounds"][0]["tables"][0]
    play(api, table)
    seat = next(s["seat"] for s in table["seats"] if s["entrant"] == 1)
    stats = api.get(f"/v1/players/{anna['id']}/stats").json()
    assert stats["tables"] == 1, stats
    assert seat in (0, 1, 2)
