"""The conventions as named presets of the rule table's fields, and the bool options of the first
rule table (``gentlemen_whist``, ``dealer_clean``) as aliases of the fields they became
(docs/rules.md §5)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.rules.fields import (
    FIELD_NAMES,
    AllpassScoring,
    CleanDealer,
    CleanPlayer,
    Consolation,
    CostLadder,
    FixedDealerScope,
    GameEnd,
    MadeGameWriteoff,
    PoolOverflow,
    Responsibility,
    SingleWhister,
    TalonBonusPrice,
    TwoWhistersHigh,
    UnwhistedWriteoff,
)
from app.rules.specs import SPECS
from app.rules.vocabulary import PenaltyDestination

CONVENTION_NAMES = (
    "sochi",
    "piter",
    "piter_gentleman",
    "rostov",
    "vmk",
    "piter_races",
    "fspr",
    "classic_1996",
)


# --------------------------------------------------------------------------
# Presets


@dataclass(frozen=True)
class Preset:
    """A convention: a name, its table sizes and default target, and a value for every field."""

    name: str
    title: str
    seat_counts: tuple[int, ...]
    default_pool_target: int
    values: dict[str, Any]
    classic: tuple[str, ...]  # the options of the first rule table, listed in ``rules.options``
    # what the classic bool ``dealer_clean: true`` means in this preset
    dealer_clean_kind: CleanDealer = CleanDealer.MOUNTAIN_COST

    def describe(self) -> dict[str, Any]:
        options = [SPECS[name].describe(self.values[name]) for name in FIELD_NAMES]
        for alias in ALIASES.values():
            if alias.name in self.classic:
                options.append(alias.describe(self))
        return {
            "name": self.name,
            "title": self.title,
            "players": list(self.seat_counts),
            "default_pool_target": self.default_pool_target,
            "scale": self.values["scale"],
            "pool_rate": self.values["pool_rate"],
            "classic_options": list(self.classic),
            "options": options,
        }


def _values(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "scale": 1,
        "pool_rate": 1,
        "consolation": Consolation.SCALED_VALUE,
        "failed_declarer_doubled": False,
        "whist_responsibility": Responsibility.SEMI,
        "two_whisters_high": TwoWhistersHigh.SECOND_THEN_BOTH,
        "single_whister": SingleWhister.OPEN,
        "misere_penalty": 10,
        "stalingrad": False,
        "whisted_tens": False,
        "remise": True,
        "allpass_scoring": AllpassScoring.PER_TRICK,
        "allpass_costs": CostLadder((1,)),
        "exit_levels": (6,),
        "clean_player": CleanPlayer.POOL,
        "clean_writeoff": 1,
        "clean_dealer": CleanDealer.NOTHING,
        "sliding_allpass": True,
        "fixed_dealer_scope": FixedDealerScope.WHOLE_STREAK,
        "unwhisted_exit": False,
        "half_whist_exit": True,
        "end_of_game": GameEnd.ALL_CLOSED,
        "game_deals": 0,
        "end_outside_streak": False,
        "pool_overflow": PoolOverflow.HELP_OTHERS,
        "failed_whister_unhelped": False,
        "made_game_writeoff": MadeGameWriteoff.NEVER,
        "unwhisted_writeoff": UnwhistedWriteoff.NEVER,
        "talon_bonuses": False,
        "talon_bonus_price": TalonBonusPrice.FIXED,
        "dealer_half_whist": False,
        "return_talon": False,
        "pass_pass_whist": True,
        "compulsory_allpass": False,
        "match_bonuses": False,
        "games": 1,
        "penalties_to": PenaltyDestination.MOUNTAIN,
    }
    for name in changes:
        assert name in base, name
    base.update(changes)
    assert tuple(base) == FIELD_NAMES
    return base


PRESETS: dict[str, Preset] = {
    "sochi": Preset(
        "sochi",
        "Sochi",
        (3, 4),
        20,
        # "what ends an all-pass streak: any made game", unwhisted ones included
        _values(unwhisted_exit=True),
        classic=("stalingrad", "gentlemen_whist", "whisted_tens", "remise", "allpass_costs", "exit_levels"),
    ),
    "piter": Preset(
        "piter",
        "Piter (Leningrad)",
        (3, 4),
        20,
        _values(
            scale=2,
            pool_rate=2,
            misere_penalty=20,
            single_whister=SingleWhister.GENTLEMEN,
            stalingrad=True,
            allpass_scoring=AllpassScoring.AMNESTY,
            allpass_costs=CostLadder((2, 4, 6)),
            exit_levels=(6, 7, 7),
            clean_player=CleanPlayer.MOUNTAIN,
            end_outside_streak=True,
        ),
        classic=(
            "stalingrad",
            "whisted_tens",
            "remise",
            "allpass_costs",
            "exit_levels",
            "unwhisted_exit",
            "clean_writeoff",
            "sliding_allpass",
            "return_talon",
            "pass_pass_whist",
        ),
    ),
    "piter_gentleman": Preset(
        "piter_gentleman",
        "Gentlemen's Piter",
        (3, 4),
        20,
        # "a made game, never a remise" ends a streak: unwhisted made games included
        _values(
            scale=2,
            pool_rate=2,
            misere_penalty=20,
            single_whister=SingleWhister.GENTLEMEN,
            allpass_costs=CostLadder((2, 4, 6)),
            exit_levels=(6, 7, 8),
            unwhisted_exit=True,
            end_of_game=GameEnd.TOTAL_POOL,
            end_outside_streak=True,
            pool_overflow=PoolOverflow.NO_CAP,
        ),
        classic=("stalingrad", "whisted_tens", "remise", "dealer_clean"),
        dealer_clean_kind=CleanDealer.MOUNTAIN_COST,
    ),
    "rostov": Preset(
        "rostov",
        "Rostov",
        (3, 4),
        20,
        _values(
            consolation=Consolation.TEN,
            stalingrad=True,
            remise=False,
            allpass_scoring=AllpassScoring.ROSTOV,
            clean_player=CleanPlayer.MOUNTAIN_ONE,
            talon_bonuses=True,
        ),
        classic=("stalingrad", "whisted_tens", "dealer_clean"),
        dealer_clean_kind=CleanDealer.MOUNTAIN_ONE,
    ),
    "vmk": Preset(
        "vmk",
        "VMK",
        (3, 4),
        20,
        _values(
            consolation=Consolation.TEN,
            whist_responsibility=Responsibility.FULL,
            two_whisters_high=TwoWhistersHigh.BOTH,
            stalingrad=True,
            allpass_costs=CostLadder((2, 4, 4)),
            exit_levels=(6, 7, 7),
            clean_player=CleanPlayer.MOUNTAIN,
            failed_whister_unhelped=True,
            made_game_writeoff=MadeGameWriteoff.CLOSED_POOL,
            unwhisted_writeoff=UnwhistedWriteoff.VALUE,
        ),
        classic=(),
    ),
    "piter_races": Preset(
        "piter_races",
        "Piter races",
        (4,),
        22,
        _values(
            scale=2,
            pool_rate=2,
            misere_penalty=20,
            failed_declarer_doubled=True,
            two_whisters_high=TwoWhistersHigh.SHARED,
            single_whister=SingleWhister.GENTLEMEN,
            stalingrad=True,
            whisted_tens=True,
            remise=False,
            allpass_costs=CostLadder((2, 4, 6)),
            exit_levels=(6, 7, 7),
            clean_player=CleanPlayer.CHOICE,
            half_whist_exit=False,
            end_of_game=GameEnd.ONE_CLOSED,
            end_outside_streak=True,
            pool_overflow=PoolOverflow.NO_CAP,
            unwhisted_writeoff=UnwhistedWriteoff.DOUBLE_HIGH,
            compulsory_allpass=True,
            match_bonuses=True,
            games=7,
        ),
        classic=("games",),
    ),
    # ФСПР's Sporting Code, section 6, the Leningrad system (docs/rules.md §13: each value's source)
    "fspr": Preset(
        "fspr",
        "FSPR (Leningrad)",
        (3, 4),
        20,
        _values(
            scale=2,
            pool_rate=2,
            misere_penalty=20,
            single_whister=SingleWhister.GENTLEMEN,
            whisted_tens=True,
            remise=False,
            allpass_costs=CostLadder((2, 4, 6)),
            exit_levels=(6, 7, 7),
            clean_player=CleanPlayer.CHOICE,
            half_whist_exit=False,
            talon_bonuses=True,
            talon_bonus_price=TalonBonusPrice.GAME,
            dealer_half_whist=True,
        ),
        classic=(),
    ),
    # the Кодекс преферанса of 1996, its game without the options it leaves to the table (§14)
    "classic_1996": Preset(
        "classic_1996",
        "Preference Code 1996",
        (3, 4),
        20,
        _values(whisted_tens=True),
        classic=(),
    ),
}
assert tuple(PRESETS) == CONVENTION_NAMES


# --------------------------------------------------------------------------
# Aliases: the bool options of the first rule table


@dataclass(frozen=True)
class Alias:
    name: str
    target: str
    description: str
    to_field: Callable[[Preset, bool], Any]
    from_field: Callable[[Preset, Any], bool | None]  # None: the value has no bool form

    def describe(self, preset: Preset) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": "bool",
            "default": self.from_field(preset, preset.values[self.target]),
            "choices": [False, True],
            "alias_of": self.target,
            "description": self.description,
        }


ALIASES = {
    "gentlemen_whist": Alias(
        "gentlemen_whist",
        "single_whister",
        "Classic name: true is single_whister gentlemen, false is open.",
        lambda p, on: SingleWhister.GENTLEMEN if on else SingleWhister.OPEN,
        lambda p, v: {SingleWhister.GENTLEMEN: True, SingleWhister.OPEN: False}.get(v),
    ),
    "dealer_clean": Alias(
        "dealer_clean",
        "clean_dealer",
        "Classic name: true is this convention's clean-dealer write-off, false is nothing.",
        lambda p, on: p.dealer_clean_kind if on else CleanDealer.NOTHING,
        lambda p, v: {p.dealer_clean_kind: True, CleanDealer.NOTHING: False}.get(v),
    ),
}
