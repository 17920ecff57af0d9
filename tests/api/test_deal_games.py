"""Each stored deal keeps the game of the match it was played in (``deals.game``, migration
0009), written with the deal and again when an undo or a correction folds the log: the
picture of a piter_races match reads it and never re-scores the log."""

from __future__ import annotations

from sqlalchemy import select

import app.sharing.pictures as pictures
from app.deals.orm import DealRow

FOUR = ["Anna", "Boris", "Vera", "Gleb"]
# piter_races, target 2, two games, first dealer 0:
# deal 1 (dealer 0, active 1, 2, 3): the game's compulsory all-pass          -> game 1
# deal 2 (dealer 1): Vera plays 7♥ whisted by Gleb and makes it: pool 4 >= 2
#        with no all-pass streak open, so game 1 ends with this deal          -> game 1
# deal 3 (dealer 2, active 0, 1, 3): game 2 opens with its compulsory all-pass -> game 2
OPENING = {"type": "allpass", "tricks": {"1": 3, "2": 3, "3": 4}}
CLOSING = {
    "type": "contract",
    "declarer": 2,
    "contract": "7H",
    "defenders": {"3": "whist", "0": "pass"},
    "tricks": {"2": 7, "3": 3, "0": 0},
}
SECOND_OPENING = {"type": "allpass", "tricks": {"0": 3, "1": 3, "3": 4}}
# the same deal 2 failed (Vera takes 6): her pool stays 0, game 1 goes on  -> game 1
FAILED = {**CLOSING, "tricks": {"2": 6, "3": 4, "0": 0}}
# after the correction, deal 3 is dealt by 2 in game 1 (active 0, 1, 3)     -> game 1
LATER = {"type": "allpass", "tricks": {"0": 3, "1": 3, "3": 4}}


def _games(db, table_id: str) -> list[int | None]:
    with db.read() as session:
        rows = session.scalars(
            select(DealRow).where(DealRow.table_id == table_id).order_by(DealRow.number)
        ).all()
        return [r.game for r in rows]


def _races(api) -> dict:
    return api.table(convention="piter_races", players=FOUR, pool_target=2, options={"games": 2})


def test_each_deal_is_stored_with_its_game(api, db):
    t = _races(api)
    for body in (OPENING, CLOSING, SECOND_OPENING):
        api.deal(t["id"], body)
    assert _games(db, t["id"]) == [1, 1, 2]
    assert api.get(f"/v1/tables/{t['id']}/sheet").json()["game"] == 2


def test_an_undo_and_a_correction_write_the_games_again(api, db):
    t = _races(api)
    for body in (OPENING, CLOSING, SECOND_OPENING):
        api.deal(t["id"], body)
    assert api.delete(f"/v1/tables/{t['id']}/deals/3").status_code == 200
    assert _games(db, t["id"]) == [1, 1]
    api.deal(t["id"], SECOND_OPENING)
    # deal 2 corrected to a failed contract: game 1 does not end, so deal 3 is in game 1
    r = api.put(f"/v1/tables/{t['id']}/deals/2", json=FAILED)
    assert r.status_code == 200, r.text
    assert _games(db, t["id"]) == [1, 1, 1]
    other = api.table()  # one game: game 1
    api.deal(other["id"], {"type": "allpass", "tricks": {"0": 3, "1": 3, "2": 4}})
    assert _games(db, other["id"]) == [1]


def test_the_picture_reads_the_stored_games(api, db, monkeypatch):
    t = _races(api)
    for body in (OPENING, CLOSING, SECOND_OPENING):
        api.deal(t["id"], body)

    def no_scoring(*_args, **_kw):
        raise AssertionError("the picture re-scored the log")

    monkeypatch.setattr("app.rules.apply_deal", no_scoring)
    monkeypatch.setattr("app.rules.scoring.apply_deal", no_scoring)
    picture = pictures.shared_picture(db, t["share_token"])
    assert picture.games == (1, 1, 2)
    svg = api.client.get(f"/v1/shared/{t['share_token']}/sheet.svg?lang=en").text
    # Vera's pool: 4 in game 1, then 0 again in game 2
    assert "4 · 0" in svg


def test_the_picture_parses_no_amount(api, monkeypatch):
    """From the stored rows to the SVG and the PNG, the amounts are the engine's (int or
    Fraction): read from the database once, never written as text and read back."""
    t = api.table(convention="rostov", players=["Anna", "Boris", "Vera"])  # Rostov: halves on the sheet
    for body in (OPENING, CLOSING):
        api.deal(
            t["id"],
            {**body, "tricks": {"0": 3, "1": 3, "2": 4}}
            if body is OPENING
            else {
                "type": "contract",
                "declarer": 1,
                "contract": "7H",
                "defenders": {"2": "whist", "0": "whist"},
                "tricks": {"1": 7, "2": 2, "0": 1},
            },
        )

    def parse(value):
        raise AssertionError(f"an amount parsed again: {value!r}")

    monkeypatch.setattr("app.rules.amounts.parse", parse)
    for fmt in ("svg", "png"):
        assert api.client.get(f"/v1/shared/{t['share_token']}/sheet.{fmt}").status_code == 200


def test_an_imported_record_stores_each_deals_game(api, db):
    t = _races(api)
    for body in (OPENING, CLOSING, SECOND_OPENING):
        api.deal(t["id"], body)
    record = api.get(f"/v1/tables/{t['id']}/export").json()
    r = api.post("/v1/tables/import", json=record)
    assert r.status_code == 201, r.text
    assert _games(db, r.json()["id"]) == [1, 1, 2]
