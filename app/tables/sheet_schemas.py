"""The sheet ("пулька"): each player's pool, mountain and whists, the all-pass level, and
for piter_races the match. Built from the engine's state (``TableState``) and rules, each
exact amount made a JSON number as it is put in."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import Field

from app.kit.schemas import Amount, Answer, absent_when_none
from app.rules import Rules, TableState
from app.rules.vocabulary import MatchBonusKind
from app.tables.model import TableInfo

# A closed set made at run time: a Literal to pydantic, a string to the type checker.
if TYPE_CHECKING:
    BonusKind = str
else:
    BonusKind = Literal[tuple(m.value for m in MatchBonusKind)]


class SheetPlayer(Answer):
    seat: int
    name: str
    pool: Amount = Field(description="the current game's pool")
    pool_closed: bool = Field(description="the pool has reached the target")
    mountain: Amount
    whists: dict[str, Amount] = Field(description="what this player has written on each other seat (by seat)")
    apart: Amount = absent_when_none(
        description="penalties kept apart by the judge, mountain points (only once any is)"
    )


class Allpass(Answer):
    level: int = Field(description="1 normal, 2 after one all-pass, 3 after two or more")
    streak: int = Field(description="all-pass deals in a row")
    next_trick_cost: int | None = Field(description="what a trick of the next all-pass costs; null in rostov")
    min_contract: int | None = Field(description="the lowest contract that may be played next")
    compulsory: bool = Field(description="piter_races: the next deal is a compulsory all-pass")


class MatchTotal(Answer):
    seat: int
    pool: Amount
    mountain: Amount


class MatchBonus(Answer):
    game: int | None = Field(description="the game it was written for; null for the match bonuses")
    kind: BonusKind
    seat: int
    amount: Amount = Field(description="what this seat writes on each other player (rounded to 0.01)")


class Match(Answer):
    games: int
    totals: list[MatchTotal]
    bonuses: list[MatchBonus]


class Sheet(Answer):
    deal_count: int
    players: list[SheetPlayer]
    allpass: Allpass
    next_dealer: int
    finished: bool
    game: int = Field(description="the game within a piter_races match (1 elsewhere)")
    match: Match = absent_when_none(description="piter_races only")

    @classmethod
    def of(cls, table: TableInfo) -> Sheet:
        return cls.of_state(table.rules, table.state, table.players)

    @classmethod
    def of_state(cls, rules: Rules, state: TableState, names: tuple[str, ...] | list[str]) -> Sheet:
        """The sheet of ``state``: the engine's ``sheet`` made in the answer's types, each exact
        amount turned into a JSON number by the ``Amount`` it is put in."""
        n = state.players
        pools, mountains, whists = state.pools, state.mountains, state.whists
        players = [
            SheetPlayer(
                seat=seat,
                name=names[seat],
                pool=pools[seat],
                pool_closed=state.pool_closed(rules, seat),
                mountain=mountains[seat],
                whists={str(on): whists[seat][on] for on in range(n) if on != seat},
                **({"apart": state.apart[seat]} if state.apart else {}),
            )
            for seat in range(n)
        ]
        allpass = Allpass(
            level=state.level(),
            streak=state.streak,
            next_trick_cost=state.next_trick_cost(rules),
            min_contract=state.min_contract(rules),
            compulsory=state.compulsory_cost is not None,
        )
        match = {}
        if rules.match_bonuses:  # piter_races; elsewhere the answer has no match
            totals = zip(*state.totals())
            match["match"] = Match(
                games=rules.games,
                totals=[MatchTotal(seat=s, pool=p, mountain=m) for s, (p, m) in enumerate(totals)],
                bonuses=[
                    MatchBonus(game=b.game, kind=b.kind, seat=b.seat, amount=b.amount) for b in state.bonuses
                ],
            )
        return cls(
            deal_count=state.deal_count,
            players=players,
            allpass=allpass,
            next_dealer=state.next_dealer,
            finished=state.finished,
            game=state.game,
            **match,
        )
