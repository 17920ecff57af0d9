"""A posted deal's shape is checked once: its model builds the engine's frozen deal of its kind
(``DealInput.to_deal``); ``Deal.from_dict`` reads back stored JSON only. Each kind goes model ->
engine -> stored JSON -> engine and comes back equal."""

from __future__ import annotations

import json
import random

import pytest

from app.deals.schemas import DealInput
from app.kit.errors import Unprocessable
from app.rules import (
    AllpassDeal,
    CloseDeal,
    ContractDeal,
    Deal,
    InvalidDeal,
    MisereDeal,
    RemiseDeal,
    make_rules,
)
from app.rules import deal as engine
from tests.support.deallog import CONVENTIONS, generate_log

# One body of each kind, every field a kind may carry given (a sochi table played for a
# number of deals, 3 players, first dealer 0: they are posted in this order).
KINDS = {
    ContractDeal: {
        "type": "contract",
        "declarer": 1,
        "contract": "7H",
        "defenders": {"2": "pass", "0": "whist"},
        "tricks": {"1": 7, "2": 1, "0": 2},
        "dealer": 0,
        "choices": {},
        "over_misere": False,
        "note": "the first",
    },
    MisereDeal: {"type": "misere", "declarer": 2, "tricks": {"2": 0}, "dealer": 1, "note": None},
    RemiseDeal: {"type": "remise", "declarer": 0, "contract": "8S", "dealer": 2},
    AllpassDeal: {
        "type": "allpass",
        "tricks": {"0": 2, "1": 5, "2": 3},
        "choices": {"writeoff": []},
        "over_misere": False,
    },
    CloseDeal: {"type": "close", "dealer": 1},
}
# Fields only a rule table with their options scores (Rostov's talon, the overflow's help).
EXTRAS = {
    ContractDeal: {"talon": {"bonus": "ace", "discarded": True}, "choices": {"writeoff": [1], "help": 2}},
    MisereDeal: {"talon": {"returned": True}, "choices": {"help": 0}},
}
STORED_ONLY = ("number", "entries", "created_at")


def _body_of(stored: dict) -> dict:
    return {k: v for k, v in stored.items() if k not in STORED_ONLY}


@pytest.mark.parametrize("kind", list(KINDS), ids=lambda k: k.type)
def test_each_kind_round_trips_model_engine_json_engine(kind):
    for body in (KINDS[kind], {**KINDS[kind], **EXTRAS.get(kind, {})}):
        deal = DealInput.model_validate(body).to_deal()
        assert type(deal) is kind and deal.type == body["type"]
        stored = json.loads(json.dumps(deal.to_dict()))
        assert Deal.from_dict(stored) == deal
        assert Deal.from_dict(body) == deal  # the model and the stored JSON's reader agree
        assert DealInput.model_validate(stored).to_deal() == deal


def test_the_model_builds_what_the_reader_reads_for_every_convention():
    for convention in CONVENTIONS:
        for players in (4,) if convention == "piter_races" else (3, 4):
            log = generate_log(
                make_rules(convention, players), 0, random.Random(f"types/{convention}/{players}"), 200
            )
            for body, deal in zip(log.bodies, log.deals):
                assert DealInput.model_validate(body).to_deal() == deal, body


@pytest.mark.parametrize(
    "body",
    [
        {"type": "contract", "declarer": 0, "contract": "6S", "defenders": {}, "tricks": {}},
        {"type": "allpass", "tricks": {}, "choices": {"writeoff": [1, 1]}},
        {"type": "remise", "declarer": 0, "contract": "6S", "talon": {}, "over_misere": True},
        {"type": "close", "talon": {"bonus": "ace"}},
        {"type": "misere", "declarer": 0, "over_misere": True},
    ],
)
def test_the_shape_rules_a_model_cannot_state_refuse_as_the_reader_does(body):
    with pytest.raises(InvalidDeal) as read:
        Deal.from_dict(body)
    with pytest.raises(Unprocessable) as built:
        DealInput.model_validate(body).to_deal()
    assert built.value.errors == read.value.errors
    assert built.value.detail == f"the deal is not valid: {read.value}"


def test_a_posted_deal_is_shape_checked_once(api, monkeypatch):
    tid = api.table(options={"end_of_game": "deals", "game_deals": 100})["id"]
    reads: list = []
    checks: list = []
    read_back = Deal.from_dict.__func__
    shape_rules = engine.misplaced

    def reading(cls, body):
        reads.append(body)
        return read_back(cls, body)

    monkeypatch.setattr(Deal, "from_dict", classmethod(reading))
    monkeypatch.setattr(engine, "misplaced", lambda *a, **kw: checks.append(a) or shape_rules(*a, **kw))
    posted = []
    for n, (kind, body) in enumerate(KINDS.items(), start=1):
        headers = {"Idempotency-Key": f"types-{n}"} if n % 2 else {}
        answer = api.deal(tid, body, headers=headers)
        assert answer["deal"]["number"] == n and answer["deal"]["type"] == kind.type
        posted.append(answer)
        assert len(checks) == n  # one pass of the shape rules per post, by the model
    assert reads == []  # no post read its body back as JSON
    # a retry with its key answers the same bytes, read from what was kept
    again = api.post(
        f"/v1/tables/{tid}/deals", json=KINDS[ContractDeal], headers={"Idempotency-Key": "types-1"}
    )
    assert again.status_code == 201 and again.json() == posted[0]
    assert reads == []
    # stored JSON -> engine: each kind reads back as the deal the model built
    for answer, (kind, body) in zip(posted, KINDS.items()):
        stored = api.get(f"/v1/tables/{tid}/deals/{answer['deal']['number']}").json()
        assert stored == answer["deal"]
        assert Deal.from_dict(_body_of(stored)) == DealInput.model_validate(body).to_deal()
    # a correction builds its deal from the model too: only the stored log is read back
    reads.clear()
    corrected = {"type": "remise", "declarer": 0, "contract": "9S"}
    r = api.put(f"/v1/tables/{tid}/deals/3", json=corrected)
    assert r.status_code == 200, r.text
    assert reads and corrected not in reads  # the stored bodies, not the new one
    assert _body_of(r.json()["deal"]) == corrected
