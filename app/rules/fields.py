"""The typed fields of the rule table (docs/rules.md §4).

Every scoring parameter is one field of the frozen ``Rules`` value, with a closed set of
values: an enum, a bool, a bounded int, or one of a few ladders. A convention is a named
preset of these fields (``presets.py``); a table may override any of them under
``options``. The scoring modules read fields and never ask which convention they score.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any, NamedTuple

from app.rules.vocabulary import PenaltyDestination

# Bumped whenever a rule change can change a stored sheet; a table keeps scoring under the
# version it was made with (make_rules' rules_version, docs/rules.md §12).
# 2: the seed readings of docs/rules.md §11 put right.
RULES_VERSION = 2

# Contract value V: 6→2, 7→4, 8→6, 9→8, 10→10; misère is worth 10.
CONTRACT_VALUE = {6: 2, 7: 4, 8: 6, 9: 8, 10: 10}
MISERE_VALUE = 10
# Tricks the defenders must take together.
WHIST_OBLIGATION = {6: 4, 7: 2, 8: 1, 9: 1, 10: 1}


class Choice(str, Enum):
    """A field value from a closed set; its JSON form is ``value``."""

    _value_: str

    def __str__(self) -> str:  # pragma: no cover - for messages
        return self.value


class Consolation(Choice):
    SCALED_VALUE = "scaled_value"  # s·V per undertrick from each other player
    TEN = "ten"  # Rostov's direct whists: 10 per undertrick from each other player


class Responsibility(Choice):
    """What a responsible defender pays per short trick (docs/rules.md §6.4)."""

    FULL = "full"  # s·V
    SEMI = "semi"  # s·V/2, the half-responsible whist
    NONE = "none"  # nothing


class TwoWhistersHigh(Choice):
    """Two whisters on 8/9/10 who fall short: who is responsible."""

    SECOND_THEN_BOTH = "second_then_both"  # 8: the second defender; 9, 10: both, each the whole
    BOTH = "both"  # both, each the whole shortfall
    SHARED = "shared"  # both, each half the shortfall


class SingleWhister(Choice):
    """One whister and one passer: who writes the whists for the defenders' tricks."""

    OPEN = "open"  # the whister, for both defenders' tricks
    CLOSED = "closed"  # each defender for his own tricks
    GENTLEMEN = "gentlemen"  # open on a made contract; split equally on a failed one
    GENTLEMEN_ALWAYS = "gentlemen_always"  # split equally on made and failed contracts


class AllpassScoring(Choice):
    PER_TRICK = "per_trick"
    AMNESTY = "amnesty"
    ROSTOV = "rostov"  # the fewest tricks win 5 whists a trick; no streak, no trick cost


class CleanPlayer(Choice):
    """An active player who took no trick on an all-pass."""

    POOL = "pool"  # +1 cost to the pool
    MOUNTAIN = "mountain"  # −clean_writeoff costs off the mountain
    MOUNTAIN_ONE = "mountain_one"  # −1 off the mountain
    CHOICE = "choice"  # +1 cost to the pool, or (choices.writeoff) −2 costs off the mountain


class CleanDealer(Choice):
    """The dealer of a 4-player table who holds no trick on an all-pass."""

    NOTHING = "nothing"
    MOUNTAIN_COST = "mountain_cost"  # −1 cost off the mountain
    MOUNTAIN_ONE = "mountain_one"  # −1 off the mountain
    POOL_COST = "pool_cost"  # +1 cost to the pool


class GameEnd(Choice):
    ALL_CLOSED = "all_closed"  # every pool at the target
    TOTAL_POOL = "total_pool"  # the pools add up to n·target
    ONE_CLOSED = "one_closed"  # one pool at the target (the races)
    DEALS = "deals"  # after game_deals deals, or when the table is closed ("на время")


class PoolOverflow(Choice):
    HELP_OTHERS = "help_others"  # the excess helps open pools, the rest off the own mountain
    NO_CAP = "no_cap"  # pools are not capped
    MOUNTAIN_FIRST = "mountain_first"  # the excess first writes off the own mountain, then helps


class MadeGameWriteoff(Choice):
    """May a declarer write a made (whisted) game off his mountain instead of the pool."""

    NEVER = "never"
    CLOSED_POOL = "closed_pool"  # the whole game, only when his pool was closed before the deal (VMK)
    BEYOND_TARGET = "beyond_target"  # the part beyond the target, at any time (VMK, rules version 1)


class TalonBonusPrice(Choice):
    """What one quick trick found in the talon writes (talon_bonuses)."""

    FIXED = "fixed"  # 10 whists a quick trick, whatever the game (Rostov)
    GAME = "game"  # the game's trick price s·V a quick trick, never on a misère (ФСПР, §13)


class FixedDealerScope(Choice):
    """With sliding_allpass off: which deals keep the dealer."""

    WHOLE_STREAK = "whole_streak"  # every deal after which the table is still in all-passes
    ALLPASS_DEALS = "allpass_deals"  # all-pass deals only (rules version 1)


class UnwhistedWriteoff(Choice):
    """May a declarer write an unwhisted made game off his mountain instead of the pool."""

    NEVER = "never"
    VALUE = "value"  # V off the mountain, any time (VMK)
    DOUBLE_HIGH = "double_high"  # 8, 9, 10 and a clean misère: 2V off the mountain (races)


@dataclass(frozen=True, slots=True)
class CostLadder:
    """All-pass trick costs by streak: ``costs[i]`` for the i-th all-pass in a row (0-based);
    past the list the last cost holds, growing by ``step`` each time (0: bounded)."""

    costs: tuple[int, ...]
    step: int = 0

    def at(self, index: int) -> int:
        last = len(self.costs) - 1
        if index <= last:
            return self.costs[index]
        return self.costs[last] + self.step * (index - last)

    def to_json(self) -> list[int] | dict[str, int]:
        if self.step:
            return {"start": self.costs[0], "step": self.step}
        return list(self.costs)


# The progressions a table may choose; {"start": a, "step": d} is the unbounded arithmetic one.
COST_LADDERS = ((1,), (1, 2, 3), (1, 2, 4), (2, 4, 4), (2, 4, 6), (2, 4, 8))
EXIT_LADDERS = ((6,), (6, 7, 7), (6, 7, 8))


class ConventionRef(NamedTuple):
    """What callers outside the engine read as ``rules.convention`` (the first rule table's
    shape): the preset's name, and whether the table plays a match of games. New code reads
    ``rules.preset`` and ``rules.match_bonuses``."""

    name: str
    races: bool  # = rules.match_bonuses


@dataclass(frozen=True, slots=True)
class Rules:
    """A table's effective rules: its preset's fields with the table's overrides."""

    preset: str  # the convention the table was made from (a name only: never tested)
    players: int
    pool_target: int
    # contracts
    scale: int  # s: mountain and whists for contracts are written s times
    pool_rate: int  # k: one pool point counts as 10·k whists at settlement
    consolation: Consolation
    failed_declarer_doubled: bool  # every whist written on a failed declarer is doubled
    whist_responsibility: Responsibility
    two_whisters_high: TwoWhistersHigh
    single_whister: SingleWhister
    misere_penalty: int  # per trick taken on a failed misère
    stalingrad: bool
    whisted_tens: bool
    remise: bool
    # all-passes
    allpass_scoring: AllpassScoring
    allpass_costs: CostLadder
    exit_levels: tuple[int, ...]
    clean_player: CleanPlayer
    clean_writeoff: int  # costs written off under clean_player "mountain"
    clean_dealer: CleanDealer
    sliding_allpass: bool
    fixed_dealer_scope: FixedDealerScope  # counts only with sliding_allpass off
    # what ends a streak
    unwhisted_exit: bool
    half_whist_exit: bool
    # end of game
    end_of_game: GameEnd
    game_deals: int  # the number of deals under end_of_game "deals" (0 otherwise)
    end_outside_streak: bool  # the game cannot end inside an all-pass streak
    # pools
    pool_overflow: PoolOverflow
    failed_whister_unhelped: bool  # a defender who failed his whist in the deal cannot be helped
    made_game_writeoff: MadeGameWriteoff
    unwhisted_writeoff: UnwhistedWriteoff
    # talon and bidding
    talon_bonuses: bool  # the Rostov talon: bonuses for quick tricks, the discarded talon
    talon_bonus_price: TalonBonusPrice  # a quick trick: 10 whists, or the game's trick price
    dealer_half_whist: bool  # 4 players: the dealer may whist after pass, half-whist
    return_talon: bool
    pass_pass_whist: bool
    # the match
    compulsory_allpass: bool  # each game opens with an all-pass; a failed misère forces one
    match_bonuses: bool  # the races' bonuses and a match of ``games`` games
    games: int
    # penalties (docs/rules.md §15)
    penalties_to: PenaltyDestination  # where a penalty goes when it does not say
    # the rules version the table was made under (not a field: make_rules' rules_version)
    rules_version: int = RULES_VERSION

    @property
    def convention(self) -> ConventionRef:
        return ConventionRef(self.preset, self.match_bonuses)

    @property
    def options(self) -> dict[str, Any]:
        """The table's options, JSON-ready: its preset's classic options with their values,
        and every other field where it differs from the preset (make_rules takes it back)."""
        return _options_reader(self)

    def consolation_of(self, value: int) -> int:
        return 10 if self.consolation is Consolation.TEN else self.scale * value


def _no_presets(rules: Rules) -> dict[str, Any]:
    raise RuntimeError("app.rules.conventions is not imported: it reads a table's options back")


# Reading the options back needs the presets, which conventions.py builds on top of this
# module: it installs its reader (read_options_with) when imported, as app.rules does, so
# that this module does not import it back.
_options_reader: Callable[[Rules], dict[str, Any]] = _no_presets


def read_options_with(reader: Callable[[Rules], dict[str, Any]]) -> None:
    global _options_reader
    _options_reader = reader


FIELD_NAMES = tuple(
    name for name in Rules.__slots__ if name not in ("preset", "players", "pool_target", "rules_version")
)


def to_json(value: Any) -> Any:
    """A field value in its JSON form."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, CostLadder):
        return value.to_json()
    if isinstance(value, tuple):
        return list(value)
    return value
