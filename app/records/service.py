"""The open game record (docs/record.md): a table with its rules, players, deals and final
sheet as one JSON document, exported and imported.

An import re-scores the deals under the record's own rules (its convention, options and
rules version) and refuses a record whose entries or sheet disagree with the re-scoring,
naming the first deal that differs: a record is checked, never trusted."""

from __future__ import annotations

import csv
import io
import secrets
import uuid
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from app.deals.model import DealInfo, deal_info, entries_to_json
from app.kit import amounts
from app.kit.db import Database
from app.kit.db.models import utcnow
from app.kit.errors import Unprocessable
from app.kit.limits import MAX_LISTED_ERRORS
from app.players.service import player_name
from app.records import repository
from app.rules import (
    FIELD_NAMES,
    Deal,
    Entry,
    FieldError,
    InvalidDeal,
    InvalidTable,
    ReplayError,
    Rules,
    Sentence,
    TableState,
    amount_to_json,
    joined,
    make_rules,
    replay,
    sentence,
    sheet,
)
from app.rules.fields import to_json
from app.tables.limits import GAMES_MAX, TABLE_NOTE_MAX, TITLE_MAX
from app.tables.model import (
    DEFAULT_LIMITS,
    Limits,
    TableInfo,
    check_names,
    info,
    rules_of,
    state_of,
)
from app.tables.orm import TableRow
from app.tables.service import load_row, make_room_for_a_table

FORMAT = "prefscore-record"
VERSION = 1


def rule_values(rules: Rules) -> dict[str, Any]:
    """Every field of the typed rule table, in its JSON form (docs/rules.md)."""
    return {name: to_json(getattr(rules, name)) for name in FIELD_NAMES}


def record_entries(entries: tuple[Entry, ...] | list[Entry]) -> list[dict[str, Any]]:
    """Entries as a record keeps them: every key present, amounts exact (an int or "p/q")."""
    return [{"kind": e.kind, "seat": e.seat, "on": e.on, "amount": amount_to_json(e.amount)} for e in entries]


def _timestamp(value: datetime | None) -> str | None:
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _exact(value: Any) -> Any:
    """The engine's sheet as JSON: every amount exact (an int, or "p/q")."""
    if isinstance(value, Fraction):
        return amount_to_json(value)
    if isinstance(value, dict):
        return {k: _exact(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_exact(v) for v in value]
    return value


def exact_sheet(table: TableInfo) -> dict[str, Any]:
    """The final sheet in the engine's exact JSON form, with the players' names."""
    out = _exact(sheet(table.rules, table.state))
    for p in out["players"]:
        p["name"] = table.players[p["seat"]]
    return out


def _read(db: Database, owner: str, table_id: str) -> tuple[TableInfo, list[DealInfo]]:
    with db.read() as session:
        row = load_row(session, owner, table_id, lock=False)
        table = info(row, rules_of(row), state_of(row))
        return table, [deal_info(r) for r in repository.deal_rows(session, row.id)]


def document(table: TableInfo, deals: list[DealInfo]) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "table": {
            "id": table.id,
            "convention": table.convention,
            "title": table.title,
            "note": table.note,
            "pool_target": table.pool_target,
            "first_dealer": table.first_dealer,
            "options": table.options,
            "rules_version": table.rules_version,
            "rules": rule_values(table.rules),
            "created_at": _timestamp(table.created_at),
            "updated_at": _timestamp(table.updated_at or table.created_at),
        },
        "players": [{"seat": i, "name": n} for i, n in enumerate(table.players)],
        "deals": [
            {
                "number": d.number,
                "deal": d.body,
                "entries": record_entries(d.entries),
                "created_at": _timestamp(d.created_at),
            }
            for d in deals
        ],
        "sheet": exact_sheet(table),
    }


def export_record(db: Database, owner: str, table_id: str) -> dict[str, Any]:
    table, deals = _read(db, owner, table_id)
    return document(table, deals)


CSV_COLUMNS = (
    "deal",
    "type",
    "declarer",
    "contract",
    "seat",
    "kind",
    "on",
    "amount",
    "amount_exact",
    "created_at",
)


def export_csv(db: Database, owner: str, table_id: str) -> str:
    """One row per entry (a deal that wrote nothing: one row without an entry), amounts as a
    decimal (rounded to 0.01) and exact; seats as numbers, the header names them."""
    table, deals = _read(db, owner, table_id)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for d in deals:
        head = [d.number, d.body.get("type", ""), d.body.get("declarer", ""), d.body.get("contract", "")]
        when = _timestamp(d.created_at) or ""
        if not d.entries:
            writer.writerow([*head, "", "", "", "", "", when])
        for e in d.entries:
            on = "" if e.on is None else e.on
            writer.writerow(
                [
                    *head,
                    e.seat,
                    e.kind,
                    on,
                    amounts.decimal_text(e.amount),
                    amounts.exact_text(e.amount),
                    when,
                ]
            )
    return out.getvalue()


def _refused(detail: str, field: str, reason: str, **extra: Any) -> Unprocessable:
    return Unprocessable(detail, [FieldError(field, reason)], **extra)


def _moment(value: str | None, field: str) -> datetime | None:
    if value is None:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise _refused(
            Sentence("a timestamp of the record is not valid"),
            field,
            Sentence("{field} must be an ISO 8601 time such as 2026-12-01T08:00:00Z", field=field),
        ) from None
    if moment.tzinfo is None:
        raise _refused(
            Sentence("a timestamp of the record is not valid"),
            field,
            Sentence("{field} must say its time zone (Z for UTC)", field=field),
        )
    try:
        moment.astimezone(UTC)  # a time the database can store and give back
    except OverflowError:
        raise _refused(
            Sentence("a timestamp of the record is not valid"),
            field,
            Sentence("{field} must be a UTC time from year 1 to 9999", field=field),
        ) from None
    return moment


# Rule fields added after records were first written: a record written before one came has
# none, and its table reads it as its convention, options and rules version make it.
LATER_FIELDS = frozenset({"talon_bonus_price", "dealer_half_whist", "penalties_to"})


def import_record(
    db: Database, owner: str, record: dict[str, Any], *, limits: Limits = DEFAULT_LIMITS
) -> TableInfo:
    """A new table of ``owner`` from a record (already checked for its shape): its rules made
    again from the convention, options and rules version and compared field by field with
    the record's, its deals re-scored and compared entry by entry, then the final sheet."""
    meta = record["table"]
    names = [player_name(p["name"]) for p in sorted(record["players"], key=lambda p: p["seat"])]
    if [p["seat"] for p in sorted(record["players"], key=lambda p: p["seat"])] != list(range(len(names))):
        raise _refused(
            Sentence("the record's seats are not 0..n-1"),
            "players",
            Sentence("players must hold seats 0 to n-1, each once"),
        )
    errors = check_names(names)
    if errors:
        raise Unprocessable(Sentence("the record's players do not fit"), errors)
    games = meta["options"].get("games")
    if isinstance(games, int) and not isinstance(games, bool) and games > GAMES_MAX:
        raise _refused(
            Sentence("the record's table does not fit"),
            "table.options.games",
            Sentence("must be at most {games_max}", games_max=GAMES_MAX),
        )
    try:
        rules = make_rules(
            meta["convention"],
            players=len(names),
            pool_target=meta["pool_target"],
            options=meta["options"],
            rules_version=meta["rules_version"],
        )
    except InvalidTable as exc:
        raise Unprocessable(
            Sentence("the record's table does not fit"),
            [FieldError(f"table.{e.field}", e.reason) for e in exc.errors],
        ) from exc
    if not 0 <= meta["first_dealer"] < len(names):
        raise _refused(
            Sentence("the record's table does not fit"),
            "table.first_dealer",
            Sentence("must be a seat 0-{last}", last=len(names) - 1),
        )
    values = rule_values(rules)
    for name in FIELD_NAMES:
        if meta["rules"].get(name, values[name]) != values[name] or (
            name not in meta["rules"] and name not in LATER_FIELDS
        ):
            raise _refused(
                Sentence(
                    "the record's rule {name} is not what its convention, options and rules version make",
                    name=name,
                ),
                f"table.rules.{name}",
                Sentence(
                    "{name} is {value!r} under these options, not {recorded!r}",
                    name=name,
                    value=values[name],
                    recorded=meta["rules"].get(name),
                ),
            )
    unknown = sorted(set(meta["rules"]) - set(FIELD_NAMES))
    if unknown:
        raise _refused(
            Sentence("the record names a rule this service does not know"),
            f"table.rules.{unknown[0]}",
            Sentence("not a rule field (docs/rules.md)"),
        )
    deals_in = record["deals"]
    if len(deals_in) > limits.deals_per_table:
        raise _refused(
            Sentence("the record holds {count} deals, more than a table may hold", count=len(deals_in)),
            "deals",
            Sentence(
                "at most {deals_per_table} deals (PREFSCORE_MAX_DEALS_PER_TABLE)",
                deals_per_table=limits.deals_per_table,
            ),
        )
    parsed: list[Deal] = []
    for i, d in enumerate(deals_in):
        if d["number"] != i + 1:
            raise _refused(
                Sentence("the record's deals are not numbered 1..n in order"),
                f"deals.{i}.number",
                Sentence("deal {i} must have number {i}", i=i + 1),
                deal=i + 1,
            )
        try:
            parsed.append(Deal.from_dict(d["deal"]))
        except (InvalidDeal, KeyError, TypeError, ValueError) as exc:
            errors = getattr(exc, "errors", None) or []
            parts = [
                Sentence("{field}: {reason}", field=e.field, reason=sentence(e.reason))
                for e in errors[:MAX_LISTED_ERRORS]
            ]
            if len(errors) > MAX_LISTED_ERRORS:
                parts.append(Sentence("and {n} more", n=len(errors) - MAX_LISTED_ERRORS))
            where = joined("; ", parts) if parts else Sentence("not a deal body")
            raise _refused(
                Sentence("deal {i} of the record is not a valid deal: {where}", i=i + 1, where=where),
                f"deals.{i}.deal",
                where,
                deal=i + 1,
            ) from exc
    try:
        folded = replay(rules, meta["first_dealer"], parsed)
    except ReplayError as exc:
        raise _refused(
            Sentence(
                "deal {number} of the record does not fit the table when re-scored: {reasons}",
                number=exc.number,
                reasons=exc.sentence,
            ),
            f"deals.{exc.number - 1}.deal",
            exc.sentence,
            deal=exc.number,
        ) from exc
    for i, (d, entries) in enumerate(zip(deals_in, folded.entries)):
        if record_entries(entries) != d["entries"]:
            raise _refused(
                Sentence(
                    "deal {i} of the record wrote other entries than its re-scoring; nothing was imported",
                    i=i + 1,
                ),
                f"deals.{i}.entries",
                Sentence("these entries are not what the deal scores under the record's rules"),
                deal=i + 1,
            )
    now = utcnow()
    row = TableRow(
        id=uuid.uuid4().hex,
        owner=owner,
        convention=meta["convention"],
        players=names,
        pool_target=rules.pool_target,
        options=rules.options,
        first_dealer=meta["first_dealer"],
        share_token=secrets.token_urlsafe(24),
        state=folded.state.to_dict(),
        rules_version=rules.rules_version,
        deal_count=len(parsed),
        revision=0,
        title=(meta["title"] or "").strip()[:TITLE_MAX] or None,
        note=(meta["note"] or "")[:TABLE_NOTE_MAX] or None,
        created_at=now,
        updated_at=now,
    )
    table = info(row, rules, folded.state)
    if record["sheet"] != exact_sheet(table):
        raise _refused(
            Sentence("the record's sheet is not the sheet its deals make"),
            "sheet",
            Sentence("the final sheet differs from the re-scored one"),
        )
    rows = [
        {
            "table_id": row.id,
            "number": i + 1,
            "body": deal.to_dict(),
            "entries": entries_to_json(entries),
            "created_at": _moment(d["created_at"], f"deals.{i}.created_at") or now,
            "dealer": dealer,
            "game": game,  # the game number (migration 0009)
        }
        for i, (d, deal, entries, dealer, game) in enumerate(
            zip(
                deals_in, parsed, folded.entries, folded.dealers, folded.games
            )  # the game number (migration 0009)
        )
    ]
    with db.write() as session:
        make_room_for_a_table(session, owner, limits)
        repository.insert_table(session, row, rows)
        result = info(row, rules, folded.state)
    return result


def example_record() -> dict[str, Any]:
    """A record of a new sochi table, no deal played: the example of the documentation."""
    rules = make_rules("sochi", players=3, pool_target=4)
    state = TableState.new(rules, first_dealer=0)
    now = datetime(2026, 12, 1, 8, 0, tzinfo=UTC)
    table = TableInfo(
        id="0" * 32,
        owner="",
        convention="sochi",
        players=("Anna", "Boris", "Vera"),
        pool_target=4,
        options=rules.options,
        first_dealer=0,
        share_token="",
        deal_count=0,
        revision=0,
        created_at=now,
        rules=rules,
        state=state,
        updated_at=now,
        title="Tuesday",
    )
    return document(table, [])
