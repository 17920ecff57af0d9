"""The rule table: every field with its type and allowed values, the conventions as named
presets of those fields, and ``make_rules`` (docs/rules.md §4 and §5).

A table chooses a preset and may override any field under ``options``. Each override is
checked against the field's type and values, then the whole combination is checked, and a
contradictory one is refused naming the field. The option names of the first rule table
(``gentlemen_whist``, ``dealer_clean``) stay accepted as aliases of the fields they became.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from app.rules.errors import FieldError, InvalidTable
from app.rules.fields import (
    COST_LADDERS,
    EXIT_LADDERS,
    FIELD_NAMES,
    RULES_VERSION,
    AllpassScoring,
    CleanDealer,
    CleanPlayer,
    Consolation,
    CostLadder,
    FixedDealerScope,
    GameEnd,
    MadeGameWriteoff,
    PoolOverflow,
    Responsibility,
    Rules,
    SingleWhister,
    TalonBonusPrice,
    TwoWhistersHigh,
    UnwhistedWriteoff,
    read_options_with,
    to_json,
)
from app.rules.sentences import Sentence, said
from app.rules.vocabulary import PenaltyDestination

CONVENTION_NAMES = (
    "sochi",
    "piter",
    "piter_gentleman",
    "rostov",
    "vmk",
    "piter_races",
    "fspr",
    "classic_1996",
)
ARITHMETIC_MAX = 100  # the unbounded ladder's start and step are at most this


# --------------------------------------------------------------------------
# Field specs: type, allowed values, parsing


@dataclass(frozen=True)
class FieldSpec:
    """One field of the rule table: its JSON type, the values it may take, what it means."""

    name: str
    type: str  # "bool", "int", "enum", "int_list", "cost_ladder"
    description: str
    choices: tuple[Any, ...] | None = None  # allowed JSON values (None: any of the type within bounds)
    minimum: int | None = None
    maximum: int | None = None
    enum: builtins.type[Enum] | None = None  # builtins': the field ``type`` above shadows it here

    def parse(self, value: Any) -> Any:
        """The field value for a JSON value, or raise ValueError with the reason."""
        kind = self.type
        if kind == "bool":
            if not isinstance(value, bool):
                raise ValueError(Sentence("must be true or false"))
            return value
        if kind == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(Sentence("must be an integer"))
            if self.choices is not None and value not in self.choices:
                raise ValueError(Sentence("must be one of {choices}", choices=list(self.choices)))
            if self.minimum is not None and value < self.minimum:
                raise ValueError(Sentence("must be at least {minimum}", minimum=self.minimum))
            if self.maximum is not None and value > self.maximum:
                raise ValueError(Sentence("must be at most {maximum}", maximum=self.maximum))
            return value
        if kind == "enum":
            assert self.enum is not None
            if isinstance(value, str):
                for member in self.enum:
                    if member.value == value:
                        return member
            raise ValueError(
                Sentence("must be one of {choices}", choices=", ".join(m.value for m in self.enum))
            )
        if kind == "int_list":
            assert self.choices is not None  # a list field is one of a few lists
            ints = _int_tuple(value)
            if ints is None or ints not in self.choices:
                raise ValueError(
                    Sentence(
                        "must be one of {choices}", choices=" or ".join(str(list(c)) for c in self.choices)
                    )
                )
            return ints
        if kind == "cost_ladder":
            ints = _int_tuple(value)
            if ints is not None and ints in COST_LADDERS:
                return CostLadder(ints)
            if isinstance(value, dict) and set(value) == {"start", "step"}:
                start, step = value["start"], value["step"]
                if all(
                    not isinstance(v, bool) and isinstance(v, int) and 1 <= v <= ARITHMETIC_MAX
                    for v in (start, step)
                ):
                    return CostLadder((start,), step)
            raise ValueError(
                Sentence(
                    'must be one of {ladders}, or {{"start": a, "step": d}} (1 ≤ a, d ≤ {arithmetic_max}: a, a+d, a+2d, ...)',
                    ladders=" or ".join(str(list(c)) for c in COST_LADDERS),
                    arithmetic_max=ARITHMETIC_MAX,
                )
            )
        raise AssertionError(kind)  # pragma: no cover

    def describe(self, value: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "type": self.type, "default": to_json(value)}
        if self.enum is not None:
            out["choices"] = [m.value for m in self.enum]
        elif self.type == "bool":
            out["choices"] = [False, True]
        elif self.choices is not None:
            out["choices"] = [list(c) if isinstance(c, tuple) else c for c in self.choices]
        if self.type == "cost_ladder":
            # and {"start": a, "step": d} with 1 <= a, d <= arithmetic_max: a, a+d, a+2d, ...
            out["choices"] = [list(c) for c in COST_LADDERS]
            out["arithmetic_max"] = ARITHMETIC_MAX
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        out["description"] = self.description
        return out


def _int_tuple(value: Any) -> tuple[int, ...] | None:
    if isinstance(value, (list, tuple)) and all(
        not isinstance(v, bool) and isinstance(v, int) for v in value
    ):
        return tuple(value)
    return None


def _enum(name: str, enum: type[Enum], description: str) -> FieldSpec:
    return FieldSpec(name, "enum", description, enum=enum)


def _bool(name: str, description: str) -> FieldSpec:
    return FieldSpec(name, "bool", description)


FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec(
        "scale",
        "int",
        "s: mountain and whists for contracts are written s times (the Piter doubling).",
        choices=(1, 2),
    ),
    FieldSpec(
        "pool_rate",
        "int",
        "k: at settlement a pool point counts as 10·k whists; overflow whists are 10·k a point.",
        choices=(1, 2),
    ),
    _enum(
        "consolation",
        Consolation,
        "What each other player writes on a failed declarer per undertrick: scaled_value s·V, or ten (Rostov's direct whists).",
    ),
    _bool(
        "failed_declarer_doubled",
        "Every whist written on a failed declarer is doubled (seed 004's optional rule).",
    ),
    _enum(
        "whist_responsibility",
        Responsibility,
        "A responsible defender's penalty per short trick, to his mountain: full s·V, semi s·V/2, none.",
    ),
    _enum(
        "two_whisters_high",
        TwoWhistersHigh,
        "Two whisters short on 8, 9 or 10: second_then_both (8: the second defender; 9, 10: both), both, shared (half each).",
    ),
    _enum(
        "single_whister",
        SingleWhister,
        "One whister and one passer: open (the whister writes for both hands), closed (each his own tricks), "
        "gentlemen (split equally on a failed contract), gentlemen_always (split on made contracts too).",
    ),
    FieldSpec(
        "misere_penalty",
        "int",
        "Per trick taken on a failed misère, to the declarer's mountain.",
        choices=(10, 20),
    ),
    _bool("stalingrad", "On 6 spades both defenders must whist."),
    _bool("whisted_tens", "A ten may be whisted (obligation one trick)."),
    _bool("remise", "The declarer may concede three undertricks without playing ('without three')."),
    _enum(
        "allpass_scoring",
        AllpassScoring,
        "per_trick (each trick to the mountain), amnesty (tricks beyond the fewest), rostov (the fewest win 5 whists a trick; no streak).",
    ),
    FieldSpec(
        "allpass_costs",
        "cost_ladder",
        "Trick cost of the first, second and later all-passes in a streak; {start, step} grows without bound.",
    ),
    FieldSpec(
        "exit_levels",
        "int_list",
        "Lowest contract after 0, 1 and 2 or more all-passes.",
        choices=EXIT_LADDERS,
    ),
    _enum(
        "clean_player",
        CleanPlayer,
        "An active player with no trick on an all-pass: pool (+1 cost), mountain (−clean_writeoff costs), "
        "mountain_one (−1), choice (+1 cost to the pool, or choices.writeoff: −2 costs off the mountain).",
    ),
    FieldSpec(
        "clean_writeoff",
        "int",
        "How many trick costs a clean player writes off under clean_player mountain.",
        choices=(1, 2),
    ),
    _enum(
        "clean_dealer",
        CleanDealer,
        "A 4-player dealer with no trick on an all-pass: nothing, mountain_cost (−1 cost), mountain_one (−1), pool_cost (+1 cost to the pool).",
    ),
    _bool(
        "sliding_allpass",
        "The deal passes on after every deal; off: the same player deals while the table is in all-passes.",
    ),
    _enum(
        "fixed_dealer_scope",
        FixedDealerScope,
        "With sliding_allpass off, which deals keep the dealer: whole_streak (every deal that leaves the table in "
        "all-passes), allpass_deals (all-pass deals only, the reading of rules version 1).",
    ),
    _bool(
        "unwhisted_exit",
        "A made unwhisted game (misère, both defenders passed) also ends an all-pass streak.",
    ),
    _bool("half_whist_exit", "A half-whisted game ends an all-pass streak (it is not played out)."),
    _enum(
        "end_of_game",
        GameEnd,
        "all_closed (every pool at the target), total_pool (pools add up to n·target), one_closed (one pool at the target), "
        "deals (after game_deals deals or when the table is closed).",
    ),
    FieldSpec(
        "game_deals",
        "int",
        "The number of deals of a game under end_of_game deals (0: not used).",
        minimum=0,
        maximum=10_000,
    ),
    _bool("end_outside_streak", "The game does not end inside an all-pass streak."),
    _enum(
        "pool_overflow",
        PoolOverflow,
        "Points beyond a closed pool: help_others, no_cap (pools are not capped), mountain_first (off the own mountain first, then help).",
    ),
    _bool(
        "failed_whister_unhelped",
        "A defender who failed his whist in the deal cannot be helped by an overflow.",
    ),
    _enum(
        "made_game_writeoff",
        MadeGameWriteoff,
        "A made game written off the declarer's mountain (choices.writeoff): never; closed_pool (the whole game, only once "
        "his pool was closed); beyond_target (the part beyond the target, at any time: the reading of rules version 1).",
    ),
    _enum(
        "unwhisted_writeoff",
        UnwhistedWriteoff,
        "An unwhisted made game written off the mountain (choices.writeoff): never, value (V), double_high (8-10 and a clean misère, 2V).",
    ),
    _bool(
        "talon_bonuses", "The Rostov talon: quick tricks in the talon and a thrown-away talon write whists."
    ),
    _enum(
        "talon_bonus_price",
        TalonBonusPrice,
        "What a quick trick found in the talon writes: fixed (10 whists, Rostov) or game (the game's trick price s·V, "
        "made or failed, never on a misère: ФСПР).",
    ),
    _bool(
        "dealer_half_whist",
        "4 players: after pass and half-whist the dealer may whist; he then writes the whists "
        "for both defenders' tricks and answers for no missing trick (ФСПР).",
    ),
    _bool(
        "return_talon",
        "4 players: the declarer may refuse the talon; the dealer then gets V to the mountain.",
    ),
    _bool("pass_pass_whist", "Bidding only (a passer may reconsider); stored, no effect on scoring."),
    _bool(
        "compulsory_allpass",
        "Each game opens with an all-pass, and a failed misère (or a failed 9/10 over a misère) forces one.",
    ),
    _bool(
        "match_bonuses",
        "A match of games with the races' bonuses (first to the target, smallest mountain, largest pool).",
    ),
    FieldSpec("games", "int", "Games in the match.", minimum=1),
    _enum(
        "penalties_to",
        PenaltyDestination,
        "Where a judge's penalty goes when it does not say: mountain (the offender's), whists (each other player "
        "writes the amount on the offender), apart (kept apart: counted in the balance as mountain points, "
        "written in neither the pool nor the mountain).",
    ),
)
SPECS = {spec.name: spec for spec in FIELDS}
assert tuple(SPECS) == FIELD_NAMES, "every field of Rules has a spec, in order"


# --------------------------------------------------------------------------
# Presets


@dataclass(frozen=True)
class Preset:
    """A convention: a name, its table sizes and default target, and a value for every field."""

    name: str
    title: str
    seat_counts: tuple[int, ...]
    default_pool_target: int
    values: dict[str, Any]
    classic: tuple[str, ...]  # the options of the first rule table, listed in ``rules.options``
    # what the classic bool ``dealer_clean: true`` means in this preset
    dealer_clean_kind: CleanDealer = CleanDealer.MOUNTAIN_COST

    def describe(self) -> dict[str, Any]:
        options = [SPECS[name].describe(self.values[name]) for name in FIELD_NAMES]
        for alias in ALIASES.values():
            if alias.name in self.classic:
                options.append(alias.describe(self))
        return {
            "name": self.name,
            "title": self.title,
            "players": list(self.seat_counts),
            "default_pool_target": self.default_pool_target,
            "scale": self.values["scale"],
            "pool_rate": self.values["pool_rate"],
            "classic_options": list(self.classic),
            "options": options,
        }


def _values(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "scale": 1,
        "pool_rate": 1,
        "consolation": Consolation.SCALED_VALUE,
        "failed_declarer_doubled": False,
        "whist_responsibility": Responsibility.SEMI,
        "two_whisters_high": TwoWhistersHigh.SECOND_THEN_BOTH,
        "single_whister": SingleWhister.OPEN,
        "misere_penalty": 10,
        "stalingrad": False,
        "whisted_tens": False,
        "remise": True,
        "allpass_scoring": AllpassScoring.PER_TRICK,
        "allpass_costs": CostLadder((1,)),
        "exit_levels": (6,),
        "clean_player": CleanPlayer.POOL,
        "clean_writeoff": 1,
        "clean_dealer": CleanDealer.NOTHING,
        "sliding_allpass": True,
        "fixed_dealer_scope": FixedDealerScope.WHOLE_STREAK,
        "unwhisted_exit": False,
        "half_whist_exit": True,
        "end_of_game": GameEnd.ALL_CLOSED,
        "game_deals": 0,
        "end_outside_streak": False,
        "pool_overflow": PoolOverflow.HELP_OTHERS,
        "failed_whister_unhelped": False,
        "made_game_writeoff": MadeGameWriteoff.NEVER,
        "unwhisted_writeoff": UnwhistedWriteoff.NEVER,
        "talon_bonuses": False,
        "talon_bonus_price": TalonBonusPrice.FIXED,
        "dealer_half_whist": False,
        "return_talon": False,
        "pass_pass_whist": True,
        "compulsory_allpass": False,
        "match_bonuses": False,
        "games": 1,
        "penalties_to": PenaltyDestination.MOUNTAIN,
    }
    for name in changes:
        assert name in base, name
    base.update(changes)
    assert tuple(base) == FIELD_NAMES
    return base


PRESETS: dict[str, Preset] = {
    "sochi": Preset(
        "sochi",
        "Sochi",
        (3, 4),
        20,
        # "what ends an all-pass streak: any made game", unwhisted ones included
        _values(unwhisted_exit=True),
        classic=("stalingrad", "gentlemen_whist", "whisted_tens", "remise", "allpass_costs", "exit_levels"),
    ),
    "piter": Preset(
        "piter",
        "Piter (Leningrad)",
        (3, 4),
        20,
        _values(
            scale=2,
            pool_rate=2,
            misere_penalty=20,
            single_whister=SingleWhister.GENTLEMEN,
            stalingrad=True,
            allpass_scoring=AllpassScoring.AMNESTY,
            allpass_costs=CostLadder((2, 4, 6)),
            exit_levels=(6, 7, 7),
            clean_player=CleanPlayer.MOUNTAIN,
            end_outside_streak=True,
        ),
        classic=(
            "stalingrad",
            "whisted_tens",
            "remise",
            "allpass_costs",
            "exit_levels",
            "unwhisted_exit",
            "clean_writeoff",
            "sliding_allpass",
            "return_talon",
            "pass_pass_whist",
        ),
    ),
    "piter_gentleman": Preset(
        "piter_gentleman",
        "Gentlemen's Piter",
        (3, 4),
        20,
        # "a made game, never a remise" ends a streak: unwhisted made games included
        _values(
            scale=2,
            pool_rate=2,
            misere_penalty=20,
            single_whister=SingleWhister.GENTLEMEN,
            allpass_costs=CostLadder((2, 4, 6)),
            exit_levels=(6, 7, 8),
            unwhisted_exit=True,
            end_of_game=GameEnd.TOTAL_POOL,
            end_outside_streak=True,
            pool_overflow=PoolOverflow.NO_CAP,
        ),
        classic=("stalingrad", "whisted_tens", "remise", "dealer_clean"),
        dealer_clean_kind=CleanDealer.MOUNTAIN_COST,
    ),
    "rostov": Preset(
        "rostov",
        "Rostov",
        (3, 4),
        20,
        _values(
            consolation=Consolation.TEN,
            stalingrad=True,
            remise=False,
            allpass_scoring=AllpassScoring.ROSTOV,
            clean_player=CleanPlayer.MOUNTAIN_ONE,
            talon_bonuses=True,
        ),
        classic=("stalingrad", "whisted_tens", "dealer_clean"),
        dealer_clean_kind=CleanDealer.MOUNTAIN_ONE,
    ),
    "vmk": Preset(
        "vmk",
        "VMK",
        (3, 4),
        20,
        _values(
            consolation=Consolation.TEN,
            whist_responsibility=Responsibility.FULL,
            two_whisters_high=TwoWhistersHigh.BOTH,
            stalingrad=True,
            allpass_costs=CostLadder((2, 4, 4)),
            exit_levels=(6, 7, 7),
            clean_player=CleanPlayer.MOUNTAIN,
            failed_whister_unhelped=True,
            made_game_writeoff=MadeGameWriteoff.CLOSED_POOL,
            unwhisted_writeoff=UnwhistedWriteoff.VALUE,
        ),
        classic=(),
    ),
    "piter_races": Preset(
        "piter_races",
        "Piter races",
        (4,),
        22,
        _values(
            scale=2,
            pool_rate=2,
            misere_penalty=20,
            failed_declarer_doubled=True,
            two_whisters_high=TwoWhistersHigh.SHARED,
            single_whister=SingleWhister.GENTLEMEN,
            stalingrad=True,
            whisted_tens=True,
            remise=False,
            allpass_costs=CostLadder((2, 4, 6)),
            exit_levels=(6, 7, 7),
            clean_player=CleanPlayer.CHOICE,
            half_whist_exit=False,
            end_of_game=GameEnd.ONE_CLOSED,
            end_outside_streak=True,
            pool_overflow=PoolOverflow.NO_CAP,
            unwhisted_writeoff=UnwhistedWriteoff.DOUBLE_HIGH,
            compulsory_allpass=True,
            match_bonuses=True,
            games=7,
        ),
        classic=("games",),
    ),
    # ФСПР's Sporting Code, section 6, the Leningrad system (docs/rules.md §13: each value's source)
    "fspr": Preset(
        "fspr",
        "FSPR (Leningrad)",
        (3, 4),
        20,
        _values(
            scale=2,
            pool_rate=2,
            misere_penalty=20,
            single_whister=SingleWhister.GENTLEMEN,
            whisted_tens=True,
            remise=False,
            allpass_costs=CostLadder((2, 4, 6)),
            exit_levels=(6, 7, 7),
            clean_player=CleanPlayer.CHOICE,
            half_whist_exit=False,
            talon_bonuses=True,
            talon_bonus_price=TalonBonusPrice.GAME,
            dealer_half_whist=True,
        ),
        classic=(),
    ),
    # the Кодекс преферанса of 1996, its game without the options it leaves to the table (§14)
    "classic_1996": Preset(
        "classic_1996",
        "Preference Code 1996",
        (3, 4),
        20,
        _values(whisted_tens=True),
        classic=(),
    ),
}
assert tuple(PRESETS) == CONVENTION_NAMES


# --------------------------------------------------------------------------
# Aliases: the bool options of the first rule table


@dataclass(frozen=True)
class Alias:
    name: str
    target: str
    description: str
    to_field: Callable[[Preset, bool], Any]
    from_field: Callable[[Preset, Any], bool | None]  # None: the value has no bool form

    def describe(self, preset: Preset) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": "bool",
            "default": self.from_field(preset, preset.values[self.target]),
            "choices": [False, True],
            "alias_of": self.target,
            "description": self.description,
        }


ALIASES = {
    "gentlemen_whist": Alias(
        "gentlemen_whist",
        "single_whister",
        "Classic name: true is single_whister gentlemen, false is open.",
        lambda p, on: SingleWhister.GENTLEMEN if on else SingleWhister.OPEN,
        lambda p, v: {SingleWhister.GENTLEMEN: True, SingleWhister.OPEN: False}.get(v),
    ),
    "dealer_clean": Alias(
        "dealer_clean",
        "clean_dealer",
        "Classic name: true is this convention's clean-dealer write-off, false is nothing.",
        lambda p, on: p.dealer_clean_kind if on else CleanDealer.NOTHING,
        lambda p, v: {p.dealer_clean_kind: True, CleanDealer.NOTHING: False}.get(v),
    ),
}


# --------------------------------------------------------------------------
# Contradictions: combinations of fields that cannot be scored


def _contradictions(v: dict[str, Any]) -> list[tuple[tuple[str, ...], str]]:
    out: list[tuple[tuple[str, ...], str]] = []
    no_cost = v["allpass_scoring"] is AllpassScoring.ROSTOV
    if v["games"] != 1 and not v["match_bonuses"]:
        out.append((("games", "match_bonuses"), Sentence("a match of several games needs match_bonuses")))
    if v["end_of_game"] is GameEnd.DEALS:
        if v["game_deals"] < 1:
            out.append(
                (("game_deals", "end_of_game"), Sentence("end_of_game deals needs game_deals of at least 1"))
            )
        if v["match_bonuses"]:
            out.append(
                (
                    ("end_of_game", "match_bonuses"),
                    Sentence("a match's games end by their pools, not by a number of deals"),
                )
            )
    elif v["game_deals"]:
        out.append(
            (("game_deals", "end_of_game"), Sentence("game_deals counts only under end_of_game deals"))
        )
    if no_cost:
        for name, values in (
            ("clean_player", (CleanPlayer.POOL, CleanPlayer.MOUNTAIN, CleanPlayer.CHOICE)),
            ("clean_dealer", (CleanDealer.MOUNTAIN_COST, CleanDealer.POOL_COST)),
        ):
            if v[name] in values:
                out.append(
                    (
                        (name, "allpass_scoring"),
                        Sentence(
                            "{value} needs a trick cost; the rostov all-pass has none", value=v[name].value
                        ),
                    )
                )
        if v["compulsory_allpass"]:
            out.append(
                (
                    ("compulsory_allpass", "allpass_scoring"),
                    Sentence("a compulsory all-pass needs a trick cost; the rostov all-pass has none"),
                )
            )
    if v["talon_bonus_price"] is not TalonBonusPrice.FIXED and not v["talon_bonuses"]:
        out.append(
            (
                ("talon_bonus_price", "talon_bonuses"),
                Sentence("a talon bonus is priced only with talon_bonuses"),
            )
        )
    if v["scale"] == 2:
        ladder: CostLadder = v["allpass_costs"]
        if any(c % 2 for c in ladder.costs) or ladder.step % 2:
            out.append(
                (
                    ("allpass_costs", "scale"),
                    Sentence(
                        "with scale 2 every cost is written doubled: choose [2,4,6], [2,4,8], [2,4,4] or even start and step"
                    ),
                )
            )
    return out


# --------------------------------------------------------------------------
# Earlier rules versions


def legacy_overrides(convention: str, rules_version: int) -> dict[str, Any]:
    """The fields (JSON-ready) on which a table made under ``rules_version`` reads its preset
    otherwise: the readings that version took where a later one put a seed right
    (docs/rules.md §12). Empty for the current version. The table's own options still win."""
    preset = PRESETS[convention]
    if rules_version >= RULES_VERSION:
        return {}
    old: dict[str, Any] = {
        # §11 reading 3: a half-whist ended a streak in every convention
        "half_whist_exit": True,
        # §11 reading 1: with sliding off only an all-pass deal kept the dealer
        "fixed_dealer_scope": FixedDealerScope.ALLPASS_DEALS,
    }
    if preset.values["made_game_writeoff"] is MadeGameWriteoff.CLOSED_POOL:
        # §11 reading 4: VMK wrote off the part beyond the target, pool open or not
        old["made_game_writeoff"] = MadeGameWriteoff.BEYOND_TARGET
    return {name: to_json(value) for name, value in old.items() if preset.values[name] != value}


def base_values(preset: Preset, rules_version: int) -> dict[str, Any]:
    """Every field's value before the table's options: the preset read by its rules version."""
    values = dict(preset.values)
    for name, value in legacy_overrides(preset.name, rules_version).items():
        values[name] = SPECS[name].parse(value)
    return values


# --------------------------------------------------------------------------
# make_rules


def make_rules(
    convention: str,
    players: int,
    pool_target: int | None = None,
    options: dict[str, Any] | None = None,
    *,
    rules_version: int = RULES_VERSION,
) -> Rules:
    """Check a table's settings and return its effective rules, or raise InvalidTable.

    ``rules_version`` is the version the table was made under (stored with it): a table made
    under an earlier one keeps that version's readings (``legacy_overrides``) and so scores,
    and keeps its stored state, exactly as when it was made."""
    preset = PRESETS.get(convention) if isinstance(convention, str) else None
    if preset is None:
        raise InvalidTable(
            [
                FieldError(
                    "convention", Sentence("must be one of {choices}", choices=", ".join(CONVENTION_NAMES))
                )
            ]
        )
    if (
        isinstance(rules_version, bool)
        or not isinstance(rules_version, int)
        or not 1 <= rules_version <= RULES_VERSION
    ):
        raise InvalidTable(
            [
                FieldError(
                    "rules_version",
                    Sentence("must be an integer from 1 to {rules_version}", rules_version=RULES_VERSION),
                )
            ]
        )
    errors: list[FieldError] = []
    if players not in preset.seat_counts:
        counts = " or ".join(str(n) for n in preset.seat_counts)
        errors.append(
            FieldError(
                "players", Sentence("{name} is played by {counts} players", name=preset.name, counts=counts)
            )
        )
    if pool_target is None:
        pool_target = preset.default_pool_target
    elif isinstance(pool_target, bool) or not isinstance(pool_target, int) or pool_target < 1:
        errors.append(FieldError("pool_target", Sentence("must be a positive integer")))
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise InvalidTable(
            errors + [FieldError("options", Sentence("must be an object of field names and values"))]
        )
    values = base_values(preset, rules_version)
    given: set[str] = set()
    for name, value in options.items():
        spec = SPECS.get(name)
        if spec is not None:
            try:
                values[name] = spec.parse(value)
                given.add(name)
            except ValueError as exc:
                errors.append(FieldError(f"options.{name}", said(exc)))
        elif name not in ALIASES:
            errors.append(
                FieldError(
                    f"options.{name}",
                    Sentence("not a field of the rule table (GET /v1/conventions lists them)"),
                )
            )
    for name, alias in ALIASES.items():
        if name not in options:
            continue
        value = options[name]
        if not isinstance(value, bool):
            errors.append(FieldError(f"options.{name}", Sentence("must be true or false")))
            continue
        meant = alias.to_field(preset, value)
        if alias.target in given and values[alias.target] is not meant:
            errors.append(
                FieldError(f"options.{name}", Sentence("contradicts options.{target}", target=alias.target))
            )
        else:
            values[alias.target] = meant
            given.add(alias.target)
    if not errors:
        for names, reason in _contradictions(values):
            named = next((n for n in names if n in given), names[0])
            errors.append(FieldError(f"options.{named}", reason))
    if errors:
        raise InvalidTable(errors)
    return Rules(
        preset=preset.name, players=players, pool_target=pool_target, rules_version=rules_version, **values
    )


def options_of(rules: Rules) -> dict[str, Any]:
    """The options that make these rules from their preset (JSON-ready): the preset's
    classic options with their values, then every other field that differs from the preset
    as read by the table's rules version (so that make_rules with that version takes it back)."""
    preset = PRESETS[rules.preset]
    base = base_values(preset, rules.rules_version)
    out: dict[str, Any] = {}
    covered: set[str] = set()
    for name in preset.classic:
        alias = ALIASES.get(name)
        if alias is None:
            out[name] = to_json(getattr(rules, name))
            covered.add(name)
        else:
            as_bool = alias.from_field(preset, getattr(rules, alias.target))
            if as_bool is not None:
                out[name] = as_bool
                covered.add(alias.target)
    for name in FIELD_NAMES:
        if name not in covered and getattr(rules, name) != base[name]:
            out[name] = to_json(getattr(rules, name))
    return out


read_options_with(options_of)


def conventions_catalog() -> list[dict[str, Any]]:
    """What GET /v1/conventions serves: each preset with every field, its type, allowed values
    and the preset's value."""
    return [PRESETS[name].describe() for name in CONVENTION_NAMES]
