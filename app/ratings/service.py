"""Ratings: every finished rated table moves its players' ratings, in the owner's pool of
every convention and in its convention's pool, in the order the tables finished.

The hooks run in the transaction of the write that changes a table (app/deals, app/tables):

- ``on_table_finished``: the post that finishes a rated table takes its place, last in the
  owner's finishing order, pending; nothing more, so that rating costs the post almost
  nothing (on PostgreSQL the post tries the place in its own statement, ``PLACE_TRIED`` with
  ``place_of``'s parameters, and calls ``take_place`` when another table's commit took it).
  ``rate_pending`` rates the pending tables in order (their players' current
  ratings read, the model run, the changes written): the rater (app/ratings/rater.py) right
  after the commit, and every read of the ratings first (``caught_up``), so that nobody ever
  reads a rating without its latest tables;
- ``on_table_changed``: an undo or a correction of a rated table, or its deletion, compares
  the table's outcome with the one rated; when the ranking moved (or the table is no longer
  finished) every table of its pools from its place on is rated again, from the ratings the
  players had before it.

So the stored ratings, once the pending tables are rated, are always what ``recompute``
gives from the rated tables in finishing order, which the property test checks and
``rebuild`` (``prefscore ratings rebuild``) reports and restores.

This module is the domain's public face; the work lives in hooks.py (the writes' hooks, the
rating of pending tables), reads.py and rebuild.py."""

from __future__ import annotations

from app.ratings.hooks import (
    caught_up,
    on_table_changed,
    on_table_finished,
    place_of,
    rate_owner,
    rate_pending,
    take_place,
)
from app.ratings.model import Outcome, Rating
from app.ratings.reads import (
    Change,
    Leaderboard,
    LeaderboardEntry,
    PlayerRating,
    Prediction,
    SeatedTable,
    TableRating,
    chances_at_tables,
    decode_cursor,
    encode_cursor,
    leaderboard,
    player_rating,
    predict,
    rating_summary,
    table_etag_part,
    table_rating,
)
from app.ratings.rebuild import Rebuilt, Recomputed, differences, differences_of, rebuild, recompute
from app.ratings.repository import PLACE_TRIED

__all__ = [
    "Change",
    "Leaderboard",
    "Outcome",
    "PlayerRating",
    "Prediction",
    "Rating",
    "Rebuilt",
    "Recomputed",
    "SeatedTable",
    "LeaderboardEntry",
    "TableRating",
    "caught_up",
    "chances_at_tables",
    "decode_cursor",
    "differences",
    "differences_of",
    "encode_cursor",
    "leaderboard",
    "on_table_changed",
    "on_table_finished",
    "place_of",
    "PLACE_TRIED",
    "player_rating",
    "predict",
    "rate_owner",
    "rate_pending",
    "rating_summary",
    "rebuild",
    "recompute",
    "table_etag_part",
    "table_rating",
    "take_place",
]
