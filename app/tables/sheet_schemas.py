"""The sheet ("пулька"): each player's pool, mountain and whists, the all-pass level, and
for piter_races the match. Built from the engine's exact sheet; amounts become JSON numbers."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from app.rules import sheet as engine_sheet
from app.rules.vocabulary import MatchBonusKind
from app.tables.model import TableInfo

from app.kit.schemas import Amount, Answer, absent_when_none

BonusKind = Literal[tuple(m.value for m in MatchBonusKind)]  # type: ignore[valid-type]


class SheetPlayer(Answer):
    seat: int
    name: str
    pool: Amount = Field(description="the current game's pool")
    pool_closed: bool = Field(description="the pool has reached the target")
    mountain: Amount
    whists: dict[str, Amount] = Field(description="what this player has written on each other seat (by seat)")


class Allpass(Answer):
    level: int = Field(description="1 normal, 2 after one all-pass, 3 after two or more")
    streak: int = Field(description="all-pass deals in a row")
    next_trick_cost: int | None = Field(description="what a trick of the next all-pass costs; null in rostov")
    min_contract: int | None = Field(description="the lowest contract that may be played next")
    compulsory: bool = Field(description="piter_races: the next deal is a compulsory all-pass")


class MatchTotal(Answer):
    seat: int
    pool: Amount
    mountain: Amount


class MatchBonus(Answer):
    game: int | None = Field(description="the game it was written for; null for the match bonuses")
    kind: BonusKind
    seat: int
    amount: Amount = Field(description="what this seat writes on each other player (rounded to 0.01)")


class Match(Answer):
    games: int
    totals: list[MatchTotal]
    bonuses: list[MatchBonus]


class Sheet(Answer):
    deal_count: int
    players: list[SheetPlayer]
    allpass: Allpass
    next_dealer: int
    finished: bool
    game: int = Field(description="the game within a piter_races match (1 elsewhere)")
    match: Match = absent_when_none(description="piter_races only")

    @classmethod
    def of(cls, table: TableInfo) -> "Sheet":
        exact = engine_sheet(table.rules, table.state)
        for p in exact["players"]:
            p["name"] = table.players[p["seat"]]
        return cls.model_validate(exact)
