"""Random VALID deal logs, generated from the rules and the table's current state.

Plain ``random.Random`` only: the benchmark (``bench/engine.py``) calls it with a fixed
seed, the hypothesis strategies (``tests/rules/strategies.py``) call it with a
hypothesis-driven ``Random`` so that failures shrink.

The generator does not try deals until the engine takes one: it computes what is allowed
from the table's rule fields (docs/rules.md §4) and from the state the engine exposes
(``sheet(...)["allpass"]``: ``min_contract``, ``compulsory``; ``state.next_dealer``,
``state.pools``, ``state.mountains``, ``state.finished``), and the caller asserts that the
engine accepts every deal it makes. Tables are random COMBINATIONS of fields
(``random_options``): a preset with any of its fields overridden, not only the presets.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from app.rules import (
    CONVENTION_NAMES,
    COST_LADDERS,
    AllpassScoring,
    CleanPlayer,
    Deal,
    GameEnd,
    InvalidTable,
    MadeGameWriteoff,
    PoolOverflow,
    Rules,
    TableState,
    TalonBonusPrice,
    UnwhistedWriteoff,
    apply_deal,
    make_rules,
    sheet,
)
from app.rules.conventions import ALIASES, FIELDS, PRESETS

CONVENTIONS = CONVENTION_NAMES
STRAINS = ("S", "C", "D", "H", "NT")
VALUE = {6: 2, 7: 4, 8: 6, 9: 8, 10: 10}
OBLIGATION = {6: 4, 7: 2, 8: 1, 9: 1, 10: 1}
EXIT_LADDERS = ([6], [6, 7, 7], [6, 7, 8])


def random_value(name: str, rng: random.Random) -> Any:
    """A random JSON value of one field of the rule table (docs/rules.md §4)."""
    spec = next(s for s in FIELDS if s.name == name)
    if spec.type == "bool":
        return rng.random() < 0.5
    if spec.type == "enum":
        return rng.choice([m.value for m in spec.enum])
    if spec.type == "int_list":
        return list(rng.choice(EXIT_LADDERS))
    if spec.type == "cost_ladder":
        if rng.random() < 0.25:
            return {"start": rng.randint(1, 4), "step": rng.randint(1, 3)}
        return list(rng.choice(COST_LADDERS))
    if name == "games":
        return rng.randint(1, 3)
    if name == "game_deals":
        return rng.randint(1, 60)
    return rng.choice(spec.choices)


def random_options(convention: str, rng: random.Random, share: float = 0.2) -> dict[str, Any]:
    """A random combination: each field of the table overridden with probability ``share``
    (the classic options with 0.6), contradictions dropped as make_rules names them."""
    preset = PRESETS[convention]
    out: dict[str, Any] = {}
    for spec in FIELDS:
        if rng.random() < (0.6 if spec.name in preset.classic else share):
            out[spec.name] = random_value(spec.name, rng)
    for name in ALIASES:
        if name in preset.classic and rng.random() < 0.3:
            out.pop(ALIASES[name].target, None)
            out[name] = rng.random() < 0.5
    if out.get("end_of_game") == GameEnd.DEALS.value:
        out.setdefault("game_deals", rng.randint(1, 60))
    else:
        out.pop("game_deals", None)
    players = rng.choice(preset.seat_counts)
    for _ in range(12):
        try:
            make_rules(convention, players, None, out)
            return out
        except InvalidTable as exc:
            for error in exc.errors:
                out.pop(error.field.removeprefix("options."), None)
    return {}


def random_table(convention: str, rng: random.Random, share: float = 0.2) -> Rules:
    """The rules of a random table of a preset: size, pool target and a combination of fields."""
    players = rng.choice(PRESETS[convention].seat_counts)
    target = rng.choice([None, None, 4, 8, 12, 20, 30])
    for _ in range(20):
        try:
            return make_rules(convention, players, target, random_options(convention, rng, share))
        except InvalidTable:
            continue
    return make_rules(convention, players, target)


# --- the table, as the generator sees it -------------------------------------------------


@dataclass
class Situation:
    """What decides validity before one deal."""

    rules: Rules
    state: TableState
    n: int
    dealer: int
    active: tuple[int, ...]
    compulsory: bool
    min_contract: int | None

    @classmethod
    def of(cls, rules: Rules, state: TableState) -> Situation:
        n = rules.players
        dealer = state.next_dealer
        active = tuple(s for s in range(n) if not (n == 4 and s == dealer))
        allpass = sheet(rules, state)["allpass"]
        return cls(
            rules=rules,
            state=state,
            n=n,
            dealer=dealer,
            active=active,
            compulsory=bool(allpass["compulsory"]),
            min_contract=allpass["min_contract"],
        )

    def defenders_of(self, declarer: int) -> tuple[int, int]:
        """(first, second) defender: clockwise from the declarer's left among active seats."""
        order = [(declarer + i) % self.n for i in range(1, self.n)]
        first, second = [s for s in order if s in self.active]
        return first, second

    def open_seats(self) -> list[int]:
        target = self.rules.pool_target
        return [s for s in range(self.n) if self.state.pools[s] < target]

    def overflow(self, seat: int, gain: int) -> Fraction:
        """Points beyond the target that help others if ``seat`` writes ``gain`` to his pool:
        none when pools are not capped; under mountain_first what his own mountain does not
        take first (at rate k)."""
        rules = self.rules
        if rules.pool_overflow is PoolOverflow.NO_CAP or gain <= 0:
            return Fraction(0)
        target = rules.pool_target
        pool = self.state.pools[seat]
        over = Fraction(gain if pool >= target else max(0, pool + gain - target))
        if rules.pool_overflow is PoolOverflow.MOUNTAIN_FIRST and self.state.mountains[seat] > 0:
            # whole points come off his mountain first, as far as it goes at rate k
            over = max(Fraction(0), over - Fraction(self.state.mountains[seat]) // rules.pool_rate)
        return over

    def pool_closed(self, seat: int) -> bool:
        return self.state.pools[seat] >= self.rules.pool_target


# --- pieces -----------------------------------------------------------------------------


def split(rng: random.Random, total: int, parts: int, zero_bias: float = 0.15) -> list[int]:
    """A random composition of ``total`` into ``parts`` non-negative ints (zeros made likelier)."""
    out = [0] * parts
    live = [i for i in range(parts) if rng.random() >= zero_bias] or [rng.randrange(parts)]
    for _ in range(total):
        out[rng.choice(live)] += 1
    return out


def _tricks_body(
    sit: Situation, counts: dict[int, int], rng: random.Random, dealer_may: bool = True
) -> dict[str, int]:
    body = {str(s): t for s, t in sorted(counts.items())}
    if sit.n == 4 and sit.dealer not in counts and dealer_may and rng.random() < 0.2:
        body[str(sit.dealer)] = 0  # "he may be listed with 0"
    return body


def _extras(sit: Situation, body: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    if rng.random() < 0.25:
        body["dealer"] = sit.dealer
    if rng.random() < 0.05:
        body["note"] = rng.choice(["", "ok", "пуля", "x" * 500])
    return body


def _talon(sit: Situation, body: dict[str, Any], rng: random.Random, kind: str) -> None:
    by_game = sit.rules.talon_bonus_price is TalonBonusPrice.GAME  # no discard, no bonus on a misère
    if sit.rules.talon_bonuses and rng.random() < 0.3 and not (by_game and kind != "contract"):
        talon: dict[str, Any] = {}
        if rng.random() < 0.7 or by_game:
            talon["bonus"] = rng.choice(["ace", "marriage", "ace_king", "two_aces"])
        if not by_game and (rng.random() < 0.5 or not talon):
            talon["discarded"] = rng.random() < 0.8
        body["talon"] = talon
    elif kind == "contract" and sit.n == 4 and sit.rules.return_talon and rng.random() < 0.2:
        body["talon"] = {"returned": True}


def _level(sit: Situation, rng: random.Random) -> int:
    low = sit.min_contract or 6
    levels = list(range(low, 11))
    weights = [8, 5, 3, 2, 1][: len(levels)] if low == 6 else [5, 3, 2, 1, 1][: len(levels)]
    return rng.choices(levels, weights=weights)[0]


def _pool_choices(
    sit: Situation,
    body: dict[str, Any],
    rng: random.Random,
    declarer: int,
    gain: int,
    failed_whisters: tuple[int, ...] = (),
) -> None:
    """A made game's write-off (made_game_writeoff: the whole game once the pool is closed, or
    the part beyond the target), or the help where the declarer's pool write overflows."""
    if gain <= 0 or "choices" in body:
        return
    rules = sit.rules
    if (
        rules.made_game_writeoff is MadeGameWriteoff.CLOSED_POOL
        and sit.pool_closed(declarer)
        and rng.random() < 0.3
    ):
        body["choices"] = {"writeoff": [declarer]}
        return
    if (
        rules.made_game_writeoff is MadeGameWriteoff.BEYOND_TARGET
        and rules.pool_overflow is not PoolOverflow.NO_CAP
        and sit.state.pools[declarer] + gain > rules.pool_target
        and rng.random() < 0.3
    ):
        body["choices"] = {"writeoff": [declarer]}  # the part beyond the target off his mountain
        return
    if sit.overflow(declarer, gain) <= 0:
        return
    candidates = [s for s in sit.open_seats() if s != declarer]
    if rules.failed_whister_unhelped:
        candidates = [s for s in candidates if s not in failed_whisters]
    if candidates and rng.random() < 0.4:
        body["choices"] = {"help": rng.choice(candidates)}


def _unwhisted_writeoff(rules: Rules, level: int | None) -> bool:
    """May an unwhisted made game (``level`` None: a clean misère) be written off the mountain."""
    kind = rules.unwhisted_writeoff
    return kind is UnwhistedWriteoff.VALUE or (
        kind is UnwhistedWriteoff.DOUBLE_HIGH and (level is None or level >= 8)
    )


# --- deal kinds -------------------------------------------------------------------------


def contract_deal(
    sit: Situation,
    rng: random.Random,
    *,
    declarer: int | None = None,
    level: int | None = None,
    strain: str | None = None,
    defence: tuple[str, str] | None = None,
    outcome: str | None = None,
) -> dict[str, Any]:
    """A valid contract deal. ``defence`` is (first defender, second defender)."""
    rules = sit.rules
    declarer = rng.choice(sit.active) if declarer is None else declarer
    level = _level(sit, rng) if level is None else level
    strain = rng.choice(STRAINS) if strain is None else strain
    first, second = sit.defenders_of(declarer)
    if defence is None:
        if level == 6 and strain == "S" and rules.stalingrad:
            defence = ("whist", "whist")
        elif level == 10 and not rules.whisted_tens:
            defence = ("pass", "pass")
        else:
            options = (
                [("whist", "whist")] * 4 + [("whist", "pass"), ("pass", "whist")] * 2 + [("pass", "pass")]
            )
            if level <= 7:
                options += [("pass", "half_whist")]
            defence = rng.choice(options)
    body: dict[str, Any] = {
        "type": "contract",
        "declarer": declarer,
        "contract": f"{level}{strain}",
        "defenders": {str(first): defence[0], str(second): defence[1]},
    }
    V = VALUE[level]
    gain = 0
    failed_whisters: tuple[int, ...] = ()
    if "whist" in defence:
        if outcome is None:
            outcome = "made" if rng.random() < 0.7 else "failed"
        if outcome == "made":
            mine = level + rng.choices(range(0, 11 - level), weights=[6, 3, 2, 1, 1][: 11 - level])[0]
        else:
            mine = max(0, level - rng.choice([1, 1, 1, 2, 2, 3, 4]))
        a, b = split(rng, 10 - mine, 2, zero_bias=0.1)
        counts = {declarer: mine, first: a, second: b}
        keys = list(counts.items())
        rng.shuffle(keys)
        body["tricks"] = _tricks_body(sit, dict(keys), rng)
        if mine >= level:
            gain = V
        if a + b < OBLIGATION[level]:
            failed_whisters = tuple(s for s, d in zip((first, second), defence) if d == "whist")
    else:
        gain = V  # unwhisted or half-whist: +V to the pool
        if defence == ("pass", "pass") and rng.random() < 0.35 and _unwhisted_writeoff(rules, level):
            body["choices"] = {"writeoff": [declarer]}
    _pool_choices(sit, body, rng, declarer, gain, failed_whisters)
    if rules.compulsory_allpass and level >= 9 and rng.random() < 0.3:
        body["over_misere"] = True
    _talon(sit, body, rng, "contract")
    return _extras(sit, body, rng)


def misere_deal(
    sit: Situation,
    rng: random.Random,
    *,
    declarer: int | None = None,
    taken: int | None = None,
    full: bool | None = None,
) -> dict[str, Any]:
    declarer = rng.choice(sit.active) if declarer is None else declarer
    if taken is None:
        taken = 0 if rng.random() < 0.55 else rng.choices(range(1, 7), weights=[6, 4, 3, 2, 1, 1])[0]
    body: dict[str, Any] = {"type": "misere", "declarer": declarer}
    if full is None:
        full = rng.random() < 0.5
    if full:
        first, second = sit.defenders_of(declarer)
        a, b = split(rng, 10 - taken, 2, zero_bias=0.05)
        body["tricks"] = _tricks_body(sit, {declarer: taken, first: a, second: b}, rng)
    else:
        body["tricks"] = {str(declarer): taken}
    if taken == 0:
        if _unwhisted_writeoff(sit.rules, None) and rng.random() < 0.35:
            body["choices"] = {"writeoff": [declarer]}
        else:
            _pool_choices(sit, body, rng, declarer, 10)
    _talon(sit, body, rng, "misere")
    return _extras(sit, body, rng)


def remise_deal(
    sit: Situation, rng: random.Random, *, declarer: int | None = None, level: int | None = None
) -> dict[str, Any]:
    declarer = rng.choice(sit.active) if declarer is None else declarer
    level = _level(sit, rng) if level is None else level
    body = {"type": "remise", "declarer": declarer, "contract": f"{level}{rng.choice(STRAINS)}"}
    return _extras(sit, body, rng)


def allpass_deal(sit: Situation, rng: random.Random) -> dict[str, Any]:
    counts: dict[int, int] = {}
    talon = 0
    dealer_may_hold = sit.n == 4 and sit.rules.allpass_scoring is not AllpassScoring.ROSTOV
    if dealer_may_hold and rng.random() < 0.5:
        talon = rng.choice([0, 1, 1, 2, 2])
    parts = split(rng, 10 - talon, 3, zero_bias=0.3)
    for seat, t in zip(sit.active, parts):
        counts[seat] = t
    if sit.n == 4 and (talon or rng.random() < 0.3):
        counts[sit.dealer] = talon  # rostov: listed with 0 only
    body: dict[str, Any] = {"type": "allpass", "tricks": {str(s): t for s, t in sorted(counts.items())}}
    if sit.rules.clean_player is CleanPlayer.CHOICE:
        clean = [s for s in sit.active if counts[s] == 0]
        chosen = [s for s in clean if rng.random() < 0.5]
        if chosen:
            body["choices"] = {"writeoff": sorted(chosen)}
    return _extras(sit, body, rng)


def next_deal(rules: Rules, state: TableState, rng: random.Random, close: bool = True) -> dict[str, Any]:
    """A random valid deal body for the table in ``state`` (which must not be finished).
    ``close``: a game played for a number of deals may be closed by the caller now and then."""
    if state.finished:
        raise ValueError("the table is finished: no deal is valid")
    sit = Situation.of(rules, state)
    if close and rules.end_of_game is GameEnd.DEALS and rng.random() < 0.03:
        return _extras(sit, {"type": "close"}, rng)  # the caller closes the game
    if sit.compulsory:
        return allpass_deal(sit, rng)
    kinds = ["contract", "allpass", "misere"]
    weights = [60, 22, 10]
    if rules.remise:
        kinds.append("remise")
        weights.append(6)
    kind = rng.choices(kinds, weights=weights)[0]
    if kind == "contract":
        return contract_deal(sit, rng)
    if kind == "allpass":
        return allpass_deal(sit, rng)
    if kind == "misere":
        return misere_deal(sit, rng)
    return remise_deal(sit, rng)


# --- whole logs ---------------------------------------------------------------------------


class GeneratedDealRefused(AssertionError):
    """The engine refused a deal the generator derived as valid from the rules."""

    def __init__(self, number: int, body: dict[str, Any], error: Exception, state: TableState):
        self.number, self.body, self.error, self.state = number, body, error, state
        super().__init__(f"deal {number} {body!r} refused: {error!r} (state before: {state.to_dict()!r})")


@dataclass
class Log:
    rules: Rules
    first_dealer: int
    bodies: list[dict[str, Any]] = field(default_factory=list)
    deals: list[Deal] = field(default_factory=list)
    states: list[TableState] = field(default_factory=list)  # states[0] new, states[i] after deal i
    entries: list[tuple] = field(default_factory=list)


def generate_log(
    rules: Rules,
    first_dealer: int,
    rng: random.Random,
    deals: int,
    apply: Callable = apply_deal,
    close: bool = True,
) -> Log:
    """Up to ``deals`` deals (fewer if the table finishes), each applied with the engine;
    ``close`` False: no close deal (for callers that cannot post one)."""
    state = TableState.new(rules, first_dealer)
    log = Log(rules, first_dealer, states=[state])
    for number in range(1, deals + 1):
        if state.finished:
            break
        body = next_deal(rules, state, rng, close)
        try:
            deal = Deal.from_dict(body)
            result = apply(rules, state, deal)
        except NotImplementedError:
            raise
        except Exception as exc:  # noqa: BLE001 - reported with the deal and the state
            raise GeneratedDealRefused(number, body, exc, state) from exc
        state = result.state
        log.bodies.append(body)
        log.deals.append(deal)
        log.entries.append(result.entries)
        log.states.append(state)
    return log
