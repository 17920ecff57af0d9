"""Refusals of the engine. Each names the field and the reason (docs/rules.md §10)."""

from __future__ import annotations

from dataclasses import dataclass

from app.rules.sentences import Sentence, joined, sentence


@dataclass(frozen=True)
class FieldError:
    field: str  # dotted path in the request body, e.g. "tricks.1" or "options.games"
    reason: str


class RulesError(Exception):
    """Base of every refusal. ``errors`` lists the bad fields; nothing was changed."""

    kind = "invalid"

    def __init__(self, errors: list[FieldError]):
        self.errors = list(errors)
        # The reasons as one sentence ("tricks: …; dealer: …"), each translatable.
        self.sentence = joined(
            "; ",
            (Sentence("{field}: {reason}", field=e.field, reason=sentence(e.reason)) for e in self.errors),
        )
        super().__init__(str(self.sentence))


class InvalidTable(RulesError):
    """A table's settings (convention, players, pool target, options) do not fit."""


class InvalidDeal(RulesError):
    """A deal that does not fit the rules or the table's current state."""


class DealerMismatch(InvalidDeal):
    """The deal names another dealer than the one whose turn it is."""

    kind = "dealer_mismatch"


class TableFinished(InvalidDeal):
    """The game (or the match) is over: no more deals."""

    kind = "finished"


class ReplayError(InvalidDeal):
    """Re-scoring a deal log failed at deal ``number`` (1-based)."""

    def __init__(self, number: int, cause: InvalidDeal):
        self.number = number
        self.cause = cause
        self.kind = cause.kind
        super().__init__(cause.errors)
