"""Property tests of the rules engine over random valid deal logs.

The logs come from ``tests/support/deallog.py``: every deal is derived from the table's
rule fields and its state, for every preset, both table sizes (races: 4), random pool
targets and random COMBINATIONS of fields (any field of the rule table overridden, not only
the presets); the engine must accept each one (a refusal fails the test and shows the deal
and the state before it).
"""

from __future__ import annotations

import json
import os
import random
from collections import defaultdict
from dataclasses import replace
from fractions import Fraction
from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from app.rules import (
    FIELD_NAMES,
    RULES_VERSION,
    SPECS,
    AllpassScoring,
    Deal,
    FixedDealerScope,
    GameEnd,
    InvalidDeal,
    ReplayError,
    TableFinished,
    TableState,
    apply_deal,
    conventions_catalog,
    make_rules,
    replay,
    settle,
    sheet,
)
from tests.support.deallog import (
    CONVENTIONS,
    Situation,
    allpass_deal,
    contract_deal,
    generate_log,
    misere_deal,
    random_options,
    random_value,
)

try:
    from . import strategies
except ImportError:  # collected without the package
    import strategies


# a quarter of the tables are of rules version 1 (their presets read the first rule table's way)
VERSIONS = (RULES_VERSION, RULES_VERSION, RULES_VERSION, 1)


# the engine's properties cover the caller's close deal and version-1 tables too
def deal_logs(**kwargs):
    return strategies.deal_logs(close=True, versions=VERSIONS, **kwargs)


def logs_with_invalid_deal(**kwargs):
    return strategies.logs_with_invalid_deal(close=True, **kwargs)


# Each property runs per convention (so that every convention gets its share of examples).
# PREFSCORE_PROPERTY_EXAMPLES=500 runs a deeper search (the default keeps the file well under a minute).
PROPS = settings(
    max_examples=int(os.environ.get("PREFSCORE_PROPERTY_EXAMPLES", "25")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
HALF = Fraction(1, 2)
per_convention = pytest.mark.parametrize("convention", CONVENTIONS)


def _is_exact(x) -> bool:
    return isinstance(x, (int, Fraction)) and not isinstance(x, bool)


def _half_multiple(x) -> bool:
    return _is_exact(x) and Fraction(x) / HALF == int(Fraction(x) / HALF)


def _describe(log) -> None:
    note(
        f"rules: {log.rules.preset}, {log.rules.players} players, target {log.rules.pool_target}, "
        f"rules version {log.rules.rules_version}, options {log.rules.options}, first dealer {log.first_dealer}"
    )
    for i, body in enumerate(log.bodies, 1):
        note(f"deal {i}: {json.dumps(body, ensure_ascii=False)}")


# --- the generator itself --------------------------------------------------------------------


@per_convention
@PROPS
@given(data=st.data())
def test_generated_logs_are_accepted_and_counted(convention, data):
    """Every deal the generator derives from the rules is accepted; the deal count goes up by
    one and the deal passes on, except that with sliding_allpass off the same player deals
    while the table is in all-passes, or under fixed_dealer_scope allpass_deals after an
    all-pass deal only (docs/rules.md §2)."""
    log = data.draw(deal_logs(conventions=(convention,)), label="log")
    _describe(log)
    sliding = log.rules.sliding_allpass
    whole_streak = log.rules.fixed_dealer_scope is FixedDealerScope.WHOLE_STREAK
    n = log.rules.players
    for i, (body, old, new) in enumerate(zip(log.bodies, log.states, log.states[1:]), 1):
        assert new.deal_count == old.deal_count + 1 == i
        assert not old.finished
        in_allpasses = body["type"] == "allpass" or (whole_streak and new.streak > 0 and new.game == old.game)
        if in_allpasses and not sliding:
            assert new.next_dealer == old.next_dealer
        else:
            assert new.next_dealer == (old.next_dealer + 1) % n


# --- fold == step by step ------------------------------------------------------------------------


@per_convention
@PROPS
@given(data=st.data())
def test_replay_equals_applying_deals_one_at_a_time(convention, data):
    log = data.draw(deal_logs(max_deals=40, conventions=(convention,)), label="log")
    _describe(log)
    rep = replay(log.rules, log.first_dealer, log.deals)
    assert rep.state == log.states[-1]
    assert rep.state.to_dict() == log.states[-1].to_dict()
    assert list(rep.entries) == list(log.entries)
    # a prefix folds to the state reached after that many deals
    k = len(log.deals) // 2
    assert replay(log.rules, log.first_dealer, log.deals[:k]).state == log.states[k]


# --- store -> load -> identical ----------------------------------------------------------------


@per_convention
@PROPS
@given(data=st.data())
def test_state_and_deal_round_trip_through_json(convention, data):
    log = data.draw(deal_logs(conventions=(convention,)), label="log")
    _describe(log)
    for state in log.states:
        stored = json.loads(json.dumps(state.to_dict()))
        assert TableState.from_dict(stored) == state
        assert TableState.from_dict(stored).to_dict() == state.to_dict()
    for body, deal in zip(log.bodies, log.deals):
        stored = json.loads(json.dumps(deal.to_dict()))
        assert Deal.from_dict(stored) == deal
        assert Deal.from_dict(stored).to_dict() == deal.to_dict()


# --- settlement ----------------------------------------------------------------------------------


def _fewest_transfers(cents: tuple[int, ...]) -> int:
    """Fewest payments settling ``cents``: nonzero players minus the most disjoint zero-sum groups."""
    seats = [i for i, c in enumerate(cents) if c]

    def best(rest: tuple[int, ...]) -> int:
        if not rest:
            return 0
        first, others = rest[0], rest[1:]
        top = 0
        for r in range(len(others) + 1):
            for group in combinations(others, r):
                if cents[first] + sum(cents[g] for g in group) == 0:
                    left = tuple(s for s in others if s not in group)
                    top = max(top, 1 + best(left))
        return top

    return len(seats) - best(tuple(seats))


def _check_settlement(rules, state, stake):
    s = settle(rules, state, stake)
    n = rules.players
    assert len(s.balances) == len(s.cents) == n
    assert all(isinstance(b, Fraction) or type(b) is int for b in s.balances)
    assert sum(s.balances) == 0
    assert sum(s.cents) == 0
    assert all(type(c) is int for c in s.cents)
    for b, c in zip(s.balances, s.cents):
        assert abs(Fraction(c) - 100 * Fraction(b)) < 1, (b, c)
    net = [0] * n
    for t in s.transfers:
        assert t.payer != t.payee and t.cents > 0 and type(t.cents) is int
        net[t.payer] -= t.cents
        net[t.payee] += t.cents
    assert net == list(s.cents)
    assert len(s.transfers) <= n - 1
    assert len(s.transfers) == _fewest_transfers(s.cents)
    assert s.final == state.finished
    return s


@per_convention
@PROPS
@given(
    data=st.data(),
    stake=st.sampled_from([None, Fraction(1, 2), Fraction(1, 3), Fraction(7, 100), Fraction(3)]),
)
def test_settlement_sums_to_zero_and_transfers_settle_it(convention, data, stake):
    log = data.draw(deal_logs(conventions=(convention,)), label="log")
    _describe(log)
    for state in (log.states[len(log.states) // 2], log.states[-1]):
        plain = _check_settlement(log.rules, state, None)
        staked = _check_settlement(log.rules, state, stake)
        if stake is not None:
            assert staked.balances == tuple(b * stake for b in plain.balances)


@per_convention
@PROPS
@given(data=st.data(), c=st.integers(-50, 50))
def test_balances_ignore_a_constant_added_to_every_mountain(convention, data, c):
    """Amnesty of the mountain changes nothing in the balances (docs/rules.md §9)."""
    log = data.draw(deal_logs(conventions=(convention,)), label="log")
    _describe(log)
    state = log.states[-1]
    shifted = replace(state, mountains=tuple(m + c for m in state.mountains))
    assert settle(log.rules, shifted).balances == settle(log.rules, state).balances


# --- invalid deals ---------------------------------------------------------------------------------


@per_convention
@PROPS
@given(data=st.data())
def test_an_invalid_deal_is_refused_and_changes_nothing(convention, data):
    log, state, invalid = data.draw(logs_with_invalid_deal(conventions=(convention,)), label="case")
    _describe(log)
    note(f"state before: {state.to_dict()}")
    note(f"invalid ({invalid.rule}): {invalid.body!r}")
    before = state.to_dict()
    deal = None
    with pytest.raises(InvalidDeal) as refused:
        deal = Deal.from_dict(invalid.body)
        apply_deal(log.rules, state, deal)
    assert refused.value.errors, "a refusal names at least one field"
    assert all(e.field and e.reason for e in refused.value.errors)
    assert state.to_dict() == before
    if deal is not None:
        # in a log, replay names that deal (1-based) and refuses the same way
        k = log.states.index(state)
        with pytest.raises(ReplayError) as failed:
            replay(log.rules, log.first_dealer, log.deals[:k] + [deal] + log.deals[k:])
        assert failed.value.number == k + 1
        assert failed.value.kind == refused.value.kind


@pytest.mark.parametrize("convention", CONVENTIONS)
def test_a_finished_table_refuses_every_deal(convention):
    """Deals after the end of the game (the match in piter_races) are refused and change nothing."""
    rng = random.Random(f"finish {convention}")
    finished = 0
    for _ in range(30):
        players = 4 if convention == "piter_races" else rng.choice([3, 4])
        options = random_options(convention, rng)
        if make_rules(convention, players, None, options).match_bonuses:
            options["games"] = rng.choice([1, 2])
        rules = make_rules(convention, players, rng.choice([1, 2, 4]), options)
        log = generate_log(rules, rng.randrange(players), rng, 400)
        state = log.states[-1]
        if not state.finished:
            continue
        finished += 1
        # the finished state is the first finished one and stays finished
        assert not any(s.finished for s in log.states[:-1])
        before = state.to_dict()
        sit = Situation.of(rules, state)
        sit.compulsory, sit.min_contract = False, 7
        for make in (allpass_deal, contract_deal, misere_deal):
            with pytest.raises(TableFinished) as refused:
                apply_deal(rules, state, Deal.from_dict(make(sit, rng)))
            assert refused.value.kind == "finished"
        assert state.to_dict() == before
    assert finished >= 20, "most small-target tables should finish within 400 deals"


# --- the sheet -----------------------------------------------------------------------------------


def _bonus_whists(state: TableState, n: int) -> dict[tuple[int, int], Fraction]:
    written: dict[tuple[int, int], Fraction] = defaultdict(Fraction)
    for b in state.bonuses:
        for other in range(n):
            if other != b.seat:
                written[b.seat, other] += b.amount
    return written


@per_convention
@PROPS
@given(data=st.data())
def test_every_sheet_amount_is_a_multiple_of_one_half(convention, data):
    """docs/rules.md §3: except the shared match bonuses (300/t, 200/t), which may be thirds."""
    log = data.draw(deal_logs(max_deals=40, conventions=(convention,)), label="log")
    _describe(log)
    races = log.rules.match_bonuses
    n = log.rules.players
    for state in log.states:
        sh = sheet(log.rules, state)
        bonus = _bonus_whists(state, n) if races else {}
        for p in sh["players"]:
            assert _half_multiple(p["pool"]), p
            assert _half_multiple(p["mountain"]), p
            for on, amount in p["whists"].items():
                assert _is_exact(amount), p
                assert _half_multiple(amount - bonus.get((p["seat"], int(on)), 0)), (p, bonus)
        if races:
            for t in sh["match"]["totals"]:
                assert _half_multiple(t["pool"]) and _half_multiple(t["mountain"]), t
            for b in sh["match"]["bonuses"]:
                assert any(b["amount"] * t in (300, 200) for t in range(1, n + 1)), b
        else:
            assert all(amount == int(amount) for amount in (Fraction(x) for x in bonus.values()))


@per_convention
@PROPS
@given(data=st.data())
def test_entries_add_up_to_the_change_of_the_sheet(convention, data):
    """A deal's entries, summed, are the change in pools, mountains and whists.

    Pools and mountains are compared as match totals (the current game plus the
    ended games), which a piter_races game rollover does not change.
    """
    log = data.draw(deal_logs(max_deals=40, conventions=(convention,)), label="log")
    _describe(log)
    n = log.rules.players
    for i, (entries, old, new) in enumerate(zip(log.entries, log.states, log.states[1:]), 1):
        pool = [0] * n
        mountain = [0] * n
        whists = [[0] * n for _ in range(n)]
        for e in entries:
            assert _is_exact(e.amount), e
            assert e.kind in ("pool", "mountain", "whists"), e
            assert 0 <= e.seat < n
            if e.kind == "whists":
                assert e.on is not None and e.on != e.seat and 0 <= e.on < n, e
                whists[e.seat][e.on] += e.amount
            else:
                assert e.on is None, e
                (pool if e.kind == "pool" else mountain)[e.seat] += e.amount
        (op, om), (np_, nm) = old.totals(), new.totals()
        assert [b - a for a, b in zip(op, np_)] == pool, f"deal {i}: pools"
        assert [b - a for a, b in zip(om, nm)] == mountain, f"deal {i}: mountains"
        assert [[new.whists[r][c] - old.whists[r][c] for c in range(n)] for r in range(n)] == whists, (
            f"deal {i}: whists"
        )
        if new.game == old.game:
            assert [b - a for a, b in zip(old.pools, new.pools)] == pool
            assert [b - a for a, b in zip(old.mountains, new.mountains)] == mountain


# --- the all-pass streak, compulsory all-passes and the end of game, re-derived from the fields ---


def _made(body: dict) -> tuple[bool, bool, bool]:
    """(made, whisted, half-whist) of a game deal, read from its body."""
    kind = body["type"]
    if kind == "remise":
        return False, False, False
    tricks = {int(s): t for s, t in body.get("tricks", {}).items()}
    if kind == "misere":
        return tricks[body["declarer"]] == 0, False, False
    defence = set(body["defenders"].values())
    if "whist" in defence:
        level = int(body["contract"][:-2] if body["contract"].endswith("NT") else body["contract"][:-1])
        return tricks[body["declarer"]] >= level, True, False
    return True, False, "half_whist" in defence


def _game_over(rules, state, inside: bool, closed: bool = False) -> bool:
    """The end of game fields on the current game's pools."""
    if closed:
        return True
    if rules.end_outside_streak and inside:
        return False  # "not inside a streak"
    n, target, pools = rules.players, rules.pool_target, state.pools
    end = rules.end_of_game
    if end is GameEnd.DEALS:
        return state.deal_count >= rules.game_deals
    if end is GameEnd.TOTAL_POOL:
        return sum(pools) >= n * target
    if end is GameEnd.ONE_CLOSED:
        return any(p >= target for p in pools)
    return all(p >= target for p in pools)


@per_convention
@PROPS
@given(data=st.data())
def test_streak_compulsory_allpass_and_end_of_game_follow_the_fields(convention, data):
    """docs/rules.md §8.1-8.2 (streak, exit, lowest contract, compulsory
    all-passes) and §8.4 (end of game), re-derived from the table's fields."""
    log = data.draw(deal_logs(max_deals=40, conventions=(convention,)), label="log")
    _describe(log)
    rules = log.rules
    ladder, exits = rules.allpass_costs, list(rules.exit_levels)
    compulsory_on = rules.compulsory_allpass
    match = rules.match_bonuses
    for i, (body, old, new) in enumerate(zip(log.bodies, log.states, log.states[1:]), 1):
        where = f"deal {i}"
        sh = sheet(rules, new)["allpass"]
        closed = body["type"] == "close"
        if rules.allpass_scoring is AllpassScoring.ROSTOV:
            assert new.streak == 0 and sh["next_trick_cost"] is None and sh["min_contract"] == exits[0], where
            assert new.finished == _game_over(rules, new, False, closed), where
            continue
        rolled = new.game != old.game
        # the streak
        if rolled:
            assert match and new.game == old.game + 1 <= rules.games, where
            assert new.streak == 0, where
            assert new.compulsory_cost == (ladder.at(0) if compulsory_on else None), where
            assert all(p == 0 for p in new.pools) and all(m == 0 for m in new.mountains), where
        elif body["type"] == "allpass":
            if old.compulsory_cost is not None:
                assert new.streak == ladder.costs.index(old.compulsory_cost) + 1, where
            else:
                assert new.streak == old.streak + 1, where
        elif closed:
            assert new.streak == old.streak and new.finished, where
        else:
            made, whisted, half = _made(body)
            exit_ = made and (
                whisted or (half and rules.half_whist_exit) or (not half and rules.unwhisted_exit)
            )
            assert new.streak == (0 if exit_ else old.streak), where
        # compulsory all-passes after a failed misère or a failed 9/10 over a misère
        if compulsory_on and not rolled:
            expected = None
            cap = len(ladder.costs)
            if body["type"] == "misere" and int(body["tricks"][str(body["declarer"])]) > 0:
                expected = ladder.at(min(int(body["tricks"][str(body["declarer"])]), cap) - 1)
            elif body.get("over_misere"):
                level = int(
                    body["contract"][:-1] if not body["contract"].endswith("NT") else body["contract"][:-2]
                )
                tricks = body.get("tricks")
                under = level - tricks[str(body["declarer"])] if tricks else 0
                if under > 0:
                    expected = ladder.at(min(under, cap) - 1)
            assert new.compulsory_cost == expected, where
        elif not compulsory_on:
            assert new.compulsory_cost is None
        # what the sheet shows for the next deal
        if new.compulsory_cost is not None:
            assert (
                sh["compulsory"]
                and sh["min_contract"] is None
                and sh["next_trick_cost"] == new.compulsory_cost
            )
        else:
            k = new.streak
            assert not sh["compulsory"], where
            assert sh["min_contract"] == exits[min(k, len(exits) - 1)], where
            assert sh["next_trick_cost"] == ladder.at(k), where
        assert sh["level"] == min(new.streak, 2) + 1, where
        # the end of game (in a match: of a game; the match ends with its last game)
        inside = new.streak > 0 or new.compulsory_cost is not None
        if match:
            game_ended = rolled or new.finished
            assert game_ended == (rolled or _game_over(rules, new, inside, closed)), where
            assert new.finished == (game_ended and old.game == rules.games), where
            assert len(new.bonuses) > len(old.bonuses) if game_ended else new.bonuses == old.bonuses, where
        else:
            assert new.finished == _game_over(rules, new, inside, closed), where


# --- seats are relative: rotating every seat by r rotates the whole sheet ------------------------


def _rotate_body(body: dict, r: int, n: int) -> dict:
    def seat(s):
        return (s + r) % n

    out = dict(body)
    if "declarer" in out:
        out["declarer"] = seat(out["declarer"])
    if "dealer" in out:
        out["dealer"] = seat(out["dealer"])
    for key in ("defenders", "tricks"):
        if key in out:
            out[key] = {str(seat(int(s))): v for s, v in out[key].items()}
    if "choices" in out:
        choices = dict(out["choices"])
        if "writeoff" in choices:
            choices["writeoff"] = sorted(seat(s) for s in choices["writeoff"])
        if "help" in choices:
            choices["help"] = seat(choices["help"])
        out["choices"] = choices
    return out


@per_convention
@PROPS
@given(data=st.data(), r=st.integers(1, 3))
def test_rotating_every_seat_rotates_the_sheet(convention, data, r):
    """Nothing in docs/rules.md depends on absolute seat numbers (orders are clockwise from the
    dealer or the declarer), so the log played with every seat moved by ``r`` gives the same
    sheet with every seat moved by ``r``."""
    log = data.draw(deal_logs(conventions=(convention,)), label="log")
    _describe(log)
    n = log.rules.players
    r %= n
    deals = [Deal.from_dict(_rotate_body(b, r, n)) for b in log.bodies]
    rep = replay(log.rules, (log.first_dealer + r) % n, deals)
    for old, new_entries in zip(log.entries, rep.entries):
        moved = sorted(
            (e.kind, (e.seat + r) % n, None if e.on is None else (e.on + r) % n, e.amount) for e in old
        )
        assert sorted((e.kind, e.seat, e.on, e.amount) for e in new_entries) == moved
    a, b = log.states[-1], rep.state
    for s in range(n):
        t = (s + r) % n
        assert b.pools[t] == a.pools[s] and b.mountains[t] == a.mountains[s]
        for j in range(n):
            assert b.whists[t][(j + r) % n] == a.whists[s][j]
    assert (b.streak, b.compulsory_cost, b.finished, b.game, b.deal_count) == (
        a.streak,
        a.compulsory_cost,
        a.finished,
        a.game,
        a.deal_count,
    )
    assert b.next_dealer == (a.next_dealer + r) % n
    assert sorted((x.game or 0, x.kind, (x.seat + r) % n, x.amount) for x in a.bonuses) == sorted(
        (x.game or 0, x.kind, x.seat, x.amount) for x in b.bonuses
    )
    assert settle(log.rules, b).balances == tuple(
        settle(log.rules, a).balances[(t - r) % n] for t in range(n)
    )


# --- every field may be overridden in every preset ------------------------------------------------


@per_convention
def test_every_field_value_is_accepted_and_round_trips(convention):
    """Each field of the rule table, set alone to a random allowed value, makes a table whose
    ``options`` make the same rules again (what the service stores), unless make_rules names a
    contradiction with another field."""
    rng = random.Random(f"fields {convention}")
    catalog = {c["name"]: c for c in conventions_catalog()}[convention]
    listed = [o["name"] for o in catalog["options"] if "alias_of" not in o]
    assert listed == list(FIELD_NAMES)
    for players in (4,) if convention == "piter_races" else (3, 4):
        base = make_rules(convention, players)
        for name in FIELD_NAMES:
            for _ in range(4):
                value = random_value(name, rng)
                try:
                    rules = make_rules(convention, players, options={name: value})
                except Exception as exc:  # noqa: BLE001 - must be a refusal naming a field
                    assert exc.errors and all(e.field.startswith("options.") for e in exc.errors), exc
                    continue
                assert getattr(rules, name) == SPECS[name].parse(value)
                again = make_rules(convention, players, options=rules.options)
                assert again == rules
                assert {f for f in FIELD_NAMES if getattr(rules, f) != getattr(base, f)} <= {name}
