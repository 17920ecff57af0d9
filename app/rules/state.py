"""The running sheet of a table: pools, mountains, whists, all-pass streak, dealer.

Amounts are exact: ``int`` where whole (nearly always), ``Fraction`` otherwise
(Rostov's 2.5-whist ties, shared halves, the races' shared bonuses). Ints keep
the hot path fast; ``exact`` folds a whole Fraction back to an int. Their codec (``exact``,
the stored JSON form) is app/rules/amounts.py's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.rules.amounts import Amount, amount_from_json, amount_to_json, exact
from app.rules.fields import AllpassScoring, Rules

STATE_VERSION = 1


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


@dataclass(frozen=True)
class SeatSheet:
    """One player's part of the sheet: pool, mountain, the whists on each other seat (by seat),
    and the penalties kept apart (None when the table keeps none)."""

    seat: int
    pool: Amount
    pool_closed: bool
    mountain: Amount
    whists: Mapping[int, Amount]
    apart: Amount | None = None


@dataclass(frozen=True)
class AllpassInfo:
    """Where the all-pass stands: its level, its streak, what the next all-pass trick costs,
    the lowest contract that may be played, and whether the next deal is a compulsory all-pass."""

    level: int = 1
    streak: int = 0
    next_trick_cost: int | None = None
    min_contract: int | None = None
    compulsory: bool = False


@dataclass(frozen=True)
class MatchInfo:
    """A match's games, the totals over it by seat (the current game's included), its bonuses."""

    games: int | None
    pools: tuple[Amount, ...] = ()
    mountains: tuple[Amount, ...] = ()
    bonuses: tuple[Bonus, ...] = ()


@dataclass(frozen=True)
class ExactSheet:
    """The sheet with exact amounts (the API's "Sheet" without the players' names); ``match``
    only at a table played as a match."""

    deal_count: int
    players: tuple[SeatSheet, ...]
    allpass: AllpassInfo
    next_dealer: int | None
    finished: bool
    game: int
    match: MatchInfo | None = None

    def to_dict(self) -> dict[str, Any]:
        """The API's shape (amounts still exact: the HTTP layer turns them into JSON numbers)."""
        players = []
        for p in self.players:
            players.append(
                {
                    "seat": p.seat,
                    "pool": p.pool,
                    "pool_closed": p.pool_closed,
                    "mountain": p.mountain,
                    "whists": {str(j): v for j, v in p.whists.items()},
                }
            )
            if p.apart is not None:
                players[-1]["apart"] = p.apart
        a = self.allpass
        out: dict[str, Any] = {
            "deal_count": self.deal_count,
            "players": players,
            "allpass": {
                "level": a.level,
                "streak": a.streak,
                "next_trick_cost": a.next_trick_cost,
                "min_contract": a.min_contract,
                "compulsory": a.compulsory,
            },
            "next_dealer": self.next_dealer,
            "finished": self.finished,
            "game": self.game,
        }
        if self.match is not None:
            m = self.match
            out["match"] = {
                "games": m.games,
                "totals": [
                    {"seat": s, "pool": pool, "mountain": mountain}
                    for s, (pool, mountain) in enumerate(zip(m.pools, m.mountains))
                ],
                "bonuses": [
                    {"game": b.game, "kind": b.kind, "seat": b.seat, "amount": b.amount} for b in m.bonuses
                ],
            }
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ExactSheet:
        """The sheet of the API's shape (``to_dict``'s; what is left out takes its default)."""
        players = tuple(
            SeatSheet(
                seat=p["seat"],
                pool=p.get("pool", 0),
                pool_closed=bool(p.get("pool_closed")),
                mountain=p.get("mountain", 0),
                whists={int(j): v for j, v in p.get("whists", {}).items()},
                apart=p.get("apart"),
            )
            for p in data["players"]
        )
        match = data.get("match")
        return cls(
            deal_count=int(data.get("deal_count", 0)),
            players=players,
            allpass=AllpassInfo(**data.get("allpass", {})),
            next_dealer=data.get("next_dealer"),
            finished=bool(data.get("finished")),
            game=data.get("game", 1),
            match=None
            if not match
            else MatchInfo(
                games=match.get("games"),
                pools=tuple(t["pool"] for t in match.get("totals", ())),
                mountains=tuple(t["mountain"] for t in match.get("totals", ())),
                bonuses=tuple(
                    Bonus(b.get("game"), b["kind"], b["seat"], b["amount"]) for b in match.get("bonuses", ())
                ),
            ),
        )


def exact_sheet(rules: Rules, state: TableState) -> ExactSheet:
    """The sheet of a table's state under its rules, with exact amounts."""
    n = state.players
    players = tuple(
        SeatSheet(
            seat=seat,
            pool=state.pools[seat],
            pool_closed=state.pool_closed(rules, seat),
            mountain=state.mountains[seat],
            whists={j: state.whists[seat][j] for j in range(n) if j != seat},
            apart=state.apart[seat] if state.apart else None,
        )
        for seat in range(n)
    )
    match = None
    if rules.match_bonuses:
        pools, mountains = state.totals()
        match = MatchInfo(rules.games, tuple(pools), tuple(mountains), tuple(state.bonuses))
    return ExactSheet(
        deal_count=state.deal_count,
        players=players,
        allpass=AllpassInfo(
            level=state.level(),
            streak=state.streak,
            next_trick_cost=state.next_trick_cost(rules),
            min_contract=state.min_contract(rules),
            compulsory=state.compulsory_cost is not None,
        ),
        next_dealer=state.next_dealer,
        finished=state.finished,
        game=state.game,
        match=match,
    )


def sheet(rules: Rules, state: TableState) -> dict[str, Any]:
    """The sheet (the API's "Sheet") with exact amounts; names are added by the caller.

    Amounts are ``int`` or ``Fraction``: the HTTP layer turns them into JSON numbers.
    """
    return exact_sheet(rules, state).to_dict()
