"""Checks shared by the deal types: does the deal fit the table and its state
(docs/rules.md §10). Each appends the bad field and the reason."""

from __future__ import annotations

from app.rules.deal import Deal
from app.rules.errors import FieldError
from app.rules.fields import PoolOverflow, TalonBonusPrice
from app.rules.sentences import Sentence
from app.rules.sheet import WorkingSheet


def check_seat(sheet: WorkingSheet, seat: int | None, field: str, errors: list[FieldError]) -> None:
    if seat is not None and seat >= sheet.n:
        errors.append(FieldError(field, Sentence("no seat {seat} at a table of {n}", seat=seat, n=sheet.n)))


def check_declarer(sheet: WorkingSheet, deal: Deal, errors: list[FieldError]) -> None:
    declarer = deal.declarer
    if declarer is None:
        return
    if declarer >= sheet.n:
        errors.append(
            FieldError(
                "declarer", Sentence("no seat {declarer} at a table of {n}", declarer=declarer, n=sheet.n)
            )
        )
    elif declarer not in sheet.active:
        errors.append(
            FieldError(
                "declarer", Sentence("seat {declarer} deals and sits this deal out", declarer=declarer)
            )
        )


def check_level(sheet: WorkingSheet, deal: Deal, errors: list[FieldError]) -> None:
    """A contract at least the lowest one the all-pass streak allows."""
    lowest = sheet.state.min_contract(sheet.rules)
    if deal.level is not None and lowest is not None and deal.level < lowest:
        errors.append(
            FieldError(
                "contract",
                Sentence(
                    "the lowest contract now is {lowest} (all-pass level {level})",
                    lowest=lowest,
                    level=sheet.state.level(),
                ),
            )
        )


def check_tricks(
    sheet: WorkingSheet, deal: Deal, errors: list[FieldError], dealer_may_hold: int = 0
) -> dict[int, int] | None:
    """Every active seat's tricks, summing to 10; the 4-player dealer at most ``dealer_may_hold``."""
    tricks = dict(deal.tricks or ())
    bad = False
    for seat, count in tricks.items():
        if seat >= sheet.n:
            errors.append(
                FieldError(
                    f"tricks.{seat}", Sentence("no seat {seat} at a table of {n}", seat=seat, n=sheet.n)
                )
            )
            bad = True
        elif seat not in sheet.active and count > dealer_may_hold:
            if dealer_may_hold:
                reason = Sentence("the dealer may hold at most {n} talon tricks", n=dealer_may_hold)
            else:
                reason = Sentence("the dealer sits this deal out and holds no trick")
            errors.append(FieldError(f"tricks.{seat}", reason))
            bad = True
    missing = [s for s in sheet.active if s not in tricks]
    if missing:
        errors.append(
            FieldError("tricks", Sentence("missing seat {seats}", seats=", ".join(str(s) for s in missing)))
        )
        bad = True
    if not bad and sum(tricks.values()) != 10:
        errors.append(
            FieldError("tricks", Sentence("tricks add up to {total}, not 10", total=sum(tricks.values())))
        )
        bad = True
    return None if bad else tricks


def check_talon(sheet: WorkingSheet, deal: Deal, errors: list[FieldError]) -> None:
    rules = sheet.rules
    if (deal.talon_bonus is not None or deal.talon_discarded) and not rules.talon_bonuses:
        field = "talon.bonus" if deal.talon_bonus is not None else "talon.discarded"
        errors.append(
            FieldError(field, "talon bonuses and discards are scored only with talon_bonuses (rostov)")
        )
    elif rules.talon_bonus_price is TalonBonusPrice.GAME:
        if deal.talon_bonus is not None and deal.type == "misere":
            errors.append(
                FieldError(
                    "talon.bonus",
                    "a talon bonus priced by the game is never written on a misère (talon_bonus_price game)",
                )
            )
        if deal.talon_discarded:
            errors.append(
                FieldError(
                    "talon.discarded", "a thrown-away talon writes nothing under talon_bonus_price game"
                )
            )
    if deal.talon_returned and not (rules.return_talon and sheet.n == 4):
        errors.append(
            FieldError(
                "talon.returned", "returning the talon needs the return_talon option at a 4-player table"
            )
        )


def check_choices(sheet: WorkingSheet, deal: Deal, errors: list[FieldError]) -> None:
    for seat in deal.writeoff:
        check_seat(sheet, seat, "choices.writeoff", errors)
    check_seat(sheet, deal.help, "choices.help", errors)
    if deal.help is not None and sheet.rules.pool_overflow is PoolOverflow.NO_CAP:
        errors.append(
            FieldError(
                "choices.help", "pools are not capped at this table (pool_overflow no_cap): nothing overflows"
            )
        )
