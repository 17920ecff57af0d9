"""Scorer links and what a scorer link reads: the link as the owner sees it, the table with
its settlement and the choices its rules allow (what the scoring page offers), and the log
with each deal's dealer."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from app.deals.model import DealInfo
from app.deals.schemas import StoredDeal
from app.kit.schemas import Answer, timestamp
from app.rules import (
    AllpassScoring,
    CleanPlayer,
    GameEnd,
    MadeGameWriteoff,
    PoolOverflow,
    Rules,
    SingleWhister,
    TalonBonusPrice,
    UnwhistedWriteoff,
)
from app.rules.vocabulary import CONTRACT_LEVELS, STRAINS, TALON_BONUSES
from app.scorer.service import LinkInfo
from app.tables.model import TableInfo
from app.tables.schemas import ConventionName, PlayerOut, SettlementOut, TableOut
from app.tables.sheet_schemas import Sheet


class ScorerLink(Answer):
    """A scorer link as listed: never its token nor its hash."""

    id: int
    table_id: str
    prefix: str = Field(description="the token's first characters, to tell links apart")
    created_at: str
    revoked_at: str | None = Field(description="when the link was revoked; null while it works")

    @classmethod
    def of(cls, link: LinkInfo) -> ScorerLink:
        return cls(
            id=link.id,
            table_id=link.table_id,
            prefix=link.prefix,
            created_at=timestamp(link.created_at),
            revoked_at=timestamp(link.revoked_at),
        )


class ScorerLinkCreated(ScorerLink):
    token: str = Field(description="the link's token, shown this once")
    link: str = Field(description="the scoring page: /score/{token}")


class ScorerLinkList(Answer):
    items: list[ScorerLink]
    next: str | None = Field(description="the URL of the next page; null on the last")


class ScoringChoices(Answer):
    """What the table's rules let a deal say: the scoring page offers these and nothing else."""

    kinds: list[str] = Field(
        description="the deal types the table takes: contract, misere, allpass, and remise or close where allowed"
    )
    levels: list[int] = Field(
        description="contract levels (the sheet's allpass.min_contract is the lowest one now)"
    )
    strains: list[str] = Field(description="S, C, D, H, NT: spades, clubs, diamonds, hearts, no trumps")
    half_whist: bool = Field(
        description="the second defender may half-whist a 6 or a 7 after the first passed"
    )
    passer_tricks: bool = Field(
        False,
        description="with one whister, the passer's tricks are scored apart from the whister's (single_whister closed); "
        "otherwise only their sum counts",
    )
    stalingrad: bool = Field(description="6 spades must be whisted by both defenders")
    whisted_tens: bool = Field(description="a ten may be whisted")
    unwhisted_writeoff: bool = Field(
        description="an unwhisted made game may be written off the mountain (choices.writeoff)"
    )
    made_game_writeoff: bool = Field(
        description="a whisted made game may be written off the mountain (choices.writeoff)"
    )
    clean_writeoff: bool = Field(
        description="a player with no trick on an all-pass may write off the mountain instead (choices.writeoff)"
    )
    help: bool = Field(description="a closed pool's overflow may be sent to one player (choices.help)")
    talon_bonuses: list[str] = Field(
        description="the talon bonuses a contract or misère may name (rostov); empty elsewhere"
    )
    talon_discard: bool = Field(
        False, description="a thrown-away talon may be marked (talon.discarded: rostov's fixed-price talon)"
    )
    misere_talon_bonus: bool = Field(
        False, description="a misère may name a talon bonus (not when the bonus is priced by the game)"
    )
    return_talon: bool = Field(description="the talon may be returned (talon.returned, 4 players)")
    dealer_whist: bool = Field(
        False, description="4 players: the dealer may whist after pass and half-whist (dealer_half_whist)"
    )
    over_misere: bool = Field(description="a 9 or 10 may be marked as outbidding a misère (over_misere)")
    dealer_talon_tricks: int = Field(
        description="at 4 players, the talon tricks the dealer may hold on an all-pass (0: none)"
    )

    @classmethod
    def of(cls, rules: Rules) -> ScoringChoices:
        kinds = ["contract", "misere", "allpass"]
        if rules.remise:
            kinds.append("remise")
        if rules.end_of_game is GameEnd.DEALS:
            kinds.append("close")
        return cls(
            kinds=kinds,
            levels=list(CONTRACT_LEVELS),
            strains=list(STRAINS),
            half_whist=True,
            passer_tricks=rules.single_whister is SingleWhister.CLOSED,
            stalingrad=rules.stalingrad,
            whisted_tens=rules.whisted_tens,
            unwhisted_writeoff=rules.unwhisted_writeoff is not UnwhistedWriteoff.NEVER,
            made_game_writeoff=rules.made_game_writeoff is not MadeGameWriteoff.NEVER,
            clean_writeoff=rules.clean_player is CleanPlayer.CHOICE,
            help=rules.pool_overflow is not PoolOverflow.NO_CAP,
            talon_bonuses=list(TALON_BONUSES) if rules.talon_bonuses else [],
            talon_discard=rules.talon_bonuses and rules.talon_bonus_price is TalonBonusPrice.FIXED,
            misere_talon_bonus=rules.talon_bonuses and rules.talon_bonus_price is TalonBonusPrice.FIXED,
            return_talon=rules.return_talon and rules.players == 4,
            dealer_whist=rules.dealer_half_whist and rules.players == 4,
            over_misere=rules.compulsory_allpass,
            # The open talon's tricks count for a 4-player dealer, except in Rostov (closed talon).
            dealer_talon_tricks=2
            if rules.players == 4 and rules.allpass_scoring is not AllpassScoring.ROSTOV
            else 0,
        )


class ScorerTable(Answer):
    """The table as its scorer link reads it: no share token, no owner."""

    id: str
    convention: ConventionName
    pool_target: int
    first_dealer: int
    options: dict[str, Any]
    players: list[PlayerOut]
    deal_count: int
    title: str | None
    archived: bool
    sheet: Sheet
    settlement: SettlementOut
    choices: ScoringChoices

    @classmethod
    def of(cls, table: TableInfo, settlement: SettlementOut) -> ScorerTable:
        fields = TableOut.fields_of(table)
        keep = {
            k: fields[k]
            for k in (
                "id",
                "convention",
                "pool_target",
                "first_dealer",
                "options",
                "players",
                "deal_count",
                "title",
                "archived",
                "sheet",
            )
        }
        return cls(**keep, settlement=settlement, choices=ScoringChoices.of(table.rules))


class ScorerDeal(Answer):
    dealer: int = Field(description="the seat that dealt this deal (at 4 players it sat out)")
    deal: StoredDeal

    @classmethod
    def of(cls, deal: DealInfo) -> ScorerDeal:
        assert deal.dealer is not None  # a deal of the log carries the seat stored with it
        return cls(dealer=deal.dealer, deal=StoredDeal.of(deal))


class ScorerDealPage(Answer):
    items: list[ScorerDeal]
    next: str | None = Field(description="the URL of the next page; null on the last")
