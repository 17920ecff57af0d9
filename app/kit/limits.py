"""The fixed limits of the service, in one place.

These are part of the contract (the OpenAPI document declares most of them as a maxLength,
maximum or maxItems, and that document is built when the modules are imported) or of the
storage and wire formats, so they are constants, not settings. What an operator may tune is
in app/kit/settings.py (``PREFSCORE_*``).

The engine's own limits (a deal's note, the seats of a table) live in app/rules/vocabulary.py,
since the engine imports nothing of the app; they are named here too so that this module
lists them all.
"""

from __future__ import annotations

from app.rules.vocabulary import DEAL_NOTE_MAX, SEATS_MAX

# --- what a table holds (app/tables)
TITLE_MAX = 200
"""Characters of a table's title."""
TABLE_NOTE_MAX = 2000
"""Characters of a table's note (a deal's note is shorter: DEAL_NOTE_MAX)."""
NAME_MAX = 64
"""Characters of a player's name (a seat's, a registered player's)."""
GAMES_MAX = 99
"""Games of a match (the ``games`` option)."""
STAKE_MAX_LENGTH = 32
"""Characters of a stake as written (``0.5``): a longer decimal is refused before it is read."""
STAKE_DECIMALS = 6
"""Decimal places of a stake."""

# --- tournaments (app/tournaments)
TOURNAMENT_NAME_MAX = 120
"""Characters of a tournament's name (its tables' titles add the round and table to it)."""
TOURNAMENT_ENTRANTS_MAX = 600
"""Entrants of one tournament (a federation's largest events seat a few hundred)."""
TOURNAMENT_ROUNDS_MAX = 30
"""Planned rounds of one tournament."""
TOURNAMENTS_PER_OWNER = 1000
"""Tournaments one owner may hold (their tables count towards the owner's tables too)."""
TOURNAMENT_ADJUSTMENTS_MAX = 1000
"""The director's adjustments of one tournament."""
REASON_MAX = 200
"""Characters of a director's reason (an adjustment, a reopened round)."""
TOURNAMENTS_PAGE_MAX = 200
"""Tournaments on one page of GET /v1/tournaments."""
AUDIT_PAGE_MAX = 200
"""Entries on one page of a tournament's audit."""
KEYS_PAGE_MAX = 200
"""Keys on one page of GET /v1/keys."""

# --- pages of a listing
TABLES_PAGE_MAX = 200
"""Tables on one page of GET /v1/tables."""
DEALS_PAGE_MAX = 200
"""Deals on one page of a table's deals (with a key, or through a scorer link)."""
SHARED_PAGE_MAX = 200
"""Deals on one page of the share link's deals (also its default: its first clients read one page)."""
STREAM_TABLES_MAX = 200
"""Tables one owner-wide event stream may list."""

# --- records (app/records)
RECORD_ENTRIES_MAX = 64
"""Entries one deal of a record may write (a handful per seat)."""

# --- refusals
MAX_LISTED_ERRORS = 20
"""The refusals an error names at most (an answer's ``errors``, a record's refused deal);
``error_count`` then says how many there were."""

# --- keys and links
KEY_MAX_LENGTH = 200
"""Characters of a presented API key or scorer link token; a longer one is no key."""
KEY_PREFIX_LENGTH = 12
"""The first characters of a key (or a scorer link's token) stored in clear, to find it and to show it."""
SCORER_LINKS_MAX = 20
"""Scorer links one table may have (revoked ones included)."""
PLAYERS_PER_OWNER = 100_000
"""Registered players one owner may hold."""

# --- request headers read no further than this
ACCEPT_LANGUAGE_MAX = 512
"""Characters of an Accept-Language header (a preference list is short)."""
ACCEPT_LANGUAGE_ITEMS = 32
"""Languages of an Accept-Language header read; the rest is ignored."""
REQUEST_ID_MAX = 128
"""Characters of a client's X-Request-ID that is kept (a longer one is replaced)."""
LAST_EVENT_ID_DIGITS = 20
"""Digits of a Last-Event-ID read as a revision (a revision fits in 19)."""

# --- live updates (app/live)
EVENT_QUEUE_MAX = 64
"""Events a subscriber keeps while it is not reading; beyond, only the newest per table."""
REVISIONS_CHUNK = 500
"""Tables whose revisions one statement reads (an IN list stays short)."""

# --- housekeeping
IDEMPOTENCY_EXPIRY_BATCH = 50
"""Expired Idempotency-Key records a post with a key deletes on its way."""

WEBHOOKS_PER_OWNER = 20
"""Webhook endpoints an owner may have."""
WEBHOOK_URL_MAX = 2000
"""Characters of a webhook endpoint's URL."""
WEBHOOK_TABLES_MAX = 100
"""Tables one webhook endpoint may be limited to."""
WEBHOOK_DELIVERIES_PAGE_MAX = 100
"""Deliveries per page of an endpoint's delivery log."""
WEBHOOK_RETRY_AFTER_MAX = 36_000
"""Seconds of a receiver's Retry-After a retry waits at most (the schedule's longest step)."""
WEBHOOK_ATTEMPTS_SHOWN = 20
"""Attempts of one delivery its listing shows (the latest)."""

__all__ = [
    "ACCEPT_LANGUAGE_ITEMS",
    "AUDIT_PAGE_MAX",
    "KEYS_PAGE_MAX",
    "ACCEPT_LANGUAGE_MAX",
    "DEALS_PAGE_MAX",
    "DEAL_NOTE_MAX",
    "EVENT_QUEUE_MAX",
    "GAMES_MAX",
    "IDEMPOTENCY_EXPIRY_BATCH",
    "KEY_MAX_LENGTH",
    "KEY_PREFIX_LENGTH",
    "LAST_EVENT_ID_DIGITS",
    "MAX_LISTED_ERRORS",
    "NAME_MAX",
    "PLAYERS_PER_OWNER",
    "RECORD_ENTRIES_MAX",
    "REQUEST_ID_MAX",
    "REVISIONS_CHUNK",
    "SCORER_LINKS_MAX",
    "SEATS_MAX",
    "SHARED_PAGE_MAX",
    "STAKE_DECIMALS",
    "STAKE_MAX_LENGTH",
    "STREAM_TABLES_MAX",
    "TABLES_PAGE_MAX",
    "TABLE_NOTE_MAX",
    "TITLE_MAX",
    "WEBHOOKS_PER_OWNER",
    "WEBHOOK_ATTEMPTS_SHOWN",
    "WEBHOOK_DELIVERIES_PAGE_MAX",
    "WEBHOOK_RETRY_AFTER_MAX",
    "WEBHOOK_TABLES_MAX",
    "WEBHOOK_URL_MAX",
    "TOURNAMENTS_PAGE_MAX",
    "TOURNAMENTS_PER_OWNER",
    "TOURNAMENT_ADJUSTMENTS_MAX",
    "TOURNAMENT_ENTRANTS_MAX",
    "TOURNAMENT_NAME_MAX",
    "TOURNAMENT_ROUNDS_MAX",
    "REASON_MAX",
]

# --- ratings (app/ratings)
RATINGS_PAGE_MAX = 200
"""Standings on one page of the leaderboard (GET /v1/ratings)."""
RATING_HISTORY_MAX = 200
"""Rated tables on one page of a player's rating history."""
