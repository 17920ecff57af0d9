"""The director's tools on the results: adjustments of a player's total, penalties posted at a
round's table (docs/rules.md §15), and a new share token."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from app.deals import service as deals
from app.kit.db import Database
from app.kit.errors import Conflict, Unprocessable
from app.rules import FieldError, PenaltyDeal, Sentence, amounts
from app.tables.model import DEFAULT_LIMITS, Limits
from app.tournaments import repository as repo
from app.tournaments.limits import TOURNAMENT_ADJUSTMENTS_MAX
from app.tournaments.model import AdjustmentInfo, TableAtRound, Tournament
from app.tournaments.reading import _load, _moved, _round


def add_adjustment(
    db: Database,
    owner: str,
    tournament_id: str,
    *,
    entrant: int,
    amount: Fraction,
    reason: str,
    round_number: int | None,
    by: str,
) -> tuple[Tournament, AdjustmentInfo]:
    """An adjustment of one player's total, in the scoring's unit, with its reason; one of a
    round is refused while that round is closed (the director reopens it first)."""
    reason = reason.strip()
    if not reason:
        raise Unprocessable(
            "an adjustment is made with a reason", [FieldError("reason", "must not be empty")]
        )
    with db.write() as session:
        t = _load(session, owner, tournament_id, lock=True)
        _refuse_adjustment(t, entrant, round_number)
        detail = {
            "entrant": entrant,
            "amount": amounts.exact_text(amount),
            "reason": reason,
            "round": round_number,
        }
        repo.add_adjustment(session, t.id, {**detail, "by": by})
        repo.audit(session, t.id, by, "adjustment", detail)
        _moved(session, t)
        t = _load(session, owner, tournament_id)
    return t, t.adjustments[-1]


def _refuse_adjustment(t: Tournament, entrant: int, round_number: int | None) -> None:
    """An adjustment past the tournament's limit, of no entrant, or of a round not drawn or
    closed, is refused, naming its field."""
    if len(t.adjustments) >= TOURNAMENT_ADJUSTMENTS_MAX:
        raise Conflict(
            Sentence(
                "tournament {id} has {adjustments} adjustments, the most one may have",
                id=t.id,
                adjustments=len(t.adjustments),
            ),
            reason="adjustment_limit",
            limit=TOURNAMENT_ADJUSTMENTS_MAX,
        )
    if not any(e.number == entrant for e in t.entrants):
        raise Unprocessable(
            Sentence("no entrant {entrant}", entrant=entrant),
            [
                FieldError(
                    "entrant",
                    Sentence("tournament {id} has no entrant {entrant}", id=t.id, entrant=entrant),
                )
            ],
        )
    if round_number is None:
        return
    if round_number > len(t.rounds):
        raise Unprocessable(
            Sentence("no round {round_number}", round_number=round_number),
            [FieldError("round", Sentence("{rounds} rounds are drawn", rounds=len(t.rounds)))],
        )
    if _round(t, round_number).locked:
        raise Conflict(
            Sentence(
                "round {round_number} is closed: its director reopens it (with a reason) before adjusting it",
                round_number=round_number,
            ),
            [FieldError("round", Sentence("round {round_number} is closed", round_number=round_number))],
            reason="round_closed",
        )


# --- the director's penalties (docs/rules.md §15) -----------------------------------------------


@dataclass(frozen=True)
class PenaltyPosted:
    """A director's penalty as posted at a round's table: where, on whom, and the deal."""

    round: int
    table: int
    table_id: str
    entrant: int
    seat: int
    posted: deals.Posted


def post_penalty(
    db: Database,
    owner: str,
    tournament_id: str,
    *,
    round_number: int,
    table: int,
    entrant: int,
    penalty: dict[str, Any],
    by: str,
    idempotency_key: str | None = None,
    request_hash: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> PenaltyPosted:
    """The director writes a penalty on an entrant at a round's table: posted in that table's
    log as a deal is (the table row locked, refused at a locked table: a closed round is
    reopened first), with its Idempotency-Key, and audited in the same transaction. A retry
    with the key replays the first answer and audits nothing again. ``penalty``: the
    penalty's own fields (amount, destination, violation, clause, reason)."""
    with db.read() as session:
        t = _load(session, owner, tournament_id)
    at = _penalised_at(t, round_number, table, entrant)
    seat = at.seats.index(entrant)
    deal = PenaltyDeal(offender=seat, **penalty)
    assert at.table_id is not None  # _penalised_at refuses a table not made

    def audited(conn: Any, written: deals.DealInfo) -> None:
        entry = written.entries[0] if written.entries else None
        detail: dict[str, Any] = {"round": round_number, "table": table, "entrant": entrant, "seat": seat}
        detail.update(deal=written.number, amount=deal.amount, to=entry.kind if entry is not None else None)
        detail.update(violation=deal.violation, clause=deal.clause, reason=deal.reason)
        repo.audit(conn, t.id, by, "penalty", detail)

    posted = deals.post_deal(
        db,
        owner,
        at.table_id,
        deal,
        idempotency_key=idempotency_key,
        request_hash=request_hash,
        limits=limits,
        also=audited,
    )
    return PenaltyPosted(round_number, table, at.table_id, entrant, seat, posted)


def _penalised_at(t: Tournament, round_number: int, table: int, entrant: int) -> TableAtRound:
    """The round's table a penalty is posted at; a round not drawn, a table it has not, or an
    entrant who does not sit there is refused, naming its field."""
    if not 1 <= round_number <= len(t.rounds):
        raise Unprocessable(
            Sentence("no round {round_number}", round_number=round_number),
            [FieldError("round", Sentence("{rounds} rounds are drawn", rounds=len(t.rounds)))],
        )
    r = _round(t, round_number)
    at = next((x for x in r.tables if x.number == table), None)
    if at is None or at.table_id is None:
        tables = Sentence(
            "round {round_number} has {tables} tables", round_number=round_number, tables=len(r.tables)
        )
        raise Unprocessable(
            Sentence("round {round_number} has no table {table}", round_number=round_number, table=table),
            [FieldError("table", tables)],
        )
    if entrant not in at.seats:
        seats = Sentence(
            "table {table} seats entrants {seats}", table=table, seats=", ".join(map(str, at.seats))
        )
        raise Unprocessable(
            Sentence(
                "entrant {entrant} does not sit at table {table} of round {round_number}",
                entrant=entrant,
                table=table,
                round_number=round_number,
            ),
            [FieldError("entrant", seats)],
        )
    return at


def rotate_share_token(db: Database, owner: str, tournament_id: str) -> Tournament:
    with db.write() as session:
        t = _load(session, owner, tournament_id, lock=True)
        repo.new_share_token(session, t.id)
        _moved(session, t)
        return _load(session, owner, tournament_id)
