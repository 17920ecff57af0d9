"""The deal-level words of the game, defined once: what a deal can be, what a contract is
written as, what a defender answers, what a talon can bring, what a deal writes on the sheet.

The engine (``deal.py``), the HTTP schemas, the client's notation and the renderer all read
them from here, so that a new word is added in one place. Each enum is a ``str`` enum: its
members compare equal to the words in JSON bodies and stored deals.
"""

from __future__ import annotations

import re
from enum import StrEnum

from app.rules.sentences import Sentence


class DealType(StrEnum):
    """What was played: a contract game, a misère, a remise ("without three") or all-pass; or
    ``close``, the caller ending a game played for a number of deals; or ``penalty``, a
    judge's penalty written on the sheet between deals (docs/rules.md §15)."""

    CONTRACT = "contract"
    MISERE = "misere"
    REMISE = "remise"
    ALLPASS = "allpass"
    CLOSE = "close"
    PENALTY = "penalty"


class Strain(StrEnum):
    """The trump suit of a contract, or no trumps; in the order of the bidding."""

    SPADES = "S"
    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    NO_TRUMPS = "NT"


class DefenderAnswer(StrEnum):
    """What a defender answers to a contract: whist (plays against it), pass, half-whist."""

    WHIST = "whist"
    PASS = "pass"
    HALF_WHIST = "half_whist"


class TalonBonus(StrEnum):
    """Rostov: what the talon brought the declarer."""

    ACE = "ace"
    MARRIAGE = "marriage"
    ACE_KING = "ace_king"
    TWO_ACES = "two_aces"


class EntryKind(StrEnum):
    """Where a deal writes: the pool, the mountain, or whists on another player."""

    POOL = "pool"
    MOUNTAIN = "mountain"
    WHISTS = "whists"
    APART = "apart"  # a penalty the judge keeps apart: in the balance, not in the pool or mountain


class PenaltyDestination(StrEnum):
    """Where a penalty goes (docs/rules.md §15): the offender's mountain, whists written by
    each other player on the offender, or kept apart by the judge (counted in the balance as
    mountain points, but written in neither the pool nor the mountain)."""

    MOUNTAIN = "mountain"
    WHISTS = "whists"
    APART = "apart"


class Violation(StrEnum):
    """The errors of the Sporting Code's section 10 a penalty may name (docs/rules.md §15)."""

    MISDEAL = "misdeal"  # a wrong deal: cards dealt out of turn, wrongly, or a card shown
    BID_OUT_OF_TURN = "bid_out_of_turn"
    WRONG_BID = "wrong_bid"  # a bid below the lowest allowed, or not in the order of bids
    TALON_SEEN = "talon_seen"  # the talon looked at before it was the declarer's
    EXPOSED_CARD = "exposed_card"
    LEAD_OUT_OF_TURN = "lead_out_of_turn"
    REVOKE = "revoke"  # not following suit, or not trumping, when able to
    WRONG_CLAIM = "wrong_claim"  # tricks claimed or conceded that the cards do not bear out
    WRONG_RECORD = "wrong_record"  # the sheet written wrongly
    CONDUCT = "conduct"  # a breach of the ethics: remarks, signals, delay
    OTHER = "other"


class MatchBonusKind(StrEnum):
    """piter_races: the bonuses written at the end of a game or of the match."""

    FIRST_TO_TARGET = "first_to_target"
    MIN_MOUNTAIN = "min_mountain"
    MAX_POOL = "max_pool"


DEAL_TYPES: tuple[str, ...] = tuple(m.value for m in DealType)
STRAINS: tuple[str, ...] = tuple(m.value for m in Strain)
DEFENCE: tuple[str, ...] = tuple(m.value for m in DefenderAnswer)
CONTRACT_LEVELS: tuple[int, ...] = (6, 7, 8, 9, 10)
# What each talon bonus writes (Rostov): its value in whists.
TALON_BONUSES: dict[str, int] = {
    TalonBonus.ACE.value: 10,
    TalonBonus.MARRIAGE.value: 10,
    TalonBonus.ACE_KING.value: 20,
    TalonBonus.TWO_ACES.value: 30,
}

# A penalty's amount where the code fixes it, by violation; None: the judge gives the amount.
# The Sporting Code's section 10 was not found in a public copy (docs/rules.md §15), so no
# amount is fixed here: every penalty gives its amount.
PENALTY_AMOUNTS: dict[str, int | None] = {m.value: None for m in Violation}
PENALTY_DESTINATIONS: tuple[str, ...] = tuple(m.value for m in PenaltyDestination)
VIOLATIONS: tuple[str, ...] = tuple(m.value for m in Violation)
PENALTY_AMOUNT_MAX = 10_000  # points or whists of one penalty
PENALTY_CLAUSE_MAX = 20  # characters of a clause, "10.3.2"

# A contract as written: a level 6-10 then a strain, "7H", "10NT".
CONTRACT_PATTERN = r"^(" + "|".join(str(n) for n in CONTRACT_LEVELS) + r")(" + "|".join(STRAINS) + r")$"
CONTRACT_RE = re.compile(CONTRACT_PATTERN)
CONTRACT_HELP = Sentence('a level 6-10 and a strain S, C, D, H or NT, e.g. "7H"')

SEATS_MAX = 4  # a table has 3 or 4 players, seats 0..n-1
DEAL_NOTE_MAX = 500  # characters of a deal's note (a table's note: app/tables/limits.py TABLE_NOTE_MAX)
# Deal types that can carry a talon (the others have no talon taken).
TALON_DEAL_TYPES: tuple[str, ...] = (DealType.CONTRACT.value, DealType.MISERE.value)


def one_of(words: tuple[str, ...] | list[str]) -> str:
    """ "a, b or c": the words a field accepts, for a refusal's reason."""
    words = [str(w) for w in words]
    return (
        words[0]
        if len(words) == 1
        else Sentence("{words} or {last}", words=", ".join(words[:-1]), last=words[-1])
    )
