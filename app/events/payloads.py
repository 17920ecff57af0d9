"""The events' payloads, as types: what a webhook delivery's ``data`` holds (built from its
outbox row alone, so that every attempt sends the same bytes) and what an event stream's
``data`` holds. The catalogue (catalogue.py) names each kind's; the API document's components
are made from them (app/webhooks/documents.py, app/live/documents.py), each ``kind`` field's
list of kinds from the catalogue."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from app.kit.etags import sheet_etag


class Payload(BaseModel):
    """A payload: its JSON leaves out the fields never given (a link that does not apply): a
    field that defaults to None is absent, never null."""

    model_config = ConfigDict(frozen=True)

    def wire(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_unset=True)


class WebhookPayload(Payload):
    """A webhook delivery's ``data``, made from its outbox row alone (and the links' base URL)."""

    @classmethod
    def of_row(cls, row: Any, base: str) -> WebhookPayload:
        raise NotImplementedError(cls.__name__)


def utc(value: datetime | None) -> datetime | None:
    """SQLite gives the stored UTC times back without their zone."""
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value


# --- webhooks: each payload made from a delivery's outbox row (app/events/repository.py) -------


class TableLinks(Payload):
    table: str
    sheet: str
    png: str
    deal: str | None = Field(default=None, description="the deal's, when the event names one (not an undo)")


class TableData(WebhookPayload):
    """A table's change: the table at its revision; ``etag`` the sheet's ETag after it (null
    once the table is deleted, which has no links)."""

    table_id: str
    revision: int | None
    deal_number: int | None = Field(description="the deal posted, undone or corrected")
    etag: str | None
    links: TableLinks | None = Field(default=None, description="absent once the table is deleted")

    @classmethod
    def of_row(cls, row: Any, base: str) -> TableData:
        table = row.table_id
        etag = sheet_etag(table, row.revision, row.deal_count) if row.deal_count is not None else None
        data = cls(table_id=table, revision=row.revision, deal_number=row.deal_number, etag=etag)
        if row.type == "table.deleted":
            return data
        links = {
            "table": f"{base}/v1/tables/{table}",
            "sheet": f"{base}/v1/tables/{table}/sheet",
            "png": f"{base}/v1/tables/{table}/sheet.png",
        }
        if row.deal_number is not None and row.type != "deal.undone":
            links["deal"] = f"{base}/v1/tables/{table}/deals/{row.deal_number}"
        return data.model_copy(update={"links": TableLinks(**links)})


class TournamentLinks(Payload):
    tournament: str
    standings: str


class TournamentData(WebhookPayload):
    """A tournament at its revision (its outbox row keeps its id where a table's keeps the table's)."""

    tournament_id: str
    revision: int | None
    links: TournamentLinks

    @classmethod
    def of_row(cls, row: Any, base: str) -> TournamentData:
        tournament = row.table_id
        links = TournamentLinks(
            tournament=f"{base}/v1/tournaments/{tournament}",
            standings=f"{base}/v1/tournaments/{tournament}/standings",
        )
        return cls(tournament_id=tournament, revision=row.revision, links=links)


class RatingLinks(Payload):
    rating: str


class RatedPlayer(Payload):
    """A player's ordinal (mu − 3·sigma) before and after the table; null once it counts no more."""

    player_id: str
    before: float | None
    after: float | None
    games: int | None
    links: RatingLinks


class RatedTableLinks(Payload):
    table: str
    settlement: str


class RatingData(WebhookPayload):
    """A rated table's players' ratings before and after it, as stored with the event;
    ``version``: the table's rating version."""

    table_id: str
    version: int | None
    rated: bool
    players: list[RatedPlayer]
    links: RatedTableLinks

    @classmethod
    def of_row(cls, row: Any, base: str) -> RatingData:
        stored = row.data or {}
        players = [
            RatedPlayer(**p, links=RatingLinks(rating=f"{base}/v1/players/{p['player_id']}/rating"))
            for p in stored.get("players", ())
        ]
        table = row.table_id
        links = RatedTableLinks(
            table=f"{base}/v1/tables/{table}", settlement=f"{base}/v1/tables/{table}/settlement"
        )
        return cls(
            table_id=table,
            version=row.revision,
            rated=stored.get("rated", False),
            players=players,
            links=links,
        )


class WebhookTestData(WebhookPayload):
    """The endpoint that asked for the test."""

    webhook: int

    @classmethod
    def of_row(cls, row: Any, base: str) -> WebhookTestData:
        return cls(webhook=row.endpoint_id)


WebhookData = TableData | TournamentData | RatingData | WebhookTestData


# --- event streams: the JSON ``data`` of each server-sent event (app/live) ---------------------


class TableChange(Payload):
    """The JSON ``data`` of a table's event: what happened, the table's revision and, but for
    ``table.deleted``, the new sheet and its ETag."""

    kind: str
    table: str
    revision: int
    etag: str | None = Field(default=None, description="but for table.deleted (never null)")
    # The Sheet schema of app/tables (a domain above): app/live/documents.py names it.
    sheet: dict[str, Any] | None = Field(default=None, description="but for table.deleted (never null)")


class StreamChange(Payload):
    """The JSON ``data`` of an event about the stream itself: the database connection lost
    (``stream.interrupted``) or regained (``stream.resumed``)."""

    kind: str
    detail: str


class TournamentChange(Payload):
    """The JSON ``data`` of a tournament's event: its standings changed (a round drawn, closed,
    reopened, an adjustment, an entrant in or out); they are one GET of the tournament away."""

    kind: str
    tournament: str
    revision: int
