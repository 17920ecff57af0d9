"""The running sheet of a table: pools, mountains, whists, all-pass streak, dealer.

Amounts are exact: ``int`` where whole (nearly always), ``Fraction`` otherwise
(Rostov's 2.5-whist ties, shared halves, the races' shared bonuses). Ints keep
the hot path fast; ``exact`` folds a whole Fraction back to an int.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from app.rules.fields import AllpassScoring, Rules

Amount = int | Fraction

STATE_VERSION = 1


def exact(value: Amount) -> Amount:
    """An amount in canonical form: an int when whole, else a Fraction."""
    if type(value) is int:  # the common case; isinstance on Fraction goes through the ABC machinery
        return value
    if value.denominator == 1:
        return int(value.numerator)
    return value


def amount_to_json(value: Amount) -> int | str:
    """Store an amount in JSON without loss: an int, or "p/q"."""
    value = exact(value)
    return value if isinstance(value, int) else f"{value.numerator}/{value.denominator}"


def amount_from_json(value: int | str) -> Amount:
    return value if isinstance(value, int) else exact(Fraction(value))


@dataclass(frozen=True, slots=True)
class Entry:
    """One line a deal writes on the sheet. Negative amounts are written off."""

    kind: str  # "pool", "mountain", "whists" or "apart" (a penalty kept apart)
    seat: int
    amount: Amount
    on: int | None = None  # for whists: the seat written on

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "seat": self.seat}
        if self.on is not None:
            out["on"] = self.on
        out["amount"] = self.amount
        return out


@dataclass(frozen=True, slots=True)
class Bonus:
    """A match bonus (match_bonuses): ``seat`` writes ``amount`` on each other player."""

    game: int | None  # None for the match bonuses
    kind: str  # "first_to_target", "min_mountain", "max_pool"
    seat: int
    amount: Amount


@dataclass(frozen=True, slots=True)
class TableState:
    players: int
    pools: tuple[Amount, ...]  # the current game's (docs/rules.md §8.5)
    mountains: tuple[Amount, ...]
    whists: tuple[tuple[Amount, ...], ...]  # whists[i][j]: what seat i has written on seat j
    streak: int = 0  # all-pass deals since the last exit
    compulsory_cost: int | None = None  # compulsory_allpass: the next deal is an all-pass at this cost
    next_dealer: int = 0
    finished: bool = False
    game: int = 1
    deal_count: int = 0
    # a match (match_bonuses) only
    first_to_target: tuple[int, ...] = ()  # who first reached the target in this game
    match_pools: tuple[Amount, ...] = ()  # totals of the games already ended
    match_mountains: tuple[Amount, ...] = ()
    bonuses: tuple[Bonus, ...] = field(default=())
    # penalties kept apart by the judge, mountain points by seat (docs/rules.md §15); () none yet
    apart: tuple[Amount, ...] = ()

    @classmethod
    def new(cls, rules: Rules, first_dealer: int = 0) -> TableState:
        n = rules.players
        zeros = (0,) * n
        return cls(
            players=n,
            pools=zeros,
            mountains=zeros,
            whists=tuple(zeros for _ in range(n)),
            next_dealer=first_dealer,
            # With compulsory all-passes each game opens with one at the first cost.
            compulsory_cost=rules.allpass_costs.at(0) if rules.compulsory_allpass else None,
            match_pools=zeros if rules.match_bonuses else (),
            match_mountains=zeros if rules.match_bonuses else (),
        )

    # --- what the state says -----------------------------------------------
    def level(self) -> int:
        """The exposed all-pass level: 1 normal, 2 second passes, 3 third and later."""
        return min(self.streak, 2) + 1

    def next_trick_cost(self, rules: Rules) -> int | None:
        if self.compulsory_cost is not None:
            return self.compulsory_cost
        if rules.allpass_scoring is AllpassScoring.ROSTOV:
            return None  # the Rostov all-pass has no trick cost
        return rules.allpass_costs.at(self.streak)

    def min_contract(self, rules: Rules) -> int | None:
        if self.compulsory_cost is not None:
            return None
        exits = rules.exit_levels
        return exits[min(self.streak, len(exits) - 1)]

    def pool_closed(self, rules: Rules, seat: int) -> bool:
        return self.pools[seat] >= rules.pool_target

    def apart_of(self, seat: int) -> Amount:
        """The penalties kept apart of ``seat``, mountain points."""
        return self.apart[seat] if self.apart else 0

    def totals(self) -> tuple[tuple[Amount, ...], tuple[Amount, ...]]:
        """Pools and mountains over the whole match (the current game included)."""
        if not self.match_pools:
            return self.pools, self.mountains
        return (
            tuple(exact(a + b) for a, b in zip(self.match_pools, self.pools)),
            tuple(exact(a + b) for a, b in zip(self.match_mountains, self.mountains)),
        )

    # --- storage -----------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        aj = amount_to_json
        return {
            "version": STATE_VERSION,
            "players": self.players,
            "pools": [aj(a) for a in self.pools],
            "mountains": [aj(a) for a in self.mountains],
            "whists": [[aj(a) for a in row] for row in self.whists],
            "streak": self.streak,
            "compulsory_cost": self.compulsory_cost,
            "next_dealer": self.next_dealer,
            "finished": self.finished,
            "game": self.game,
            "deal_count": self.deal_count,
            "first_to_target": list(self.first_to_target),
            "match_pools": [aj(a) for a in self.match_pools],
            "match_mountains": [aj(a) for a in self.match_mountains],
            "bonuses": [[b.game, b.kind, b.seat, aj(b.amount)] for b in self.bonuses],
        } | ({"apart": [aj(a) for a in self.apart]} if self.apart else {})

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TableState:
        if data.get("version") != STATE_VERSION:
            raise ValueError(f"state version {data.get('version')!r} is not {STATE_VERSION}")
        af = amount_from_json
        return cls(
            players=data["players"],
            pools=tuple(af(a) for a in data["pools"]),
            mountains=tuple(af(a) for a in data["mountains"]),
            whists=tuple(tuple(af(a) for a in row) for row in data["whists"]),
            streak=data["streak"],
            compulsory_cost=data["compulsory_cost"],
            next_dealer=data["next_dealer"],
            finished=data["finished"],
            game=data["game"],
            deal_count=data["deal_count"],
            first_to_target=tuple(data["first_to_target"]),
            match_pools=tuple(af(a) for a in data["match_pools"]),
            match_mountains=tuple(af(a) for a in data["match_mountains"]),
            bonuses=tuple(Bonus(g, k, s, af(a)) for g, k, s, a in data["bonuses"]),
            apart=tuple(af(a) for a in data.get("apart", ())),
        )


def sheet(rules: Rules, state: TableState) -> dict[str, Any]:
    """The sheet (the API's "Sheet") with exact amounts; names are added by the caller.

    Amounts are ``int`` or ``Fraction``: the HTTP layer turns them into JSON numbers.
    """
    n = state.players
    players = []
    for seat in range(n):
        players.append(
            {
                "seat": seat,
                "pool": state.pools[seat],
                "pool_closed": state.pool_closed(rules, seat),
                "mountain": state.mountains[seat],
                "whists": {str(j): state.whists[seat][j] for j in range(n) if j != seat},
            }
        )
        if state.apart:
            players[-1]["apart"] = state.apart[seat]
    out: dict[str, Any] = {
        "deal_count": state.deal_count,
        "players": players,
        "allpass": {
            "level": state.level(),
            "streak": state.streak,
            "next_trick_cost": state.next_trick_cost(rules),
            "min_contract": state.min_contract(rules),
            "compulsory": state.compulsory_cost is not None,
        },
        "next_dealer": state.next_dealer,
        "finished": state.finished,
        "game": state.game,
    }
    if rules.match_bonuses:
        pools, mountains = state.totals()
        out["match"] = {
            "games": rules.games,
            "totals": [{"seat": s, "pool": pools[s], "mountain": mountains[s]} for s in range(n)],
            "bonuses": [
                {"game": b.game, "kind": b.kind, "seat": b.seat, "amount": b.amount} for b in state.bonuses
            ],
        }
    return out
