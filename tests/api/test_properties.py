"""Properties of the service over random valid deal logs (hypothesis), through HTTP:

- the stored sheet equals re-scoring the stored deals (``replay`` over GET /deals);
- bad input changes nothing: an invalid deal between valid ones is refused with a 4xx
  problem, and the deal count and the sheet's ETag stay as they were;
- undoing the last deal and posting it again gives the same sheet;
- correcting a deal with its own body re-scores to the same sheet.

The logs come from the same generator as the engine's property tests (bench/deallog.py),
which derives every deal from docs/rules.md and the table's state.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from app.kit.amounts import number
from app.rules import Deal, make_rules, replay
from app.rules import sheet as engine_sheet
from tests.rules.strategies import deal_logs, invalid_deal, randoms

PROBLEM = "application/problem+json"
EXAMPLES = settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)
NAMES = ["Anna", "Boris", "Vera", "Gleb"]


def _create(api, rules, first_dealer) -> str:
    body = {
        "players": NAMES[: rules.players],
        "convention": rules.convention.name,
        "pool_target": rules.pool_target,
        "first_dealer": first_dealer,
        "options": rules.options,
    }
    r = api.post("/v1/tables", json=body)
    assert r.status_code == 201, r.text
    return r.json()["id"]


def _as_shown(value) -> Fraction:
    """An exact amount as the API shows it: exact when whole or a multiple of 0.5 and the
    like, else rounded to 0.01 (app/kit/amounts.number; e.g. whists of 1250/3 are 416.67)."""
    return Fraction(str(number(value)))


def _same(api_sheet: dict, exact: dict) -> None:
    """The API's sheet (JSON numbers) shows the engine's exact sheet."""
    for shown, want in zip(api_sheet["players"], exact["players"], strict=True):
        assert Fraction(str(shown["pool"])) == _as_shown(want["pool"])
        assert Fraction(str(shown["mountain"])) == _as_shown(want["mountain"])
        assert shown["pool_closed"] == want["pool_closed"]
        assert {k: Fraction(str(v)) for k, v in shown["whists"].items()} == {
            k: _as_shown(v) for k, v in want["whists"].items()
        }
    for key in ("deal_count", "allpass", "next_dealer", "finished", "game"):
        assert api_sheet[key] == exact[key], key


def _deal_body(stored: dict) -> dict:
    """A stored deal as a request body again (the stored form adds number and entries)."""
    return {k: v for k, v in stored.items() if k not in ("number", "entries", "created_at")}


@EXAMPLES
@given(log=deal_logs(max_deals=12), rng=randoms)
def test_stored_sheet_is_the_replayed_log_and_bad_input_changes_nothing(api, log, rng):
    tid = _create(api, log.rules, log.first_dealer)
    for i, body in enumerate(log.bodies):
        state = log.states[i]
        if rng.random() < 0.5:
            bad = invalid_deal(log.rules, state, rng)
            note(f"invalid before deal {i + 1}: {bad.rule}: {bad.body!r}")
            before = api.get(f"/v1/tables/{tid}/sheet")
            r = api.post(f"/v1/tables/{tid}/deals", json=bad.body)
            assert 400 <= r.status_code < 500, r.text
            assert r.headers["content-type"].startswith(PROBLEM)
            after = api.get(f"/v1/tables/{tid}/sheet")
            assert after.headers["etag"] == before.headers["etag"]
            assert after.json() == before.json()
        r = api.post(f"/v1/tables/{tid}/deals", json=body)
        assert r.status_code == 201, r.text

    shown = api.get(f"/v1/tables/{tid}/sheet").json()
    _same(shown, engine_sheet(log.rules, log.states[-1]))
    stored = api.log(tid)
    assert [d["number"] for d in stored] == list(range(1, len(log.bodies) + 1))
    again = replay(log.rules, log.first_dealer, [Deal.from_dict(_deal_body(d)) for d in stored])
    _same(shown, engine_sheet(log.rules, again.state))


@EXAMPLES
@given(log=deal_logs(max_deals=10), data=st.data())
def test_undo_then_repost_and_identity_correction_keep_the_sheet(api, log, data):
    if not log.bodies:
        return
    tid = _create(api, log.rules, log.first_dealer)
    for body in log.bodies:
        assert api.post(f"/v1/tables/{tid}/deals", json=body).status_code == 201
    final = api.get(f"/v1/tables/{tid}/sheet").json()
    n = len(log.bodies)

    r = api.delete(f"/v1/tables/{tid}/deals/{n}")
    assert r.status_code == 200, r.text
    _same(r.json()["sheet"], engine_sheet(log.rules, log.states[-2]))
    assert api.post(f"/v1/tables/{tid}/deals", json=log.bodies[-1]).status_code == 201
    assert api.get(f"/v1/tables/{tid}/sheet").json() == final

    k = data.draw(st.integers(1, n), label="corrected deal")
    stored = api.get(f"/v1/tables/{tid}/deals/{k}").json()
    r = api.put(f"/v1/tables/{tid}/deals/{k}", json=_deal_body(stored))
    assert r.status_code == 200, r.text
    assert api.get(f"/v1/tables/{tid}/sheet").json() == final
    rules = make_rules(log.rules.convention.name, log.rules.players, log.rules.pool_target, log.rules.options)
    assert rules == log.rules
