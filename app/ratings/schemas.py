"""Ratings: a player's rating and its history, the leaderboard, a prediction for a seating,
and a rated table's changes as its settlement shows them."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints

from app.kit.schemas import Answer, ConventionName, Request, absent_when_none, timestamp
from app.ratings.model import PROVISIONAL_TABLES, Rating
from app.ratings.service import Change, Leaderboard, LeaderboardEntry, PlayerRating, Prediction, TableRating

PlayerId = Annotated[str, StringConstraints(min_length=1, max_length=64)]


class RatingOut(Answer):
    """A rating: the model's mean and uncertainty, and what the leaderboard sorts by."""

    mu: float = Field(description="the estimated skill (25 for a new player)")
    sigma: float = Field(
        description="the uncertainty of mu (25/3 for a new player); it shrinks as the player plays"
    )
    ordinal: float = Field(description="mu − 3·sigma: what the leaderboard sorts by")
    games: int = Field(description="rated tables behind this rating")
    provisional: bool = Field(description=f"fewer than {PROVISIONAL_TABLES} rated tables")

    @classmethod
    def of(cls, r: Rating) -> RatingOut:
        return cls(mu=r.mu, sigma=r.sigma, ordinal=r.ordinal, games=r.games, provisional=r.provisional)


class ChangeOut(Answer):
    """What one rated table did to the player's rating."""

    table_id: str
    finished_at: str | None = Field(description="when the table finished as rated")
    before: RatingOut
    after: RatingOut
    mu_change: float = Field(description="after.mu − before.mu")
    ordinal_change: float = Field(description="after.ordinal − before.ordinal")

    @classmethod
    def of(cls, c: Change) -> ChangeOut:
        return cls(
            table_id=c.table_id,
            finished_at=timestamp(c.finished_at),
            before=RatingOut.of(c.before),
            after=RatingOut.of(c.after),
            mu_change=c.after.mu - c.before.mu,
            ordinal_change=c.after.ordinal - c.before.ordinal,
        )


class PlayerRatingOut(Answer):
    player: str = Field(description="the player's id")
    convention: str | None = Field(description="the convention's pool; null: the pool of every convention")
    rating: RatingOut
    history: list[ChangeOut] = Field(description="the rated tables, the latest first")
    next: str | None = Field(description="the URL of the next page of history; null on the last")

    @classmethod
    def of(cls, r: PlayerRating, next_url: str | None) -> PlayerRatingOut:
        return cls(
            player=r.player_id,
            convention=r.convention,
            rating=RatingOut.of(r.rating),
            history=[ChangeOut.of(c) for c in r.history],
            next=next_url,
        )


class LeaderboardEntryOut(Answer):
    player: str = Field(description="the player's id")
    name: str
    rating: RatingOut

    @classmethod
    def of(cls, s: LeaderboardEntry) -> LeaderboardEntryOut:
        return cls(player=s.player_id, name=s.name, rating=RatingOut.of(s.rating))


class LeaderboardOut(Answer):
    """One page of the owner's rated players, the highest ordinal first: follow ``next``."""

    convention: str | None = Field(description="the convention's pool; null: the pool of every convention")
    items: list[LeaderboardEntryOut]
    next: str | None = Field(description="the URL of the next page; null on the last")

    @classmethod
    def of(cls, board: Leaderboard, next_url: str | None) -> LeaderboardOut:
        return cls(
            convention=board.convention,
            items=[LeaderboardEntryOut.of(s) for s in board.standings],
            next=next_url,
        )


class PredictIn(Request):
    players: list[PlayerId] = Field(
        min_length=3, max_length=4, description="the seating: 3 or 4 registered players' ids"
    )
    convention: ConventionName = absent_when_none(
        description="rate in this convention's pool; the pool of every convention when left out"
    )

    example = {
        "players": [
            "0000018b8e5f2c3a9d1e4f5a6b7c8d9e",
            "0000018b8e5f2c3b1a2b3c4d5e6f7a8b",
            "0000018b8e5f2c3c0f1e2d3c4b5a6978",
        ]
    }


class PredictionOut(Answer):
    player: str
    rating: RatingOut
    chance_first: float = Field(description="the chance to finish first (the chances sum to 1)")
    place: int = Field(description="the most likely place, 1 the first; equal chances share a place")

    @classmethod
    def of(cls, p: Prediction) -> PredictionOut:
        return cls(
            player=p.player_id, rating=RatingOut.of(p.rating), chance_first=p.chance_first, place=p.place
        )


class PredictOut(Answer):
    convention: str | None
    players: list[PredictionOut] = Field(description="seat by seat, as asked")


class SeatRatingOut(Answer):
    """A seat's rating change at a rated table (the pool of every convention)."""

    seat: int
    player: str
    before: RatingOut
    after: RatingOut
    mu_change: float
    ordinal_change: float

    @classmethod
    def all_of(cls, rating: TableRating) -> list[SeatRatingOut]:
        return [
            cls(
                seat=seat,
                player=player,
                before=RatingOut.of(c.before),
                after=RatingOut.of(c.after),
                mu_change=c.after.mu - c.before.mu,
                ordinal_change=c.after.ordinal - c.before.ordinal,
            )
            for seat, (player, c) in enumerate(rating.seats)
        ]
