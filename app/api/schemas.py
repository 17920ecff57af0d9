"""Pydantic models of the HTTP contract (API.md). Requests refuse unknown fields and are
strict about types; the engine then checks the rules (Deal.from_dict, make_rules). Response
models document /openapi.json; responses are rendered by app.api.render."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

CONVENTIONS = Literal["sochi", "piter", "piter_gentleman", "rostov", "vmk", "piter_races"]
Seat = Annotated[int, Field(ge=0, le=3)]
SeatKey = Annotated[str, StringConstraints(pattern=r"^[0-3]$")]
Tricks = Annotated[int, Field(ge=0, le=10)]
ContractCode = Annotated[str, StringConstraints(pattern=r"^(6|7|8|9|10)(S|C|D|H|NT)$")]
Name = Annotated[str, StringConstraints(min_length=1, max_length=64)]
Number = Union[int, float]


def _valid_text(value: Any) -> bool:
    """False when a string holds a lone surrogate (JSON "\\ud800"), which cannot be stored as
    UTF-8, or a NUL, which PostgreSQL text cannot hold and no name or note needs."""
    if isinstance(value, str):
        if "\x00" in value:
            return False
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return False
        return True
    if isinstance(value, dict):
        return all(_valid_text(k) and _valid_text(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_valid_text(v) for v in value)
    return True


class Request(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    @model_validator(mode="before")
    @classmethod
    def _unicode(cls, data: Any) -> Any:
        if not _valid_text(data):
            raise ValueError("text must be valid Unicode without NUL characters (no lone surrogate escapes)")
        return data


# --- tables -------------------------------------------------------------------------------
class TableCreate(Request):
    players: list[Name] = Field(min_length=3, max_length=4, description="3 or 4 distinct names, seats 0..n-1 in order")
    convention: CONVENTIONS
    pool_target: int = Field(default=None, ge=1, le=1000, description="default 20 (piter_races: 22)")
    first_dealer: int = Field(default=0, ge=0, le=3)
    options: dict[str, Any] = Field(default_factory=dict, description="any subset of the convention's options")

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        json_schema_extra={
            "examples": [
                {
                    "players": ["Anna", "Boris", "Vera"],
                    "convention": "piter",
                    "pool_target": 20,
                    "first_dealer": 0,
                    "options": {"stalingrad": True, "allpass_costs": [2, 4, 6], "exit_levels": [6, 7, 7]},
                }
            ]
        },
    )


# --- deals --------------------------------------------------------------------------------
class Choices(Request):
    writeoff: list[Seat] = Field(default=None, description="seats that write off the mountain instead of the pool")
    help: Seat = Field(default=None, description="whom an overflow helps first")


class Talon(Request):
    bonus: Literal["ace", "marriage", "ace_king", "two_aces"] = Field(default=None, description="rostov")
    discarded: bool = Field(default=None, description="rostov: the talon was thrown away")
    returned: bool = Field(default=None, description="piter with return_talon")


class _DealCommon(Request):
    dealer: Seat = Field(default=None, description="checked against the expected dealer (409 if it differs)")
    choices: Choices = Field(default=None)
    talon: Talon = Field(default=None, description="only on contract and misere deals")
    over_misere: bool = Field(default=None, description="piter_races: a 9 or 10 that outbid a misere")
    note: Annotated[str, StringConstraints(max_length=500)] | None = Field(default=None, description="free text")


class ContractDeal(_DealCommon):
    type: Literal["contract"]
    declarer: Seat
    contract: ContractCode = Field(description='level 6-10 and strain S C D H NT, e.g. "7H"')
    defenders: dict[SeatKey, Literal["whist", "pass", "half_whist"]] = Field(
        description="the two other active seats"
    )
    tricks: dict[SeatKey, Tricks] = Field(default=None, description="every active seat's tricks when the game was played")


class MisereDeal(_DealCommon):
    type: Literal["misere"]
    declarer: Seat
    tricks: dict[SeatKey, Tricks] = Field(default=None, description="may hold only the declarer's count")


class RemiseDeal(_DealCommon):
    type: Literal["remise"]
    declarer: Seat
    contract: ContractCode


class AllpassDeal(_DealCommon):
    type: Literal["allpass"]
    tricks: dict[SeatKey, Tricks]


DealBody = Annotated[Union[ContractDeal, MisereDeal, RemiseDeal, AllpassDeal], Field(discriminator="type")]


class KeyCreate(Request):
    owner: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")]


# --- responses ----------------------------------------------------------------------------
class Out(BaseModel):
    model_config = ConfigDict(extra="allow")


class EntryOut(Out):
    kind: Literal["pool", "mountain", "whists"]
    seat: int
    on: int | None = None
    amount: Number


class SheetPlayer(Out):
    seat: int
    name: str
    pool: Number
    pool_closed: bool
    mountain: Number
    whists: dict[str, Number]


class Allpass(Out):
    level: int
    streak: int
    next_trick_cost: int | None
    min_contract: int | None
    compulsory: bool


class MatchTotal(Out):
    seat: int
    pool: Number
    mountain: Number


class MatchBonus(Out):
    game: int | None
    kind: Literal["first_to_target", "min_mountain", "max_pool"]
    seat: int
    amount: Number


class Match(Out):
    games: int
    totals: list[MatchTotal]
    bonuses: list[MatchBonus]


class Sheet(Out):
    deal_count: int
    players: list[SheetPlayer]
    allpass: Allpass
    next_dealer: int
    finished: bool
    game: int
    match: Match | None = Field(default=None, description="piter_races only")


class PlayerOut(Out):
    seat: int
    name: str


class TableOut(Out):
    id: str
    convention: str
    pool_target: int
    first_dealer: int
    options: dict[str, Any]
    players: list[PlayerOut]
    deal_count: int
    share_token: str
    created_at: str
    sheet: Sheet


class DealOut(Out):
    number: int
    type: Literal["contract", "misere", "remise", "allpass"]
    declarer: int | None = None
    contract: str | None = None
    defenders: dict[str, str] | None = None
    tricks: dict[str, int] | None = None
    dealer: int | None = None
    choices: dict[str, Any] | None = None
    talon: dict[str, Any] | None = None
    over_misere: bool | None = None
    note: str | None = None
    entries: list[EntryOut]
    created_at: str | None = None


class DealWithSheet(Out):
    deal: DealOut
    sheet: Sheet


class DealCorrected(DealWithSheet):
    rescored: list[int] = Field(description="later deals whose entries changed")


class DealPage(Out):
    items: list[DealOut]
    next: str | None = Field(description="URL of the next page, null on the last")


class SettlementPlayer(Out):
    seat: int
    name: str
    balance: Number
    balance_exact: str


class TransferOut(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    from_: int = Field(alias="from")
    to: int
    amount: Number


class SettlementOut(Out):
    final: bool
    stake: str | None = None
    players: list[SettlementPlayer]
    transfers: list[TransferOut]


class SharedOut(TableOut):
    settlement: SettlementOut


class KeyOut(Out):
    owner: str
    key: str


class HealthOut(Out):
    status: str
    database: str


class FieldProblem(BaseModel):
    field: str
    reason: str


class Problem(Out):
    type: str
    title: str
    status: int
    detail: str
    errors: list[FieldProblem] | None = None


def problem_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """Error responses for the OpenAPI document (served as application/problem+json)."""
    return {s: {"model": Problem, "description": "a problem (RFC 9457), application/problem+json"} for s in statuses}
