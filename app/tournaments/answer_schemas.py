"""The tournaments' answers (app/tournaments/schemas.py names them with the requests).
Exact amounts are given twice: as a JSON number and as exact text (``*_exact``)."""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Any, Literal

from pydantic import Field

from app.kit import amounts as kit_amounts
from app.kit.schemas import (
    Amount,
    Answer,
    ConventionName,
    absent_when_none,
    timestamp,
)
from app.rules import amounts
from app.tournaments.model import (
    AdjustmentInfo,
    AuditEntry,
    PlayedTable,
    Round,
    Tournament,
    TournamentPage,
)
from app.tournaments.scoring import Standing
from app.tournaments.service import PublicView, Standings


@lru_cache(maxsize=8192)
def _num(value: Fraction) -> int | float:
    # A tournament's standings repeat a few hundred values thousands of times: each is
    # written once.
    return kit_amounts.number(value)


@lru_cache(maxsize=8192)
def _text(value: Fraction) -> str:
    return amounts.exact_text(value)


class EntrantOut(Answer):
    number: int
    name: str
    player: str | None = Field(description="the registered player's id; null for a name")
    joined_round: int = Field(description="the first round the entrant is drawn in")
    withdrawn_round: int | None = Field(
        description="the first round the entrant is not drawn in; null while playing"
    )


class SeatOut(Answer):
    seat: int
    entrant: int
    name: str


class BalanceOut(Answer):
    entrant: int
    balance: Amount
    balance_exact: str


class RoundTableOut(Answer):
    number: int
    table_id: str | None = Field(
        description="the ordinary table (GET /v1/tables/{id}); null if it was deleted"
    )
    title: str | None
    seats: list[SeatOut]
    deal_count: int
    finished: bool
    balances: list[BalanceOut] | None = Field(
        description="the balances that count: null while the table plays"
    )
    share_link: str | None = Field(description="the table's read-only share page")
    scorer_link: str = absent_when_none(
        description="the table's scorer link: in the answer of the draw or swap that made it only"
    )

    @classmethod
    def of(cls, table: PlayedTable, names: dict[int, str], token: str | None = None) -> RoundTableOut:
        at = table.at
        return cls(
            number=at.number,
            table_id=at.table_id,
            title=table.title,
            seats=[SeatOut(seat=i, entrant=n, name=names.get(n, "")) for i, n in enumerate(at.seats)],
            deal_count=table.deal_count,
            finished=table.finished,
            balances=None
            if table.balances is None
            else [
                BalanceOut(entrant=n, balance=_num(b), balance_exact=amounts.exact_text(b))
                for n, b in zip(at.seats, table.balances)
            ],
            share_link=None if table.share_token is None else f"/shared/{table.share_token}",
            **({} if token is None else {"scorer_link": f"/score/{token}"}),
        )


class RoundOut(Answer):
    number: int
    seed: int = Field(description="the draw's seed: the same players, history and seed draw the same tables")
    status: Literal["open", "closed", "reopened"]
    byes: list[SeatOut] = Field(description="the players sitting this round out (seat: 0)")
    created_at: str
    closed_at: str | None
    tables: list[RoundTableOut]

    @classmethod
    def of(
        cls, r: Round, played: list[PlayedTable], names: dict[int, str], tokens: dict[int, str] | None = None
    ) -> RoundOut:
        tokens = tokens or {}
        return cls(
            number=r.number,
            seed=r.seed,
            status=r.status,
            byes=[SeatOut(seat=0, entrant=n, name=names.get(n, "")) for n in r.byes],
            created_at=timestamp(r.created_at),
            closed_at=timestamp(r.closed_at),
            tables=[RoundTableOut.of(p, names, tokens.get(p.at.number)) for p in played],
        )


class AdjustmentOut(Answer):
    id: int
    entrant: int
    amount: Amount
    amount_exact: str
    reason: str
    round: int | None
    created_at: str
    by: str = Field(description='who made it: a key ("key 12") or the admin key')

    @classmethod
    def of(cls, a: AdjustmentInfo) -> AdjustmentOut:
        return cls(
            id=a.id,
            entrant=a.entrant,
            amount=_num(a.amount),
            amount_exact=amounts.exact_text(a.amount),
            reason=a.reason,
            round=a.round,
            created_at=timestamp(a.created_at),
            by=a.by,
        )


class TournamentSummary(Answer):
    id: str
    name: str
    convention: ConventionName
    table_sizes: list[int] = Field(description="the sizes of its tables: [3], [4] or [3, 4]")
    rounds_planned: int
    rounds_drawn: int
    entrants: int
    created_at: str
    updated_at: str

    @classmethod
    def fields_of(cls, t: Tournament) -> dict[str, Any]:
        return {
            "id": t.id,
            "name": t.name,
            "convention": t.convention,
            "table_sizes": list(t.table_sizes),
            "rounds_planned": t.rounds_planned,
            "rounds_drawn": len(t.rounds),
            "entrants": len(t.entrants),
            "created_at": timestamp(t.created_at),
            "updated_at": timestamp(t.updated_at),
        }

    @classmethod
    def of(cls, t: Tournament) -> TournamentSummary:
        return cls(**cls.fields_of(t))


class TournamentList(Answer):
    items: list[TournamentSummary]
    next: str | None = Field(description="the URL of the next page; null on the last")

    @classmethod
    def of(cls, page: TournamentPage, nxt: str | None) -> TournamentList:
        return cls(items=[TournamentSummary.of(t) for t in page.tournaments], next=nxt)


class PublicTournament(TournamentSummary):
    """A tournament as anyone with its share link sees it."""

    pool_target: int | None
    options: dict[str, Any]
    game_end: dict[str, Any]
    scoring: dict[str, Any] = Field(description="the scoring of a round: exact amounts as text")
    swiss: bool
    players: list[EntrantOut] = Field(description="the entrants, by number")
    rounds: list[RoundOut]

    @classmethod
    def public_fields(
        cls,
        t: Tournament,
        played: dict[int, list[PlayedTable]],
        tokens: dict[int, str] | None = None,
        tokens_round: int | None = None,
    ) -> dict[str, Any]:
        """``tokens``: the scorer links of the tables just made, by table number, in round
        ``tokens_round`` (a swap may re-make the tables of a reopened round, not the last)."""
        names = t.names()
        return {
            **cls.fields_of(t),
            "pool_target": t.pool_target,
            "options": t.options,
            "game_end": t.game_end.stored(),
            "scoring": t.scoring_stored,
            "swiss": t.swiss,
            "players": [
                EntrantOut(
                    number=e.number,
                    name=e.name,
                    player=e.player_id,
                    joined_round=e.joined_round,
                    withdrawn_round=e.withdrawn_round,
                )
                for e in t.entrants
            ],
            "rounds": [
                RoundOut.of(r, played[r.number], names, tokens if r.number == tokens_round else None)
                for r in t.rounds
            ],
        }


class TournamentOut(PublicTournament):
    """A tournament as its owner reads it."""

    share_token: str = Field(
        description="the read-only tournament view is /v1/shared/{share_token}/tournament"
    )
    adjustments: list[AdjustmentOut]

    @classmethod
    def of(  # type: ignore[override]
        cls,
        t: Tournament,
        played: dict[int, list[PlayedTable]],
        tokens: dict[int, str] | None = None,
        tokens_round: int | None = None,
    ) -> TournamentOut:
        return cls(
            **cls.public_fields(t, played, tokens, tokens_round),
            share_token=t.share_token,
            adjustments=[AdjustmentOut.of(a) for a in t.adjustments],
        )


class StandingAdjustment(Answer):
    amount: Amount
    amount_exact: str
    reason: str
    round: int | None


class StandingOut(Answer):
    place: int
    entrant: int
    name: str
    total: Amount
    total_exact: str
    rounds: list[Amount | None] = Field(
        description="each round's score: a table's, a bye's, or null (not drawn)"
    )
    rounds_exact: list[str | None]
    balance: Amount = Field(description="the sum of the raw balances in whists (a tie-break)")
    balance_exact: str
    firsts: int = Field(description="first places at a table (a tie-break)")
    best_round: Amount = Field(description="the best single round (a tie-break)")
    byes: int
    withdrawn: bool
    adjustments: list[StandingAdjustment]

    @classmethod
    def of(cls, s: Standing, t: Tournament, entrants: dict[int, Any] | None = None) -> StandingOut:
        number = int(s.player)
        entrant = (entrants if entrants is not None else {e.number: e for e in t.entrants}).get(number)
        # Built from the scoring's own values, unchecked: a large tournament's standings are
        # thousands of amounts, and their checks cost more than the rest of the answer.
        return cls.model_construct(
            place=s.place,
            entrant=number,
            name=entrant.name if entrant else s.player,
            total=_num(s.total),
            total_exact=_text(s.total),
            rounds=[None if r is None else _num(r) for r in s.rounds],
            rounds_exact=[None if r is None else _text(r) for r in s.rounds],
            balance=_num(s.balance),
            balance_exact=_text(s.balance),
            firsts=s.firsts,
            best_round=_num(s.best_round),
            byes=getattr(s, "byes", 0),
            withdrawn=entrant is not None and entrant.withdrawn_round is not None,
            adjustments=[
                StandingAdjustment.model_construct(
                    amount=_num(a.amount), amount_exact=_text(a.amount), reason=a.reason, round=a.round
                )
                for a in s.adjustments
            ],
        )


class StandingsOut(Answer):
    tournament: str
    name: str
    scoring: Literal["whists", "places"]
    rounds: int = Field(description="the rounds counted")
    rounds_closed: int
    items: list[StandingOut]

    @classmethod
    def of(cls, st: Standings) -> StandingsOut:
        t = st.tournament
        entrants = {e.number: e for e in t.entrants}
        return cls(
            tournament=t.id,
            name=t.name,
            scoring=t.scoring.kind,
            rounds=st.rounds,
            rounds_closed=sum(1 for r in t.rounds if r.locked),
            items=[StandingOut.of(s, t, entrants) for s in st.rows],
        )


class SharedTournament(Answer):
    """The tournament's share link: the tournament, its standings, the current round's
    tables with their share pages and live streams."""

    tournament: PublicTournament
    standings: StandingsOut
    current_round: int | None
    live_links: dict[str, str] = Field(
        description="the current round's tables' event streams, by table number"
    )
    penalties: list[dict[str, Any]] = Field(
        default_factory=list,
        description="the judges' penalties standing in the tables' logs: round, table, deal, entrant, amount, to "
        "(mountain, whists or apart), violation, clause, reason (docs/rules.md §15)",
    )
    chances_first: dict[str, list[float]] = absent_when_none(
        description="each seat's chance to finish first (0 to 1, seat 0 first; they sum to 1), by table number: the current "
        "round's tables whose players are all registered and rated in the tournament's convention's pool (POST "
        "/v1/ratings/predict's chance_first, from the ratings they had before the table); absent when no table has one"
    )

    @classmethod
    def of(cls, view: PublicView) -> SharedTournament:
        t = view.tournament
        played = {r.number: list(p) for r, p in view.history}
        links = {
            str(p.at.number): link for p in view.current_tables if (link := view.live_link(p)) is not None
        }
        return cls(
            tournament=PublicTournament(**PublicTournament.public_fields(t, played)),
            standings=StandingsOut.of(view.standings),
            current_round=view.current.number if view.current else None,
            live_links=links,
            penalties=list(view.penalties),
            **(
                {"chances_first": {str(n): list(c) for n, c in sorted(view.chances.items())}}
                if view.chances
                else {}
            ),
        )


class AuditItem(Answer):
    id: int
    at: str
    by: str = Field(description='who: a key ("key 12"), the admin key, or "the tables finished"')
    action: Literal["draw", "lock", "reopen", "adjustment", "swap", "withdrawal", "late_entry", "penalty"]
    detail: dict[str, Any]

    @classmethod
    def of(cls, e: AuditEntry) -> AuditItem:
        return cls(id=e.id, at=timestamp(e.at), by=e.by, action=e.action, detail=e.detail)


class AuditList(Answer):
    items: list[AuditItem]
    next: str | None = Field(description="the URL of the next page; null on the last")
