"""Hypothesis strategies for the rules engine: random valid deal logs and invalid deals.

The valid deals come from ``tests/support/deallog.py`` (a plain generator that derives
what is allowed from the table's rule fields and its state); here it is driven by a
hypothesis ``Random`` so that a failing log shrinks. Tables are random combinations of
fields, not only the presets. Invalid deals are mutations of valid ones, each breaking
exactly one rule of docs/rules.md §10.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from app.rules import (
    RULES_VERSION,
    AllpassScoring,
    CleanPlayer,
    MadeGameWriteoff,
    PoolOverflow,
    Responsibility,
    Rules,
    TableState,
    UnwhistedWriteoff,
    make_rules,
)
from tests.support.deallog import (
    CONVENTIONS,
    OBLIGATION,
    VALUE,
    Log,
    Situation,
    _extras,
    allpass_deal,
    contract_deal,
    generate_log,
    misere_deal,
    random_options,
    remise_deal,
)

# Hypothesis-driven randoms shrink well but skew towards simple values; seeded ones give
# the generator's intended mix (a failure there is reported with its seed, unshrunk).
randoms = st.one_of(
    st.randoms(use_true_random=False, note_method_calls=False),
    st.integers(0, 2**32 - 1).map(random.Random),
)


@st.composite
def tables(
    draw, conventions: tuple[str, ...] = CONVENTIONS, versions: tuple[int, ...] = (RULES_VERSION,)
) -> tuple[Rules, int]:
    """Effective rules of a random table (any preset, size, target, one of ``versions``, and a
    random combination of its fields overridden) and its first dealer. New tables over the API
    are always of the current version; the engine's tests draw version-1 tables too."""
    conv = draw(st.sampled_from(conventions))
    players = 4 if conv == "piter_races" else draw(st.sampled_from([3, 4]))
    pool_target = draw(st.one_of(st.none(), st.integers(1, 12), st.sampled_from([20, 22, 30])))
    options = random_options(conv, draw(randoms))
    first_dealer = draw(st.integers(0, players - 1))
    version = draw(st.sampled_from(versions))
    return make_rules(
        conv, players=players, pool_target=pool_target, options=options, rules_version=version
    ), first_dealer


@st.composite
def deal_logs(
    draw,
    max_deals: int = 25,
    conventions: tuple[str, ...] = CONVENTIONS,
    close: bool = False,
    versions: tuple[int, ...] = (RULES_VERSION,),
) -> Log:
    """A random valid deal log, applied deal by deal with the engine (a refusal fails the test).
    ``close``: with the caller's close deal of a game played for a number of deals (the
    engine's property tests ask for it; the HTTP API does not take it yet)."""
    rules, first_dealer = draw(tables(conventions, versions))
    n = draw(st.integers(0, max_deals))
    return generate_log(rules, first_dealer, draw(randoms), n, close=close)


# --- invalid deals ---------------------------------------------------------------------------


@dataclass
class Invalid:
    body: Any
    rule: str  # which rule of docs/rules.md §10 it breaks (for the failure message)


def _full_tricks(body: dict[str, Any], sit: Situation) -> bool:
    return "tricks" in body and all(str(s) in body["tricks"] for s in sit.active)


def _whisted(sit: Situation, rng: random.Random, **kw: Any) -> dict[str, Any]:
    return contract_deal(sit, rng, defence=("whist", "whist"), strain=kw.pop("strain", "H"), **kw)


def mutations(sit: Situation, rng: random.Random) -> list[tuple[str, Any]]:
    """Every mutation that applies in this situation, as (rule, thunk producing the body)."""
    rules = sit.rules
    low = sit.min_contract or 6
    out: list[tuple[str, Any]] = []
    other_dealer = (sit.dealer + 1 + rng.randrange(sit.n - 1)) % sit.n
    bad_seat = 3 if sit.n == 3 else None

    def base() -> dict[str, Any]:
        if sit.compulsory:
            return allpass_deal(sit, rng)
        return rng.choice([allpass_deal, contract_deal, misere_deal])(sit, rng)

    def tricks_sum() -> dict[str, Any]:
        body = (
            allpass_deal(sit, rng) if sit.compulsory or rng.random() < 0.5 else _whisted(sit, rng, level=low)
        )
        tricks = body["tricks"]
        seat = rng.choice([str(s) for s in sit.active])
        tricks[seat] += -1 if tricks[seat] > 0 and (tricks[seat] == 10 or rng.random() < 0.5) else 1
        return body

    out.append(("tricks that do not add up to 10", tricks_sum))

    def unknown_field() -> dict[str, Any]:
        body = base()
        body[rng.choice(["colour", "Type", "trick", "defender", "extra"])] = 1
        return body

    out.append(("an unknown field", unknown_field))

    def dealer_mismatch() -> dict[str, Any]:
        body = base()
        body["dealer"] = other_dealer
        return body

    out.append(("a dealer that is not the expected one", dealer_mismatch))

    def shape() -> Any:
        body = base()
        how = rng.randrange(6)
        if how == 0:
            body["type"] = "grand"
        elif how == 1:
            body = allpass_deal(sit, rng)
            body["tricks"] = {k: (11 if i == 0 else v) for i, (k, v) in enumerate(body["tricks"].items())}
        elif how == 2:
            body = allpass_deal(sit, rng)
            body["tricks"] = {**body["tricks"], "x": 0}
        elif how == 3:
            return [body]
        elif how == 4:
            body["dealer"] = str(sit.dealer)
        else:
            body["note"] = "x" * 501
        return body

    out.append(("a malformed body", shape))

    if bad_seat is not None:

        def seat_out_of_range() -> dict[str, Any]:
            body = allpass_deal(sit, rng)
            body["tricks"]["3"] = 0
            return body

        out.append(("a seat that is not at the table", seat_out_of_range))

    if sit.compulsory:
        out.append(
            (
                "a game while an all-pass is compulsory",
                lambda: rng.choice([misere_deal, _compulsory_contract])(sit, rng),
            )
        )
        return out  # the rest build games, which are refused anyway here

    if sit.n == 4:

        def declarer_is_dealer() -> dict[str, Any]:
            body = rng.choice([contract_deal, misere_deal])(sit, rng)
            body["declarer"] = sit.dealer
            return body

        out.append(("a declarer who is not active", declarer_is_dealer))

        def dealer_holds_tricks() -> dict[str, Any]:
            body = _whisted(sit, rng, level=low, outcome="made")
            tricks = body["tricks"]
            donor = max((s for s in tricks if int(s) != sit.dealer), key=lambda s: tricks[s])
            tricks[donor] -= 1
            tricks[str(sit.dealer)] = 1
            return body

        out.append(("a dealer holding tricks outside a 4-player all-pass", dealer_holds_tricks))

        def dealer_too_many() -> dict[str, Any]:
            body = allpass_deal(sit, rng)
            tricks = body["tricks"]
            talon = 1 if rules.allpass_scoring is AllpassScoring.ROSTOV else 3
            for _ in range(talon - tricks.get(str(sit.dealer), 0)):
                donor = max((s for s in tricks if int(s) != sit.dealer), key=lambda s: tricks[s])
                tricks[donor] -= 1
            tricks[str(sit.dealer)] = talon
            return body

        out.append(("a 4-player dealer holding more talon tricks than allowed", dealer_too_many))
    else:

        def declarer_not_seated() -> dict[str, Any]:
            body = contract_deal(sit, rng)
            body["declarer"] = 3
            return body

        out.append(("a declarer who is not at the table", declarer_not_seated))

    def defender_is_declarer() -> dict[str, Any]:
        body = _whisted(sit, rng, level=low)
        decl = body["declarer"]
        first = next(iter(body["defenders"]))
        body["defenders"] = {str(decl): "whist", first: "whist"}
        return body

    out.append(("the declarer as a defender", defender_is_declarer))

    if low > 6:

        def below_min() -> dict[str, Any]:
            body = rng.choice([contract_deal, remise_deal])(sit, rng, level=low - 1)
            if body["type"] == "remise" and not rules.remise:
                body = contract_deal(sit, rng, level=low - 1)
            return body

        out.append(("a contract below the lowest level", below_min))

    out.append(
        (
            "a half-whist on 8 or higher",
            lambda: contract_deal(sit, rng, level=max(8, low), defence=("pass", "half_whist")),
        )
    )
    if low <= 7:
        out.append(
            (
                "a half-whist by the first defender",
                lambda: contract_deal(
                    sit, rng, level=rng.choice(range(low, 8)), strain="H", defence=("half_whist", "pass")
                ),
            )
        )

    def whisted_misere() -> dict[str, Any]:
        body = misere_deal(sit, rng)
        first, second = sit.defenders_of(body["declarer"])
        body["defenders"] = {str(first): "whist", str(second): "pass"}
        return body

    out.append(("a whisted misère", whisted_misere))

    if not rules.whisted_tens:
        out.append(
            (
                "a whisted ten",
                lambda: contract_deal(
                    sit,
                    rng,
                    level=10,
                    defence=rng.choice([("whist", "pass"), ("pass", "whist"), ("whist", "whist")]),
                ),
            )
        )
    if rules.stalingrad and low == 6:
        out.append(
            (
                "a pass on a Stalingrad 6 spades",
                lambda: contract_deal(
                    sit,
                    rng,
                    level=6,
                    strain="S",
                    defence=rng.choice(
                        [("whist", "pass"), ("pass", "whist"), ("pass", "pass"), ("pass", "half_whist")]
                    ),
                ),
            )
        )
    if not rules.remise:
        out.append(("a remise where it is not allowed", lambda: remise_deal(sit, rng)))
    if not rules.talon_bonuses:

        def talon_elsewhere() -> dict[str, Any]:
            body = rng.choice([contract_deal, misere_deal])(sit, rng)
            body["talon"] = rng.choice(
                [{"bonus": "ace"}, {"discarded": True}, {"bonus": "two_aces", "discarded": False}]
            )
            return body

        out.append(("Rostov talon input without talon_bonuses", talon_elsewhere))

    def tricks_unplayed() -> dict[str, Any]:
        how = rng.randrange(3 if rules.remise else 2)
        if how == 0:
            body = contract_deal(sit, rng, defence=("pass", "pass"))
        elif how == 1:
            body = contract_deal(
                sit,
                rng,
                level=rng.choice([low, 7]) if low <= 7 else low,
                defence=("pass", "half_whist") if low <= 7 else ("pass", "pass"),
            )
        else:
            body = remise_deal(sit, rng)
        first, second = sit.defenders_of(body["declarer"])
        body["tricks"] = {
            str(body["declarer"]): body_level(body),
            str(first): 10 - body_level(body),
            str(second): 0,
        }
        return body

    out.append(("tricks on a deal that was not played", tricks_unplayed))

    def missing_tricks() -> dict[str, Any]:
        body = _whisted(sit, rng, level=low)
        del body["tricks"]
        return body

    out.append(("a whisted game without tricks", missing_tricks))

    if (
        rules.made_game_writeoff is MadeGameWriteoff.NEVER
        and rules.unwhisted_writeoff is UnwhistedWriteoff.NEVER
        and rules.clean_player is not CleanPlayer.CHOICE
    ):

        def writeoff_not_allowed() -> dict[str, Any]:
            body = rng.choice([contract_deal, misere_deal, allpass_deal])(sit, rng)
            body["choices"] = {"writeoff": [rng.choice(sit.active)]}
            return body

        out.append(("a write-off the table does not allow", writeoff_not_allowed))
    else:

        def writeoff_nothing() -> dict[str, Any]:
            body = _whisted(sit, rng, level=low, outcome="failed")
            body["choices"] = {"writeoff": [body["declarer"]]}
            return body

        out.append(("a write-off on a failed game", writeoff_nothing))

    def help_nothing() -> dict[str, Any]:
        body = _whisted(sit, rng, level=low, outcome="failed")
        body["choices"] = {"help": rng.choice([s for s in range(sit.n) if s != body["declarer"]])}
        return body

    out.append(("a help choice with no overflow", help_nothing))

    if rules.pool_overflow is PoolOverflow.HELP_OTHERS:
        closed = [s for s in range(sit.n) if s not in sit.open_seats()]
        if closed and len(closed) < sit.n:

            def help_closed() -> dict[str, Any]:
                # help must name an open player: a made game by a closed declarer overflows,
                # and the help names a closed seat (maybe the declarer himself)
                closed_active = [s for s in closed if s in sit.active]
                if not closed_active:
                    return help_nothing()
                body = _whisted(sit, rng, level=low, outcome="made", declarer=rng.choice(closed_active))
                body["choices"] = {"help": rng.choice(closed)}
                return body

            out.append(("a help choice naming a closed pool", help_closed))

    if (
        rules.failed_whister_unhelped
        and rules.pool_overflow is not PoolOverflow.NO_CAP
        and rules.whist_responsibility is not Responsibility.NONE
    ):
        # a defender who failed his whist in that deal cannot be helped (failed_whister_unhelped);
        # with no whister responsible a short whister pays nothing and has not failed
        cases = []
        for declarer in sit.active:
            first, second = sit.defenders_of(declarer)
            if sit.overflow(declarer, VALUE[low]) > 0 and first in sit.open_seats():
                cases.append((declarer, first, second))
        if cases:

            def help_failed_whister() -> dict[str, Any]:
                declarer, first, second = rng.choice(cases)
                taken = rng.randrange(OBLIGATION[low])  # short of the obligation
                return _extras(
                    sit,
                    {
                        "type": "contract",
                        "declarer": declarer,
                        "contract": f"{low}H",
                        "defenders": {str(first): "whist", str(second): "pass"},
                        "tricks": {str(declarer): 10 - taken, str(first): taken, str(second): 0},
                        "choices": {"help": first},
                    },
                    rng,
                )

            out.append(("help for a defender who failed his whist", help_failed_whister))

    def over_misere_wrong() -> dict[str, Any]:
        if rules.compulsory_allpass and low <= 8:
            body = contract_deal(sit, rng, level=rng.choice(range(low, 9)))
        elif rules.compulsory_allpass:
            body = misere_deal(sit, rng)
        else:
            body = rng.choice([contract_deal, misere_deal])(sit, rng)
        body["over_misere"] = True
        return body

    out.append(("over_misere where it does not apply", over_misere_wrong))
    return out


def body_level(body: dict[str, Any]) -> int:
    return int(body["contract"][:-2] if body["contract"].endswith("NT") else body["contract"][:-1])


def _compulsory_contract(sit: Situation, rng: random.Random) -> dict[str, Any]:
    # min_contract is null while an all-pass is compulsory; any level is refused
    patched = copy.copy(sit)
    patched.min_contract = 7
    return contract_deal(patched, rng)


def invalid_deal(rules: Rules, state: TableState, rng: random.Random) -> Invalid:
    """One invalid deal body for the table in ``state`` (not finished)."""
    sit = Situation.of(rules, state)
    rule, make = rng.choice(mutations(sit, rng))
    return Invalid(make(), rule)


@st.composite
def logs_with_invalid_deal(
    draw, max_deals: int = 15, conventions: tuple[str, ...] = CONVENTIONS, close: bool = False
) -> tuple[Log, TableState, Invalid]:
    """A valid log, one of its non-finished states, and an invalid deal for that state."""
    log = draw(deal_logs(max_deals=max_deals, conventions=conventions, close=close))
    candidates = [s for s in log.states if not s.finished]
    state = draw(st.sampled_from(candidates))
    return log, state, invalid_deal(log.rules, state, draw(randoms))


__all__ = [
    "Invalid",
    "OBLIGATION",
    "deal_logs",
    "invalid_deal",
    "logs_with_invalid_deal",
    "mutations",
    "randoms",
    "tables",
]
