"""The rule table's fields: each with its JSON type, the values it may take and what it means,
and how a JSON value is read into it (docs/rules.md §4)."""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from enum import Enum
from typing import Any

from app.rules.fields import (
    COST_LADDERS,
    EXIT_LADDERS,
    FIELD_NAMES,
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
    SingleWhister,
    TalonBonusPrice,
    TwoWhistersHigh,
    UnwhistedWriteoff,
    to_json,
)
from app.rules.sentences import Sentence
from app.rules.vocabulary import PenaltyDestination

ARITHMETIC_MAX = 100  # the unbounded ladder's start and step are at most this


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
