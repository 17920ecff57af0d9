"""A refused draw or swap leaves no event behind: the tables it made before it was refused
(a round drawn meanwhile; the tournament changed meanwhile) are dropped without a webhook
delivery or a live event, and the tables a draw makes have their title from the start (no
``table.renamed`` after). Counted in the outbox (an endpoint of the owner subscribed to every
type, not delivering) and on this process's live changes (app/events/changes.py sinks)."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import pytest
from sqlalchemy import text

from app.events.catalogue import WEBHOOK_BITS as EVENT_TYPES
from app.events.changes import add_sink, remove_sink
from app.tournaments import service as svc
from tests.conftest import Api, new_owner_key
from tests.tournaments.test_api import draw, tournament

LOOPBACK = ("127.0.0.0/8", "::1/128")


@pytest.fixture(scope="module")
def hooked(settings, db) -> Iterator[Any]:
    """An app whose owners may register a loopback endpoint; nothing is delivered."""
    from fastapi.testclient import TestClient

    from app.main import create_app

    app = create_app(
        settings.model_copy(update={"webhooks_deliver": False, "webhooks_allowed_networks": LOOPBACK}), db=db
    )
    with TestClient(app) as client:
        yield client


@pytest.fixture
def owner(hooked, admin_headers) -> Api:
    name, key = new_owner_key(hooked, admin_headers)
    api = Api(hooked, key, name)
    r = api.post("/v1/webhooks", json={"url": "http://127.0.0.1:9/hook", "types": list(EVENT_TYPES)})
    assert r.status_code == 201, r.text
    return api


@pytest.fixture
def live(owner) -> Iterator[list[tuple[str, str]]]:
    """The owner's changes handed to this process's live hub: (table or tournament id, kind)."""
    seen: list[tuple[str, str]] = []

    def sink(table_id: str, who: str, revision: int, kind: str, stored: Any) -> None:
        if who == owner.owner:
            seen.append((table_id, kind))

    add_sink(sink)
    yield seen
    remove_sink(sink)


def _outbox(db, owner: Api) -> list[tuple[str, str]]:
    """The owner's webhook deliveries written so far: (table or tournament id, type)."""
    with db.read() as session:
        rows = session.execute(
            text("SELECT table_id, type FROM webhook_deliveries WHERE owner = :o ORDER BY id"),
            {"o": owner.owner},
        ).all()
    return [(r.table_id, r.type) for r in rows]


def test_a_drawn_table_has_its_title_from_the_start(owner, live, db):
    t = tournament(owner, name="Cup", rounds=2)
    before = len(_outbox(db, owner))
    body = draw(owner, t["id"], seed=3)
    table = body["rounds"][0]["tables"][0]["table_id"]
    assert owner.get(f"/v1/tables/{table}").json()["title"] == "Cup · round 1 · table 1"
    new = _outbox(db, owner)[before:]
    assert [kind for _, kind in new] == ["tournament.standings"]  # the draw; no table.renamed
    assert [kind for _, kind in live] == ["tournament.standings"]


def test_a_draw_refused_after_its_tables_were_made_leaves_no_event(owner, live, db, monkeypatch):
    t = tournament(owner, rounds=2)
    real = svc.open_round_tables
    made: list[str] = []

    def drawn_meanwhile(db_, t_, number, seating, **kw):
        tables = real(db_, t_, number, seating, **kw)
        made.extend(table_id for _, table_id, _ in tables)
        monkeypatch.setattr(svc, "open_round_tables", real)
        svc.draw_round(db_, t_.owner, t_.id, by="another director", seed=9)  # wins the race
        return tables

    monkeypatch.setattr(svc, "open_round_tables", drawn_meanwhile)
    before, live_before = len(_outbox(db, owner)), len(live)
    r = owner.post(f"/v1/tournaments/{t['id']}/rounds", json={"seed": 3})
    assert r.status_code == 409, r.text
    assert made and all(owner.get(f"/v1/tables/{x}").status_code == 404 for x in made)  # dropped
    # the one event is the other draw's; nothing of the refused draw's tables
    assert [kind for _, kind in _outbox(db, owner)[before:]] == ["tournament.standings"]
    assert [kind for _, kind in live[live_before:]] == ["tournament.standings"]


def test_a_draw_refused_before_its_tables_leaves_no_event(owner, live, db):
    t = tournament(owner, rounds=1)
    draw(owner, t["id"], seed=3)
    before, live_before = len(_outbox(db, owner)), len(live)
    assert owner.post(f"/v1/tournaments/{t['id']}/rounds").status_code == 409  # the round is open
    assert _outbox(db, owner)[before:] == [] and live[live_before:] == []


def test_a_swap_refused_after_its_tables_were_made_leaves_no_event(owner, live, db, monkeypatch):
    t = tournament(owner, rounds=2)
    body = draw(owner, t["id"], seed=3)
    first = body["rounds"][0]["tables"]
    a, b = first[0]["seats"][0]["entrant"], first[1]["seats"][0]["entrant"]
    real = svc._open_table
    made: list[str] = []

    def changed_meanwhile(db_, t_, *args):
        table_id, token = real(db_, t_, *args)
        made.append(table_id)
        if len(made) == 1:  # the director adjusts a total while the swap makes its tables
            svc.add_adjustment(
                db_,
                t_.owner,
                t_.id,
                entrant=a,
                amount=Fraction(1),
                reason="meanwhile",
                round_number=None,
                by="test",
            )
        return table_id, token

    monkeypatch.setattr(svc, "_open_table", changed_meanwhile)
    before, live_before = len(_outbox(db, owner)), len(live)
    r = owner.post(f"/v1/tournaments/{t['id']}/rounds/1/swap", json={"a": a, "b": b})
    assert r.status_code == 409, r.text
    assert len(made) == 2 and all(owner.get(f"/v1/tables/{x}").status_code == 404 for x in made)
    old = {x["table_id"] for x in first}
    assert all(owner.get(f"/v1/tables/{x}").status_code == 200 for x in old)  # kept
    # the one event is the adjustment's; none of the new tables, none of the old ones
    assert [kind for _, kind in _outbox(db, owner)[before:]] == ["tournament.standings"]
    assert [kind for _, kind in live[live_before:]] == ["tournament.standings"]


def test_a_swap_refused_at_a_table_with_a_deal_leaves_no_event(owner, live, db, monkeypatch):
    """The deal is stored at an old table after the swap's first look: the swap, in its
    transaction, has dropped the old tables before it (their ``table.deleted`` written) when
    it finds the deal and is refused; all of it is rolled back."""
    t = tournament(owner, rounds=2)
    body = draw(owner, t["id"], seed=3)
    first = body["rounds"][0]["tables"]
    a, b = first[0]["seats"][0]["entrant"], first[1]["seats"][0]["entrant"]
    # the second of the swapped tables gets the deal (the first is dropped before it)
    late = first[1]["table_id"]
    real = svc._open_table
    made: list[str] = []

    def dealt_meanwhile(db_, t_, *args):
        table_id, token = real(db_, t_, *args)
        made.append(table_id)
        return table_id, token

    monkeypatch.setattr(svc, "_open_table", dealt_meanwhile)
    real_tables_now = svc._tables_now
    calls = []

    def after_the_look(db_, t_):
        now = real_tables_now(db_, t_)
        if not calls:  # the swap's look at the tables: none has a deal yet; then one gets one
            calls.append(1)
            from app.tables.orm import TableRow

            with db_.write() as session:
                session.query(TableRow).filter(TableRow.id == late).update({"deal_count": 1})
        return now

    monkeypatch.setattr(svc, "_tables_now", after_the_look)
    before, live_before = len(_outbox(db, owner)), len(live)
    r = owner.post(f"/v1/tournaments/{t['id']}/rounds/1/swap", json={"a": a, "b": b})
    assert r.status_code == 409, r.text
    assert "table 2" in r.json()["detail"], r.text
    assert all(owner.get(f"/v1/tables/{x}").status_code == 404 for x in made)
    assert all(owner.get(f"/v1/tables/{x['table_id']}").status_code == 200 for x in first)
    assert _outbox(db, owner)[before:] == [] and live[live_before:] == []


def test_a_refused_swap_before_its_tables_leaves_no_event(owner, live, db):
    t = tournament(owner, rounds=2)
    body = draw(owner, t["id"], seed=3)
    first = body["rounds"][0]["tables"]
    owner.deal(
        first[0]["table_id"],
        {"type": "contract", "declarer": 0, "contract": "6S", "defenders": {"1": "pass", "2": "pass"}},
    )
    a, b = first[0]["seats"][0]["entrant"], first[1]["seats"][0]["entrant"]
    before, live_before = len(_outbox(db, owner)), len(live)
    r = owner.post(f"/v1/tournaments/{t['id']}/rounds/1/swap", json={"a": a, "b": b})
    assert r.status_code == 409, r.text
    assert _outbox(db, owner)[before:] == [] and live[live_before:] == []
