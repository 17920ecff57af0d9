"""Tournaments: the bodies that create one, enter players, draw and swap, close and reopen a
round, adjust; the tournament, its standings and its audit as answered."""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Discriminator, Field, StringConstraints, Tag, WithJsonSchema

from app.deals.schemas import Clause, DealWithSheet, Destination, PenaltyAmount, StoredDeal, ViolationWord
from app.deals.schemas import Reason as PenaltyReason
from app.kit import amounts as kit_amounts
from app.kit.errors import Unprocessable
from app.kit.limits import (
    REASON_MAX,
    TOURNAMENT_ENTRANTS_MAX,
    TOURNAMENT_NAME_MAX,
    TOURNAMENT_ROUNDS_MAX,
)
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
from app.rules import FIELD_NAMES, FieldError, Sentence, amounts, said
from app.tables.sheet_schemas import Sheet
from app.tournaments.model import (
    DIRECTOR_GAME_DEALS,
    SCORING_PRESETS,
    AdjustmentInfo,
    AuditEntry,
    GameEnd,
    PlayedTable,
    Round,
    Tournament,
    TournamentPage,
    parse_amount,
)
from app.tournaments.scoring import TIE_BREAKS, TRANSFORMS, Scoring, Standing, Transform
from app.tournaments.service import EntrantSpec, PenaltyPosted, PublicView, Standings

Options = Annotated[dict[str, Any], Field(max_length=len(FIELD_NAMES)), at_most(len(FIELD_NAMES))]
# An exact amount: an integer, or text such as "7/2", "3.5", "-12" (one check, so that a
# refusal names the field itself, not a member of a union).
_EXACT_TEXT = re.compile(r"^-?[0-9]{1,9}(/[1-9][0-9]{0,8}|\.[0-9]{1,6})?$")


def _exact_value(value: Any) -> int | str:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 10**9:
        return value
    if isinstance(value, str) and _EXACT_TEXT.fullmatch(value):
        return value
    raise ValueError(Sentence('must be an integer, or an exact amount as text ("7/2", "3.5")'))


Exact = Annotated[
    Any,
    BeforeValidator(_exact_value),
    WithJsonSchema(
        {
            "oneOf": [
                {"type": "integer", "minimum": -(10**9) + 1, "maximum": 10**9 - 1},
                {"type": "string", "pattern": _EXACT_TEXT.pattern},
            ],
            "description": 'an integer, or an exact amount as text: "7/2", "3.5"',
        }
    ),
]
Reason = Annotated[str, StringConstraints(min_length=1, max_length=REASON_MAX), PlainText]
PlayerId = Annotated[str, StringConstraints(min_length=1, max_length=64)]


# Points per place by table size ("3", "4"), best place first.
PlacePoints = Annotated[
    dict[Literal["3", "4"], Annotated[list[Exact], Field(min_length=3, max_length=4)]],
    Field(max_length=2),
    at_most(2),
]


def exact(value: Any) -> Fraction:
    return parse_amount(value, "an amount")


class RegisteredEntrant(Request):
    player: PlayerId = Field(description="a registered player's id (GET /v1/players)")
    name: Name = absent_when_none(description="the name at the tables; the registry's name when left out")


def _entrant_tag(value: Any) -> str:
    return "player" if isinstance(value, dict) else "name"


EntrantIn = Annotated[
    Annotated[Name, Tag("name")] | Annotated[RegisteredEntrant, Tag("player")], Discriminator(_entrant_tag)
]


def entrant_specs(items: list[Any]) -> list[EntrantSpec]:
    return [
        EntrantSpec(name=i) if isinstance(i, str) else EntrantSpec(name=i.name, player=i.player)
        for i in items
    ]


class TransformIn(Request):
    breakpoints: list[Exact] = Field(max_length=10, description="ascending, positive")
    slopes: list[Exact] = Field(
        max_length=11, description="one more than the breakpoints: below the first, between, above the last"
    )
    floor: Exact | None = Field(
        default=None, description="the least a negative balance scores; null: unchanged"
    )


class ScoringIn(Request):
    kind: Literal["whists", "places"]
    transform: Literal[tuple(TRANSFORMS)] | TransformIn | None = Field(  # type: ignore[valid-type]
        default=None, description="whists only: a named transform (gambler_ru, playelephant_lt) or one given"
    )
    place_points: PlacePoints | None = Field(
        default=None,
        description="places only: points per place (best first) by table size; null: the defaults",
    )
    tie_breaks: list[Literal[TIE_BREAKS]] = Field(  # type: ignore[valid-type]
        default=list(TIE_BREAKS), max_length=len(TIE_BREAKS), description="after the total, in this order"
    )
    bye_score: Exact | None = Field(default=None, description="a bye's score; null: the kind's default")

    def build(self) -> Scoring:
        transform = self.transform
        if isinstance(transform, str):
            transform = TRANSFORMS[transform]
        elif transform is not None:
            transform = Transform(
                breakpoints=tuple(exact(b) for b in transform.breakpoints),
                slopes=tuple(exact(s) for s in transform.slopes),
                floor=None if transform.floor is None else exact(transform.floor),
            )
        points = None
        if self.place_points is not None:
            points = {int(size): tuple(exact(p) for p in row) for size, row in self.place_points.items()}
        return Scoring(
            self.kind,
            transform=transform,
            place_points=points,
            tie_breaks=tuple(self.tie_breaks),
            bye_score=None if self.bye_score is None else exact(self.bye_score),
        )


class GameEndIn(Request):
    kind: Literal["pool", "deals", "director"] = Field(
        description="pool: the convention's own end (the pools closed); deals: after a number of deals; director: the round is closed by the director"
    )
    deals: int = Field(default=None, ge=1, le=DIRECTOR_GAME_DEALS, description="deals only: how many")

    def build(self) -> GameEnd:
        return GameEnd(self.kind, self.deals if self.kind == "deals" else None)


TournamentName = Annotated[str, StringConstraints(min_length=1, max_length=TOURNAMENT_NAME_MAX), PlainText]


class TournamentCreate(Request):
    name: TournamentName
    convention: ConventionName
    pool_target: int = Field(
        default=None,
        ge=1,
        le=1000,
        description="the pool every table plays to; the convention's when left out",
    )
    options: Options = Field(
        default_factory=dict, description="options of the convention every table plays (GET /v1/conventions)"
    )
    table_sizes: list[Literal[3, 4]] = Field(
        default_factory=lambda: [3],
        min_length=1,
        max_length=2,
        description="[3], [4], or [3, 4] for mixed tables (4 where the rules seat 4)",
    )
    game_end: GameEndIn = Field(
        default_factory=lambda: GameEndIn(kind="pool"), description="how a table's game ends"
    )
    rounds: int = Field(ge=1, le=TOURNAMENT_ROUNDS_MAX, description="the planned number of rounds")
    scoring: Literal[tuple(SCORING_PRESETS)] | ScoringIn = Field(  # type: ignore[valid-type]
        default="whists",
        description="a preset by name (whists, gambler_ru, playelephant_lt, places) or a scoring",
    )
    swiss: bool = Field(
        default=False, description="draw players of close standing together (after the first round)"
    )
    entrants: list[EntrantIn] = Field(default_factory=list, max_length=TOURNAMENT_ENTRANTS_MAX)

    example = {
        "name": "Club night",
        "convention": "sochi",
        "pool_target": 10,
        "table_sizes": [3],
        "game_end": {"kind": "pool"},
        "rounds": 3,
        "scoring": "gambler_ru",
        "entrants": ["Anna", "Boris", "Vera", "Gleb", "Dasha", "Egor"],
    }

    def build_scoring(self) -> tuple[Scoring, str | None]:
        """The scoring, or Unprocessable naming ``scoring`` (a transform's breakpoints not
        ascending, place points not one per place, ...)."""
        if isinstance(self.scoring, str):
            return SCORING_PRESETS[self.scoring], self.scoring
        try:
            return self.scoring.build(), None
        except ValueError as exc:
            raise Unprocessable(
                Sentence("the scoring does not fit"), [FieldError("scoring", said(exc))]
            ) from None


class EntrantsAdd(Request):
    entrants: list[EntrantIn] = Field(min_length=1, max_length=TOURNAMENT_ENTRANTS_MAX)

    example = {"entrants": ["Zhenya", {"player": "0189f3c2a1b2c3d4e5f60718293a4b5c"}]}


class DrawIn(Request):
    seed: int = Field(
        default=None,
        ge=0,
        le=2**53 - 1,
        description="the draw's seed; a random one when left out (stored, shown)",
    )

    example = {"seed": 20261202}


class SwapIn(Request):
    a: int = Field(ge=1, le=TOURNAMENT_ENTRANTS_MAX, description="an entrant's number")
    b: int = Field(ge=1, le=TOURNAMENT_ENTRANTS_MAX, description="another entrant's number")

    example = {"a": 4, "b": 7}


class ReopenIn(Request):
    reason: Reason

    example = {"reason": "table 2 wrote deal 14's whists to the wrong player"}


class PenaltyIn(Request):
    """A judge's penalty on an entrant at a round's table (docs/rules.md §15)."""

    example = {
        "round": 2,
        "table": 1,
        "entrant": 7,
        "amount": 10,
        "clause": "10.3",
        "reason": "lead out of turn",
    }

    round: int = Field(ge=1, le=TOURNAMENT_ROUNDS_MAX, description="the round")
    table: int = Field(ge=1, le=TOURNAMENT_ENTRANTS_MAX, description="the table's number in the round")
    entrant: int = Field(
        ge=1, le=TOURNAMENT_ENTRANTS_MAX, description="the entrant penalised: a player of that table"
    )
    amount: PenaltyAmount = Field(
        default=None, description="points to the mountain or apart, or whists from each other player"
    )
    destination: Destination = Field(
        default=None, description="mountain, whists or apart; default: the tournament's penalties_to"
    )
    violation: ViolationWord = Field(default=None, description="the section 10 error penalised")
    clause: Clause = Field(default=None, description='the clause of the code applied, e.g. "10.3"')
    reason: PenaltyReason = Field(description="why the penalty was given")

    def penalty(self) -> dict[str, Any]:
        """The penalty's own fields, as the engine's penalty takes them."""
        return {
            "amount": self.amount,
            "destination": self.destination,
            "violation": self.violation,
            "clause": self.clause,
            "reason": self.reason,
        }


class PenaltyOut(Answer):
    """A director's penalty as posted: the round's table, the entrant and seat, the stored deal."""

    round: int
    table: int
    table_id: str
    entrant: int
    seat: int
    deal: StoredDeal
    sheet: Sheet

    @classmethod
    def of(cls, done: PenaltyPosted) -> PenaltyOut:
        result = done.posted
        # a retry with the key: the first answer again, as it was kept
        if result.earlier_answer is not None:
            answer = DealWithSheet.model_validate(result.earlier_answer)
        else:
            assert result.table is not None and result.deal is not None  # a new post carries both
            answer = DealWithSheet.of(result.table, result.deal)
        return cls(
            round=done.round,
            table=done.table,
            table_id=done.table_id,
            entrant=done.entrant,
            seat=done.seat,
            deal=answer.deal,
            sheet=answer.sheet,
        )


class AdjustmentIn(Request):
    entrant: int = Field(ge=1, le=TOURNAMENT_ENTRANTS_MAX)
    amount: Exact = Field(description="in the scoring's unit (whists or points); negative for a penalty")
    reason: Reason
    round: int = Field(
        default=None, ge=1, le=TOURNAMENT_ROUNDS_MAX, description="the round it concerns, if one"
    )

    example = {"entrant": 3, "amount": -20, "reason": "late for round 2", "round": 2}


# --- answers ---------------------------------------------------------------------------------


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
