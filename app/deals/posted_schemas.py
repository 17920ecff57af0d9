"""The body of a deal as posted: one named union tagged by ``type``, whose every kind builds the
engine's frozen deal from its checked fields, and the field types a deal's body and its stored
form share."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, overload

from pydantic import Field, RootModel

from app.kit.errors import Unprocessable
from app.kit.schemas import (
    PlainText,
    Request,
    Seat,
    SeatMap,
    Tricks,
)
from app.rules import InvalidDeal, Sentence
from app.rules import deal as engine
from app.rules.vocabulary import (
    CONTRACT_HELP,
    CONTRACT_PATTERN,
    CONTRACT_RE,
    DEAL_NOTE_MAX,
    DEFENCE,
    PENALTY_AMOUNT_MAX,
    PENALTY_CLAUSE_MAX,
    PENALTY_DESTINATIONS,
    SEATS_MAX,
    TALON_BONUSES,
    VIOLATIONS,
    DealType,
    EntryKind,
)

ContractCode = Annotated[str, Field(pattern=CONTRACT_PATTERN, description=CONTRACT_HELP)]
# Closed sets made at run time: Literals to pydantic, strings to the type checker.
if TYPE_CHECKING:
    Defence = str
    BonusWord = str
    KindWord = str
    Destination = str
    ViolationWord = str
else:
    Defence = Literal[DEFENCE]
    BonusWord = Literal[tuple(TALON_BONUSES)]
    KindWord = Literal[tuple(m.value for m in EntryKind)]
    Destination = Literal[PENALTY_DESTINATIONS]
    ViolationWord = Literal[VIOLATIONS]
Note = Annotated[str, Field(max_length=DEAL_NOTE_MAX), PlainText]
PenaltyAmount = Annotated[int, Field(ge=1, le=PENALTY_AMOUNT_MAX)]
Clause = Annotated[str, Field(min_length=1, max_length=PENALTY_CLAUSE_MAX), PlainText]
Reason = Annotated[str, Field(min_length=1, max_length=DEAL_NOTE_MAX), PlainText]
DefenceMap = SeatMap[Defence]
TricksMap = SeatMap[Tricks]


# --- the deal as posted --------------------------------------------------------------------
# Each kind's model builds the engine's frozen deal from its checked fields (``to_deal``): the
# body's shape is checked once, here; whether the deal fits the table, by the engine.
@overload
def _pairs(seats: dict[str, Any]) -> tuple[tuple[int, Any], ...]: ...
@overload
def _pairs(seats: None) -> None: ...
@overload
def _pairs(seats: dict[str, Any] | None) -> tuple[tuple[int, Any], ...] | None: ...
def _pairs(seats: dict[str, Any] | None) -> tuple[tuple[int, Any], ...] | None:
    """A map by seat as the engine holds it: (seat, value) pairs in seat order."""
    return None if seats is None else tuple(sorted((int(seat), value) for seat, value in seats.items()))


def _level_and_strain(contract: str) -> tuple[int, str]:
    match = CONTRACT_RE.match(contract)
    assert match is not None  # the field's pattern is the same expression
    return int(match.group(1)), match.group(2)


class Choices(Request):
    writeoff: list[Seat] = Field(
        default=None,  # type: ignore[arg-type]  # absent, not null: see pyproject's [tool.mypy]
        max_length=SEATS_MAX,
        description="seats that write off the mountain instead of the pool",
    )
    help: Seat = Field(default=None, description="whom an overflow helps first")


class Talon(Request):
    bonus: BonusWord = Field(default=None, description="rostov: what the talon brought")
    discarded: bool = Field(default=None, description="rostov: the talon was thrown away")
    returned: bool = Field(default=None, description="piter with return_talon: the talon was returned")


# A deal's fields in the order of the body: the kind's own (its type first), then the
# common ones (the bases are listed last to first).
class _DealCommon(Request):
    dealer: Seat = Field(default=None, description="checked against the expected dealer (409 if it differs)")
    choices: Choices = Field(default=None)
    talon: Talon = Field(default=None, description="only on contract and misere deals")
    over_misere: bool = Field(default=None, description="piter_races: a 9 or 10 that outbid a misere")
    note: Note | None = Field(default=None, description=f"free text, at most {DEAL_NOTE_MAX} characters")

    def _refuse_misplaced(
        self, defenders: dict[str, Any] | None = None, tricks: dict[str, Any] | None = None
    ) -> None:
        """The shape rules the fields' types do not state (engine.misplaced)."""
        errors = engine.misplaced(
            self.type,  # type: ignore[attr-defined]  # each kind's own
            defenders=defenders,
            tricks=tricks,
            writeoff=None if self.choices is None else self.choices.writeoff,
            talon=self.talon is not None,
            over_misere=self.over_misere,
            choices=self.choices is not None,
        )
        if errors:
            raise InvalidDeal(errors)

    def _common(self) -> dict[str, Any]:
        """The engine's fields every kind has."""
        choices = self.choices
        if choices is None:
            return {"dealer": self.dealer, "note": self.note}
        return {
            "dealer": self.dealer,
            "writeoff": tuple(sorted(choices.writeoff or ())),
            "help": choices.help,
            "note": self.note,
        }

    def _talon(self) -> dict[str, Any]:
        talon = self.talon
        if talon is None:
            return {}
        return {
            "talon_bonus": talon.bonus,
            "talon_discarded": bool(talon.discarded),
            "talon_returned": bool(talon.returned),
        }


class _Contract(Request):
    type: Literal["contract"] = "contract"
    declarer: Seat
    contract: ContractCode
    defenders: DefenceMap = Field(description="the two other active seats: whist, pass or half_whist")
    tricks: TricksMap = Field(
        default=None,  # type: ignore[arg-type]  # absent, not null: see pyproject's [tool.mypy] description="every active seat's tricks, summing to 10, when a defender whisted"
    )


class _Misere(Request):
    type: Literal["misere"] = "misere"
    declarer: Seat
    tricks: TricksMap = Field(default=None, description="may hold only the declarer's count")  # type: ignore[arg-type]  # absent, not null


class _Remise(Request):
    type: Literal["remise"] = "remise"
    declarer: Seat
    contract: ContractCode


class _Allpass(Request):
    type: Literal["allpass"] = "allpass"
    tricks: TricksMap = Field(description="every active seat's tricks")


class _Close(Request):
    type: Literal["close"] = "close"


class _Penalty(Request):
    type: Literal["penalty"] = "penalty"
    offender: Seat = Field(description="the player penalised")
    amount: PenaltyAmount = Field(
        default=None,
        description="points to the mountain or apart, or whists from each other player; "
        "required unless the violation's amount is fixed",
    )
    destination: Destination = Field(
        default=None,
        description="mountain, whists (each other player on the offender) or apart; "
        "default: the table's penalties_to",
    )
    violation: ViolationWord = Field(default=None, description="the section 10 error penalised")
    clause: Clause = Field(default=None, description='the clause of the code applied, e.g. "10.3"')
    reason: Reason = Field(description="why the penalty was given")


class ContractDealBody(_DealCommon, _Contract, title="ContractDeal"):
    """A contract was bid: the declarer played it (or both defenders passed)."""

    __qualname__ = "ContractDeal"  # the OpenAPI component's name (with the title): the contract's

    example = {
        "type": "contract",
        "declarer": 1,
        "contract": "7H",
        "defenders": {"2": "whist", "0": "pass"},
        "tricks": {"1": 6, "2": 3, "0": 1},
    }

    def to_deal(self) -> engine.ContractDeal:
        self._refuse_misplaced(defenders=self.defenders, tricks=self.tricks)
        level, strain = _level_and_strain(self.contract)
        return engine.ContractDeal(
            declarer=self.declarer,
            level=level,
            strain=strain,
            defenders=_pairs(self.defenders),
            tricks=_pairs(self.tricks),
            over_misere=bool(self.over_misere),
            **self._talon(),
            **self._common(),
        )


class MisereDealBody(_DealCommon, _Misere, title="MisereDeal"):
    """A misère: the declarer tries to take no trick."""

    __qualname__ = "MisereDeal"  # the OpenAPI component's name (with the title): the contract's

    example = {"type": "misere", "declarer": 0, "tricks": {"0": 1, "1": 5, "2": 4}}

    def to_deal(self) -> engine.MisereDeal:
        self._refuse_misplaced(tricks=self.tricks)
        return engine.MisereDeal(
            declarer=self.declarer, tricks=_pairs(self.tricks), **self._talon(), **self._common()
        )


class RemiseDealBody(_DealCommon, _Remise, title="RemiseDeal"):
    """A remise ("without three"): the declarer concedes the contract unplayed."""

    __qualname__ = "RemiseDeal"  # the OpenAPI component's name (with the title): the contract's

    example = {"type": "remise", "declarer": 2, "contract": "8S"}

    def to_deal(self) -> engine.RemiseDeal:
        self._refuse_misplaced()
        level, strain = _level_and_strain(self.contract)
        return engine.RemiseDeal(declarer=self.declarer, level=level, strain=strain, **self._common())


class AllpassDealBody(_DealCommon, _Allpass, title="AllpassDeal"):
    """All passed: every player's tricks."""

    __qualname__ = "AllpassDeal"  # the OpenAPI component's name (with the title): the contract's

    example = {"type": "allpass", "tricks": {"0": 2, "1": 5, "2": 3}}

    def to_deal(self) -> engine.AllpassDeal:
        self._refuse_misplaced(tricks=self.tricks)
        return engine.AllpassDeal(tricks=_pairs(self.tricks), **self._common())


class CloseDealBody(_DealCommon, _Close, title="CloseDeal"):
    """The caller ends the game: only where the table is played for a number of deals
    (``end_of_game: deals``); it writes nothing."""

    __qualname__ = "CloseDeal"  # the OpenAPI component's name (with the title): the contract's

    example = {"type": "close"}

    def to_deal(self) -> engine.CloseDeal:
        self._refuse_misplaced()
        return engine.CloseDeal(**self._common())


class PenaltyDealBody(_DealCommon, _Penalty, title="PenaltyDeal"):
    """A judge's penalty written between deals: it does not move the deal on (docs/rules.md §15)."""

    __qualname__ = "PenaltyDeal"  # the OpenAPI component's name (with the title): the contract's

    example = {
        "type": "penalty",
        "offender": 1,
        "amount": 10,
        "destination": "mountain",
        "clause": "10.3",
        "reason": "lead out of turn",
    }

    def to_deal(self) -> engine.PenaltyDeal:
        self._refuse_misplaced()
        return engine.PenaltyDeal(
            offender=self.offender,
            amount=self.amount,
            destination=self.destination,
            violation=self.violation,
            clause=self.clause,
            reason=self.reason,
            **self._common(),
        )


DEAL_VARIANTS = (
    ContractDealBody,
    MisereDealBody,
    RemiseDealBody,
    AllpassDealBody,
    CloseDealBody,
    PenaltyDealBody,
)
assert tuple(v.model_fields["type"].default for v in DEAL_VARIANTS) == tuple(m.value for m in DealType)


class DealInput(
    RootModel[
        Annotated[
            ContractDealBody
            | MisereDealBody
            | RemiseDealBody
            | AllpassDealBody
            | CloseDealBody
            | PenaltyDealBody,
            Field(discriminator="type"),
        ]
    ]
):
    """A deal body: one of the six kinds, told apart by ``type``."""

    def to_deal(self) -> engine.Deal:
        """The engine's deal of this body (its kind's frozen type); 422 naming the field when
        a shape rule the fields' types do not state is broken."""
        try:
            return self.root.to_deal()
        except InvalidDeal as exc:
            raise Unprocessable(
                Sentence("the deal is not valid: {reasons}", reasons=exc.sentence), exc.errors
            ) from exc

    def body(self) -> dict[str, Any]:
        """The fields the caller sent, as sent (an Idempotency-Key's request fingerprint)."""
        return self.root.model_dump(exclude_unset=True) | {"type": self.root.type}


DEAL_EXAMPLES = {
    v.model_fields["type"].default: {"summary": (v.__doc__ or "").strip(), "value": v.example}
    for v in DEAL_VARIANTS
}
