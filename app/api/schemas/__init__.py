"""The HTTP contract as pydantic models: each request body and each JSON answer is defined
here once, and every answer is serialised from its model (FastAPI's typed return path).
Requests refuse unknown fields and are strict about types; the engine then checks the rules
(Deal.from_dict, make_rules)."""

from .common import Amount, Answer, Name, Request, Seat, SeatKey, Tricks, timestamp
from .deals import (
    DEAL_EXAMPLES,
    AllpassDeal,
    Choices,
    ContractDeal,
    DealCorrected,
    DealInput,
    DealPage,
    DealWithSheet,
    EntryOut,
    MisereDeal,
    RemiseDeal,
    SharedDealPage,
    StoredDeal,
    Talon,
)
from .keys import HealthOut, KeyCreate, KeyList, KeyListed, KeyOut
from .problems import PROBLEM, FieldProblem, Problem, problem_responses
from .sheet import Allpass, Match, MatchBonus, MatchTotal, Sheet, SheetPlayer
from .tables import PlayerOut, SettlementOut, SettlementPlayer, SharedOut, TableCreate, TableOut, TransferOut

__all__ = [
    "DEAL_EXAMPLES",
    "PROBLEM",
    "Allpass",
    "AllpassDeal",
    "Amount",
    "Answer",
    "Choices",
    "ContractDeal",
    "DealCorrected",
    "DealInput",
    "DealPage",
    "DealWithSheet",
    "EntryOut",
    "FieldProblem",
    "HealthOut",
    "KeyCreate",
    "KeyList",
    "KeyListed",
    "KeyOut",
    "Match",
    "MatchBonus",
    "MatchTotal",
    "MisereDeal",
    "Name",
    "PlayerOut",
    "Problem",
    "RemiseDeal",
    "Request",
    "Seat",
    "SeatKey",
    "SettlementOut",
    "SettlementPlayer",
    "SharedDealPage",
    "SharedOut",
    "Sheet",
    "SheetPlayer",
    "StoredDeal",
    "Talon",
    "TableCreate",
    "TableOut",
    "TransferOut",
    "Tricks",
    "problem_responses",
    "timestamp",
]
