"""Compatibility: tables made before the rule table became typed score exactly as before.

``fixtures/legacy_logs.json`` holds deal logs (every convention, table size, random options
and pool targets) with the entries of each deal, the final sheet, and the stored state halfway
and at the end, all written by the engine before the change (see make_legacy_logs.py). Each
log is folded again with today's engine and must give the same entries, state and sheet; the
stored states must load, and scoring on from the halfway state must reach the same end.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.rules import Deal, TableState, apply_deal, make_rules, replay, sheet

from .fixtures.make_legacy_logs import jsonable

LOGS = json.loads(Path(__file__).with_name("fixtures").joinpath("legacy_logs.json").read_text())["logs"]


def _id(log: dict) -> str:
    return f"{log['convention']}-{log['players']}-{log['pool_target']}-{json.dumps(log['options'], sort_keys=True)}"


@pytest.mark.parametrize("log", LOGS, ids=[f"{i}-{_id(log)}" for i, log in enumerate(LOGS)])
def test_legacy_log_scores_as_before(log: dict) -> None:
    rules = make_rules(log["convention"], log["players"], log["pool_target"], log["options"])
    deals = [Deal.from_dict(body) for body in log["deals"]]
    result = replay(rules, log["first_dealer"], deals)
    assert [[jsonable(e.to_dict()) for e in es] for es in result.entries] == log["entries"]
    assert result.state.to_dict() == log["state"]
    assert jsonable(sheet(rules, result.state)) == log["sheet"]


@pytest.mark.parametrize("log", LOGS, ids=[f"{i}-{_id(log)}" for i, log in enumerate(LOGS)])
def test_legacy_stored_state_loads_and_scores_on(log: dict) -> None:
    rules = make_rules(log["convention"], log["players"], log["pool_target"], log["options"])
    state = TableState.from_dict(log["state_half"])
    assert state.to_dict() == log["state_half"]
    for body in log["deals"][log["half"]:]:
        state = apply_deal(rules, state, Deal.from_dict(body)).state
    assert state.to_dict() == log["state"]
    assert TableState.from_dict(log["state"]).to_dict() == log["state"]
