"""Tables: the body that creates one, the table as answered, its settlement, and the read-only
view of the share link."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Discriminator, Field, StringConstraints, Tag

from app.kit import amounts
from app.kit.schemas import (
    Amount,
    Answer,
    ConventionName,
    Name,
    PlainText,
    Request,
    absent_when_none,
    at_most,
    timestamp,
)
from app.players.schemas import SeatIn
from app.ratings.schemas import SeatRatingOut
from app.ratings.service import TableRating
from app.rules import FIELD_NAMES, Settlement
from app.tables.limits import TABLE_NOTE_MAX, TITLE_MAX
from app.tables.model import ListedTable, TableInfo, TablePage
from app.tables.sheet_schemas import Sheet

# A table's options name fields of the rule table, each once.
Options = Annotated[dict[str, Any], Field(max_length=len(FIELD_NAMES)), at_most(len(FIELD_NAMES))]


def _seat_tag(value: Any) -> str:
    return "seat" if isinstance(value, dict) else "name"


# A seat is a plain name or a seat object; the tag only picks which one validates (its name is
# taken out of the refused field's path by app/kit/validation_errors.py).
Seat = Annotated[Annotated[Name, Tag("name")] | Annotated[SeatIn, Tag("seat")], Discriminator(_seat_tag)]


class TableCreate(Request):
    players: list[Seat] = Field(
        min_length=3,
        max_length=4,
        description='3 or 4 distinct names, seats 0..n-1 in order; a seat may be {"name", "player"} or {"name", "external_id"} to link it to the player registry',
    )
    convention: ConventionName
    pool_target: int = Field(
        default=None, ge=1, le=1000, description="the pool to reach; 20 (piter_races: 22) when left out"
    )
    first_dealer: int = Field(default=0, ge=0, le=3, description="the seat that deals first")
    options: Options = Field(
        default_factory=dict, description="any subset of the convention's options (GET /v1/conventions)"
    )
    rated: bool = Field(
        default=False,
        description="the table counts for its players' ratings once it has finished with every seat a registered player "
        "(docs/ratings.md); off unless asked (a tournament's tables ask for it)",
    )

    example = {
        "players": ["Anna", "Boris", "Vera"],
        "convention": "piter",
        "pool_target": 20,
        "first_dealer": 0,
        "options": {"stalingrad": True, "allpass_costs": [2, 4, 6], "exit_levels": [6, 7, 7]},
    }


class PlayerOut(Answer):
    seat: int
    name: str


class PublicTable(Answer):
    """A table as anyone holding its share link sees it: everything but the owner's note."""

    id: str
    convention: ConventionName
    pool_target: int
    first_dealer: int
    options: dict[str, Any] = Field(description="every option of the convention with its effective value")
    players: list[PlayerOut]
    deal_count: int
    share_token: str = Field(description="the read-only share link is /shared/{share_token}")
    created_at: str
    updated_at: str = Field(
        description="the table's latest change: a deal, an undo, a correction, a rename, ..."
    )
    title: str | None = Field(description="set with PATCH; null when untitled")
    archived: bool = Field(
        description="an archived table refuses deals (409) and leaves GET /v1/tables unless ?status=archived"
    )
    rules_version: int = Field(
        description="the version of the rule table the table is scored under (docs/rules.md)"
    )
    rated: bool = Field(
        description="the table counts for its players' ratings once finished (docs/ratings.md)"
    )
    sheet: Sheet

    @classmethod
    def fields_of(cls, table: TableInfo) -> dict[str, Any]:
        return {
            "id": table.id,
            "convention": table.convention,
            "pool_target": table.pool_target,
            "first_dealer": table.first_dealer,
            "options": table.options,
            "players": [PlayerOut(seat=i, name=n) for i, n in enumerate(table.players)],
            "deal_count": table.deal_count,
            "share_token": table.share_token,
            "created_at": timestamp(table.created_at),
            "updated_at": timestamp(table.updated_at or table.created_at),
            "title": table.title,
            "archived": table.archived,
            "rules_version": table.rules_version,
            "rated": table.rated,
            "sheet": Sheet.of(table),
        }


class TableOut(PublicTable):
    """A table as its owner reads it."""

    note: str | None = Field(
        description="free text set with PATCH; null when none. The owner's: the share link leaves it out"
    )

    @classmethod
    def of(cls, table: TableInfo) -> TableOut:
        return cls(**cls.fields_of(table), note=table.note)


class SettlementPlayer(Answer):
    seat: int
    name: str
    balance: Amount = Field(description="rounded to 0.01; the balances sum to exactly 0")
    balance_exact: str = Field(description='the exact balance, e.g. "370/3"')

    @classmethod
    def all_of(cls, players: Sequence[str], result: Settlement) -> list[SettlementPlayer]:
        """Every seat's balance of a settlement: in cents, and exact."""
        return [
            cls(
                seat=seat,
                name=name,
                balance=amounts.from_cents(result.cents[seat]),
                balance_exact=amounts.exact_text(result.balances[seat]),
            )
            for seat, name in enumerate(players)
        ]


class TransferOut(BaseModel):
    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)

    from_: int = Field(alias="from", description="the seat that pays")
    to: int = Field(description="the seat that is paid")
    amount: Amount


class SettlementOut(Answer):
    final: bool = Field(description="the game is over; otherwise what it would be if it ended now")
    stake_exact: str = absent_when_none(description='?stake=, exact: "1/2" for 0.5')
    stake_text: str = absent_when_none(description='?stake= as a decimal: "0.5"')
    players: list[SettlementPlayer]
    transfers: list[TransferOut] = Field(description="the fewest payments that settle all balances")
    rating: list[SeatRatingOut] = absent_when_none(
        description="a finished rated table's change to each seat's rating (the pool of every convention; docs/ratings.md)"
    )

    @classmethod
    def of(
        cls, table: TableInfo, result: Settlement, stake: Fraction | None, rating: TableRating | None = None
    ) -> SettlementOut:
        given: dict[str, Any] = {}
        if rating is not None:
            given["rating"] = SeatRatingOut.all_of(rating)
        if stake is not None:
            given = {"stake_exact": amounts.exact_text(stake), "stake_text": amounts.decimal_text(stake)}
        return cls(
            final=result.final,
            **given,
            players=SettlementPlayer.all_of(table.players, result),
            transfers=[
                TransferOut(from_=t.payer, to=t.payee, amount=amounts.from_cents(t.cents))
                for t in result.transfers
            ],
        )


class SharedOut(PublicTable):
    """The share link's answer: the public table (no note) and its settlement."""

    settlement: SettlementOut

    @classmethod
    def of_shared(cls, table: TableInfo, settlement: SettlementOut) -> SharedOut:
        return cls(**cls.fields_of(table), settlement=settlement)


# --- the tables collection -----------------------------------------------------------------
class TableSummary(Answer):
    """A table as listed: enough to show it in a list and to open it."""

    id: str
    convention: ConventionName
    title: str | None
    players: list[PlayerOut]
    deal_count: int
    finished: bool
    archived: bool
    created_at: str
    updated_at: str
    balances: list[SettlementPlayer] | None = Field(
        description="the final balances in whists (no stake) when the game is finished; null while it is played"
    )

    @classmethod
    def of(cls, table: ListedTable) -> TableSummary:
        balances = (
            None if table.settlement is None else SettlementPlayer.all_of(table.players, table.settlement)
        )
        return cls(
            id=table.id,
            convention=table.convention,
            title=table.title,
            players=[PlayerOut(seat=i, name=n) for i, n in enumerate(table.players)],
            deal_count=table.deal_count,
            finished=table.finished,
            archived=table.archived,
            created_at=timestamp(table.created_at),
            updated_at=timestamp(table.updated_at),
            balances=balances,
        )


class TableList(Answer):
    """One page of the key owner's tables, latest activity first: follow ``next`` until it is null."""

    items: list[TableSummary]
    next: str | None = Field(description="the URL of the next page; null on the last")

    @classmethod
    def of(cls, page: TablePage, next_url: str | None) -> TableList:
        return cls(items=[TableSummary.of(t) for t in page.tables], next=next_url)


Title = Annotated[str, StringConstraints(max_length=TITLE_MAX), PlainText]
NoteText = Annotated[str, StringConstraints(max_length=TABLE_NOTE_MAX), PlainText]


class TablePatch(Request):
    """What a PATCH may change; a field left out is left as it is."""

    players: list[Name] = Field(
        default=None,  # type: ignore[arg-type]  # absent, not null: see pyproject's [tool.mypy]
        min_length=3,
        max_length=4,
        description="every seat's new name, seat 0 first (distinct, as at creation)",
    )
    title: Title | None = Field(default=None, description=f"at most {TITLE_MAX} characters; null removes it")
    note: NoteText | None = Field(
        default=None, description=f"free text, at most {TABLE_NOTE_MAX} characters; null removes it"
    )
    archived: bool = Field(default=None, description="true archives the table, false brings it back")

    example = {"players": ["Anna", "Boris", "Vera K."], "title": "Tuesday at Vera's", "archived": False}
