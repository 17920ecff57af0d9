"""What every write of a deal refuses (post, undo, correction), read from the table row the
write already locked, and the domain error of the engine's refusal of a deal."""

from __future__ import annotations

from typing import Any

from app.kit.errors import Conflict, Unprocessable
from app.rules import RulesError, Sentence, sentence


def refuse_archived(row: Any) -> None:
    """An archived table takes no deal (post, undo, correction): read from the row the write
    already locked, no query of its own."""
    if row.archived_at is not None:
        raise Conflict(
            Sentence(
                'table {id} is archived; unarchive it (PATCH with "archived": false) to change its deals',
                id=row.id,
            ),
            reason="archived",
        )


def refuse_locked(row: Any) -> None:
    """A locked table (its tournament round is closed: app/tournaments) takes no deal, undo or
    correction until the director reopens the round: read from the row the write already
    locked, no query of its own (the post's read selects every column of the table row)."""
    if row.locked is not None:
        raise Conflict(
            Sentence("table {id} is locked: {locked}", id=row.id, locked=row.locked), reason="locked"
        )


def refusal(exc: RulesError, what: str) -> Exception:
    """The domain error of an engine's refusal of a deal."""
    if exc.kind in ("dealer_mismatch", "finished"):
        return Conflict(
            Sentence("{what}: {reasons}", what=sentence(what), reasons=exc.sentence),
            exc.errors,
            reason=exc.kind,
        )
    return Unprocessable(Sentence("{what}: {reasons}", what=sentence(what), reasons=exc.sentence), exc.errors)
