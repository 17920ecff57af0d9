"""All-pass deals: the trick scoring, the clean player and the clean dealer
(docs/rules.md §7)."""

from __future__ import annotations

from fractions import Fraction

from app.rules.amounts import exact
from app.rules.checks import check_choices, check_tricks
from app.rules.deal import AllpassDeal
from app.rules.errors import FieldError, InvalidDeal
from app.rules.fields import AllpassScoring, CleanDealer, CleanPlayer
from app.rules.sheet import WorkingSheet


def score_allpass(sheet: WorkingSheet, deal: AllpassDeal) -> None:
    rules = sheet.rules
    errors: list[FieldError] = []
    check_choices(sheet, deal, errors)
    four = sheet.n == 4
    scoring = rules.allpass_scoring
    rostov = scoring is AllpassScoring.ROSTOV
    # The open talon's tricks count for a 4-player dealer, except in Rostov (closed talon).
    tricks = check_tricks(sheet, deal, errors, dealer_may_hold=2 if four and not rostov else 0)
    if errors or tricks is None:
        raise InvalidDeal(errors)
    dealer = sheet.dealer
    held = {s: tricks.get(s, 0) for s in sheet.active}
    if four:
        held[dealer] = tricks.get(dealer, 0)
    cost = sheet.state.next_trick_cost(rules)
    if scoring is AllpassScoring.PER_TRICK:
        score_tricks_per_trick(sheet, held, trick_cost(cost))
    elif scoring is AllpassScoring.AMNESTY:
        score_tricks_with_amnesty(sheet, held, trick_cost(cost))
    else:
        if four:
            del held[dealer]  # the Rostov dealer takes no part
        score_rostov_allpass(sheet, held)
    score_clean_players(sheet, deal, held, cost)
    if four and tricks.get(dealer, 0) == 0:
        score_clean_dealer(sheet, cost)


def score_tricks_per_trick(sheet: WorkingSheet, held: dict[int, int], cost: int) -> None:
    """Each player c·t to the mountain."""
    for seat, t in held.items():
        sheet.mountain(seat, cost * t)


def score_tricks_with_amnesty(sheet: WorkingSheet, held: dict[int, int], cost: int) -> None:
    """Each player c·(t − m) to the mountain, m the fewest tricks (a 4-player dealer included)."""
    low = min(held.values())
    n, dealer = sheet.n, sheet.dealer
    for seat in sorted(held, key=lambda s: (s - dealer - 1) % n):
        sheet.mountain(seat, cost * (held[seat] - low))


def score_rostov_allpass(sheet: WorkingSheet, held: dict[int, int]) -> None:
    """The fewest tricks win: each winner writes 5 a trick (shared among tied winners) on
    each loser for the tricks the loser took."""
    low = min(held.values())
    winners = [s for s in sheet.active if held[s] == low]
    losers = [s for s in sheet.active if held[s] != low]
    shared = len(winners)
    for w in winners:
        for loser in losers:
            amount = 5 * held[loser]
            sheet.whist(w, loser, amount if shared == 1 else exact(Fraction(amount, shared)))


def score_clean_players(
    sheet: WorkingSheet, deal: AllpassDeal, held: dict[int, int], cost: int | None
) -> None:
    """An active player who took no trick (clean_player)."""
    rules = sheet.rules
    clean = rules.clean_player
    for seat in sheet.active:
        if held.get(seat, 0):
            continue
        if clean is CleanPlayer.POOL:
            sheet.pool(seat, trick_cost(cost))
        elif clean is CleanPlayer.MOUNTAIN:
            sheet.mountain(seat, -trick_cost(cost) * rules.clean_writeoff)
        elif clean is CleanPlayer.MOUNTAIN_ONE:
            sheet.mountain(seat, -1)
        elif seat in deal.writeoff:  # choice: off the mountain, twice the cost
            sheet.writeoff_used.add(seat)
            sheet.mountain(seat, -2 * trick_cost(cost))
        else:
            sheet.pool(seat, trick_cost(cost))


def score_clean_dealer(sheet: WorkingSheet, cost: int | None) -> None:
    """A 4-player dealer who holds no trick (clean_dealer)."""
    kind = sheet.rules.clean_dealer
    if kind is CleanDealer.NOTHING:
        return
    dealer = sheet.dealer
    if kind is CleanDealer.MOUNTAIN_COST:
        sheet.mountain(dealer, -trick_cost(cost))
    elif kind is CleanDealer.MOUNTAIN_ONE:
        sheet.mountain(dealer, -1)
    else:  # pool_cost
        sheet.pool(dealer, trick_cost(cost))


def trick_cost(cost: int | None) -> int:
    """The all-pass's trick cost where a choice writes it: only the Rostov all-pass has none,
    and the rules' checks (contradictions.py) refuse a choice that needs one beside it."""
    assert cost is not None, "a trick cost is needed beside the Rostov all-pass"
    return cost
