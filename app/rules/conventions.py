"""The scoring conventions as data: RULES.md section 4 and its options (4.1).

A convention is a value. Every difference between Sochi, Piter, the gentlemen's
Piter, Rostov, VMK and the Piter races is a field here; the scoring code reads
fields and never asks which convention it is scoring.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from .errors import FieldError, InvalidTable

# Contract value V (RULES.md 3): 6→2, 7→4, 8→6, 9→8, 10→10; misère is worth 10.
CONTRACT_VALUE = {6: 2, 7: 4, 8: 6, 9: 8, 10: 10}
MISERE_VALUE = 10
# Tricks the defenders must take together.
WHIST_OBLIGATION = {6: 4, 7: 2, 8: 1, 9: 1, 10: 1}

CONVENTION_NAMES = ("sochi", "piter", "piter_gentleman", "rostov", "vmk", "piter_races")


@dataclass(frozen=True)
class OptionSpec:
    """One table option: its JSON type, the values it may take and its default."""

    name: str
    type: str  # "bool", "int_list", "int"
    default: Any
    choices: tuple[Any, ...] | None = None  # allowed values, None = any of the type
    minimum: int | None = None
    description: str = ""

    def check(self, value: Any) -> Any:
        """Return the value in canonical form, or raise ValueError with the reason."""
        if self.type == "bool":
            if not isinstance(value, bool):
                raise ValueError("must be true or false")
            return value
        if self.type == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError("must be an integer")
            if self.minimum is not None and value < self.minimum:
                raise ValueError(f"must be at least {self.minimum}")
            if self.choices is not None and value not in self.choices:
                raise ValueError(f"must be one of {list(self.choices)}")
            return value
        if self.type == "int_list":
            if not isinstance(value, (list, tuple)) or any(
                isinstance(v, bool) or not isinstance(v, int) for v in value
            ):
                raise ValueError("must be a list of integers")
            value = tuple(value)
            if self.choices is not None and value not in self.choices:
                raise ValueError(
                    "must be one of " + " or ".join(str(list(c)) for c in self.choices)
                )
            return value
        raise AssertionError(self.type)  # pragma: no cover

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "type": self.type, "default": _jsonable(self.default)}
        if self.choices is not None:
            out["choices"] = [_jsonable(c) for c in self.choices]
        if self.minimum is not None:
            out["minimum"] = self.minimum
        out["description"] = self.description
        return out


def _jsonable(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


_DESCRIPTIONS = {
    "stalingrad": "On 6 spades both defenders must whist.",
    "gentlemen_whist": "With one whister and one passer, whists on a failed declarer are split equally.",
    "whisted_tens": "A ten may be whisted (obligation one trick).",
    "remise": "The declarer may concede three undertricks without playing ('without three').",
    "allpass_costs": "Trick cost of the first, second and later all-passes in a streak.",
    "exit_levels": "Lowest contract after 0, 1 and 2 or more all-passes.",
    "unwhisted_exit": "A made unwhisted game (misère, both defenders passed) also ends an all-pass streak.",
    "clean_writeoff": "How many trick costs a player with no trick on an all-pass writes off his mountain.",
    "sliding_allpass": "After an all-pass the deal passes on; off: the same seat deals again.",
    "return_talon": "4 players: the declarer may refuse the talon; the dealer then gets V to the mountain.",
    "pass_pass_whist": "Bidding only (a passer may reconsider); stored, no effect on scoring.",
    "dealer_clean": "A 4-player dealer with no trick on an all-pass writes off his mountain.",
    "games": "Games in the match.",
}


def _opt(name: str, type_: str, default: Any, choices: tuple[Any, ...] | None = None, minimum: int | None = None) -> OptionSpec:
    return OptionSpec(name, type_, default, choices, minimum, _DESCRIPTIONS[name])


@dataclass(frozen=True)
class Convention:
    """The fixed parameters of one convention (RULES.md section 4).

    Fields that a table may change are listed in ``options``; the value given
    here for such a field is only a placeholder until ``Rules`` is made.
    """

    name: str
    title: str
    seat_counts: tuple[int, ...]
    scale: int  # s: mountain and whists for contracts are written s times
    pool_rate: int  # k: one pool point counts as 10·k whists at settlement
    consolation_fixed: int | None  # per undertrick from each other player; None = s·V
    failed_whist_factor: Fraction  # per short trick, times V, to the responsible defender
    misere_penalty: int  # per trick taken on a failed misère
    high_responsibility: str  # two whisters on 8/9/10: "second_then_both", "both", "sharing"
    allpass_scoring: str  # "per_trick", "amnesty", "rostov"
    clean_allpass: str  # "pool", "mountain", "mountain_one", "races_choice"
    dealer_clean_kind: str  # what dealer_clean writes off: "cost", "one", or "" (never)
    pool_capped: bool  # pools stop at the target and overflow helps others (7.2)
    end_rule: str  # "all_closed", "total_pool", "races"
    end_outside_streak: bool  # the game cannot end inside an all-pass streak
    unwhisted_writeoff: str  # "", "vmk" (V off the mountain), "races" (2V for 8-10 and misère)
    overflow_writeoff: bool  # vmk: the helper may write his overflow off his own mountain
    failed_whister_unhelped: bool  # vmk: a defender who failed his whist cannot be helped
    double_on_failed: bool  # piter_races: whists on a failed declarer are doubled
    rostov_talon: bool
    has_streak: bool  # rostov has no all-pass streak
    races: bool  # compulsory all-passes, games of a match and their bonuses
    default_pool_target: int
    # Values of the option-able parameters; overridden by options.
    fixed: dict[str, Any] = field(default_factory=dict)
    options: tuple[OptionSpec, ...] = ()

    def option(self, name: str) -> OptionSpec | None:
        for spec in self.options:
            if spec.name == name:
                return spec
        return None

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "players": list(self.seat_counts),
            "default_pool_target": self.default_pool_target,
            "scale": self.scale,
            "pool_rate": self.pool_rate,
            "options": [spec.describe() for spec in self.options],
            "fixed": {k: _jsonable(v) for k, v in sorted(self.fixed.items()) if self.option(k) is None},
        }


# Every option-able parameter must have a value in every convention.
_PARAMS = (
    "stalingrad",
    "gentlemen_whist",
    "whisted_tens",
    "remise",
    "allpass_costs",
    "exit_levels",
    "unwhisted_exit",
    "clean_writeoff",
    "sliding_allpass",
    "return_talon",
    "pass_pass_whist",
    "dealer_clean",
    "games",
)


def _fixed(**values: Any) -> dict[str, Any]:
    base = {
        "stalingrad": False,
        "gentlemen_whist": False,
        "whisted_tens": False,
        "remise": True,
        "allpass_costs": (1,),
        "exit_levels": (6,),
        "unwhisted_exit": False,
        "clean_writeoff": 1,
        "sliding_allpass": True,
        "return_talon": False,
        "pass_pass_whist": True,
        "dealer_clean": False,
        "games": 1,
    }
    base.update(values)
    assert set(base) == set(_PARAMS)
    return base


CONVENTIONS: dict[str, Convention] = {
    "sochi": Convention(
        name="sochi",
        title="Sochi",
        seat_counts=(3, 4),
        scale=1,
        pool_rate=1,
        consolation_fixed=None,
        failed_whist_factor=Fraction(1, 2),
        misere_penalty=10,
        high_responsibility="second_then_both",
        allpass_scoring="per_trick",
        clean_allpass="pool",
        dealer_clean_kind="",
        pool_capped=True,
        end_rule="all_closed",
        end_outside_streak=False,
        unwhisted_writeoff="",
        overflow_writeoff=False,
        failed_whister_unhelped=False,
        double_on_failed=False,
        rostov_talon=False,
        has_streak=True,
        races=False,
        default_pool_target=20,
        # "what ends an all-pass streak: any made game" — unwhisted ones included.
        fixed=_fixed(unwhisted_exit=True),
        options=(
            _opt("stalingrad", "bool", False),
            _opt("gentlemen_whist", "bool", False),
            _opt("whisted_tens", "bool", False),
            _opt("remise", "bool", True),
            _opt("allpass_costs", "int_list", (1,), ((1,), (1, 2, 3))),
            _opt("exit_levels", "int_list", (6,), ((6,), (6, 7, 7))),
        ),
    ),
    "piter": Convention(
        name="piter",
        title="Piter (Leningrad)",
        seat_counts=(3, 4),
        scale=2,
        pool_rate=2,
        consolation_fixed=None,
        failed_whist_factor=Fraction(1),
        misere_penalty=20,
        high_responsibility="second_then_both",
        allpass_scoring="amnesty",
        clean_allpass="mountain",
        dealer_clean_kind="",
        pool_capped=True,
        end_rule="all_closed",
        end_outside_streak=True,
        unwhisted_writeoff="",
        overflow_writeoff=False,
        failed_whister_unhelped=False,
        double_on_failed=False,
        rostov_talon=False,
        has_streak=True,
        races=False,
        default_pool_target=20,
        fixed=_fixed(gentlemen_whist=True, stalingrad=True, allpass_costs=(2, 4, 6), exit_levels=(6, 7, 7)),
        options=(
            _opt("stalingrad", "bool", True),
            _opt("whisted_tens", "bool", False),
            _opt("remise", "bool", True),
            _opt("allpass_costs", "int_list", (2, 4, 6), ((2, 4, 6), (2, 4, 8))),
            _opt("exit_levels", "int_list", (6, 7, 7), ((6, 7, 7), (6, 7, 8))),
            _opt("unwhisted_exit", "bool", False),
            _opt("clean_writeoff", "int", 1, (1, 2)),
            _opt("sliding_allpass", "bool", True),
            _opt("return_talon", "bool", False),
            _opt("pass_pass_whist", "bool", True),
        ),
    ),
    "piter_gentleman": Convention(
        name="piter_gentleman",
        title="Gentlemen's Piter",
        seat_counts=(3, 4),
        scale=2,
        pool_rate=2,
        consolation_fixed=None,
        failed_whist_factor=Fraction(1),
        misere_penalty=20,
        high_responsibility="second_then_both",
        allpass_scoring="per_trick",
        clean_allpass="pool",
        dealer_clean_kind="cost",
        pool_capped=False,
        end_rule="total_pool",
        end_outside_streak=True,
        unwhisted_writeoff="",
        overflow_writeoff=False,
        failed_whister_unhelped=False,
        double_on_failed=False,
        rostov_talon=False,
        has_streak=True,
        races=False,
        default_pool_target=20,
        # "a made game, never a remise" ends a streak: unwhisted made games included.
        fixed=_fixed(
            gentlemen_whist=True,
            allpass_costs=(2, 4, 6),
            exit_levels=(6, 7, 8),
            unwhisted_exit=True,
        ),
        options=(
            _opt("stalingrad", "bool", False),
            _opt("whisted_tens", "bool", False),
            _opt("remise", "bool", True),
            _opt("dealer_clean", "bool", False),
        ),
    ),
    "rostov": Convention(
        name="rostov",
        title="Rostov",
        seat_counts=(3, 4),
        scale=1,
        pool_rate=1,
        consolation_fixed=10,
        failed_whist_factor=Fraction(1, 2),
        misere_penalty=10,
        high_responsibility="second_then_both",
        allpass_scoring="rostov",
        clean_allpass="mountain_one",
        dealer_clean_kind="one",
        pool_capped=True,
        end_rule="all_closed",
        end_outside_streak=False,
        unwhisted_writeoff="",
        overflow_writeoff=False,
        failed_whister_unhelped=False,
        double_on_failed=False,
        rostov_talon=True,
        has_streak=False,
        races=False,
        default_pool_target=20,
        fixed=_fixed(stalingrad=True, remise=False, allpass_costs=(), exit_levels=(6,)),
        options=(
            _opt("stalingrad", "bool", True),
            _opt("whisted_tens", "bool", False),
            _opt("dealer_clean", "bool", False),
        ),
    ),
    "vmk": Convention(
        name="vmk",
        title="VMK",
        seat_counts=(3, 4),
        scale=1,
        pool_rate=1,
        consolation_fixed=10,
        failed_whist_factor=Fraction(1),
        misere_penalty=10,
        high_responsibility="both",
        allpass_scoring="per_trick",
        clean_allpass="mountain",
        dealer_clean_kind="",
        pool_capped=True,
        end_rule="all_closed",
        end_outside_streak=False,
        unwhisted_writeoff="vmk",
        overflow_writeoff=True,
        failed_whister_unhelped=True,
        double_on_failed=False,
        rostov_talon=False,
        has_streak=True,
        races=False,
        default_pool_target=20,
        fixed=_fixed(stalingrad=True, remise=True, allpass_costs=(2, 4, 4), exit_levels=(6, 7, 7)),
        options=(),
    ),
    "piter_races": Convention(
        name="piter_races",
        title="Piter races",
        seat_counts=(4,),
        scale=2,
        pool_rate=2,
        consolation_fixed=None,
        failed_whist_factor=Fraction(1),
        misere_penalty=20,
        high_responsibility="sharing",
        allpass_scoring="per_trick",
        clean_allpass="races_choice",
        dealer_clean_kind="",
        pool_capped=False,
        end_rule="races",
        end_outside_streak=True,
        unwhisted_writeoff="races",
        overflow_writeoff=False,
        failed_whister_unhelped=False,
        double_on_failed=True,
        rostov_talon=False,
        has_streak=True,
        races=True,
        default_pool_target=22,
        fixed=_fixed(
            stalingrad=True,
            gentlemen_whist=True,
            whisted_tens=True,
            remise=False,
            allpass_costs=(2, 4, 6),
            exit_levels=(6, 7, 7),
            games=7,
        ),
        options=(_opt("games", "int", 7, minimum=1),),
    ),
}


@dataclass(frozen=True)
class Rules:
    """A table's effective rules: a convention, the table size, the pool target and options."""

    convention: Convention
    players: int
    pool_target: int
    stalingrad: bool
    gentlemen_whist: bool
    whisted_tens: bool
    remise: bool
    allpass_costs: tuple[int, ...]
    exit_levels: tuple[int, ...]
    unwhisted_exit: bool
    clean_writeoff: int
    sliding_allpass: bool
    return_talon: bool
    pass_pass_whist: bool
    dealer_clean: bool
    games: int

    @property
    def options(self) -> dict[str, Any]:
        """The convention's options with their effective values (JSON-ready)."""
        return {spec.name: _jsonable(getattr(self, spec.name)) for spec in self.convention.options}

    def consolation(self, value: int) -> int:
        c = self.convention
        return c.consolation_fixed if c.consolation_fixed is not None else c.scale * value


def make_rules(
    convention: str,
    players: int,
    pool_target: int | None = None,
    options: dict[str, Any] | None = None,
) -> Rules:
    """Check a table's settings and return its effective rules, or raise InvalidTable."""
    errors: list[FieldError] = []
    conv = CONVENTIONS.get(convention) if isinstance(convention, str) else None
    if conv is None:
        raise InvalidTable([FieldError("convention", f"must be one of {', '.join(CONVENTION_NAMES)}")])
    if players not in conv.seat_counts:
        counts = " or ".join(str(n) for n in conv.seat_counts)
        errors.append(FieldError("players", f"{conv.name} is played by {counts} players"))
    if pool_target is None:
        pool_target = conv.default_pool_target
    elif isinstance(pool_target, bool) or not isinstance(pool_target, int) or pool_target < 1:
        errors.append(FieldError("pool_target", "must be a positive integer"))
    values = dict(conv.fixed)
    for name, value in (options or {}).items():
        spec = conv.option(name)
        if spec is None:
            allowed = ", ".join(s.name for s in conv.options) or "none"
            errors.append(FieldError(f"options.{name}", f"not an option of {conv.name} (its options: {allowed})"))
            continue
        try:
            values[name] = spec.check(value)
        except ValueError as exc:
            errors.append(FieldError(f"options.{name}", str(exc)))
    for spec in conv.options:
        values.setdefault(spec.name, spec.default)
    if errors:
        raise InvalidTable(errors)
    for spec in conv.options:
        if spec.name not in (options or {}):
            values[spec.name] = spec.default
    return Rules(convention=conv, players=players, pool_target=pool_target, **values)


def with_options(rules: Rules, **changes: Any) -> Rules:
    """A copy of the rules with some parameters changed (for tests and tools)."""
    return replace(rules, **changes)


def conventions_catalog() -> list[dict[str, Any]]:
    """What GET /v1/conventions serves: each convention with its options."""
    return [CONVENTIONS[name].describe() for name in CONVENTION_NAMES]
