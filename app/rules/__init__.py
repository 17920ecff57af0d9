"""prefscore's rules engine: pure functions from a table's rules, its state and a deal
to the entries the deal writes and the new state. No I/O, no web, no database.

    rules = make_rules("piter", players=3, pool_target=20, options={"stalingrad": False})
    state = TableState.new(rules, first_dealer=0)
    result = apply_deal(rules, state, AllpassDeal(tricks=((0, 4), (1, 3), (2, 3))))  # -> DealResult
    deal = Deal.from_dict(stored_body)                          # a deal read back as JSON
    state = replay(rules, 0, deals).state                      # fold a whole log
    settle(rules, state, stake=Fraction(1, 2))                 # -> Settlement
"""

from app.rules.conventions import (
    ALIASES,
    CONVENTION_NAMES,
    FIELDS,
    PRESETS,
    SPECS,
    FieldSpec,
    Preset,
    conventions_catalog,
    legacy_overrides,
    make_rules,
    options_of,
)
from app.rules.deal import AllpassDeal, CloseDeal, ContractDeal, Deal, MisereDeal, PenaltyDeal, RemiseDeal
from app.rules.errors import (
    DealerMismatch,
    FieldError,
    InvalidDeal,
    InvalidTable,
    ReplayError,
    RulesError,
    TableFinished,
)
from app.rules.fields import (
    CONTRACT_VALUE,
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
)
from app.rules.scoring import DealResult, Replay, apply_deal, deal_game, replay
from app.rules.sentences import Sentence, joined, said, sentence
from app.rules.settlement import Settlement, Transfer, settle
from app.rules.state import Amount, Bonus, Entry, TableState, amount_from_json, amount_to_json, exact, sheet

__all__ = [
    "Sentence",
    "joined",
    "said",
    "sentence",
    "ALIASES",
    "CONTRACT_VALUE",
    "CONVENTION_NAMES",
    "COST_LADDERS",
    "EXIT_LADDERS",
    "FIELDS",
    "FIELD_NAMES",
    "PRESETS",
    "RULES_VERSION",
    "SPECS",
    "AllpassScoring",
    "Amount",
    "Bonus",
    "CleanDealer",
    "CleanPlayer",
    "Consolation",
    "CostLadder",
    "FieldSpec",
    "FixedDealerScope",
    "GameEnd",
    "MadeGameWriteoff",
    "PoolOverflow",
    "Preset",
    "Responsibility",
    "SingleWhister",
    "TwoWhistersHigh",
    "TalonBonusPrice",
    "UnwhistedWriteoff",
    "AllpassDeal",
    "CloseDeal",
    "ContractDeal",
    "Deal",
    "MisereDeal",
    "PenaltyDeal",
    "RemiseDeal",
    "DealResult",
    "DealerMismatch",
    "Entry",
    "FieldError",
    "InvalidDeal",
    "InvalidTable",
    "Replay",
    "ReplayError",
    "Rules",
    "RulesError",
    "Settlement",
    "TableFinished",
    "TableState",
    "Transfer",
    "amount_from_json",
    "amount_to_json",
    "apply_deal",
    "conventions_catalog",
    "deal_game",
    "exact",
    "legacy_overrides",
    "make_rules",
    "options_of",
    "replay",
    "settle",
    "sheet",
]
