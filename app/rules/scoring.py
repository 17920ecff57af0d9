"""Scoring one deal: the entries it writes and the new state (docs/rules.md §6-§8).

``apply_deal`` checks the deal against the rules and the current state, then writes on a
working copy of the sheet (``sheet.py``); the given state is never changed, so a refused
deal leaves everything as it was. The rules themselves live in ``contracts.py``,
``allpass.py``, ``sheet.py`` (pools and overflow) and ``game_end.py``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from app.rules.allpass import score_allpass
from app.rules.checks import check_choices
from app.rules.contracts import score_contract, score_misere, score_remise
from app.rules.deal import AllpassDeal, CloseDeal, ContractDeal, Deal, MisereDeal, PenaltyDeal, RemiseDeal
from app.rules.errors import DealerMismatch, FieldError, InvalidDeal, ReplayError, TableFinished
from app.rules.fields import GameEnd, Rules
from app.rules.game_end import finish_deal
from app.rules.penalties import finish_penalty, score_penalty
from app.rules.sentences import Sentence
from app.rules.sheet import WorkingSheet, write_pools
from app.rules.state import Entry, TableState


@dataclass(frozen=True, slots=True)
class DealResult:
    entries: tuple[Entry, ...]
    state: TableState


@dataclass(frozen=True, slots=True)
class Replay:
    state: TableState
    entries: tuple[tuple[Entry, ...], ...]  # per deal, in order
    dealers: tuple[int, ...] = ()  # per deal, in order: the seat that dealt it
    games: tuple[int, ...] = ()  # per deal, in order: the game of the match it was played in


def apply_deal(rules: Rules, state: TableState, deal: Deal) -> DealResult:
    """Score ``deal`` on ``state``. Raises InvalidDeal (or a subclass); ``state`` is never changed."""
    if state.finished:
        over = (
            Sentence("the match is over: no more deals")
            if rules.match_bonuses
            else Sentence("the game is over: no more deals")
        )
        raise TableFinished([FieldError("type", over)])
    dealer = state.next_dealer
    if deal.dealer is not None and deal.dealer != dealer:
        raise DealerMismatch(
            [
                FieldError(
                    "dealer",
                    Sentence("seat {dealer} deals now, not seat {named}", dealer=dealer, named=deal.dealer),
                )
            ]
        )
    sheet = WorkingSheet(rules, state, dealer)
    # each kind is scored by its own function
    if type(deal) is PenaltyDeal:  # between deals: it moves neither the deal nor the streak
        score_penalty(sheet, deal)
        sheet.check_choices_used(deal)
        return DealResult(sheet.entries_written(), finish_penalty(sheet, state))
    if type(deal) is AllpassDeal:
        score_allpass(sheet, deal)
    elif type(deal) is CloseDeal:
        close_game(sheet, deal)
    else:
        if state.compulsory_cost is not None:
            raise InvalidDeal([FieldError("type", "an all-pass is compulsory now")])
        if type(deal) is ContractDeal:
            score_contract(sheet, deal)
        elif type(deal) is MisereDeal:
            score_misere(sheet, deal)
        else:
            assert type(deal) is RemiseDeal  # the five kinds are closed
            score_remise(sheet, deal)
    write_pools(sheet, deal)
    sheet.check_choices_used(deal)
    new = finish_deal(sheet, deal)  # may write the match's bonuses
    return DealResult(sheet.entries_written(), new)


def close_game(sheet: WorkingSheet, deal: CloseDeal) -> None:
    """The caller ends a game played for a number of deals ("на время"); it writes nothing
    and the table is settled with its pools as they are."""
    if sheet.rules.end_of_game is not GameEnd.DEALS:
        raise InvalidDeal(
            [
                FieldError(
                    "type",
                    "only a game played for a number of deals (end_of_game deals) is closed by the caller",
                )
            ]
        )
    errors: list[FieldError] = []
    check_choices(sheet, deal, errors)
    if errors:
        raise InvalidDeal(errors)


def deal_game(before: TableState, after: TableState) -> int:
    """The game of the match a deal was played in, from the state before and after it: the
    game before it. A deal that ends a game moves the state on to the next game
    (``after.game == before.game + 1``) but is the last deal of the game it ended; a table
    without races plays one game, game 1."""
    return before.game


def replay(rules: Rules, first_dealer: int, deals: Iterable[Deal]) -> Replay:
    """Fold a deal log from a new table. Raises ReplayError naming the first refused deal."""
    state = TableState.new(rules, first_dealer)
    entries = []
    dealers = []
    games = []
    for number, deal in enumerate(deals, start=1):
        try:
            result = apply_deal(rules, state, deal)
        except InvalidDeal as exc:
            raise ReplayError(number, exc) from exc
        dealers.append(state.next_dealer)
        games.append(deal_game(state, result.state))
        state = result.state
        entries.append(result.entries)
    return Replay(state, tuple(entries), tuple(dealers), tuple(games))
