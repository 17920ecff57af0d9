"""A judge's penalty on the sheet (docs/rules.md §15): where it goes and what it writes.

A penalty is posted in the deal log like a deal but is no deal: it writes its entries and
leaves everything else as it was: the dealer, the all-pass streak, a compulsory all-pass, the
count of deals a game is played for, the end of the game.
"""

from __future__ import annotations

from app.rules.deal import PenaltyDeal
from app.rules.errors import FieldError, InvalidDeal
from app.rules.sentences import Sentence
from app.rules.sheet import WorkingSheet
from app.rules.state import TableState
from app.rules.vocabulary import PENALTY_AMOUNTS, PenaltyDestination


def penalty_amount(deal: PenaltyDeal) -> int | None:
    """The amount the penalty writes: its own, or its violation's where the code fixes one."""
    if deal.amount is not None:
        return deal.amount
    return PENALTY_AMOUNTS.get(deal.violation) if deal.violation is not None else None


def score_penalty(sheet: WorkingSheet, deal: PenaltyDeal) -> PenaltyDestination:
    """Write the penalty; the destination it went to. Mountain: ``amount`` on the offender's
    mountain. Whists: each other player (a 4-player dealer too: he is at the table) writes
    ``amount`` whists on the offender. Apart: ``amount`` mountain points kept apart, written
    by ``finish_penalty`` on the state, not on the sheet's pool or mountain."""
    errors: list[FieldError] = []
    if deal.offender >= sheet.n:
        errors.append(
            FieldError("offender", Sentence("must be a seat of this table: 0 to {last}", last=sheet.n - 1))
        )
    amount = penalty_amount(deal)
    if amount is None:
        errors.append(FieldError("amount", Sentence("required: the code fixes no amount for this penalty")))
    if errors:
        raise InvalidDeal(errors)
    assert amount is not None
    to = PenaltyDestination(deal.destination) if deal.destination is not None else sheet.rules.penalties_to
    if to is PenaltyDestination.MOUNTAIN:
        sheet.mountain(deal.offender, amount)
    elif to is PenaltyDestination.WHISTS:
        for other in range(sheet.n):
            if other != deal.offender:
                sheet.whist(other, deal.offender, amount)
    else:
        sheet.apart(deal.offender, amount)
    return to


def finish_penalty(sheet: WorkingSheet, state: TableState) -> TableState:
    """The state after a penalty: its mountain, whists and apart written; nothing else moves."""
    from app.rules.game_end import replace_state  # game_end imports this module's neighbours

    return replace_state(
        state,
        mountains=tuple(sheet.mountains),
        whists=sheet.whists_written(),
        apart=tuple(sheet.aparts) if sheet.aparts is not None else state.apart,
    )
