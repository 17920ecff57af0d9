"""The working copy of the sheet during one deal, and the pool writes with their overflow
(docs/rules.md §8.3).

The scoring modules write on a ``WorkingSheet``; the table's state is never changed, so a
refused deal leaves everything as it was. Entries are summed per (kind, seat, on) as they
are written: one line per seat and kind, in the order first written.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from app.rules.deal import Deal
from app.rules.errors import FieldError, InvalidDeal
from app.rules.fields import MadeGameWriteoff, PoolOverflow, Rules
from app.rules.sentences import Sentence
from app.rules.state import Amount, Entry, TableState, exact

# The active seats and the (first, second) defenders of each declarer, by table size and dealer:
# at 4 players the dealer sits out; defenders are ordered from the declarer's left.
ACTIVE = {
    (n, dealer): tuple(s for s in range(n) if n == 3 or s != dealer) for n in (3, 4) for dealer in range(n)
}
DEFENDERS = {
    (n, dealer, declarer): tuple(
        s for s in ((declarer + i) % n for i in range(1, n)) if s in ACTIVE[n, dealer]
    )
    for n in (3, 4)
    for dealer in range(n)
    for declarer in ACTIVE[n, dealer]
}


class WorkingSheet:
    __slots__ = (
        "rules",
        "state",
        "dealer",
        "n",
        "active",
        "pools",
        "mountains",
        "whists",
        "entries",
        "pending_pools",
        "exit",
        "compulsory_next",
        "unhelpable",
        "help_used",
        "writeoff_used",
        "copied_rows",
        "aparts",
    )

    def __init__(self, rules: Rules, state: TableState, dealer: int):
        self.rules = rules
        self.state = state
        self.dealer = dealer
        self.n = n = rules.players
        self.active = ACTIVE[n, dealer]
        self.pools = list(state.pools)
        self.mountains = list(state.mountains)
        # rows are copied when first written (most deals write on one or two rows): a row is the
        # state's tuple until then and this sheet's own list after (copied_rows says which)
        self.whists: list[Any] = list(state.whists)
        self.copied_rows = 0  # bit i: row i is this sheet's own list
        self.entries: dict[tuple[str, int, int | None], Amount] = {}
        self.pending_pools: list[tuple[int, Amount]] = []
        self.exit = False  # this deal ends the all-pass streak
        self.compulsory_next: int | None = None  # the next deal is an all-pass at this cost
        self.unhelpable: set[int] = set()  # defenders who failed their whist (failed_whister_unhelped)
        self.help_used = False
        self.writeoff_used: set[int] = set()
        self.aparts: list[Amount] | None = None  # a penalty kept apart (docs/rules.md §15)

    # writing -------------------------------------------------------------
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
            row = self.whists[seat]
            if not self.copied_rows >> seat & 1:
                row = self.whists[seat] = list(row)
                self.copied_rows |= 1 << seat
            row[on] = exact(row[on] + amount)
            self._enter(("whists", seat, on), amount)

    def apart(self, seat: int, amount: Amount) -> None:
        """A penalty kept apart: in the balance as mountain points, not in the mountain."""
        if amount:
            if self.aparts is None:
                self.aparts = list(self.state.apart) or [0] * self.n
            amount = exact(amount)
            self.aparts[seat] = exact(self.aparts[seat] + amount)
            self._enter(("apart", seat, None), amount)

    def whists_written(self) -> tuple[tuple[Amount, ...], ...]:
        copied = self.copied_rows
        if not copied:
            return self.state.whists
        rows = list(self.whists)
        for i in range(self.n):
            if copied >> i & 1:
                rows[i] = tuple(rows[i])
        return tuple(rows)

    def pool(self, seat: int, amount: Amount) -> None:
        """Queue a pool write; they go through the overflow rule in seat order."""
        self.pending_pools.append((seat, amount))

    def _raw_pool(self, seat: int, amount: Amount) -> None:
        amount = exact(amount)
        self.pools[seat] = exact(self.pools[seat] + amount)
        self._enter(("pool", seat, None), amount)

    def entries_written(self) -> tuple[Entry, ...]:
        """The summed lines as entries; lines that cancelled out are dropped."""
        return tuple(
            [Entry(kind, seat, amount, on) for (kind, seat, on), amount in self.entries.items() if amount]
        )

    def check_choices_used(self, deal: Deal) -> None:
        if deal.help is not None and not self.help_used:
            raise InvalidDeal([FieldError("choices.help", "no pool overflows onto that seat in this deal")])
        if not deal.writeoff:  # nearly every deal: no set to build
            return
        stray = set(deal.writeoff) - self.writeoff_used
        if stray:
            seats = ", ".join(str(s) for s in sorted(stray))
            raise InvalidDeal(
                [
                    FieldError(
                        "choices.writeoff",
                        Sentence("seat {seats} has nothing to write off in this deal", seats=seats),
                    )
                ]
            )


# --------------------------------------------------------------------------
# Pools and overflow


def write_pools(sheet: WorkingSheet, deal: Deal) -> None:
    """The deal's pool writes, one seat at a time clockwise from the seat after the dealer."""
    rules, n, dealer = sheet.rules, sheet.n, sheet.dealer
    pending = sheet.pending_pools
    if len(pending) > 1:
        pending.sort(key=lambda item: (item[0] - dealer - 1) % n)
    target = rules.pool_target
    capped = rules.pool_overflow is not PoolOverflow.NO_CAP
    for seat, amount in pending:
        if deal.writeoff and seat == deal.declarer and seat in deal.writeoff:
            if write_off_made_game(sheet, seat, amount):
                continue
        if not capped:
            sheet._raw_pool(seat, amount)
            continue
        room = max(target - sheet.pools[seat], 0)
        own = min(amount, room)
        if own:
            sheet._raw_pool(seat, own)
        excess = amount - own
        if excess:
            if (
                rules.made_game_writeoff is MadeGameWriteoff.BEYOND_TARGET
                and seat == deal.declarer
                and seat in deal.writeoff
            ):
                write_off_beyond_target(sheet, seat, excess)
            else:
                overflow_pool(sheet, seat, excess, deal)


def write_off_made_game(sheet: WorkingSheet, seat: int, amount: Amount) -> bool:
    """A made game written off the declarer's mountain at rate k instead of his pool: only
    once his pool was closed before this deal (made_game_writeoff closed_pool; seed 001, VMK)."""
    rules = sheet.rules
    if rules.made_game_writeoff is not MadeGameWriteoff.CLOSED_POOL:
        return False
    if sheet.state.pools[seat] < rules.pool_target:
        raise InvalidDeal(
            [
                FieldError(
                    "choices.writeoff",
                    Sentence(
                        "seat {seat}'s pool is not closed: a made game is written off the mountain only once the pool is closed",
                        seat=seat,
                    ),
                )
            ]
        )
    sheet.writeoff_used.add(seat)
    sheet.mountain(seat, -amount * rules.pool_rate)
    return True


def write_off_beyond_target(sheet: WorkingSheet, seat: int, excess: Amount) -> None:
    """The part of a made game beyond the declarer's target written off his own mountain at
    rate k instead of helping (made_game_writeoff beyond_target: VMK under rules version 1)."""
    sheet.writeoff_used.add(seat)
    sheet.mountain(seat, -excess * sheet.rules.pool_rate)


def overflow_pool(sheet: WorkingSheet, helper: int, excess: Amount, deal: Deal) -> None:
    """Points beyond the helper's closed pool: under mountain_first they first come off his own
    mountain; then they close the open pools, largest first, the helper writing 10·k whists a
    point on each; what is left comes off his mountain."""
    rules = sheet.rules
    k = rules.pool_rate
    target = rules.pool_target
    if rules.pool_overflow is PoolOverflow.MOUNTAIN_FIRST:
        # whole pool points, as far as the mountain goes at rate k
        off = min(excess, Fraction(sheet.mountains[helper]) // k)
        if off > 0:
            sheet.mountain(helper, -off * k)
            excess = exact(excess - off)
    pools = sheet.pools
    while excess:
        open_seats = [
            s for s in range(sheet.n) if s != helper and pools[s] < target and s not in sheet.unhelpable
        ]
        if not open_seats:
            break
        chosen = None
        if deal.help is not None and deal.help in open_seats and not sheet.help_used:
            chosen = deal.help
            sheet.help_used = True
        if chosen is None:
            # The largest open pool; ties go to the first such seat clockwise from the helper.
            chosen = max(open_seats, key=lambda s: (pools[s], -((s - helper) % sheet.n)))
        given = min(excess, target - pools[chosen])
        sheet._raw_pool(chosen, given)
        sheet.whist(helper, chosen, given * 10 * k)
        excess -= given
    if excess:
        sheet.mountain(helper, -excess * k)
