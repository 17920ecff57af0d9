"""Deals: the stored deal (the body's union, with its number, the entries it wrote and when),
and the answers that carry them. The body as posted is in app/deals/posted_schemas.py; its
names are read here too."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, RootModel

from app.deals.model import DealInfo
from app.deals.posted_schemas import (
    DEAL_EXAMPLES,
    DEAL_VARIANTS,
    BonusWord,
    Clause,
    DealInput,
    Defence,
    Destination,
    KindWord,
    PenaltyAmount,
    Reason,
    ViolationWord,
)
from app.kit.schemas import (
    Amount,
    Answer,
    absent_when_none,
    timestamp,
)
from app.rules import Entry
from app.tables.model import TableInfo
from app.tables.sheet_schemas import Sheet

__all__ = [  # the posted body's names, read from here by other domains and the tests
    "DEAL_EXAMPLES",
    "DEAL_VARIANTS",
    "Clause",
    "DealInput",
    "Destination",
    "PenaltyAmount",
    "Reason",
    "ViolationWord",
]


# --- the deal as stored --------------------------------------------------------------------
class EntryOut(Answer):
    kind: KindWord = Field(description="pool, mountain, or whists on another player")
    seat: int = Field(description="who writes")
    on: int = absent_when_none(description="whists: the seat written on")
    amount: Amount = Field(description="negative: written off")

    @classmethod
    def of(cls, entry: Entry) -> EntryOut:
        return cls.model_validate(entry.to_dict())


# Answers leave a field out rather than send null: its type is not nullable.
class ChoicesOut(Answer):
    writeoff: list[int] = absent_when_none()
    help: int = absent_when_none()


class TalonOut(Answer):
    bonus: BonusWord = absent_when_none()
    discarded: bool = absent_when_none()
    returned: bool = absent_when_none()


# A stored deal reads in the order of the body: number and type, the kind's own fields,
# then the common ones and what the deal wrote (the bases are listed last to first).
class _StoredHead(Answer):
    number: int = Field(description="1, 2, ...: the deal's place in the log")
    type: str  # each kind names itself


class _StoredTail(Answer):
    dealer: int = absent_when_none()
    choices: ChoicesOut = absent_when_none()
    talon: TalonOut = absent_when_none()
    over_misere: bool = absent_when_none()
    note: str = absent_when_none()
    entries: list[EntryOut] = Field(description="what the deal wrote on the sheet")
    created_at: str = absent_when_none()


class _StoredContract(Answer):
    type: Literal["contract"]
    declarer: int
    contract: str
    defenders: dict[str, Defence]
    tricks: dict[str, int] = absent_when_none()


class _StoredMisere(Answer):
    type: Literal["misere"]
    declarer: int
    tricks: dict[str, int] = absent_when_none()


class _StoredRemise(Answer):
    type: Literal["remise"]
    declarer: int
    contract: str


class _StoredAllpass(Answer):
    type: Literal["allpass"]
    tricks: dict[str, int]


class _StoredClose(Answer):
    type: Literal["close"]


class _StoredPenalty(Answer):
    type: Literal["penalty"]
    offender: int
    amount: int = absent_when_none()
    destination: Destination = absent_when_none()
    violation: ViolationWord = absent_when_none()
    clause: str = absent_when_none()
    reason: str


class StoredContractDeal(_StoredTail, _StoredContract, _StoredHead):
    """A contract deal of the log."""


class StoredMisereDeal(_StoredTail, _StoredMisere, _StoredHead):
    """A misère of the log."""


class StoredRemiseDeal(_StoredTail, _StoredRemise, _StoredHead):
    """A remise of the log."""


class StoredAllpassDeal(_StoredTail, _StoredAllpass, _StoredHead):
    """An all-pass deal of the log."""


class StoredCloseDeal(_StoredTail, _StoredClose, _StoredHead):
    """The caller's end of a game played for a number of deals."""


class StoredPenaltyDeal(_StoredTail, _StoredPenalty, _StoredHead):
    """A judge's penalty of the log."""


class StoredDeal(
    RootModel[
        Annotated[
            StoredContractDeal
            | StoredMisereDeal
            | StoredRemiseDeal
            | StoredAllpassDeal
            | StoredCloseDeal
            | StoredPenaltyDeal,
            Field(discriminator="type"),
        ]
    ]
):
    """A deal of the log: its body as stored, its number and the entries it wrote."""

    @classmethod
    def of(cls, deal: DealInfo) -> StoredDeal:
        """The deal's canonical JSON as stored (``Deal.to_dict()``) and the engine's entries, in
        one validation (cheaper than a model per entry)."""
        fields: dict[str, Any] = {
            "number": deal.number,
            **deal.body,
            "entries": [e.to_dict() for e in deal.entries],
        }
        if deal.created_at is not None:
            fields["created_at"] = timestamp(deal.created_at)
        return cls.model_validate(fields)


class DealWithSheet(Answer):
    deal: StoredDeal
    sheet: Sheet

    @classmethod
    def of(cls, table: TableInfo, deal: DealInfo) -> DealWithSheet:
        return cls(deal=StoredDeal.of(deal), sheet=Sheet.of(table))


class DealCorrected(DealWithSheet):
    rescored: list[int] = Field(description="later deals whose entries changed")

    @classmethod
    def of_correction(cls, table: TableInfo, deal: DealInfo, rescored: list[int]) -> DealCorrected:
        return cls(deal=StoredDeal.of(deal), sheet=Sheet.of(table), rescored=rescored)


class DealPage(Answer):
    """One page of a deal log, in order: follow ``next`` until it is null."""

    items: list[StoredDeal]
    next: str | None = Field(description="the URL of the next page; null on the last")


class SharedDealPage(DealPage):
    """A page of the share link's deal log."""
