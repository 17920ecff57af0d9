"""Combinations of the rule table's fields that cannot be scored (docs/rules.md §4): each check
names the fields it involves, the first being the one to blame when the table gave none of them."""

from __future__ import annotations

from typing import Any

from app.rules.fields import (
    AllpassScoring,
    CleanDealer,
    CleanPlayer,
    CostLadder,
    GameEnd,
    TalonBonusPrice,
)
from app.rules.sentences import Sentence

Contradiction = tuple[tuple[str, ...], str]


def contradictions(v: dict[str, Any]) -> list[Contradiction]:
    """Every contradiction among the field values ``v``, in the order the checks run."""
    out: list[Contradiction] = []
    for check in (_match_games, _game_end, _rostov_allpass, _talon_bonus_price, _doubled_costs):
        out.extend(check(v))
    return out


def _match_games(v: dict[str, Any]) -> list[Contradiction]:
    if v["games"] != 1 and not v["match_bonuses"]:
        return [(("games", "match_bonuses"), Sentence("a match of several games needs match_bonuses"))]
    return []


def _game_end(v: dict[str, Any]) -> list[Contradiction]:
    out: list[Contradiction] = []
    if v["end_of_game"] is GameEnd.DEALS:
        if v["game_deals"] < 1:
            out.append(
                (("game_deals", "end_of_game"), Sentence("end_of_game deals needs game_deals of at least 1"))
            )
        if v["match_bonuses"]:
            out.append(
                (
                    ("end_of_game", "match_bonuses"),
                    Sentence("a match's games end by their pools, not by a number of deals"),
                )
            )
    elif v["game_deals"]:
        out.append(
            (("game_deals", "end_of_game"), Sentence("game_deals counts only under end_of_game deals"))
        )
    return out


def _rostov_allpass(v: dict[str, Any]) -> list[Contradiction]:
    """The rostov all-pass has no trick cost, so nothing may be priced by one."""
    out: list[Contradiction] = []
    if v["allpass_scoring"] is not AllpassScoring.ROSTOV:
        return out
    for name, values in (
        ("clean_player", (CleanPlayer.POOL, CleanPlayer.MOUNTAIN, CleanPlayer.CHOICE)),
        ("clean_dealer", (CleanDealer.MOUNTAIN_COST, CleanDealer.POOL_COST)),
    ):
        if v[name] in values:
            out.append(
                (
                    (name, "allpass_scoring"),
                    Sentence("{value} needs a trick cost; the rostov all-pass has none", value=v[name].value),
                )
            )
    if v["compulsory_allpass"]:
        out.append(
            (
                ("compulsory_allpass", "allpass_scoring"),
                Sentence("a compulsory all-pass needs a trick cost; the rostov all-pass has none"),
            )
        )
    return out


def _talon_bonus_price(v: dict[str, Any]) -> list[Contradiction]:
    if v["talon_bonus_price"] is not TalonBonusPrice.FIXED and not v["talon_bonuses"]:
        return [
            (
                ("talon_bonus_price", "talon_bonuses"),
                Sentence("a talon bonus is priced only with talon_bonuses"),
            )
        ]
    return []


def _doubled_costs(v: dict[str, Any]) -> list[Contradiction]:
    if v["scale"] != 2:
        return []
    ladder: CostLadder = v["allpass_costs"]
    if any(c % 2 for c in ladder.costs) or ladder.step % 2:
        return [
            (
                ("allpass_costs", "scale"),
                Sentence(
                    "with scale 2 every cost is written doubled: choose [2,4,6], [2,4,8], [2,4,4] or even start and step"
                ),
            )
        ]
    return []
