"""After the entries of a deal: the all-pass streak, the next dealer, the end of the game and
the match's bonuses (docs/rules.md §8.1, §8.4, §8.5).
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from app.rules.deal import Deal
from app.rules.fields import AllpassScoring, FixedDealerScope, GameEnd, Rules
from app.rules.sheet import WorkingSheet
from app.rules.state import Bonus, TableState, exact


def next_streak(rules: Rules, state: TableState, deal: Deal, exits: bool) -> int:
    """An all-pass adds one (a compulsory one at cost c leaves the streak at the index after
    c's); a deal that ends the streak sets it to 0; any other deal leaves it."""
    if deal.type == "allpass":
        if rules.allpass_scoring is AllpassScoring.ROSTOV:
            return state.streak  # no streak
        if state.compulsory_cost is not None:
            return rules.allpass_costs.costs.index(state.compulsory_cost) + 1
        return state.streak + 1
    return 0 if exits else state.streak


def next_dealer(rules: Rules, dealer: int, deal: Deal, streak: int) -> int:
    """The deal passes on; with sliding_allpass off the same player deals for as long as the
    table is in all-passes (an all-pass deal, or any deal after which the streak goes on), or
    under fixed_dealer_scope allpass_deals (rules version 1) after an all-pass deal only."""
    if not rules.sliding_allpass and (
        deal.type == "allpass" or (streak > 0 and rules.fixed_dealer_scope is FixedDealerScope.WHOLE_STREAK)
    ):
        return dealer
    return (dealer + 1) % rules.players


def finish_deal(sheet: WorkingSheet, deal: Deal) -> TableState:
    """The state after the deal's entries: streak, dealer, the end of the game."""
    rules, state = sheet.rules, sheet.state
    streak = next_streak(rules, state, deal, sheet.exit)
    pools = tuple(sheet.pools)
    first = state.first_to_target
    if not first and rules.match_bonuses:
        first = tuple(s for s in range(sheet.n) if pools[s] >= rules.pool_target)
    # positional, in TableState's field order (the hot path: once per deal)
    new = TableState(
        sheet.n,
        pools,
        tuple(sheet.mountains),
        sheet.whists_written(),
        streak,
        sheet.compulsory_next,
        next_dealer(rules, sheet.dealer, deal, streak),
        False,
        state.game,
        state.deal_count + 1,
        first,
        state.match_pools,
        state.match_mountains,
        state.bonuses,
        state.apart,
    )
    if not game_ended(rules, new, closed=deal.type == "close"):
        return new
    if not rules.match_bonuses:
        return replace_state(new, finished=True)
    return end_match_game(sheet, new)


def game_ended(rules: Rules, new: TableState, closed: bool = False) -> bool:
    """The end of game rule, checked after every deal. A game played for a number of deals
    also ends when the caller closes it, inside a streak or not."""
    if closed:
        return True
    if rules.end_outside_streak and (new.streak > 0 or new.compulsory_cost is not None):
        return False
    end = rules.end_of_game
    if end is GameEnd.DEALS:
        return new.deal_count >= rules.game_deals
    target = rules.pool_target
    if end is GameEnd.ALL_CLOSED:
        return all(p >= target for p in new.pools)
    if end is GameEnd.TOTAL_POOL:
        return sum(new.pools) >= rules.players * target
    return any(p >= target for p in new.pools)  # one_closed


def end_match_game(sheet: WorkingSheet, new: TableState) -> TableState:
    """A game of a match ends: its bonuses, then the next game or the end of the match."""
    rules, n = sheet.rules, sheet.n
    bonuses = list(new.bonuses)
    game = new.game
    write_bonus(sheet, bonuses, game, "first_to_target", new.first_to_target, 300)
    low = min(new.mountains)
    write_bonus(sheet, bonuses, game, "min_mountain", [s for s in range(n) if new.mountains[s] == low], 200)
    if game >= rules.games:
        pools, mountains = new.totals()
        high = max(pools)
        write_bonus(sheet, bonuses, None, "max_pool", [s for s in range(n) if pools[s] == high], 300)
        low = min(mountains)
        write_bonus(sheet, bonuses, None, "min_mountain", [s for s in range(n) if mountains[s] == low], 200)
        return replace_state(
            new,
            whists=sheet.whists_written(),
            bonuses=tuple(bonuses),
            finished=True,
        )
    pools, mountains = new.totals()
    zeros = (0,) * n
    return replace_state(
        new,
        whists=sheet.whists_written(),
        bonuses=tuple(bonuses),
        match_pools=pools,
        match_mountains=mountains,
        pools=zeros,
        mountains=zeros,
        game=game + 1,
        streak=0,
        first_to_target=(),
        # With compulsory all-passes each game opens with one at the first cost.
        compulsory_cost=rules.allpass_costs.at(0) if rules.compulsory_allpass else None,
    )


def write_bonus(
    sheet: WorkingSheet, bonuses: list[Bonus], game: int | None, kind: str, seats: Iterable[int], total: int
) -> None:
    """A bonus shared by tied players: each writes total/t on every other player."""
    seats = sorted(seats)
    if not seats:
        return
    share = exact(Fraction(total, len(seats)))
    for seat in seats:
        bonuses.append(Bonus(game, kind, seat, share))
        for other in range(sheet.n):
            if other != seat:
                sheet.whist(seat, other, share)


def replace_state(state: TableState, **changes: Any) -> TableState:
    values = {name: getattr(state, name) for name in TableState.__slots__}
    values.update(changes)
    return TableState(**values)
