"""Scoring one deal (RULES.md sections 5-7): the entries it writes and the new state.

``apply_deal`` checks the deal against the rules and the current state, then
writes on a working copy of the sheet; the given state is never changed, so a
refused deal leaves everything as it was.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable

from .conventions import CONTRACT_VALUE, MISERE_VALUE, WHIST_OBLIGATION, Rules
from .deal import TALON_BONUSES, Deal
from .errors import DealerMismatch, FieldError, InvalidDeal, ReplayError, TableFinished
from .state import Amount, Bonus, Entry, TableState, exact


@dataclass(frozen=True, slots=True)
class DealResult:
    entries: tuple[Entry, ...]
    state: TableState


@dataclass(frozen=True, slots=True)
class Replay:
    state: TableState
    entries: tuple[tuple[Entry, ...], ...]  # per deal, in order


def apply_deal(rules: Rules, state: TableState, deal: Deal) -> DealResult:
    """Score ``deal`` on ``state``. Raises InvalidDeal (or a subclass); ``state`` is never changed."""
    if state.finished:
        what = "match" if rules.convention.races else "game"
        raise TableFinished([FieldError("type", f"the {what} is over: no more deals")])
    dealer = state.next_dealer
    if deal.dealer is not None and deal.dealer != dealer:
        raise DealerMismatch([FieldError("dealer", f"seat {dealer} deals now, not seat {deal.dealer}")])
    sheet = _Sheet(rules, state, dealer)
    if deal.type == "allpass":
        _score_allpass(sheet, deal)
    else:
        if state.compulsory_cost is not None:
            raise InvalidDeal([FieldError("type", "an all-pass is compulsory now")])
        if deal.type == "contract":
            _score_contract(sheet, deal)
        elif deal.type == "misere":
            _score_misere(sheet, deal)
        else:
            _score_remise(sheet, deal)
    return sheet.finish(deal)


def replay(rules: Rules, first_dealer: int, deals: Iterable[Deal]) -> Replay:
    """Fold a deal log from a new table. Raises ReplayError naming the first refused deal."""
    state = TableState.new(rules, first_dealer)
    entries = []
    for number, deal in enumerate(deals, start=1):
        try:
            result = apply_deal(rules, state, deal)
        except InvalidDeal as exc:
            raise ReplayError(number, exc) from exc
        state = result.state
        entries.append(result.entries)
    return Replay(state, tuple(entries))


# --------------------------------------------------------------------------
# The working copy of the sheet during one deal


class _Sheet:
    __slots__ = (
        "rules", "state", "dealer", "n", "active", "pools", "mountains", "whists",
        "entries", "pending_pools", "exit", "compulsory_next", "unhelpable", "help_used",
        "writeoff_used",
    )

    def __init__(self, rules: Rules, state: TableState, dealer: int):
        self.rules = rules
        self.state = state
        self.dealer = dealer
        self.n = n = rules.players
        self.active = tuple(s for s in range(n) if n == 3 or s != dealer)
        self.pools = list(state.pools)
        self.mountains = list(state.mountains)
        self.whists = [list(row) for row in state.whists]
        self.entries: dict[tuple[str, int, int | None], Amount] = {}
        self.pending_pools: list[tuple[int, Amount]] = []
        self.exit = False  # this deal ends the all-pass streak
        self.compulsory_next: int | None = None  # races: the next deal is an all-pass at this cost
        self.unhelpable: set[int] = set()  # vmk: defenders who failed their whist in this deal
        self.help_used = False
        self.writeoff_used: set[int] = set()

    # writing -------------------------------------------------------------
    # Entries are summed per (kind, seat, on) as they are written: one line per
    # seat and kind, in the order first written.
    def _enter(self, key: tuple[str, int, int | None], amount: Amount) -> None:
        lines = self.entries
        lines[key] = exact(lines[key] + amount) if key in lines else amount

    def mountain(self, seat: int, amount: Amount) -> None:
        if amount:
            amount = exact(amount)
            self.mountains[seat] = exact(self.mountains[seat] + amount)
            self._enter(("mountain", seat, None), amount)

    def whist(self, seat: int, on: int, amount: Amount) -> None:
        if amount:
            amount = exact(amount)
            self.whists[seat][on] = exact(self.whists[seat][on] + amount)
            self._enter(("whists", seat, on), amount)

    def pool(self, seat: int, amount: Amount) -> None:
        """Queue a pool write; they go through the overflow rule in seat order (7.2)."""
        self.pending_pools.append((seat, amount))

    def _raw_pool(self, seat: int, amount: Amount) -> None:
        amount = exact(amount)
        self.pools[seat] = exact(self.pools[seat] + amount)
        self._enter(("pool", seat, None), amount)

    # pools and overflow (RULES.md 7.2) --------------------------------------
    def write_pools(self, deal: Deal) -> None:
        rules, n, dealer = self.rules, self.n, self.dealer
        # One seat at a time, clockwise from the seat after the dealer.
        self.pending_pools.sort(key=lambda item: (item[0] - dealer - 1) % n)
        target = rules.pool_target
        for seat, amount in self.pending_pools:
            if not rules.convention.pool_capped:
                self._raw_pool(seat, amount)
                continue
            room = max(target - self.pools[seat], 0)
            own = min(amount, room)
            if own:
                self._raw_pool(seat, own)
            excess = amount - own
            if excess:
                self._overflow(seat, excess, deal)

    def _overflow(self, helper: int, excess: Amount, deal: Deal) -> None:
        rules = self.rules
        k = rules.convention.pool_rate
        target = rules.pool_target
        if helper in deal.writeoff and rules.convention.overflow_writeoff:
            # vmk: the part beyond the target is written off the helper's own mountain.
            self.writeoff_used.add(helper)
            self.mountain(helper, -excess * k)
            return
        while excess:
            open_seats = [
                s for s in range(self.n)
                if s != helper and self.pools[s] < target and s not in self.unhelpable
            ]
            if not open_seats:
                break
            chosen = None
            if deal.help is not None and deal.help in open_seats and not self.help_used:
                chosen = deal.help
                self.help_used = True
            if chosen is None:
                # The largest open pool; ties go to the first such seat clockwise from the helper.
                chosen = max(open_seats, key=lambda s: (self.pools[s], -((s - helper) % self.n)))
            given = min(excess, target - self.pools[chosen])
            self._raw_pool(chosen, given)
            self.whist(helper, chosen, given * 10 * k)
            excess -= given
        if excess:
            self.mountain(helper, -excess * k)

    # the end of a deal -------------------------------------------------------
    def finish(self, deal: Deal) -> DealResult:
        rules, state = self.rules, self.state
        self.write_pools(deal)
        if deal.help is not None and not self.help_used:
            raise InvalidDeal([FieldError("choices.help", "no pool overflows onto that seat in this deal")])
        stray = set(deal.writeoff) - self.writeoff_used
        if stray:
            seats = ", ".join(str(s) for s in sorted(stray))
            raise InvalidDeal([FieldError("choices.writeoff", f"seat {seats} has nothing to write off in this deal")])

        streak = state.streak
        compulsory = self.compulsory_next
        if deal.type == "allpass":
            if rules.convention.has_streak:
                if state.compulsory_cost is not None:
                    # A compulsory all-pass at cost c leaves the streak at the index after c's.
                    streak = rules.allpass_costs.index(state.compulsory_cost) + 1
                else:
                    streak += 1
        elif self.exit:
            streak = 0
        if deal.type == "allpass" and not rules.sliding_allpass:
            next_dealer = self.dealer
        else:
            next_dealer = (self.dealer + 1) % self.n

        pools = tuple(self.pools)
        first = state.first_to_target
        if rules.convention.races and not first:
            first = tuple(s for s in range(self.n) if pools[s] >= rules.pool_target)
        new = TableState(
            players=self.n,
            pools=pools,
            mountains=tuple(self.mountains),
            whists=tuple(tuple(row) for row in self.whists),
            streak=streak,
            compulsory_cost=compulsory,
            next_dealer=next_dealer,
            finished=False,
            game=state.game,
            deal_count=state.deal_count + 1,
            first_to_target=first,
            match_pools=state.match_pools,
            match_mountains=state.match_mountains,
            bonuses=state.bonuses,
        )
        new = self._end_of_game(new)
        return DealResult(_entries(self.entries), new)

    def _end_of_game(self, new: TableState) -> TableState:
        rules, conv, n = self.rules, self.rules.convention, self.n
        inside_streak = new.streak > 0 or new.compulsory_cost is not None
        if conv.end_outside_streak and inside_streak:
            return new
        target = rules.pool_target
        if conv.end_rule == "all_closed":
            ended = all(p >= target for p in new.pools)
        elif conv.end_rule == "total_pool":
            ended = sum(new.pools) >= n * target
        else:  # races: one pool at the target ends the game
            ended = any(p >= target for p in new.pools)
        if not ended:
            return new
        if not conv.races:
            return _replace(new, finished=True)
        return self._end_race_game(new)

    def _end_race_game(self, new: TableState) -> TableState:
        """Write the game's bonuses, then start the next game or finish the match (RULES.md 7.3, 8)."""
        bonuses = list(new.bonuses)
        game = new.game
        self._bonus(bonuses, game, "first_to_target", new.first_to_target, 300)
        low = min(new.mountains)
        self._bonus(bonuses, game, "min_mountain", [s for s in range(self.n) if new.mountains[s] == low], 200)
        if game >= self.rules.games:
            pools, mountains = new.totals()
            high = max(pools)
            self._bonus(bonuses, None, "max_pool", [s for s in range(self.n) if pools[s] == high], 300)
            low = min(mountains)
            self._bonus(bonuses, None, "min_mountain", [s for s in range(self.n) if mountains[s] == low], 200)
            return _replace(
                new,
                whists=tuple(tuple(row) for row in self.whists),
                bonuses=tuple(bonuses),
                finished=True,
            )
        pools, mountains = new.totals()
        zeros = (0,) * self.n
        return _replace(
            new,
            whists=tuple(tuple(row) for row in self.whists),
            bonuses=tuple(bonuses),
            match_pools=pools,
            match_mountains=mountains,
            pools=zeros,
            mountains=zeros,
            game=game + 1,
            streak=0,
            first_to_target=(),
            # Each game starts with a compulsory all-pass at the first cost.
            compulsory_cost=self.rules.allpass_costs[0],
        )

    def _bonus(self, bonuses: list[Bonus], game: int | None, kind: str, seats, total: int) -> None:
        seats = sorted(seats)
        share = exact(Fraction(total, len(seats)))
        for seat in seats:
            bonuses.append(Bonus(game, kind, seat, share))
            for other in range(self.n):
                if other != seat:
                    self.whist(seat, other, share)


def _replace(state: TableState, **changes) -> TableState:
    values = {name: getattr(state, name) for name in TableState.__slots__}
    values.update(changes)
    return TableState(**values)


def _entries(lines: dict[tuple[str, int, int | None], Amount]) -> tuple[Entry, ...]:
    """The summed lines as entries; lines that cancelled out are dropped."""
    return tuple(Entry(kind, seat, amount, on) for (kind, seat, on), amount in lines.items() if amount)


def _half(value: int) -> Amount:
    return value // 2 if value % 2 == 0 else Fraction(value, 2)


# --------------------------------------------------------------------------
# Checks shared by the deal types (RULES.md section 9)


def _check_seat(sheet: _Sheet, seat: int | None, field: str, errors: list[FieldError]) -> None:
    if seat is not None and seat >= sheet.n:
        errors.append(FieldError(field, f"no seat {seat} at a table of {sheet.n}"))


def _check_declarer(sheet: _Sheet, deal: Deal, errors: list[FieldError]) -> None:
    declarer = deal.declarer
    if declarer is None:
        return
    if declarer >= sheet.n:
        errors.append(FieldError("declarer", f"no seat {declarer} at a table of {sheet.n}"))
    elif declarer not in sheet.active:
        errors.append(FieldError("declarer", f"seat {declarer} deals and sits this deal out"))


def _check_level(sheet: _Sheet, deal: Deal, errors: list[FieldError]) -> None:
    lowest = sheet.state.min_contract(sheet.rules)
    if deal.level is not None and lowest is not None and deal.level < lowest:
        errors.append(FieldError("contract", f"the lowest contract now is {lowest} (all-pass level {sheet.state.level()})"))


def _check_tricks(sheet: _Sheet, deal: Deal, errors: list[FieldError], dealer_may_hold: int = 0) -> dict[int, int] | None:
    """Every active seat's tricks, summing to 10; the 4-player dealer at most ``dealer_may_hold``."""
    tricks = dict(deal.tricks or ())
    bad = False
    for seat, count in tricks.items():
        if seat >= sheet.n:
            errors.append(FieldError(f"tricks.{seat}", f"no seat {seat} at a table of {sheet.n}"))
            bad = True
        elif seat not in sheet.active and count > dealer_may_hold:
            if dealer_may_hold:
                reason = f"the dealer may hold at most {dealer_may_hold} talon tricks"
            else:
                reason = "the dealer sits this deal out and holds no trick"
            errors.append(FieldError(f"tricks.{seat}", reason))
            bad = True
    missing = [s for s in sheet.active if s not in tricks]
    if missing:
        errors.append(FieldError("tricks", "missing seat " + ", ".join(str(s) for s in missing)))
        bad = True
    if not bad and sum(tricks.values()) != 10:
        errors.append(FieldError("tricks", f"tricks add up to {sum(tricks.values())}, not 10"))
        bad = True
    return None if bad else tricks


def _check_talon(sheet: _Sheet, deal: Deal, errors: list[FieldError]) -> None:
    conv = sheet.rules.convention
    if (deal.talon_bonus is not None or deal.talon_discarded) and not conv.rostov_talon:
        field = "talon.bonus" if deal.talon_bonus is not None else "talon.discarded"
        errors.append(FieldError(field, "talon bonuses and discards are scored only in rostov"))
    if deal.talon_returned and not (sheet.rules.return_talon and sheet.n == 4):
        errors.append(FieldError("talon.returned", "returning the talon needs the return_talon option at a 4-player table"))


def _check_choices(sheet: _Sheet, deal: Deal, errors: list[FieldError]) -> None:
    for seat in deal.writeoff:
        _check_seat(sheet, seat, "choices.writeoff", errors)
    _check_seat(sheet, deal.help, "choices.help", errors)
    if deal.help is not None and not sheet.rules.convention.pool_capped:
        errors.append(FieldError("choices.help", f"pools are not capped in {sheet.rules.convention.name}: nothing overflows"))


def _score_talon(sheet: _Sheet, deal: Deal) -> None:
    """Rostov talon (RULES.md 5.7) and Piter's returned talon."""
    declarer = deal.declarer
    opponents = [s for s in range(sheet.n) if s != declarer]
    if deal.talon_bonus is not None:
        bonus = TALON_BONUSES[deal.talon_bonus]
        if sheet.n == 4:
            sheet.whist(sheet.dealer, declarer, bonus)
        else:
            for seat in opponents:
                sheet.whist(seat, declarer, _half(bonus))
    if deal.talon_discarded:
        if sheet.n == 4:
            sheet.whist(declarer, sheet.dealer, 10)
        else:
            for seat in opponents:
                sheet.whist(declarer, seat, 5)
    if deal.talon_returned:
        value = MISERE_VALUE if deal.type == "misere" else CONTRACT_VALUE[deal.level]
        sheet.mountain(sheet.dealer, value)


def _unwhisted_writeoff(sheet: _Sheet, deal: Deal, value: int) -> bool:
    """An unwhisted made game written off the mountain instead of the pool (5.5)."""
    if deal.declarer not in deal.writeoff:
        return False
    kind = sheet.rules.convention.unwhisted_writeoff
    if kind == "vmk":
        amount = value
    elif kind == "races" and (deal.type == "misere" or deal.level >= 8):
        amount = 2 * value
    else:
        return False
    sheet.writeoff_used.add(deal.declarer)
    sheet.mountain(deal.declarer, -amount)
    return True


# --------------------------------------------------------------------------
# Contracts (RULES.md 5.1-5.5)


def _score_contract(sheet: _Sheet, deal: Deal) -> None:
    rules, conv = sheet.rules, sheet.rules.convention
    errors: list[FieldError] = []
    _check_declarer(sheet, deal, errors)
    _check_level(sheet, deal, errors)
    _check_talon(sheet, deal, errors)
    _check_choices(sheet, deal, errors)
    if errors:
        raise InvalidDeal(errors)
    declarer, level = deal.declarer, deal.level
    # Defenders in order from the declarer's left among active seats.
    others = [s for s in sheet.active if s != declarer]
    others.sort(key=lambda s: (s - declarer) % sheet.n)
    first, second = others
    defence = dict(deal.defenders)
    if set(defence) != set(others):
        raise InvalidDeal([FieldError("defenders", f"must name exactly the defending seats {first} and {second}")])
    d1, d2 = defence[first], defence[second]
    if rules.stalingrad and level == 6 and deal.strain == "S" and (d1, d2) != ("whist", "whist"):
        raise InvalidDeal([FieldError("defenders", "6 spades is Stalingrad: both defenders must whist")])
    if "half_whist" in (d1, d2):
        if level > 7:
            raise InvalidDeal([FieldError(f"defenders.{first if d1 == 'half_whist' else second}", "half-whist only on 6 or 7")])
        if (d1, d2) != ("pass", "half_whist"):
            raise InvalidDeal([FieldError(f"defenders.{first if d1 == 'half_whist' else second}",
                                          "only the second defender may half-whist, after the first passed")])
    whisters = [s for s in (first, second) if defence[s] == "whist"]
    if level == 10 and whisters and not rules.whisted_tens:
        raise InvalidDeal([FieldError(f"defenders.{whisters[0]}", "a ten is not whisted in this convention")])
    if deal.over_misere and not (conv.races and level >= 9):
        raise InvalidDeal([FieldError("over_misere", "only in piter_races, on a 9 or 10 that outbid a misère")])

    value = CONTRACT_VALUE[level]
    s = conv.scale
    if not whisters:
        if deal.tricks is not None:
            raise InvalidDeal([FieldError("tricks", "the game was not played (nobody whisted): give no tricks")])
        _score_talon(sheet, deal)
        if "half_whist" in (d1, d2):
            # The half-whister writes whists for half the obligation without play.
            sheet.pool(declarer, value)
            sheet.whist(second, declarer, s * value * (WHIST_OBLIGATION[level] // 2))
            sheet.exit = True
        else:
            if not _unwhisted_writeoff(sheet, deal, value):
                sheet.pool(declarer, value)
            sheet.exit = rules.unwhisted_exit
        return

    if deal.tricks is None:
        raise InvalidDeal([FieldError("tricks", "required: the game was whisted and played")])
    errors = []
    tricks = _check_tricks(sheet, deal, errors)
    if tricks is None:
        raise InvalidDeal(errors)
    _score_talon(sheet, deal)
    taken = tricks[declarer]
    defenders_tricks = tricks[first] + tricks[second]
    undertricks = max(0, level - taken)
    if undertricks == 0:
        sheet.pool(declarer, value)
        if len(whisters) == 1:
            # One whister plays both hands open and is credited with all their tricks.
            sheet.whist(whisters[0], declarer, s * value * defenders_tricks)
        else:
            for w in whisters:
                sheet.whist(w, declarer, s * value * tricks[w])
        _failed_whist(sheet, level, value, whisters, tricks, defenders_tricks, second)
        sheet.exit = True
        return

    # Failed contract (5.2).
    sheet.mountain(declarer, s * value * undertricks)
    double = 2 if conv.double_on_failed else 1
    if len(whisters) == 1:
        total = s * value * defenders_tricks * double
        if rules.gentlemen_whist:
            passer = first if whisters[0] == second else second
            sheet.whist(whisters[0], declarer, _half(total))
            sheet.whist(passer, declarer, _half(total))
        else:
            sheet.whist(whisters[0], declarer, total)
    else:
        for w in whisters:
            sheet.whist(w, declarer, s * value * tricks[w] * double)
    consolation = rules.consolation(value) * undertricks * double
    for seat in range(sheet.n):
        if seat != declarer:
            sheet.whist(seat, declarer, consolation)
    if deal.over_misere:
        sheet.compulsory_next = _compulsory_cost(rules, undertricks)


def _failed_whist(sheet: _Sheet, level: int, value: int, whisters: list[int], tricks: dict[int, int],
                  defenders_tricks: int, second: int) -> None:
    """The responsible defender(s) when the defenders fall short (5.4)."""
    obligation = WHIST_OBLIGATION[level]
    short = obligation - defenders_tricks
    if short <= 0:
        return
    charges: dict[int, Amount] = {}
    if len(whisters) == 1:
        charges[whisters[0]] = short
    elif level <= 7:
        half = obligation // 2
        responsible = [w for w in whisters if tricks[w] < half]
        if len(responsible) == 1:
            charges[responsible[0]] = short
        else:
            for w in responsible:
                charges[w] = half - tricks[w]
    else:
        mode = sheet.rules.convention.high_responsibility
        if mode == "second_then_both" and level == 8:
            charges[second] = short
        elif mode == "sharing":
            for w in whisters:
                charges[w] = _half(short)
        else:  # "both", and 9/10 under "second_then_both"
            for w in whisters:
                charges[w] = short
    factor = sheet.rules.convention.failed_whist_factor
    for seat, count in charges.items():
        sheet.mountain(seat, exact(factor * value * count) if factor != 1 else value * count)
        if sheet.rules.convention.failed_whister_unhelped:
            sheet.unhelpable.add(seat)


def _compulsory_cost(rules: Rules, count: int) -> int:
    """Races: the compulsory all-pass after a failed misère (or a failed 9/10 over a misère)."""
    costs = rules.allpass_costs
    return costs[min(count, len(costs)) - 1]


def _score_misere(sheet: _Sheet, deal: Deal) -> None:
    conv = sheet.rules.convention
    errors: list[FieldError] = []
    _check_declarer(sheet, deal, errors)
    _check_talon(sheet, deal, errors)
    _check_choices(sheet, deal, errors)
    if errors:
        raise InvalidDeal(errors)
    declarer = deal.declarer
    given = dict(deal.tricks or ())
    if declarer not in given:
        raise InvalidDeal([FieldError("tricks", f"required: at least the declarer's (seat {declarer}) tricks")])
    if len(given) > 1:
        # All seats given: they must add up like any played deal.
        if _check_tricks(sheet, deal, errors) is None:
            raise InvalidDeal(errors)
    taken = given[declarer]
    _score_talon(sheet, deal)
    if taken == 0:
        if not _unwhisted_writeoff(sheet, deal, MISERE_VALUE):
            sheet.pool(declarer, MISERE_VALUE)
        # A made misère is an unwhisted game.
        sheet.exit = sheet.rules.unwhisted_exit
    else:
        sheet.mountain(declarer, conv.misere_penalty * taken)
        if conv.races:
            sheet.compulsory_next = _compulsory_cost(sheet.rules, taken)


def _score_remise(sheet: _Sheet, deal: Deal) -> None:
    errors: list[FieldError] = []
    if not sheet.rules.remise:
        errors.append(FieldError("type", f"remise is not allowed in {sheet.rules.convention.name} at this table"))
    _check_declarer(sheet, deal, errors)
    _check_level(sheet, deal, errors)
    _check_choices(sheet, deal, errors)
    if errors:
        raise InvalidDeal(errors)
    # Three undertricks at the level bid; nobody writes any whist. A failed game.
    value = CONTRACT_VALUE[deal.level]
    sheet.mountain(deal.declarer, sheet.rules.convention.scale * value * 3)


# --------------------------------------------------------------------------
# All-pass (RULES.md section 6)


def _score_allpass(sheet: _Sheet, deal: Deal) -> None:
    rules, conv, state = sheet.rules, sheet.rules.convention, sheet.state
    errors: list[FieldError] = []
    _check_choices(sheet, deal, errors)
    four = sheet.n == 4
    # The open talon's tricks count for a 4-player dealer, except in Rostov (closed talon).
    tricks = _check_tricks(sheet, deal, errors, dealer_may_hold=2 if four and conv.allpass_scoring != "rostov" else 0)
    if errors or tricks is None:
        raise InvalidDeal(errors)
    dealer = sheet.dealer
    held = {s: tricks.get(s, 0) for s in sheet.active}
    if four:
        held_dealer = tricks.get(dealer, 0)
    cost = state.next_trick_cost(rules)

    if conv.allpass_scoring == "per_trick":
        for seat, t in held.items():
            sheet.mountain(seat, cost * t)
        if four:
            sheet.mountain(dealer, cost * held_dealer)
    elif conv.allpass_scoring == "amnesty":
        everyone = dict(held)
        if four:
            everyone[dealer] = held_dealer
        low = min(everyone.values())
        for seat in sorted(everyone, key=lambda s: (s - dealer - 1) % sheet.n):
            sheet.mountain(seat, cost * (everyone[seat] - low))
    else:  # rostov: the fewest tricks win; the losers pay 5 a trick
        low = min(held.values())
        winners = [s for s in sheet.active if held[s] == low]
        losers = [s for s in sheet.active if held[s] != low]
        for w in winners:
            for loser in losers:
                sheet.whist(w, loser, exact(Fraction(5 * held[loser], len(winners))))

    # The clean-player rule (section 4).
    clean = conv.clean_allpass
    for seat in sheet.active:
        if held[seat]:
            continue
        if clean == "pool":
            sheet.pool(seat, cost)
        elif clean == "mountain":
            sheet.mountain(seat, -cost * rules.clean_writeoff)
        elif clean == "mountain_one":
            sheet.mountain(seat, -1)
        elif seat in deal.writeoff:  # races: the clean player's choice
            sheet.writeoff_used.add(seat)
            sheet.mountain(seat, -2 * cost)
        else:
            sheet.pool(seat, cost)
    if four and held_dealer == 0 and rules.dealer_clean:
        sheet.mountain(dealer, -cost if conv.dealer_clean_kind == "cost" else -1)
