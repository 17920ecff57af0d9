"""What a tournament is to the rest of the service: its settings (the rules its tables play,
their sizes, how a table's game ends, the scoring of a round), its entrants, its rounds and
their tables, the director's adjustments and the audit. The stored forms of the scoring and
of the game's end are read and written here. No SQL (repository.py), no HTTP.

A player of the pure core (app/tournaments/scoring.py, draw.py) is the entrant's number as
text: ``key(3) == "3"``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from typing import Any

from app.rules import Sentence, amounts
from app.tournaments.scoring import TRANSFORMS, Scoring, Transform

# How a table's game ends: its pool closed (the convention's own end), after a number of
# deals, or when the director closes the round (the table is played "for time"; a scorer may
# also end it with a ``close`` deal).
GAME_ENDS = ("pool", "deals", "director")
# A game the director ends is played for deals, as many as a table may hold.
DIRECTOR_GAME_DEALS = 10_000

# Scorings by name: the plain whists, the two capped transforms, and the places.
SCORING_PRESETS: dict[str, Scoring] = {
    "whists": Scoring("whists"),
    "gambler_ru": Scoring("whists", transform=TRANSFORMS["gambler_ru"]),
    "playelephant_lt": Scoring("whists", transform=TRANSFORMS["playelephant_lt"]),
    "places": Scoring("places"),
}

OPEN, CLOSED, REOPENED = "open", "closed", "reopened"


def key(number: int) -> str:
    """An entrant as the pure core names it."""
    return str(number)


@dataclass(frozen=True)
class TournamentGameEnd:
    kind: str  # one of GAME_ENDS
    deals: int | None = None  # "deals" only

    def options(self) -> dict[str, Any]:
        """The table options that make a table's game end so."""
        if self.kind == "deals":
            return {"end_of_game": "deals", "game_deals": self.deals}
        if self.kind == "director":
            return {"end_of_game": "deals", "game_deals": DIRECTOR_GAME_DEALS}
        return {}

    def stored(self) -> dict[str, Any]:
        return {"kind": self.kind, **({"deals": self.deals} if self.deals is not None else {})}

    @classmethod
    def of(cls, stored: dict[str, Any]) -> TournamentGameEnd:
        return cls(stored["kind"], stored.get("deals"))


# --- the scoring, stored as JSON (exact amounts as text) ------------------------------------


def _text(value: Fraction | None) -> str | None:
    return None if value is None else amounts.exact_text(value)


def _fraction(value: str | None) -> Fraction | None:
    return None if value is None else Fraction(value)


def scoring_stored(scoring: Scoring, preset: str | None = None) -> dict[str, Any]:
    transform = scoring.transform
    return {
        "preset": preset,
        "kind": scoring.kind,
        "transform": None
        if transform is None
        else {
            "breakpoints": [_text(b) for b in transform.breakpoints],
            "slopes": [_text(s) for s in transform.slopes],
            "floor": _text(transform.floor),
        },
        "place_points": None
        if scoring.place_points is None
        else {str(size): [_text(p) for p in row] for size, row in sorted(scoring.place_points.items())},
        "tie_breaks": list(scoring.tie_breaks),
        "bye_score": _text(scoring.bye_score),
    }


def scoring_of(stored: dict[str, Any]) -> Scoring:
    transform = stored.get("transform")
    points = stored.get("place_points")
    return Scoring(
        stored["kind"],
        transform=None
        if transform is None
        else Transform(
            breakpoints=tuple(Fraction(b) for b in transform["breakpoints"]),
            slopes=tuple(Fraction(s) for s in transform["slopes"]),
            floor=_fraction(transform.get("floor")),
        ),
        place_points=None
        if points is None
        else {int(size): tuple(Fraction(p) for p in row) for size, row in points.items()},
        tie_breaks=tuple(stored["tie_breaks"]),
        bye_score=_fraction(stored.get("bye_score")),
    )


def parse_amount(value: Any, field: str) -> Fraction:
    """An exact amount of a request: an integer, or a text "7/2", "3.5", "-12"."""
    try:
        return amounts.parse(value)
    except (TypeError, ValueError, ZeroDivisionError):
        raise ValueError(
            Sentence('{field} must be an integer or an exact amount as text ("7/2", "3.5")', field=field)
        ) from None


# --- the tournament as loaded --------------------------------------------------------------


@dataclass(frozen=True)
class Entrant:
    number: int
    name: str
    player_id: str | None
    joined_round: int  # the first round the entrant is drawn in
    withdrawn_round: int | None  # the first round the entrant is not drawn in
    created_at: datetime

    @property
    def key(self) -> str:
        return key(self.number)

    def plays(self, round_number: int) -> bool:
        """Drawn in this round (entered by then, not withdrawn before it)."""
        return self.joined_round <= round_number and (
            self.withdrawn_round is None or round_number < self.withdrawn_round
        )


@dataclass(frozen=True)
class TableAtRound:
    """A round's table: the ordinary table it is played at (None when that table was
    deleted), its seats (entrant numbers, seat 0 first) and, once its round is closed, the
    balances stored then, by seat."""

    round: int
    number: int
    table_id: str | None
    seats: tuple[int, ...]
    balances: tuple[Fraction, ...] | None


@dataclass(frozen=True)
class Round:
    number: int
    seed: int
    byes: tuple[int, ...]
    created_at: datetime
    closed_at: datetime | None
    reopened: bool
    tables: tuple[TableAtRound, ...]

    @property
    def status(self) -> str:
        if self.closed_at is not None:
            return CLOSED
        return REOPENED if self.reopened else OPEN

    @property
    def locked(self) -> bool:
        return self.closed_at is not None


@dataclass(frozen=True)
class AdjustmentInfo:
    id: int
    entrant: int
    amount: Fraction
    reason: str
    round: int | None
    created_at: datetime
    by: str


@dataclass(frozen=True)
class AuditEntry:
    id: int
    at: datetime
    by: str
    action: str
    detail: dict[str, Any]


@dataclass(frozen=True)
class Tournament:
    id: str
    owner: str
    name: str
    convention: str
    pool_target: int | None
    options: dict[str, Any]
    table_sizes: tuple[int, ...]
    game_end: TournamentGameEnd
    rounds_planned: int
    scoring: Scoring
    scoring_stored: dict[str, Any]
    swiss: bool
    share_token: str
    revision: int
    created_at: datetime
    updated_at: datetime
    entrants: tuple[Entrant, ...]
    rounds: tuple[Round, ...]
    adjustments: tuple[AdjustmentInfo, ...]

    @property
    def last_round(self) -> Round | None:
        return self.rounds[-1] if self.rounds else None

    @property
    def next_round(self) -> int:
        return len(self.rounds) + 1

    def entrant(self, number: int, field: str = "entrant") -> Entrant:
        for e in self.entrants:
            if e.number == number:
                return e
        raise KeyError(field)

    def table_options(self) -> dict[str, Any]:
        """The options every table of the tournament is made with: its own, and its game's end."""
        return {**self.options, **self.game_end.options()}

    def names(self) -> dict[int, str]:
        return {e.number: e.name for e in self.entrants}


@dataclass(frozen=True)
class TournamentPage:
    tournaments: tuple[Tournament, ...]
    next_cursor: str | None


@dataclass(frozen=True)
class PlayedTable:
    """A round's table as the standings and the pages show it: with the ordinary table's
    state at the moment it was read."""

    at: TableAtRound
    title: str | None
    share_token: str | None
    deal_count: int
    revision: int
    finished: bool
    locked: bool
    balances: tuple[Fraction, ...] | None  # the results that count (None: none yet)
    scorer_links: tuple[str, ...] = ()  # tokens: only in the answer of the draw that made them
