"""The conventions catalogue as the API shows it: each preset with every field of the rule table."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, StrictBool, StrictInt

from app.rules import CONVENTION_NAMES


class ArithmeticLadder(BaseModel):
    """The unbounded all-pass cost ladder a, a+d, a+2d, ..."""

    start: StrictInt
    step: StrictInt


FieldValue = StrictBool | StrictInt | str | list[StrictInt] | ArithmeticLadder


class RuleField(BaseModel):
    """One field of the rule table, as a table may set it under ``options``."""

    name: str
    type: Literal["bool", "int", "enum", "int_list", "cost_ladder"]
    default: FieldValue = Field(description="the preset's value")
    choices: list[FieldValue] | None = Field(
        default=None, description="the allowed values (int: with minimum/maximum if absent)"
    )
    minimum: int | None = None
    maximum: int | None = None
    arithmetic_max: int | None = Field(
        default=None,
        description='cost_ladder: {"start": a, "step": d} is also allowed, 1 ≤ a, d ≤ arithmetic_max',
    )
    alias_of: str | None = Field(default=None, description="a classic option name standing for this field")
    description: str


class ConventionOut(BaseModel):
    """A convention: a named preset of every field of the rule table."""

    name: Literal[tuple(CONVENTION_NAMES)]  # type: ignore[valid-type]
    title: str
    players: list[int]
    default_pool_target: int
    scale: int
    pool_rate: int
    classic_options: list[str] = Field(
        description="the options a table of this convention shows with their values"
    )
    options: list[RuleField] = Field(description="every field of the rule table with the preset's value")
