"""The game's words as people read them, in either language, keyed by the engine's own
vocabulary (``app/rules/vocabulary.py``): the picture, the pages and the client all write a
contract, a defence or "two down" through these, so each is defined once.

Suits are written as their symbols in both languages; no trumps as players write it
(``БК``, без козыря; ``NT`` in English).
"""

from __future__ import annotations

from app.kit.i18n import N_, Lang
from app.rules.vocabulary import (
    CONTRACT_RE,
    DealType,
    DefenderAnswer,
    EntryKind,
    MatchBonusKind,
    PenaltyDestination,
    Strain,
    TalonBonus,
)

SUIT_SYMBOLS: dict[str, str] = {
    Strain.SPADES: "♠",
    Strain.CLUBS: "♣",
    Strain.DIAMONDS: "♦",
    Strain.HEARTS: "♥",
}
# Translators: no trumps after a level, as in "7NT"; Russian players write БК.
NO_TRUMPS = N_("NT")

DEAL_TYPES: dict[str, str] = {
    DealType.CONTRACT: N_("game"),
    DealType.MISERE: N_("misère"),
    DealType.REMISE: N_("remise"),
    DealType.ALLPASS: N_("all-pass"),
    DealType.CLOSE: N_("game closed"),
    DealType.PENALTY: N_("penalty"),
}
DEFENCE: dict[str, str] = {
    DefenderAnswer.WHIST: N_("whist"),
    DefenderAnswer.PASS: N_("pass"),
    DefenderAnswer.HALF_WHIST: N_("half-whist"),
}
ENTRY_KINDS: dict[str, str] = {
    EntryKind.POOL: N_("pool"),
    EntryKind.MOUNTAIN: N_("mountain"),
    EntryKind.WHISTS: N_("whists"),
    EntryKind.APART: N_("kept apart"),
}
PENALTY_DESTINATIONS: dict[str, str] = {
    PenaltyDestination.MOUNTAIN: N_("to the mountain"),
    PenaltyDestination.WHISTS: N_("whists to the others"),
    PenaltyDestination.APART: N_("kept apart"),
}
TALON_BONUSES: dict[str, str] = {
    TalonBonus.ACE: N_("ace in the talon"),
    TalonBonus.MARRIAGE: N_("marriage in the talon"),
    TalonBonus.ACE_KING: N_("ace and king in the talon"),
    TalonBonus.TWO_ACES: N_("two aces in the talon"),
}
# The conventions' names as a picture heads a sheet with them (app/rules/presets.py's titles).
CONVENTIONS: dict[str, str] = {
    "sochi": N_("Sochi"),
    "piter": N_("Piter (Leningrad)"),
    "piter_gentleman": N_("Gentlemen's Piter"),
    "rostov": N_("Rostov"),
    "vmk": N_("VMK"),
    "piter_races": N_("Piter races"),
    "fspr": N_("FSPR (Leningrad)"),
    "classic_1996": N_("Preference Code 1996"),
}
MATCH_BONUSES: dict[str, str] = {
    MatchBonusKind.FIRST_TO_TARGET: N_("first to close the pool"),
    MatchBonusKind.MIN_MOUNTAIN: N_("smallest mountain"),
    MatchBonusKind.MAX_POOL: N_("largest pool"),
}
# "Without two": a failed contract is named by its undertricks, as an ordinal-like word in
# Russian (без одной, без двух ...), so each count is its own msgid.
UNDERTRICKS: dict[int, str] = {
    1: N_("one down"),
    2: N_("two down"),
    3: N_("three down"),
    4: N_("four down"),
    5: N_("five down"),
    6: N_("six down"),
    7: N_("seven down"),
    8: N_("eight down"),
    9: N_("nine down"),
    10: N_("ten down"),
}


def contract(lang: Lang, written: str) -> str:
    """ "7H" as people write it: "7♥"; "10NT" as "10БК" in Russian, "10NT" in English."""
    match = CONTRACT_RE.match(written)
    if match is None:
        return written
    level, strain = match.groups()
    return level + (SUIT_SYMBOLS.get(strain) or lang._(NO_TRUMPS))


def undertricks(lang: Lang, n: int) -> str:
    """How many tricks short a declarer fell: "без двух", "two down"."""
    msgid = UNDERTRICKS.get(n)
    return lang._(msgid) if msgid else lang._("{n} down", n=n)


def word(lang: Lang, table: dict[str, str], key: str) -> str:
    """The word of an engine value from one of the tables above (the value itself when the
    table does not have it)."""
    msgid = table.get(key)
    return lang._(msgid) if msgid else str(key)


def deal_count(lang: Lang, n: int) -> str:
    """ "5 deals", "5 сдач" (Russian has three plural forms)."""
    return lang.ngettext("{n} deal", "{n} deals", n)
