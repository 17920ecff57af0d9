"""Deals played as a contract, a misère or a remise, and the talon
(docs/rules.md §6: made and failed contracts, the single whister,
the failed whist, contracts not played out, the misère, the talon)."""

from __future__ import annotations

from fractions import Fraction

from app.rules.amounts import Amount, exact
from app.rules.checks import check_choices, check_declarer, check_level, check_talon, check_tricks
from app.rules.deal import TALON_BONUSES, ContractDeal, MisereDeal, RemiseDeal
from app.rules.errors import FieldError, InvalidDeal
from app.rules.fields import (
    CONTRACT_VALUE,
    MISERE_VALUE,
    WHIST_OBLIGATION,
    Responsibility,
    Rules,
    SingleWhister,
    TalonBonusPrice,
    TwoWhistersHigh,
    UnwhistedWriteoff,
)
from app.rules.sentences import Sentence
from app.rules.sheet import DEFENDERS, WorkingSheet


def half(value: Amount) -> Amount:
    if type(value) is int:
        return value // 2 if value % 2 == 0 else Fraction(value, 2)
    return exact(Fraction(value) / 2)


def score_contract(sheet: WorkingSheet, deal: ContractDeal) -> None:
    errors: list[FieldError] = []
    check_declarer(sheet, deal, errors)
    check_level(sheet, deal, errors)
    check_talon(sheet, deal, errors)
    check_choices(sheet, deal, errors)
    if errors:
        raise InvalidDeal(errors)
    declarer, level = deal.declarer, deal.level
    # Defenders in order from the declarer's left among active seats.
    first, second = DEFENDERS[sheet.n, sheet.dealer, declarer]
    defence = dict(deal.defenders)
    dealer_whists = sheet.n == 4 and sheet.dealer in defence
    if dealer_whists:
        check_dealer_whist(sheet, defence, first, second)
        del defence[sheet.dealer]
    whisters = check_defence(sheet, deal, defence, first, second)
    d1, d2 = defence[first], defence[second]
    value = CONTRACT_VALUE[level]
    if dealer_whists:
        score_dealer_whist(sheet, deal, declarer, level, value)
        return
    if not whisters:
        if deal.tricks is not None:
            raise InvalidDeal(
                [FieldError("tricks", "the game was not played (nobody whisted): give no tricks")]
            )
        score_talon(sheet, deal)
        if "half_whist" in (d1, d2):
            score_half_whist(sheet, declarer, second, level, value)
        else:
            score_unwhisted_game(sheet, deal, value)
        return

    if deal.tricks is None:
        raise InvalidDeal([FieldError("tricks", "required: the game was whisted and played")])
    errors = []
    tricks = check_tricks(sheet, deal, errors)
    if tricks is None:
        raise InvalidDeal(errors)
    score_talon(sheet, deal)
    passer = None
    if len(whisters) == 1:
        passer = first if whisters[0] == second else second
    if tricks[declarer] >= level:
        score_made_contract(sheet, declarer, level, value, whisters, passer, tricks, second)
    else:
        score_failed_contract(sheet, deal, declarer, level, value, whisters, passer, tricks)


def check_defence(
    sheet: WorkingSheet, deal: ContractDeal, defence: dict[int, str], first: int, second: int
) -> list[int]:
    """The defenders' calls are a possible defence of this contract at this table; return the
    seats that whisted."""
    rules, level = sheet.rules, deal.level
    if len(defence) != 2 or first not in defence or second not in defence:
        raise InvalidDeal(
            [
                FieldError(
                    "defenders",
                    Sentence(
                        "must name exactly the defending seats {first} and {second}",
                        first=first,
                        second=second,
                    ),
                )
            ]
        )
    d1, d2 = defence[first], defence[second]
    if rules.stalingrad and level == 6 and deal.strain == "S" and (d1, d2) != ("whist", "whist"):
        raise InvalidDeal([FieldError("defenders", "6 spades is Stalingrad: both defenders must whist")])
    if "half_whist" in (d1, d2):
        if level > 7:
            raise InvalidDeal(
                [
                    FieldError(
                        f"defenders.{first if d1 == 'half_whist' else second}", "half-whist only on 6 or 7"
                    )
                ]
            )
        if (d1, d2) != ("pass", "half_whist"):
            raise InvalidDeal(
                [
                    FieldError(
                        f"defenders.{first if d1 == 'half_whist' else second}",
                        "only the second defender may half-whist, after the first passed",
                    )
                ]
            )
    whisters = [s for s in (first, second) if defence[s] == "whist"]
    if level == 10 and whisters and not rules.whisted_tens:
        raise InvalidDeal(
            [FieldError(f"defenders.{whisters[0]}", "a ten is not whisted at this table (whisted_tens)")]
        )
    if deal.over_misere and not (rules.compulsory_allpass and level >= 9):
        raise InvalidDeal(
            [
                FieldError(
                    "over_misere",
                    "only with compulsory_allpass (piter_races), on a 9 or 10 that outbid a misère",
                )
            ]
        )
    return whisters


def check_dealer_whist(sheet: WorkingSheet, defence: dict[int, str], first: int, second: int) -> None:
    """A 4-player dealer in the defenders: only his whist after pass and half-whist (dealer_half_whist)."""
    dealer = sheet.dealer
    if not sheet.rules.dealer_half_whist:
        raise InvalidDeal(
            [
                FieldError(
                    f"defenders.{dealer}",
                    "the dealer sits this deal out: he whists only with dealer_half_whist",
                )
            ]
        )
    if defence[dealer] != "whist" or (defence.get(first), defence.get(second)) != ("pass", "half_whist"):
        raise InvalidDeal(
            [
                FieldError(
                    f"defenders.{dealer}",
                    Sentence(
                        "the dealer may only whist, after seat {first} passed and seat {second} half-whisted (dealer_half_whist)",
                        first=first,
                        second=second,
                    ),
                )
            ]
        )


def score_dealer_whist(
    sheet: WorkingSheet, deal: ContractDeal, declarer: int, level: int, value: int
) -> None:
    """The dealer whisted over a half-whist: the game is played; the dealer writes the whists
    for both defenders' tricks, made or failed, and answers for no missing trick."""
    if deal.tricks is None:
        raise InvalidDeal([FieldError("tricks", "required: the game was whisted and played")])
    errors: list[FieldError] = []
    tricks = check_tricks(sheet, deal, errors)
    if tricks is None:
        raise InvalidDeal(errors)
    rules = sheet.rules
    score_talon(sheet, deal)
    made = tricks[declarer] >= level
    double = 2 if rules.failed_declarer_doubled and not made else 1
    sheet.whist(sheet.dealer, declarer, rules.scale * value * (10 - tricks[declarer]) * double)
    if made:
        sheet.pool(declarer, value)
    else:
        undertricks = level - tricks[declarer]
        sheet.mountain(declarer, rules.scale * value * undertricks)
        consolation = rules.consolation_of(value) * undertricks * double
        for seat in range(sheet.n):
            if seat != declarer:
                sheet.whist(seat, declarer, consolation)
    sheet.exit = made  # as any whisted game: a failed one leaves the streak as it was


def score_half_whist(sheet: WorkingSheet, declarer: int, second: int, level: int, value: int) -> None:
    """The half-whister writes whists for half the obligation without play; a made game."""
    sheet.pool(declarer, value)
    sheet.whist(second, declarer, sheet.rules.scale * value * (WHIST_OBLIGATION[level] // 2))
    sheet.exit = sheet.rules.half_whist_exit


def score_unwhisted_game(sheet: WorkingSheet, deal: ContractDeal, value: int) -> None:
    """Both defenders passed: +V to the pool, or written off the mountain by choice."""
    if not write_off_unwhisted_game(sheet, deal, value):
        sheet.pool(deal.declarer, value)
    sheet.exit = sheet.rules.unwhisted_exit


def write_off_unwhisted_game(sheet: WorkingSheet, deal: ContractDeal | MisereDeal, value: int) -> bool:
    """An unwhisted made game (a made misère included) written off the mountain instead of
    the pool (unwhisted_writeoff): V at any time, or 2V for an 8, 9, 10 or a clean misère."""
    if deal.declarer not in deal.writeoff:
        return False
    kind = sheet.rules.unwhisted_writeoff
    if kind is UnwhistedWriteoff.VALUE:
        amount = value
    elif kind is UnwhistedWriteoff.DOUBLE_HIGH and (isinstance(deal, MisereDeal) or deal.level >= 8):
        amount = 2 * value
    else:
        return False
    sheet.writeoff_used.add(deal.declarer)
    sheet.mountain(deal.declarer, -amount)
    return True


def defenders_whists(
    rules: Rules, whisters: list[int], passer: int | None, tricks: dict[int, int], value: int, made: bool
) -> list[tuple[int, Amount]]:
    """Who writes whists for the defenders' tricks, and how many (single_whister), before
    any doubling on a failed declarer."""
    s = rules.scale
    if passer is None:
        return [(w, s * value * tricks[w]) for w in whisters]
    whister = whisters[0]
    mode = rules.single_whister
    if mode is SingleWhister.CLOSED:
        return [(whister, s * value * tricks[whister]), (passer, s * value * tricks[passer])]
    total = s * value * (tricks[whister] + tricks[passer])
    if mode is SingleWhister.GENTLEMEN_ALWAYS or (mode is SingleWhister.GENTLEMEN and not made):
        return [(whister, half(total)), (passer, half(total))]
    return [(whister, total)]


def score_made_contract(
    sheet: WorkingSheet,
    declarer: int,
    level: int,
    value: int,
    whisters: list[int],
    passer: int | None,
    tricks: dict[int, int],
    second: int,
) -> None:
    sheet.pool(declarer, value)
    for seat, amount in defenders_whists(sheet.rules, whisters, passer, tricks, value, made=True):
        sheet.whist(seat, declarer, amount)
    charge_failed_whist(sheet, level, value, whisters, tricks, second, passer)
    sheet.exit = True


def score_failed_contract(
    sheet: WorkingSheet,
    deal: ContractDeal,
    declarer: int,
    level: int,
    value: int,
    whisters: list[int],
    passer: int | None,
    tricks: dict[int, int],
) -> None:
    """s·V per undertrick to the declarer's mountain; the defenders' whists and the
    consolation from every other player, doubled under failed_declarer_doubled."""
    rules = sheet.rules
    undertricks = level - tricks[declarer]
    sheet.mountain(declarer, rules.scale * value * undertricks)
    double = 2 if rules.failed_declarer_doubled else 1
    for seat, amount in defenders_whists(rules, whisters, passer, tricks, value, made=False):
        sheet.whist(seat, declarer, amount * double)
    consolation = rules.consolation_of(value) * undertricks * double
    for seat in range(sheet.n):
        if seat != declarer:
            sheet.whist(seat, declarer, consolation)
    if deal.over_misere:
        sheet.compulsory_next = compulsory_cost(rules, undertricks)


def charge_failed_whist(
    sheet: WorkingSheet,
    level: int,
    value: int,
    whisters: list[int],
    tricks: dict[int, int],
    second: int,
    passer: int | None,
) -> None:
    """The responsible defender(s) when the defenders fall short of the obligation."""
    rules = sheet.rules
    obligation = WHIST_OBLIGATION[level]
    defenders_tricks = sum(tricks[w] for w in whisters) + (tricks[passer] if passer is not None else 0)
    short = obligation - defenders_tricks
    if short <= 0 or rules.whist_responsibility is Responsibility.NONE:
        return
    charges: dict[int, Amount] = {}
    if len(whisters) == 1:
        charges[whisters[0]] = short
    elif level <= 7:
        half_obligation = obligation // 2
        responsible = [w for w in whisters if tricks[w] < half_obligation]
        if len(responsible) == 1:
            charges[responsible[0]] = short
        else:
            for w in responsible:
                charges[w] = half_obligation - tricks[w]
    else:
        mode = rules.two_whisters_high
        if mode is TwoWhistersHigh.SECOND_THEN_BOTH and level == 8:
            charges[second] = short
        elif mode is TwoWhistersHigh.SHARED:
            for w in whisters:
                charges[w] = half(short)
        else:  # both, and 9/10 under second_then_both
            for w in whisters:
                charges[w] = short
    per_trick = rules.scale * value
    semi = rules.whist_responsibility is Responsibility.SEMI
    for seat, count in charges.items():
        amount = per_trick * count
        sheet.mountain(seat, half(amount) if semi else amount)
        if rules.failed_whister_unhelped:
            sheet.unhelpable.add(seat)


def compulsory_cost(rules: Rules, count: int) -> int:
    """The compulsory all-pass after a failed misère (or a failed 9/10 over a misère):
    the 1st, 2nd, 3rd... cost for 1, 2, 3 or more tricks, the ladder's length at most."""
    ladder = rules.allpass_costs
    return ladder.at(min(count, len(ladder.costs)) - 1)


def score_misere(sheet: WorkingSheet, deal: MisereDeal) -> None:
    rules = sheet.rules
    errors: list[FieldError] = []
    check_declarer(sheet, deal, errors)
    check_talon(sheet, deal, errors)
    check_choices(sheet, deal, errors)
    if errors:
        raise InvalidDeal(errors)
    declarer = deal.declarer
    given = dict(deal.tricks or ())
    if declarer not in given:
        raise InvalidDeal(
            [
                FieldError(
                    "tricks",
                    Sentence("required: at least the declarer's (seat {declarer}) tricks", declarer=declarer),
                )
            ]
        )
    if len(given) > 1:
        # All seats given: they must add up like any played deal.
        if check_tricks(sheet, deal, errors) is None:
            raise InvalidDeal(errors)
    taken = given[declarer]
    score_talon(sheet, deal)
    if taken == 0:
        if not write_off_unwhisted_game(sheet, deal, MISERE_VALUE):
            sheet.pool(declarer, MISERE_VALUE)
        # A made misère is an unwhisted game.
        sheet.exit = rules.unwhisted_exit
    else:
        sheet.mountain(declarer, rules.misere_penalty * taken)
        if rules.compulsory_allpass:
            sheet.compulsory_next = compulsory_cost(rules, taken)


def score_remise(sheet: WorkingSheet, deal: RemiseDeal) -> None:
    """Three undertricks at the level bid; nobody writes any whist. A failed game."""
    rules = sheet.rules
    errors: list[FieldError] = []
    if not rules.remise:
        errors.append(FieldError("type", "remise is not allowed at this table (remise)"))
    check_declarer(sheet, deal, errors)
    check_level(sheet, deal, errors)
    check_choices(sheet, deal, errors)
    if errors:
        raise InvalidDeal(errors)
    sheet.mountain(deal.declarer, rules.scale * CONTRACT_VALUE[deal.level] * 3)


def score_talon(sheet: WorkingSheet, deal: ContractDeal | MisereDeal) -> None:
    """The talon bonus (talon_bonuses, priced by talon_bonus_price), the Rostov discard and
    the returned talon (return_talon). Written whatever the game's outcome."""
    declarer = deal.declarer
    rules = sheet.rules
    if deal.talon_bonus is not None:
        bonus = TALON_BONUSES[deal.talon_bonus]
        if rules.talon_bonus_price is TalonBonusPrice.GAME:
            # never on a misère (checks.py refuses it)
            assert isinstance(deal, ContractDeal), "a talon bonus priced by the game on a misère"
            # quick tricks (10 whists each at the fixed price) at the game's trick price
            bonus = bonus // 10 * rules.scale * CONTRACT_VALUE[deal.level]
        if sheet.n == 4:
            sheet.whist(sheet.dealer, declarer, bonus)
        else:
            for seat in range(sheet.n):
                if seat != declarer:
                    sheet.whist(seat, declarer, half(bonus))
    if deal.talon_discarded:
        if sheet.n == 4:
            sheet.whist(declarer, sheet.dealer, 10)
        else:
            for seat in range(sheet.n):
                if seat != declarer:
                    sheet.whist(declarer, seat, 5)
    if deal.talon_returned:
        value = MISERE_VALUE if isinstance(deal, MisereDeal) else CONTRACT_VALUE[deal.level]
        sheet.mountain(sheet.dealer, value)
