"""Tournaments: rounds of ordinary tables, a fair draw, standings, the director's tools.

A tournament is owned like a table. Its rounds are drawn by the pure draw
(app/tournaments/draw.py) and played at ordinary tables (app/tables), each with a scorer
link (app/scorer); its standings are the pure scoring's (app/tournaments/scoring.py) of the
tables' balances. A round is closed when every table of it has finished, or when the
director closes it: its tables are then locked (app/tables ``lock_tables``; the deals'
service refuses a post, an undo or a correction at a locked table) and their balances are
stored with the round's tables, so that the standings of closed rounds read no table. The
director reopens a round with a reason to correct it (its tables unlocked, the stored
balances dropped) and closes it again.

Who did what is a text the routes give (``by``: "key 12", "admin key"); the director's
tools write it to the audit with the moment.

This module is the domain's public face; the use cases live by job: entries.py (creating,
entries, withdrawals), rounds.py (drawing, swaps), closing.py (closing and reopening a
round), director.py (adjustments, penalties, the share token), standings.py, public.py
(the share link's view), reading.py (what they share; a read writes nothing)."""

from __future__ import annotations

from app.tournaments.closing import BY_TABLES, close_finished_round, close_round, reopen_round
from app.tournaments.director import PenaltyPosted, add_adjustment, post_penalty, rotate_share_token
from app.tournaments.entries import EntrantSpec, add_entrants, create_tournament, withdraw
from app.tournaments.model import CLOSED, OPEN, REOPENED
from app.tournaments.public import (
    PUBLIC_VIEWS_KEPT,
    PublicView,
    SharedVersion,
    penalties_shown,
    public_view,
    shared_etag,
    shared_version,
    versions,
)
from app.tournaments.reading import STANDINGS_CHANGED, audit, get_tournament, list_tournaments, played_tables
from app.tournaments.rounds import draw_round, open_round_tables, swap, table_title
from app.tournaments.standings import STANDINGS_SHAPE, Standings, results_of, standings, standings_etag

__all__ = [
    "CLOSED",
    "OPEN",
    "REOPENED",
    "BY_TABLES",
    "CLOSED",
    "EntrantSpec",
    "OPEN",
    "PUBLIC_VIEWS_KEPT",
    "PenaltyPosted",
    "PublicView",
    "REOPENED",
    "STANDINGS_CHANGED",
    "STANDINGS_SHAPE",
    "SharedVersion",
    "Standings",
    "add_adjustment",
    "add_entrants",
    "audit",
    "close_finished_round",
    "close_round",
    "create_tournament",
    "draw_round",
    "get_tournament",
    "list_tournaments",
    "open_round_tables",
    "penalties_shown",
    "played_tables",
    "post_penalty",
    "public_view",
    "reopen_round",
    "results_of",
    "rotate_share_token",
    "shared_etag",
    "shared_version",
    "standings",
    "standings_etag",
    "swap",
    "table_title",
    "versions",
    "withdraw",
]
