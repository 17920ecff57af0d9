"""A table's fixed limits: part of the contract (the OpenAPI document declares most of
them) or of the storage, so constants, not settings (what an operator may tune is in
app/kit/settings.py)."""

from __future__ import annotations

TITLE_MAX = 200
"""Characters of a table's title."""
TABLE_NOTE_MAX = 2000
"""Characters of a table's note (a deal's note is shorter: DEAL_NOTE_MAX)."""
GAMES_MAX = 99
"""Games of a match (the ``games`` option)."""
TABLES_PAGE_MAX = 200
"""Tables on one page of GET /v1/tables."""
REVISIONS_CHUNK = 500
"""Tables whose revisions one statement reads (an IN list stays short)."""
SHEET_BYTES_KEPT = 32 * 1024 * 1024
"""Bytes of sheets kept as sent, per process (app/tables/sheet_answers.py): the most recently
read first; a 2,000-deal sheet is about 0.3 MB."""
