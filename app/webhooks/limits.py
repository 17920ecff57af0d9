"""The webhooks' fixed limits: part of the contract (the OpenAPI document declares most of
them) or of the storage, so constants, not settings (what an operator may tune is in
app/kit/settings.py)."""

from __future__ import annotations

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
