"""Tournaments: the bodies that create one, enter players, draw and swap, close and reopen a
round, adjust; the tournament, its standings and its audit as answered."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Discriminator, Field, StringConstraints, Tag, WithJsonSchema

from app.deals.schemas import Clause, DealWithSheet, Destination, PenaltyAmount, StoredDeal, ViolationWord
from app.deals.schemas import Reason as PenaltyReason
from app.kit.errors import Unprocessable
from app.kit.schemas import (
    Answer,
    ConventionName,
    Name,
    PlainText,
    Request,
    absent_when_none,
    at_most,
)
from app.rules import FIELD_NAMES, FieldError, Sentence, said
from app.tables.sheet_schemas import Sheet
from app.tournaments.answer_schemas import (
    AdjustmentOut,
    AuditItem,
    AuditList,
    BalanceOut,
    EntrantOut,
    PublicTournament,
    RoundOut,
    RoundTableOut,
    SeatOut,
    SharedTournament,
    StandingAdjustment,
    StandingOut,
    StandingsOut,
    TournamentList,
    TournamentOut,
    TournamentSummary,
)
from app.tournaments.limits import (
    REASON_MAX,
    TOURNAMENT_ENTRANTS_MAX,
    TOURNAMENT_NAME_MAX,
    TOURNAMENT_ROUNDS_MAX,
)
from app.tournaments.model import (
    DIRECTOR_GAME_DEALS,
    SCORING_PRESETS,
    TournamentGameEnd,
    parse_amount,
)
from app.tournaments.scoring import TIE_BREAKS, TRANSFORMS, Scoring, Transform
from app.tournaments.service import EntrantSpec, PenaltyPosted

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

    def build(self) -> TournamentGameEnd:
        return TournamentGameEnd(self.kind, self.deals if self.kind == "deals" else None)


TournamentName = Annotated[str, StringConstraints(min_length=1, max_length=TOURNAMENT_NAME_MAX), PlainText]


def _three_player_tables() -> list[Literal[3, 4]]:
    return [3]


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
        default_factory=_three_player_tables,
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


# The requests, and the answers (app/tournaments/answer_schemas.py) named here with them.
__all__ = [
    "AdjustmentIn",
    "AdjustmentOut",
    "AuditItem",
    "AuditList",
    "BalanceOut",
    "DrawIn",
    "EntrantIn",
    "EntrantOut",
    "EntrantsAdd",
    "Exact",
    "GameEndIn",
    "Options",
    "PenaltyIn",
    "PenaltyOut",
    "PlacePoints",
    "PlayerId",
    "PublicTournament",
    "Reason",
    "RegisteredEntrant",
    "ReopenIn",
    "RoundOut",
    "RoundTableOut",
    "ScoringIn",
    "SeatOut",
    "SharedTournament",
    "StandingAdjustment",
    "StandingOut",
    "StandingsOut",
    "SwapIn",
    "TournamentCreate",
    "TournamentList",
    "TournamentName",
    "TournamentOut",
    "TournamentSummary",
    "TransformIn",
    "entrant_specs",
    "exact",
]
