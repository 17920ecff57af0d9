"""The open game record (docs/record.md, docs/record.schema.json): one model for the document
an export answers and an import takes, so that what is exported can be imported as it is."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field, StringConstraints

from app.deals.schemas import DEAL_VARIANTS
from app.kit.schemas import Name, PlainText, Request, Seat, at_most
from app.records.limits import RECORD_ENTRIES_MAX
from app.records.service import FORMAT, VERSION, example_record
from app.rules import FIELD_NAMES
from app.rules.vocabulary import EntryKind
from app.tables.limits import TABLE_NOTE_MAX, TITLE_MAX
from app.tables.model import DEFAULT_LIMITS
from app.tables.schemas import ConventionName, Options
from app.tables.sheet_schemas import Sheet

# A closed set made at run time: a Literal to pydantic, a string to the type checker.
if TYPE_CHECKING:
    KindWord = str
else:
    KindWord = Literal[tuple(m.value for m in EntryKind)]
ExactAmount = Annotated[
    int | Annotated[str, StringConstraints(pattern=r"^-?[0-9]{1,18}(/[0-9]{1,18})?$")],
    Field(description='an exact amount: an integer, or a fraction "p/q" such as "-10/3"'),
]
Moment = Annotated[str, StringConstraints(max_length=40)]

# The deals a record may hold: the deal limit (PREFSCORE_MAX_DEALS_PER_TABLE) as it is by
# default. A model's bound is fixed when it is made: the import checks the configured limit
# too (app/records/service.py), and a limit raised above this one stops here.
RECORD_DEALS_MAX = DEFAULT_LIMITS.deals_per_table
_DEAL_FIELDS_MAX = max(len(v.model_fields) for v in DEAL_VARIANTS)
DealBody = Annotated[dict[str, Any], Field(max_length=_DEAL_FIELDS_MAX), at_most(_DEAL_FIELDS_MAX)]
RuleValues = Annotated[dict[str, Any], Field(max_length=len(FIELD_NAMES)), at_most(len(FIELD_NAMES))]
SheetValues = Annotated[
    dict[str, Any], Field(max_length=len(Sheet.model_fields)), at_most(len(Sheet.model_fields))
]


class RecordEntry(Request):
    kind: KindWord
    seat: Seat
    on: Seat | None = Field(description="whists: the seat written on; null otherwise")
    amount: ExactAmount


class RecordDeal(Request):
    number: int = Field(ge=1, le=10**6, description="1 for the first deal, in order")
    deal: DealBody = Field(
        description="the deal in canonical form, as GET /v1/tables/{id}/deals/{n} shows its body"
    )
    entries: list[RecordEntry] = Field(
        max_length=RECORD_ENTRIES_MAX, description="what the deal wrote, checked against its re-scoring"
    )
    created_at: Moment | None = Field(description="when the deal was posted (ISO 8601, UTC)")


class RecordPlayer(Request):
    seat: Seat
    name: Name


class RecordTable(Request):
    id: Annotated[str, StringConstraints(max_length=64)] | None = Field(
        description="the table's id where it was exported (not kept by an import)"
    )
    convention: ConventionName
    title: Annotated[str, StringConstraints(max_length=TITLE_MAX), PlainText] | None
    note: Annotated[str, StringConstraints(max_length=TABLE_NOTE_MAX), PlainText] | None
    pool_target: int = Field(ge=1, le=1000)
    first_dealer: Seat
    options: Options = Field(
        description="the options that make the rules from the convention (as on the table)"
    )
    rules_version: int = Field(
        ge=1, le=1000, description="the version of the rule table the table is scored under"
    )
    rules: RuleValues = Field(
        description="every field of the typed rule table with its value (docs/rules.md)"
    )
    created_at: Moment | None
    updated_at: Moment | None


class Record(Request):
    """A game as one JSON document: the table, its rules, players, deals and final sheet."""

    format: Literal[FORMAT] = Field(description=f'always "{FORMAT}"')  # type: ignore[valid-type]
    version: Literal[VERSION] = Field(description=f"the version of the format: {VERSION}")  # type: ignore[valid-type]
    table: RecordTable
    players: list[RecordPlayer] = Field(min_length=3, max_length=4)
    # fail_fast: the first refused deal ends the validation (a record is refused whole).
    deals: list[RecordDeal] = Field(
        max_length=RECORD_DEALS_MAX,
        fail_fast=True,
        description=f"at most {RECORD_DEALS_MAX} deals (the deal limit), in order",
    )
    sheet: SheetValues = Field(
        description="the final sheet as GET /v1/tables/{id}/sheet shows it, amounts exact"
    )

    example = example_record()
