"""Typed deal inputs (docs/api.md, posting a deal) and their shape checks.

``Deal.from_dict`` takes the JSON body of a deal and checks its shape: known
fields, types, seat keys. Whether the deal fits the table (active seats, tricks
adding up, the lowest contract, the convention's options) is checked by
``scoring.score_deal`` against the rules and the current state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from app.rules.errors import FieldError, InvalidDeal
from app.rules.sentences import Sentence
from app.rules.vocabulary import (
    CONTRACT_HELP,
    CONTRACT_RE,
    DEAL_NOTE_MAX,
    DEAL_TYPES,
    DEFENCE,
    PENALTY_AMOUNT_MAX,
    PENALTY_CLAUSE_MAX,
    PENALTY_DESTINATIONS,
    STRAINS,
    TALON_BONUSES,
    TALON_DEAL_TYPES,
    VIOLATIONS,
    one_of,
)

__all__ = [
    "DEAL_TYPES",
    "DEFENCE",
    "DEAL_NOTE_MAX",
    "STRAINS",
    "TALON_BONUSES",
    "AllpassDeal",
    "CloseDeal",
    "ContractDeal",
    "Deal",
    "MisereDeal",
    "PenaltyDeal",
    "RemiseDeal",
    "misplaced",
]

# One frozen type per kind of deal; ``Deal`` is their base, closed to the five kinds below,
# and stands for any of them. A request's model builds its kind directly (app/deals/posted_schemas.py);
# ``Deal.from_dict`` checks the shape of JSON read back (stored deals, imported records).

_CONTRACT_RE = CONTRACT_RE

_FIELDS = {
    "contract": {"type", "declarer", "contract", "defenders", "tricks"},
    "misere": {"type", "declarer", "tricks"},
    "remise": {"type", "declarer", "contract"},
    "allpass": {"type", "tricks"},
    "close": {"type"},  # the caller ends a game played for a number of deals (end_of_game deals)
    "penalty": {"type", "offender", "amount", "destination", "violation", "clause", "reason"},
}
_COMMON = {"dealer", "choices", "talon", "over_misere", "note"}

# The reasons of the shape rules both ways in share (``from_dict`` and ``misplaced``).
DEFENDERS_REASON = Sentence("must map each of the two defending seats to {answers}", answers=one_of(DEFENCE))
TRICKS_REASON = Sentence("must map seats to the tricks they took")
WRITEOFF_TWICE = Sentence("lists a seat twice")
TALON_MISPLACED = Sentence("only on contract and misère deals")
OVER_MISERE_MISPLACED = Sentence("only on a contract deal of 9 or 10")
CHOICES_MISPLACED = Sentence("a penalty makes no choice")
OFFENDER_REASON = Sentence("must be the seat number of the player penalised")
AMOUNT_REASON = Sentence("must be a whole number from 1 to {amount_max}", amount_max=PENALTY_AMOUNT_MAX)
DESTINATION_REASON = Sentence("must be {words}", words=one_of(PENALTY_DESTINATIONS))
VIOLATION_REASON = Sentence("must be {words}", words=one_of(VIOLATIONS))
CLAUSE_REASON = Sentence(
    'must be text of 1 to {clause_max} characters, e.g. "10.3"', clause_max=PENALTY_CLAUSE_MAX
)
REASON_REASON = Sentence(
    "required: why the penalty was given, text of 1 to {deal_note_max} characters",
    deal_note_max=DEAL_NOTE_MAX,
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Deal:
    """Any deal: the fields every kind has. Not made itself: each kind is its subclass."""

    type: ClassVar[str]
    dealer: int | None = None
    writeoff: tuple[int, ...] = ()  # choices.writeoff: seats that write off instead of the pool
    help: int | None = None  # choices.help: whom an overflow helps first
    note: str | None = None

    # What a kind has not, read as absent (each kind that has one declares it as its field).
    # A class attribute here, a field there; to the type checker a read-only value that a
    # kind's field may narrow (a class variable may not be overridden by a field).
    if TYPE_CHECKING:

        @property
        def declarer(self) -> int | None: ...
        @property
        def level(self) -> int | None: ...
        @property
        def strain(self) -> str | None: ...
        @property
        def defenders(self) -> tuple[tuple[int, str], ...]: ...
        @property
        def tricks(self) -> tuple[tuple[int, int], ...] | None: ...
        @property
        def talon_bonus(self) -> str | None: ...
        @property
        def talon_discarded(self) -> bool: ...
        @property
        def talon_returned(self) -> bool: ...
        @property
        def over_misere(self) -> bool: ...
    else:
        declarer = None
        level = None
        strain = None
        defenders = ()  # (seat, "whist" | "pass" | "half_whist")
        tricks = None  # (seat, tricks) as given
        talon_bonus = None
        talon_discarded = False
        talon_returned = False
        over_misere = False

    @property
    def contract(self) -> str | None:
        return None if self.level is None else f"{self.level}{self.strain}"

    def defence(self, seat: int) -> str | None:
        for s, d in self.defenders:
            if s == seat:
                return d
        return None

    def tricks_of(self, seat: int) -> int:
        for s, t in self.tricks or ():
            if s == seat:
                return t
        return 0

    @classmethod
    def from_dict(cls, body: Any) -> Deal:
        """Parse a deal body read back as JSON; raise InvalidDeal naming every bad field."""
        errors: list[FieldError] = []
        if not isinstance(body, dict):
            raise InvalidDeal([FieldError("body", "must be a JSON object")])
        kind = body.get("type")
        if kind not in DEAL_TYPES:
            raise InvalidDeal(
                [FieldError("type", Sentence("must be one of {choices}", choices=", ".join(DEAL_TYPES)))]
            )
        allowed = _FIELDS[kind] | _COMMON
        for name in body:
            if name not in allowed:
                errors.append(FieldError(str(name), Sentence("not a field of a {kind} deal", kind=kind)))
        values: dict[str, Any] = {}
        _parse_play(kind, body, values, errors)
        _parse_circumstances(kind, body, values, errors)
        if errors:
            raise InvalidDeal(errors)
        return KINDS[kind](**values)

    def to_dict(self) -> dict[str, Any]:
        """The canonical JSON body of this deal (from_dict(to_dict()) == self)."""
        out: dict[str, Any] = {"type": self.type}
        if self.declarer is not None:
            out["declarer"] = self.declarer
        if self.level is not None:
            out["contract"] = self.contract
        if self.type == "contract":
            out["defenders"] = {str(s): d for s, d in self.defenders}
        if self.tricks is not None:
            out["tricks"] = {str(s): t for s, t in self.tricks}
        if self.dealer is not None:
            out["dealer"] = self.dealer
        choices: dict[str, Any] = {}
        if self.writeoff:
            choices["writeoff"] = list(self.writeoff)
        if self.help is not None:
            choices["help"] = self.help
        if choices:
            out["choices"] = choices
        talon: dict[str, Any] = {}
        if self.talon_bonus is not None:
            talon["bonus"] = self.talon_bonus
        if self.talon_discarded:
            talon["discarded"] = True
        if self.talon_returned:
            talon["returned"] = True
        if talon:
            out["talon"] = talon
        if self.over_misere:
            out["over_misere"] = True
        if isinstance(self, PenaltyDeal):
            out |= self.penalty_fields()
        if self.note is not None:
            out["note"] = self.note
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class ContractDeal(Deal):
    """A contract was bid: the declarer played it (or both defenders passed)."""

    type: ClassVar[str] = "contract"
    declarer: int
    level: int
    strain: str
    defenders: tuple[tuple[int, str], ...]
    tricks: tuple[tuple[int, int], ...] | None = None
    talon_bonus: str | None = None
    talon_discarded: bool = False
    talon_returned: bool = False
    over_misere: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class MisereDeal(Deal):
    """A misère: the declarer tries to take no trick."""

    type: ClassVar[str] = "misere"
    declarer: int
    tricks: tuple[tuple[int, int], ...] | None = None
    talon_bonus: str | None = None
    talon_discarded: bool = False
    talon_returned: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class RemiseDeal(Deal):
    """A remise ("without three"): the declarer concedes the contract unplayed."""

    type: ClassVar[str] = "remise"
    declarer: int
    level: int
    strain: str


@dataclass(frozen=True, slots=True, kw_only=True)
class AllpassDeal(Deal):
    """All passed: every player's tricks."""

    type: ClassVar[str] = "allpass"
    tricks: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class CloseDeal(Deal):
    """The caller ends a game played for a number of deals; it writes nothing."""

    type: ClassVar[str] = "close"


@dataclass(frozen=True, slots=True, kw_only=True)
class PenaltyDeal(Deal):
    """A judge's penalty written on the sheet between deals (docs/rules.md §15): ``amount``
    to the offender's mountain, as whists of each other player on him, or kept apart. It
    does not move the deal on."""

    type: ClassVar[str] = "penalty"
    offender: int
    amount: int | None = None  # None: the violation's amount where the code fixes it
    destination: str | None = None  # None: the table's penalties_to
    violation: str | None = None
    clause: str | None = None
    reason: str

    def penalty_fields(self) -> dict[str, Any]:
        out: dict[str, Any] = {"offender": self.offender}
        if self.amount is not None:
            out["amount"] = self.amount
        if self.destination is not None:
            out["destination"] = self.destination
        if self.violation is not None:
            out["violation"] = self.violation
        if self.clause is not None:
            out["clause"] = self.clause
        out["reason"] = self.reason
        return out


KINDS: dict[str, type[Deal]] = {
    k.type: k for k in (ContractDeal, MisereDeal, RemiseDeal, AllpassDeal, CloseDeal, PenaltyDeal)
}
assert tuple(KINDS) == DEAL_TYPES


def misplaced(
    kind: str,
    *,
    defenders: Mapping[Any, Any] | None = None,
    tricks: Mapping[Any, Any] | None = None,
    writeoff: Sequence[int] | None = None,
    talon: bool = False,
    over_misere: bool | None = None,
    choices: bool = False,
) -> list[FieldError]:
    """The shape rules a request's model does not state, for a body whose fields have their
    types: empty maps, a seat written off twice, a talon or over_misere on a kind that has
    none. The same reasons as ``Deal.from_dict``, in its order."""
    errors: list[FieldError] = []
    if defenders is not None and not defenders:
        errors.append(FieldError("defenders", DEFENDERS_REASON))
    if tricks is not None and not tricks:
        errors.append(FieldError("tricks", TRICKS_REASON))
    if writeoff is not None and len(set(writeoff)) != len(writeoff):
        errors.append(FieldError("choices.writeoff", WRITEOFF_TWICE))
    if talon and kind not in TALON_DEAL_TYPES:
        errors.append(FieldError("talon", TALON_MISPLACED))
    if over_misere and kind != "contract":
        errors.append(FieldError("over_misere", OVER_MISERE_MISPLACED))
    if choices and kind == "penalty":
        errors.append(FieldError("choices", CHOICES_MISPLACED))
    return errors


def _seat(value: Any, name: str, errors: list[FieldError], required: bool) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3:
        errors.append(FieldError(name, "must be a seat number 0-3"))
        return None
    return value


def _seat_key(key: Any, name: str, errors: list[FieldError]) -> int | None:
    if isinstance(key, str) and key in ("0", "1", "2", "3"):
        return int(key)
    errors.append(FieldError(name, 'keys must be seat numbers "0"-"3"'))
    return None


def _parse_choices(choices: Any, values: dict[str, Any], errors: list[FieldError]) -> None:
    if not isinstance(choices, dict):
        errors.append(FieldError("choices", "must be an object with writeoff and/or help"))
        return
    for name in choices:
        if name not in ("writeoff", "help"):
            errors.append(FieldError(f"choices.{name}", "not a choice (writeoff, help)"))
    if "writeoff" in choices:
        seats = choices["writeoff"]
        if not isinstance(seats, list) or any(
            isinstance(s, bool) or not isinstance(s, int) or not 0 <= s <= 3 for s in seats
        ):
            errors.append(FieldError("choices.writeoff", "must be a list of seat numbers"))
        elif len(set(seats)) != len(seats):
            errors.append(FieldError("choices.writeoff", WRITEOFF_TWICE))
        else:
            values["writeoff"] = tuple(sorted(seats))
    if "help" in choices:
        values["help"] = _seat(choices["help"], "choices.help", errors, required=True)


def _parse_talon(talon: Any, values: dict[str, Any], errors: list[FieldError]) -> None:
    if not isinstance(talon, dict):
        errors.append(FieldError("talon", "must be an object"))
        return
    for name in talon:
        if name not in ("bonus", "discarded", "returned"):
            errors.append(FieldError(f"talon.{name}", "not a talon field (bonus, discarded, returned)"))
    if "bonus" in talon and talon["bonus"] is not None:
        if talon["bonus"] not in TALON_BONUSES:
            errors.append(
                FieldError("talon.bonus", Sentence("must be {words}", words=one_of(tuple(TALON_BONUSES))))
            )
        else:
            values["talon_bonus"] = talon["bonus"]
    for flag in ("discarded", "returned"):
        if flag in talon:
            if not isinstance(talon[flag], bool):
                errors.append(FieldError(f"talon.{flag}", "must be true or false"))
            else:
                values[f"talon_{flag}"] = talon[flag]


def _parse_play(kind: str, body: dict[str, Any], values: dict[str, Any], errors: list[FieldError]) -> None:
    """The fields that say what was played: declarer, contract, defenders, tricks, a penalty."""
    if "declarer" in _FIELDS[kind]:
        values["declarer"] = _seat(body.get("declarer"), "declarer", errors, required=True)
    if "contract" in _FIELDS[kind]:
        raw = body.get("contract")
        match = _CONTRACT_RE.match(raw) if isinstance(raw, str) else None
        if match is None:
            errors.append(FieldError("contract", Sentence("must be {words}", words=CONTRACT_HELP)))
        else:
            values["level"], values["strain"] = int(match.group(1)), match.group(2)
    if kind == "contract":
        _parse_defenders(body.get("defenders"), values, errors)
    if "tricks" in _FIELDS[kind] and "tricks" in body:
        _parse_tricks(body["tricks"], values, errors)
    elif kind == "allpass":
        errors.append(FieldError("tricks", "required: every player's tricks"))
    if kind == "penalty":
        _parse_penalty(body, values, errors)


def _parse_defenders(defenders: Any, values: dict[str, Any], errors: list[FieldError]) -> None:
    if not isinstance(defenders, dict) or not defenders:
        errors.append(FieldError("defenders", DEFENDERS_REASON))
        return
    pairs = []
    for key, value in defenders.items():
        seat = _seat_key(key, f"defenders.{key}", errors)
        if value not in DEFENCE:
            errors.append(FieldError(f"defenders.{key}", Sentence("must be {words}", words=one_of(DEFENCE))))
        elif seat is not None:
            pairs.append((seat, value))
    values["defenders"] = tuple(sorted(pairs))


def _parse_tricks(tricks: Any, values: dict[str, Any], errors: list[FieldError]) -> None:
    if not isinstance(tricks, dict) or not tricks:
        errors.append(FieldError("tricks", TRICKS_REASON))
        return
    pairs = []
    for key, value in tricks.items():
        seat = _seat_key(key, f"tricks.{key}", errors)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 10:
            errors.append(FieldError(f"tricks.{key}", "must be a whole number of tricks from 0 to 10"))
        elif seat is not None:
            pairs.append((seat, value))
    values["tricks"] = tuple(sorted(pairs))


def _parse_circumstances(
    kind: str, body: dict[str, Any], values: dict[str, Any], errors: list[FieldError]
) -> None:
    """The fields around the play: dealer, choices, talon, over_misere, note."""
    if "dealer" in body:
        values["dealer"] = _seat(body["dealer"], "dealer", errors, required=True)
    if "choices" in body and kind == "penalty":
        errors.append(FieldError("choices", CHOICES_MISPLACED))
    elif "choices" in body:
        _parse_choices(body["choices"], values, errors)
    if "talon" in body:
        if kind not in TALON_DEAL_TYPES:
            errors.append(FieldError("talon", TALON_MISPLACED))
        else:
            _parse_talon(body["talon"], values, errors)
    if "over_misere" in body:
        if not isinstance(body["over_misere"], bool):
            errors.append(FieldError("over_misere", "must be true or false"))
        elif body["over_misere"] and kind != "contract":
            errors.append(FieldError("over_misere", OVER_MISERE_MISPLACED))
        elif kind == "contract":  # false elsewhere says what the kind says anyway
            values["over_misere"] = body["over_misere"]
    if "note" in body and body["note"] is not None:
        note = body["note"]
        if not isinstance(note, str) or len(note) > DEAL_NOTE_MAX:
            errors.append(
                FieldError(
                    "note",
                    Sentence(
                        "must be text of at most {deal_note_max} characters", deal_note_max=DEAL_NOTE_MAX
                    ),
                )
            )
        else:
            values["note"] = note


def _parse_penalty(body: dict[str, Any], values: dict[str, Any], errors: list[FieldError]) -> None:
    offender = body.get("offender")
    if isinstance(offender, bool) or not isinstance(offender, int) or not 0 <= offender <= 3:
        errors.append(FieldError("offender", OFFENDER_REASON))
    else:
        values["offender"] = offender
    if body.get("amount") is not None:
        amount = body["amount"]
        if isinstance(amount, bool) or not isinstance(amount, int) or not 1 <= amount <= PENALTY_AMOUNT_MAX:
            errors.append(FieldError("amount", AMOUNT_REASON))
        else:
            values["amount"] = amount
    if body.get("destination") is not None:
        if body["destination"] not in PENALTY_DESTINATIONS:
            errors.append(FieldError("destination", DESTINATION_REASON))
        else:
            values["destination"] = body["destination"]
    if body.get("violation") is not None:
        if body["violation"] not in VIOLATIONS:
            errors.append(FieldError("violation", VIOLATION_REASON))
        else:
            values["violation"] = body["violation"]
    if body.get("clause") is not None:
        clause = body["clause"]
        if not isinstance(clause, str) or not 1 <= len(clause) <= PENALTY_CLAUSE_MAX:
            errors.append(FieldError("clause", CLAUSE_REASON))
        else:
            values["clause"] = clause
    reason = body.get("reason")
    if not isinstance(reason, str) or not 1 <= len(reason.strip()) or len(reason) > DEAL_NOTE_MAX:
        errors.append(FieldError("reason", REASON_REASON))
    else:
        values["reason"] = reason
