"""A tournament's export: the standings and every round's results as JSON or CSV, and the
tournament's record (its settings, rounds and each of its tables' records, app/records) for
import elsewhere. Amounts are exact text ("370/3") beside a decimal."""

from __future__ import annotations

import csv
import io
import json
from typing import Any, Literal

from app.kit.db import Database
from app.kit.schemas import timestamp
from app.records import service as records
from app.rules import amounts
from app.tournaments import service as svc
from app.tournaments.model import Tournament

Format = Literal["json", "csv", "record"]
Part = Literal["standings", "results"]
RECORD_FORMAT = "prefscore-tournament/1"


def _exact(value: Any) -> str | None:
    return None if value is None else amounts.exact_text(value)


def standings_rows(st: svc.Standings) -> list[dict[str, Any]]:
    t = st.tournament
    names = t.names()
    return [
        {
            "place": s.place,
            "entrant": int(s.player),
            "name": names.get(int(s.player), s.player),
            "total": _exact(s.total),
            "rounds": [_exact(r) for r in s.rounds],
            "balance": _exact(s.balance),
            "firsts": s.firsts,
            "best_round": _exact(s.best_round),
            "adjustments": [
                {"amount": _exact(a.amount), "reason": a.reason, "round": a.round} for a in s.adjustments
            ],
        }
        for s in st.rows
    ]


def result_rows(t: Tournament, played: dict[int, list[Any]]) -> list[dict[str, Any]]:
    """One row per seat of every round's table, and one per bye."""
    names = t.names()
    rows = []
    for r in t.rounds:
        for p in played[r.number]:
            for seat, n in enumerate(p.at.seats):
                rows.append(
                    {
                        "round": r.number,
                        "table": p.at.number,
                        "table_id": p.at.table_id,
                        "seat": seat,
                        "entrant": n,
                        "name": names.get(n, ""),
                        "balance": None if p.balances is None else _exact(p.balances[seat]),
                        "finished": p.finished,
                    }
                )
        for n in r.byes:
            rows.append(
                {
                    "round": r.number,
                    "table": None,
                    "table_id": None,
                    "seat": None,
                    "entrant": n,
                    "name": names.get(n, ""),
                    "balance": None,
                    "finished": None,
                }
            )
    return rows


def _csv(rows: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    if rows:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow(
                {
                    k: (
                        ";".join("" if x is None else str(x) for x in v)
                        if isinstance(v, list) and k == "rounds"
                        else "; ".join(f"{a['amount']} ({a['reason']})" for a in v)
                        if k == "adjustments"
                        else ("" if v is None else v)
                    )
                    for k, v in row.items()
                }
            )
    return out.getvalue()


def _settings(t: Tournament) -> dict[str, Any]:
    return {
        "name": t.name,
        "convention": t.convention,
        "pool_target": t.pool_target,
        "options": t.options,
        "table_sizes": list(t.table_sizes),
        "game_end": t.game_end.stored(),
        "rounds": t.rounds_planned,
        "scoring": t.scoring_stored,
        "swiss": t.swiss,
    }


def _round_records(db: Database, owner: str, t: Tournament) -> list[dict[str, Any]]:
    """Every round with its tables' records (app/records), for the export as a record."""
    return [
        {
            "number": r.number,
            "seed": r.seed,
            "status": r.status,
            "byes": list(r.byes),
            "tables": [
                {
                    "number": at.number,
                    "seats": list(at.seats),
                    "record": records.export_record(db, owner, at.table_id)
                    if at.table_id is not None
                    else None,
                }
                for at in r.tables
            ],
        }
        for r in t.rounds
    ]


def export(db: Database, owner: str, tournament_id: str, fmt: str, part: str) -> tuple[str, str]:
    """(media type, text) of the export asked for."""
    st = svc.standings(db, owner, tournament_id)
    assert isinstance(st, svc.Standings)
    t, played = svc.get_tournament(db, owner, tournament_id)
    if fmt == "csv":
        rows = standings_rows(st) if part == "standings" else result_rows(t, played)
        return "text/csv; charset=utf-8", _csv(rows)
    document: dict[str, Any] = {
        "tournament": t.id,
        **_settings(t),
        "created_at": timestamp(t.created_at),
        "entrants": [
            {
                "number": e.number,
                "name": e.name,
                "player": e.player_id,
                "joined_round": e.joined_round,
                "withdrawn_round": e.withdrawn_round,
            }
            for e in t.entrants
        ],
        "standings": standings_rows(st),
        "results": result_rows(t, played),
        "adjustments": [
            {
                "entrant": a.entrant,
                "amount": _exact(a.amount),
                "reason": a.reason,
                "round": a.round,
                "by": a.by,
                "at": timestamp(a.created_at),
            }
            for a in t.adjustments
        ],
    }
    if fmt == "record":
        document = {"format": RECORD_FORMAT, **document, "rounds": _round_records(db, owner, t)}
    return "application/json", json.dumps(document, ensure_ascii=False, indent=1)
