"""The player registry: a seat given as a registered player, a player as answered, the paged
listing, and a player's statistics."""

from __future__ import annotations

from fractions import Fraction
from typing import Annotated, Any

from pydantic import Field, StringConstraints, model_validator

from app.kit import amounts
from app.kit.schemas import Amount, Answer, Name, PlainText, Request, absent_when_none, timestamp
from app.players.service import Player
from app.players.stats import PlayerStats
from app.ratings.model import INITIAL, Rating
from app.ratings.schemas import ChangeOut, RatingOut
from app.ratings.service import Change
from app.rules import Sentence

ExternalId = Annotated[str, StringConstraints(min_length=1, max_length=128), PlainText]
PlayerId = Annotated[str, StringConstraints(min_length=1, max_length=64)]


class SeatIn(Request):
    """A seat linked to the registry: a registered player (``player``) or an online client's
    own id for the person (``external_id``; an unknown one registers a new player)."""

    name: Name = Field(description="the name written on this table's sheet")
    player: PlayerId = absent_when_none(description="a registered player's id (GET /v1/players)")
    external_id: ExternalId = absent_when_none(
        description="the client's own id for the person, unique per owner"
    )

    @model_validator(mode="after")
    def _one_link(self) -> SeatIn:
        if (self.player is None) == (self.external_id is None):
            raise ValueError(Sentence("a seat object names exactly one of player or external_id"))
        return self


class PlayerCreate(Request):
    name: Name = Field(description="the player's display name")
    external_id: ExternalId = absent_when_none(
        description="the client's own id for the person, unique per owner"
    )

    example = {"name": "Anna", "external_id": "user-1842"}


class PlayerUpdate(Request):
    name: Name = absent_when_none(description="a new display name (the sheets of past tables keep theirs)")
    external_id: ExternalId | None = Field(default=None, description="a new external id; null clears it")

    example = {"name": "Anna K.", "external_id": "user-1842"}


class RegisteredPlayer(Answer):
    """A player of the owner's registry."""

    id: str
    name: str
    external_id: str | None = Field(description="the client's own id for the person; null when none")
    created_at: str
    updated_at: str

    @classmethod
    def of(cls, player: Player) -> RegisteredPlayer:
        return cls(
            id=player.id,
            name=player.name,
            external_id=player.external_id,
            created_at=timestamp(player.created_at),
            updated_at=timestamp(player.updated_at),
        )


class PlayerPage(Answer):
    """One page of the owner's players in creation order: follow ``next`` until it is null."""

    items: list[RegisteredPlayer]
    next: str | None = Field(description="the URL of the next page; null on the last")


class DeclaredStats(Answer):
    kind: str = Field(description='"contract" (played or not) or "remise"')
    level: int
    deals: int
    made: int
    failed: int
    undertricks: int = Field(description="tricks short, summed over the failed deals (a remise: 3)")


class MisereStats(Answer):
    deals: int
    made: int
    failed: int
    tricks: int = Field(description="tricks taken in the misères declared")


class WhistStats(Answer):
    written: Amount = Field(
        description="whists the player wrote on others (write-offs subtracted), rounded to 0.01"
    )
    written_exact: str
    received: Amount = Field(description="whists others wrote on the player, rounded to 0.01")
    received_exact: str


class AllpassStats(Answer):
    played: int = Field(description="all-pass deals played (at four players the dealer sits out)")
    tricks: int = Field(description="tricks taken in them")
    clean: int = Field(description="all-passes played without a trick")
    long_streaks: int = Field(
        description="all-pass streaks at the player's tables that reached 3 deals or more"
    )


class PlayerStatsOut(Answer):
    player: RegisteredPlayer
    convention: str = absent_when_none(description="?convention=, when given")
    from_: str = absent_when_none(
        alias="from", description="?from=, when given: tables created on or after this UTC date"
    )
    to: str = absent_when_none(description="?to=, when given: tables created on or before this UTC date")
    tables: int = Field(description="tables the player sits at")
    finished: int = Field(description="of those, the finished ones")
    deals: int = Field(description="deals at those tables")
    balance: Amount = Field(description="net whists over the finished tables, rounded to 0.01")
    balance_exact: str = Field(description='the exact net whists, e.g. "370/3"')
    stake_exact: str = absent_when_none(description="?stake=, exact")
    money: Amount = absent_when_none(description="with ?stake=: balance times the stake, rounded to 0.01")
    money_exact: str = absent_when_none(description="with ?stake=: the exact money")
    declared: list[DeclaredStats] = Field(description="games declared, by kind and level")
    misere: MisereStats
    whists: WhistStats
    allpass: AllpassStats
    rating: RatingOut = Field(
        description="the player's rating in the pool of ?convention= (of every convention without it), over every rated table (docs/ratings.md)"
    )
    rating_change: ChangeOut | None = Field(
        description="what the player's last rated table in that pool did to the rating; null before the first"
    )

    model_config = {"populate_by_name": True, "serialize_by_alias": True}

    @classmethod
    def of(
        cls,
        player: Player,
        stats: PlayerStats,
        *,
        stake: Fraction | None = None,
        filters: dict[str, str | None] | None = None,
        rating: tuple[Rating, Change | None] = (INITIAL, None),
    ) -> PlayerStatsOut:
        t = stats.tally
        money: dict[str, Any] = {}
        if stake is not None:
            value = stats.balance * stake
            money = {
                "stake_exact": amounts.exact_text(stake),
                "money": amounts.number(value),
                "money_exact": amounts.exact_text(value),
            }
        declared = []
        for key, (deals, made, failed, short) in sorted(
            t.declared.items(), key=lambda kv: (kv[0].split(":")[0], int(kv[0].split(":")[1]))
        ):
            kind, level = key.split(":")
            declared.append(
                DeclaredStats(
                    kind=kind, level=int(level), deals=deals, made=made, failed=failed, undertricks=short
                )
            )
        given = {k: v for k, v in (filters or {}).items() if v is not None}
        if "from" in given:
            given["from_"] = given.pop("from")
        return cls(
            player=RegisteredPlayer.of(player),
            **given,
            tables=stats.tables,
            finished=stats.finished,
            deals=stats.deals,
            balance=amounts.number(stats.balance),
            balance_exact=amounts.exact_text(stats.balance),
            **money,
            declared=declared,
            misere=MisereStats(
                deals=t.misere[0] + t.misere[1], made=t.misere[0], failed=t.misere[1], tricks=t.misere[2]
            ),
            whists=WhistStats(
                written=amounts.number(t.whists_written),
                written_exact=amounts.exact_text(t.whists_written),
                received=amounts.number(t.whists_received),
                received_exact=amounts.exact_text(t.whists_received),
            ),
            allpass=AllpassStats(
                played=t.allpass[0], tricks=t.allpass[1], clean=t.allpass[2], long_streaks=t.long_streaks
            ),
            rating=RatingOut.of(rating[0]),
            rating_change=ChangeOut.of(rating[1]) if rating[1] is not None else None,
        )
