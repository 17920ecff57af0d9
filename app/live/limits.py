"""The live streams' fixed limits: part of the contract (the OpenAPI document declares most of
them) or of the storage, so constants, not settings (what an operator may tune is in
app/kit/settings.py)."""

from __future__ import annotations

STREAM_TABLES_MAX = 200
"""Tables one owner-wide event stream may list."""
LAST_EVENT_ID_DIGITS = 20
"""Digits of a Last-Event-ID read as a revision (a revision fits in 19)."""
EVENT_QUEUE_MAX = 64
"""Events a subscriber keeps while it is not reading; beyond, only the newest per table."""
