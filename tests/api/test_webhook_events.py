"""The webhooks' events of tournaments and ratings: ``tournament.standings`` when a
tournament's standings move (here: a round drawn, then closed as its last table finishes) and
``rating.changed`` when a finished rated table moves its players' ratings (and when an undo
takes them back), signed like every delivery; an endpoint not subscribed to them gets none."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from standardwebhooks.webhooks import Webhook

from tests.api.samples import PULKA
from tests.api.test_post_statements import statements
from tests.api.test_webhooks import hooks, owner, register, settled  # noqa: F401 - the fixtures of the webhooks' tests
from tests.conftest import Api
from tests.support.receiver import Receiver
from tests.tournaments.test_api import six_spades


@pytest.fixture
def receivers() -> Iterator[tuple[Receiver, Receiver]]:
    a, b = Receiver(), Receiver()
    yield a, b
    a.close()
    b.close()


def verified(receiver: Receiver, hook: dict[str, Any], count: int) -> list[dict[str, Any]]:
    """The first ``count`` deliveries, each verified against the endpoint's secret."""
    return [
        Webhook(hook["secret"]).verify(body, headers) for headers, body in receiver.wait_for(count)[:count]
    ]


def test_a_round_drawn_and_closed_moves_the_standings(owner: Api, receivers):
    subscribed, other = receivers
    hook = register(owner, subscribed.url, ["tournament.standings"])
    register(owner, other.url, ["deal.posted"])
    t = owner.post(
        "/v1/tournaments",
        json={
            "name": "Hooked",
            "convention": "sochi",
            "rounds": 1,
            "game_end": {"kind": "deals", "deals": 1},
            "entrants": ["A", "B", "C"],
        },
    ).json()
    limited = register(owner, other.url, ["tournament.standings"], tables=[owner.table()["id"]])
    drawn = owner.post(f"/v1/tournaments/{t['id']}/rounds")
    assert drawn.status_code == 201, drawn.text
    (drawn_event,) = verified(subscribed, hook, 1)
    assert drawn_event["type"] == "tournament.standings"
    data = drawn_event["data"]
    assert data["tournament_id"] == t["id"] and isinstance(data["revision"], int)
    assert data["links"] == {
        "tournament": f"/v1/tournaments/{t['id']}",
        "standings": f"/v1/tournaments/{t['id']}/standings",
    }
    # the round's one table finishes with its one deal: the round closes, the standings move
    table = drawn.json()["rounds"][0]["tables"][0]["table_id"]
    assert owner.post(f"/v1/tables/{table}/deals", json=six_spades(0)).status_code == 201
    _, closed = verified(subscribed, hook, 2)
    assert closed["data"]["tournament_id"] == t["id"] and closed["data"]["revision"] > data["revision"]
    assert owner.get(f"/v1/tournaments/{t['id']}").json()["rounds"][0]["status"] == "closed"
    logged = settled(owner, hook, 2)
    assert {(d["tournament_id"], d["table_id"], d["type"]) for d in logged} == {
        (t["id"], None, "tournament.standings")
    }
    # the deal.posted endpoint got its deal and nothing of the tournament; the endpoint
    # limited to a table got nothing (a tournament is no table)
    other.wait_for(1)
    time.sleep(0.3)
    assert [e["type"] for e in other.events()] == ["deal.posted"]
    assert settled(owner, limited, 0) == []
    assert len(subscribed.events()) == 2


def _players(owner: Api, *names: str) -> list[str]:
    ids = []
    for name in names:
        r = owner.post("/v1/players", json={"name": name})
        assert r.status_code == 201, r.text
        ids.append(r.json()["id"])
    return ids


def _rated_table(owner: Api, ids: list[str]) -> dict[str, Any]:
    return owner.table(
        players=[{"name": n, "player": i} for n, i in zip(("Anna", "Boris", "Vera"), ids)],
        pool_target=4,
        rated=True,
    )


def test_a_rated_table_finishing_and_undone_changes_ratings(owner: Api, receivers):
    subscribed, other = receivers
    hook = register(owner, subscribed.url, ["rating.changed"])
    register(owner, other.url, ["table.finished"])
    ids = _players(owner, "Anna", "Boris", "Vera")
    t = _rated_table(owner, ids)
    for body in PULKA:
        owner.deal(t["id"], body)
    (rated,) = verified(subscribed, hook, 1)
    assert rated["type"] == "rating.changed"
    data = rated["data"]
    assert data["table_id"] == t["id"] and data["rated"] is True and isinstance(data["version"], int)
    assert data["links"] == {
        "table": f"/v1/tables/{t['id']}",
        "settlement": f"/v1/tables/{t['id']}/settlement",
    }
    assert [p["player_id"] for p in data["players"]] == ids  # seat by seat
    for p in data["players"]:
        now = owner.get(f"/v1/players/{p['player_id']}/rating").json()["rating"]
        # a first rated table: from the initial rating, mu 25 and sigma 25/3, ordinal 25 - 3*25/3 = 0
        assert p["before"] == pytest.approx(0.0, abs=1e-9)
        assert p["after"] == now["ordinal"] and p["games"] == 1
        assert p["links"] == {"rating": f"/v1/players/{p['player_id']}/rating"}
    # the finishing deal undone: the table counts no more, its players' ratings go back
    assert owner.delete(f"/v1/tables/{t['id']}/deals/{len(PULKA)}").status_code == 200
    _, unrated = verified(subscribed, hook, 2)
    assert unrated["data"]["table_id"] == t["id"] and unrated["data"]["rated"] is False
    assert [(p["player_id"], p["before"], p["after"]) for p in unrated["data"]["players"]] == [
        (i, None, None) for i in ids
    ]
    assert len(settled(owner, hook, 2)) == 2
    # the table.finished endpoint got the finish and no rating event
    other.wait_for(1)
    time.sleep(0.3)
    assert [e["type"] for e in other.events()] == ["table.finished"]
    assert len(subscribed.events()) == 2


def test_a_deleted_rated_table_is_a_rating_change(owner: Api, receivers):
    subscribed, _ = receivers
    hook = register(owner, subscribed.url, ["rating.changed"])
    ids = _players(owner, "Anna", "Boris", "Vera")
    t = _rated_table(owner, ids)
    for body in PULKA:
        owner.deal(t["id"], body)
    verified(subscribed, hook, 1)
    assert owner.delete(f"/v1/tables/{t['id']}").status_code == 204
    _, deleted = verified(subscribed, hook, 2)
    assert deleted["type"] == "rating.changed" and deleted["data"]["table_id"] == t["id"]
    assert deleted["data"]["rated"] is False and deleted["data"]["version"] is None
    assert [p["player_id"] for p in deleted["data"]["players"]] == ids
    assert all(owner.get(f"/v1/players/{i}/rating").json()["rating"]["games"] == 0 for i in ids)


def test_the_finishing_post_of_an_owner_without_endpoints_writes_no_delivery(api, db):
    ids = _players(api, "Anna", "Boris", "Vera")
    t = _rated_table(api, ids)
    for body in PULKA[:-1]:
        api.deal(t["id"], body)
    with statements(db) as seen:
        api.deal(t["id"], PULKA[-1])
    assert api.get(f"/v1/players/{ids[0]}/rating").json()["rating"]["games"] == 1  # rated all the same
    # no outbox statement (its endpoints are looked for in the post's locked read only)
    # (the deliverers' looks into the outbox are no part of the post)
    assert not [s for s in seen if "INSERT INTO webhook_deliveries" in s], seen
