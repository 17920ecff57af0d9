"""What a rating is, and how one finished table moves its players' ratings: OpenSkill's
Plackett–Luce model, each player a team of one, fed with the table's ranking by balance
(equal balances are a tie). Pure: no SQL, no HTTP.

The ratings are the model's floats, kept as it gives them (double precision in the
database): a rating is an estimate, never a score, and the scores stay exact fractions.
What makes them reproducible is that the same tables in the same order give the same floats
bit for bit: the model is pinned (pyproject.toml), its parameters are the library's defaults,
the seats go in in seat order, and the ranking is computed from the exact balances.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from openskill.models import PlackettLuce

from app.rules.vocabulary import SEATS_MAX

# The library's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300, kappa 0.0001. Changing any
# of them changes every rating: then `prefscore ratings rebuild` must be run.
MODEL = PlackettLuce()
# A rating is provisional while the player has fewer rated tables than this in the pool.
PROVISIONAL_TABLES = 6
# The owner's pool of every convention; a convention's own pool is named after it.
ALL_CONVENTIONS = ""


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float
    games: int = 0  # rated tables behind this rating

    @property
    def ordinal(self) -> float:
        """What the leaderboard sorts by: mu − 3·sigma, a value the player's skill is above
        with 99.7% confidence, so that a new player starts low and climbs as sigma shrinks."""
        return self.mu - 3 * self.sigma

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_TABLES


INITIAL = Rating(MODEL.mu, MODEL.sigma, 0)


@dataclass(frozen=True)
class Outcome:
    """A finished rated table as the ratings take it: each seat's registered player and exact
    final balance, seat 0 first."""

    table_id: str
    owner: str
    convention: str
    players: tuple[str, ...]
    balances: tuple[Fraction | int, ...]

    def to_json(self) -> list[list[str]]:
        return [[p, str(b)] for p, b in zip(self.players, self.balances)]

    @classmethod
    def from_json(cls, table_id: str, owner: str, convention: str, data: list[list[str]]) -> Outcome:
        return cls(
            table_id,
            owner,
            convention,
            tuple(p for p, _ in data),
            tuple(int(b) if "/" not in b else Fraction(b) for _, b in data),
        )

    @property
    def ranks(self) -> list[int]:
        return ranks_of(self.balances)


def ranks_of(balances: Sequence[Fraction | int]) -> list[int]:
    """Each seat's place by balance, the highest first, compared exactly: 1 + the number of
    seats with more. Equal balances share a place (a tie), and the next place is skipped
    (competition ranking: 1, 1, 3)."""
    return [1 + sum(1 for other in balances if other > mine) for mine in balances]


class _Seats(threading.local):
    """The model's rating objects of one thread, reused for every table: a new one costs a
    uuid4 (the library names every rating), more than the update's arithmetic. The model
    copies them before it changes anything, and reads only mu and sigma."""

    def __init__(self) -> None:
        self.teams = [[MODEL.rating()] for _ in range(SEATS_MAX)]


_SEATS = _Seats()


def rate(before: Sequence[Rating], balances: Sequence[Fraction | int]) -> list[Rating]:
    """The seats' ratings after one finished table, from their ratings before it."""
    teams = _SEATS.teams[: len(before)]
    for team, r in zip(teams, before):
        team[0].mu = r.mu
        team[0].sigma = r.sigma
    places: list[float] = list(ranks_of(balances))  # as the model types them; whole numbers still
    after = MODEL.rate(teams, ranks=places)
    return [Rating(team[0].mu, team[0].sigma, r.games + 1) for team, r in zip(after, before)]


def chances_first(ratings: Sequence[Rating]) -> list[float]:
    """Each seat's chance to finish first (the model's predict_win; they sum to 1)."""
    return MODEL.predict_win([[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in ratings])


def predicted_places(ratings: Sequence[Rating]) -> list[int]:
    """Each seat's most likely place (the model's predict_rank; equal chances share one)."""
    return [
        place for place, _ in MODEL.predict_rank([[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in ratings])
    ]


def pools_of(convention: str) -> tuple[str, str]:
    """The pools a table of ``convention`` counts in: the owner's overall one and its convention's."""
    return (ALL_CONVENTIONS, convention)
