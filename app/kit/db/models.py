"""The schema. Alembic (migrations/) is the only thing that creates it; these models
describe it for queries and for autogenerate checks.

Deals are the truth (append-only, numbered 1..N per table); the table row keeps the
engine state after its last deal so that posting a deal reads one row.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Double,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.sql.expression import false

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    # Every model is one declared table (to the ORM's types a class's table is any FROM clause).
    __table__: ClassVar[Table]
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON}


class TableRow(Base):
    __tablename__ = "tables"
    # The tables collection (GET /v1/tables): an owner's tables by latest activity, keyset-paged
    # on (updated_at, id) (migration 0005).
    __table_args__ = (Index("ix_tables_owner_updated_at_id", "owner", "updated_at", "id"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    owner: Mapped[str] = mapped_column(String(64), index=True)
    convention: Mapped[str] = mapped_column(String(32))
    players: Mapped[list[Any]] = mapped_column(JSON)
    pool_target: Mapped[int] = mapped_column(Integer)
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    first_dealer: Mapped[int] = mapped_column(Integer)
    share_token: Mapped[str] = mapped_column(String(64), unique=True)
    state: Mapped[dict[str, Any]] = mapped_column(JSON)
    rules_version: Mapped[int] = mapped_column(Integer)
    deal_count: Mapped[int] = mapped_column(Integer, default=0)
    # Bumped on every change of the log (post, undo, correction): part of the sheet's ETag,
    # because an undo followed by another deal gives the same deal_count and another sheet.
    revision: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    title: Mapped[str | None] = mapped_column(String(200), nullable=True)
    note: Mapped[str | None] = mapped_column(String(2000), nullable=True)
    # Set while the table is archived: it refuses deals and leaves the listing unless asked.
    archived_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # The table counts for its players' ratings once it has finished with every seat a
    # registered player (app/ratings; migration 0011). Off unless the owner asks.
    rated: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # Set while the table's results are locked (a tournament's closed round, app/tournaments):
    # why, in words; its deals are then neither posted, undone nor corrected (migration 0010).
    locked: Mapped[str | None] = mapped_column(String(200), nullable=True)


class DealRow(Base):
    __tablename__ = "deals"
    __table_args__ = (UniqueConstraint("table_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    body: Mapped[dict[str, Any]] = mapped_column(JSON)  # the canonical deal (Deal.to_dict())
    entries: Mapped[list[Any]] = mapped_column(JSON)  # what it wrote, amounts as int or "p/q"
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # The seat that dealt it (the state's next_dealer before it), written with the deal and
    # again when an undo or a correction folds the log: a page of the log with its dealers
    # reads that page's rows, never the deals before it (migration 0008).
    dealer: Mapped[int] = mapped_column(Integer)
    # The game of the match it was played in (1 without races), written with the deal and
    # again when an undo or a correction folds the log: a picture of a piter_races match
    # starts each game's pools and mountains from this, never by re-scoring the log
    # (migration 0009; null only for a deal written by a server before it).
    game: Mapped[int | None] = mapped_column(Integer, nullable=True)


class IdempotencyRow(Base):
    """The first answer to a POST of a deal with an Idempotency-Key, replayed to its retries.

    ``deal_number`` is the deal the key wrote: an undo or a correction of that deal deletes
    the row in the same transaction (a replay must never describe a deal that is no longer
    stored as it was). Rows older than the configured expiry are deleted (``created_at``)."""

    __tablename__ = "idempotency_keys"
    __table_args__ = (
        UniqueConstraint("table_id", "key"),
        Index("ix_idempotency_keys_table_id_deal_number", "table_id", "deal_number"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(255))
    request_hash: Mapped[str] = mapped_column(String(64))
    status_code: Mapped[int] = mapped_column(Integer)
    response: Mapped[dict[str, Any]] = mapped_column(JSON)
    deal_number: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)


class ApiKey(Base):
    __tablename__ = "api_keys"
    __table_args__ = {"sqlite_autoincrement": True}  # ids handed out never given twice (migration 0015)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    owner: Mapped[str] = mapped_column(String(64), index=True)
    prefix: Mapped[str] = mapped_column(String(16), index=True)
    hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # Administration is a property of the key, never of an owner's name (migration 0004).
    is_admin: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class RateLimitRow(Base):
    """Per-key request counts of app.kit.limiter: one row per (bucket, window); the bucket is a
    SHA-256 of the presented key, never the key."""

    __tablename__ = "rate_limits"

    bucket: Mapped[str] = mapped_column(String(64), primary_key=True)
    window: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    count: Mapped[int] = mapped_column(Integer)


class PlayerRow(Base):
    """A person an owner keeps score for across tables (the player registry). ``external_id``
    is an online client's own id for the person, unique per owner when given."""

    __tablename__ = "players"
    __table_args__ = (
        UniqueConstraint("owner", "external_id"),
        Index("ix_players_owner_id", "owner", "id"),
    )

    # Time-ordered hex (app/players/service.new_player_id): the listing's order is creation order.
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    owner: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(64))
    external_id: Mapped[str | None] = mapped_column(String(128), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class PlayerTableRow(Base):
    """A registered player's seat at one table and what the table's deals add up to for that
    seat (app/players/stats.py): written in the transaction of each deal, so that a
    player's statistics are a sum over these rows, never a fold of deals on request.

    ``convention`` and ``table_created_at`` repeat the table's, so that the filtered sums read
    this table alone."""

    __tablename__ = "player_tables"
    __table_args__ = (
        UniqueConstraint("table_id", "seat"),
        UniqueConstraint("player_id", "table_id"),
        Index("ix_player_tables_player_id_table_created_at", "player_id", "table_created_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"))
    seat: Mapped[int] = mapped_column(Integer)
    convention: Mapped[str] = mapped_column(String(32))
    table_created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    deal_count: Mapped[int] = mapped_column(Integer, default=0)
    finished: Mapped[bool] = mapped_column(Boolean, default=False)
    balance: Mapped[str] = mapped_column(String(64), default="0")  # exact whists, "p/q" or an int's text
    tally: Mapped[dict[str, Any]] = mapped_column(JSON)  # the counts of player_stats.Tally


class ScorerLinkRow(Base):
    """A table's scorer link (``/score/{token}``): it may post, undo and correct that table's
    deals and read what the scoring page needs (app/scorer/service.py). Stored as API
    keys are: a SHA-256 of the token, and its first characters as an indexed prefix."""

    __tablename__ = "scorer_links"
    __table_args__ = {"sqlite_autoincrement": True}  # ids handed out never given twice (migration 0015)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    prefix: Mapped[str] = mapped_column(String(16), index=True)
    hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class WebhookEndpointRow(Base):
    """An owner's webhook endpoint (app/webhooks): where to send, which event types (a bit
    each, app/kit/outbox.EVENT_TYPES), all tables or the listed ones (webhook_endpoint_tables).
    The secret is kept as given out (``whsec_``…): the server signs with it. During a rotation's
    overlap the previous one signs too, until ``previous_until``."""

    __tablename__ = "webhook_endpoints"
    __table_args__ = {"sqlite_autoincrement": True}  # ids handed out never given twice (migration 0015)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    owner: Mapped[str] = mapped_column(String(64), index=True)
    url: Mapped[str] = mapped_column(String(2000))
    types: Mapped[int] = mapped_column(Integer)
    all_tables: Mapped[bool] = mapped_column(Boolean, default=True)
    secret: Mapped[str] = mapped_column(String(100))
    previous_secret: Mapped[str | None] = mapped_column(String(100), nullable=True)
    previous_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # Paused by its owner (False) or not; a disabled endpoint (410, or failing too long) has
    # disabled_at and its reason. Only an active, not disabled endpoint is written deliveries.
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    disabled_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    disabled_reason: Mapped[str | None] = mapped_column(String(500), nullable=True)
    failing_since: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


# --- tournaments (app/tournaments; migration 0010) ------------------------------------------


class TournamentRow(Base):
    """A tournament: the rules every table of it plays, its table sizes, how a table's game
    ends, the planned rounds and the scoring of a round (``scoring``: the stored form of
    app.tournaments.scoring.Scoring). ``revision`` moves with every change of the tournament
    itself (a round drawn, closed, an adjustment, ...): part of its standings' ETag."""

    __tablename__ = "tournaments"
    __table_args__ = (Index("ix_tournaments_owner_id", "owner", "id"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True)  # time-ordered hex
    owner: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(120))
    convention: Mapped[str] = mapped_column(String(32))
    pool_target: Mapped[int | None] = mapped_column(Integer, nullable=True)
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    table_sizes: Mapped[list[Any]] = mapped_column(JSON)
    game_end: Mapped[dict[str, Any]] = mapped_column(JSON)
    rounds: Mapped[int] = mapped_column(Integer)
    scoring: Mapped[dict[str, Any]] = mapped_column(JSON)
    swiss: Mapped[bool] = mapped_column(Boolean, default=False)
    share_token: Mapped[str] = mapped_column(String(64), unique=True)
    revision: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class WebhookEndpointTableRow(Base):
    """A table an endpoint is limited to (none: every table of its owner)."""

    __tablename__ = "webhook_endpoint_tables"

    endpoint_id: Mapped[int] = mapped_column(
        ForeignKey("webhook_endpoints.id", ondelete="CASCADE"), primary_key=True
    )
    table_id: Mapped[str] = mapped_column(String(32), primary_key=True)


class WebhookDeliveryRow(Base):
    """The outbox: one row per event and endpoint, written in the transaction of the change it
    announces, delivered after its commit (app/webhooks/delivery.py). ``due_at`` is when it is
    to be tried next: a claim pushes it one lease ahead, so that a delivery its process did not
    finish (killed) is tried again. No key to the table: a deleted table's event stays."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        Index("ix_webhook_deliveries_state_due_at", "state", "due_at"),
        Index("ix_webhook_deliveries_endpoint_id_id", "endpoint_id", "id"),
        Index("ix_webhook_deliveries_finished_at", "finished_at"),
        {"sqlite_autoincrement": True},  # msg_{id} never given twice (migration 0015)
    )

    id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    )
    endpoint_id: Mapped[int] = mapped_column(ForeignKey("webhook_endpoints.id", ondelete="CASCADE"))
    owner: Mapped[str] = mapped_column(String(64))
    type: Mapped[str] = mapped_column(String(40))
    table_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    revision: Mapped[int | None] = mapped_column(Integer, nullable=True)
    deal_number: Mapped[int | None] = mapped_column(Integer, nullable=True)
    deal_count: Mapped[int | None] = mapped_column(Integer, nullable=True)
    occurred_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    state: Mapped[str] = mapped_column(String(12))  # pending, delivered, failed
    due_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_status: Mapped[int | None] = mapped_column(Integer, nullable=True)
    last_error: Mapped[str | None] = mapped_column(String(500), nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # The event's own data when its columns cannot make its payload (rating.changed: its
    # players' ratings before and after), as it was when the event happened.
    data: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)


class WebhookAttemptRow(Base):
    """One attempt to deliver: the status answered (none when no answer came), how long, why it failed."""

    __tablename__ = "webhook_attempts"

    id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    )
    delivery_id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"),
        ForeignKey("webhook_deliveries.id", ondelete="CASCADE"),
        index=True,
    )
    attempted_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    status: Mapped[int | None] = mapped_column(Integer, nullable=True)
    duration_ms: Mapped[int] = mapped_column(Integer)
    error: Mapped[str | None] = mapped_column(String(500), nullable=True)


class RatedTableRow(Base):
    """A finished rated table as its players' ratings took it (app/ratings): its place in the
    owner's finishing order (``seq``) and its outcome, each seat's player and exact balance.
    ``stamp`` is bumped whenever the table's rating changes are written again (a correction
    of an earlier table re-rates it), for the settlement's ETag. ``pending``: the table has
    its place but its ratings are not written yet (the post that finished it only takes the
    place; app/ratings rates it after the commit, or before any read of the ratings)."""

    __tablename__ = "rated_tables"
    __table_args__ = (
        UniqueConstraint("owner", "seq"),
        Index(
            "ix_rated_tables_pending",
            "owner",
            "seq",
            sqlite_where=text("pending"),
            postgresql_where=text("pending"),
        ),
    )

    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    owner: Mapped[str] = mapped_column(String(64))
    convention: Mapped[str] = mapped_column(String(32))
    seq: Mapped[int] = mapped_column(Integer)
    outcome: Mapped[list[Any]] = mapped_column(JSON)  # [[player_id, balance "p/q" or int text], ...] by seat
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    stamp: Mapped[int] = mapped_column(Integer, default=0)
    pending: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class RatingChangeRow(Base):
    """What one rated table did to one player's rating in one pool: the rating before and
    after (the floats of the rating model, stored as they are: double precision), and the
    player's rated tables in that pool after it. ``pool`` is "" for the owner's pool of every
    convention, else the convention's name."""

    __tablename__ = "rating_changes"
    __table_args__ = (
        UniqueConstraint("table_id", "pool", "player_id"),
        Index("ix_rating_changes_owner_pool_seq", "owner", "pool", "seq"),
        Index("ix_rating_changes_player_id_pool_seq", "player_id", "pool", "seq"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    owner: Mapped[str] = mapped_column(String(64))
    pool: Mapped[str] = mapped_column(String(32))
    seq: Mapped[int] = mapped_column(Integer)
    table_id: Mapped[str] = mapped_column(String(32))
    player_id: Mapped[str] = mapped_column(String(32))
    mu_before: Mapped[float] = mapped_column(Double)
    sigma_before: Mapped[float] = mapped_column(Double)
    mu: Mapped[float] = mapped_column(Double)
    sigma: Mapped[float] = mapped_column(Double)
    games: Mapped[int] = mapped_column(Integer)


class PlayerRatingRow(Base):
    """A player's current rating in one pool: the last of their ``rating_changes`` there,
    kept apart so that the leaderboard is one index range (owner, pool, ordinal, id)."""

    __tablename__ = "player_ratings"
    __table_args__ = (Index("ix_player_ratings_owner_pool_ordinal", "owner", "pool", "ordinal", "player_id"),)

    pool: Mapped[str] = mapped_column(String(32), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    owner: Mapped[str] = mapped_column(String(64))
    mu: Mapped[float] = mapped_column(Double)
    sigma: Mapped[float] = mapped_column(Double)
    ordinal: Mapped[float] = mapped_column(Double)  # mu - 3 sigma
    games: Mapped[int] = mapped_column(Integer)
    seq: Mapped[int] = mapped_column(Integer)  # the finishing order of the player's last rated table here


class TournamentEntrantRow(Base):
    """A player of a tournament, numbered 1.. in order of entry: a registered player
    (``player_id``) or a name. ``joined_round``: the first round the player is drawn in (1,
    or later for a late entry); ``withdrawn_round``: the first round the player is not."""

    __tablename__ = "tournament_entrants"
    __table_args__ = (UniqueConstraint("tournament_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    tournament_id: Mapped[str] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(64))
    player_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    joined_round: Mapped[int] = mapped_column(Integer)
    withdrawn_round: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class TournamentRoundRow(Base):
    """A drawn round: the seed of its draw (to show and re-check it), the players sitting
    out, and whether it is closed (its tables locked) or was reopened."""

    __tablename__ = "tournament_rounds"
    __table_args__ = (UniqueConstraint("tournament_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    tournament_id: Mapped[str] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int] = mapped_column(BigInteger)
    byes: Mapped[list[Any]] = mapped_column(JSON)  # entrant numbers
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    reopened: Mapped[bool] = mapped_column(Boolean, default=False)


class TournamentTableRow(Base):
    """One table of a round: the ordinary table it is played at, its seats (entrant numbers,
    seat 0 first) and, once its round is closed, each seat's balance as it was then (exact
    text): the standings read these instead of the table's state. The table's results are
    locked while they are stored, so they equal a recomputation from the table."""

    __tablename__ = "tournament_tables"
    __table_args__ = (UniqueConstraint("tournament_id", "round", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    tournament_id: Mapped[str] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"))
    round: Mapped[int] = mapped_column(Integer)
    number: Mapped[int] = mapped_column(Integer)
    table_id: Mapped[str | None] = mapped_column(
        ForeignKey("tables.id", ondelete="SET NULL"), nullable=True, index=True
    )
    seats: Mapped[list[Any]] = mapped_column(JSON)
    balances: Mapped[list[Any] | None] = mapped_column(JSON, nullable=True)


class TournamentAdjustmentRow(Base):
    """A director's adjustment of one player's total (in the scoring's unit), with its reason."""

    __tablename__ = "tournament_adjustments"
    __table_args__ = {"sqlite_autoincrement": True}  # ids handed out never given twice (migration 0015)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    tournament_id: Mapped[str] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"), index=True)
    entrant: Mapped[int] = mapped_column(Integer)
    amount: Mapped[str] = mapped_column(String(64))  # exact, "p/q" or an int's text
    reason: Mapped[str] = mapped_column(String(200))
    round: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    by: Mapped[str] = mapped_column(String(64))


class TournamentAuditRow(Base):
    """What the director (or the tables finishing) did to a tournament, who and when."""

    __tablename__ = "tournament_audit"
    __table_args__ = {"sqlite_autoincrement": True}  # ids handed out never given twice (migration 0015)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    tournament_id: Mapped[str] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"), index=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    by: Mapped[str] = mapped_column(String(64))
    action: Mapped[str] = mapped_column(String(32))
    detail: Mapped[dict[str, Any]] = mapped_column(JSON)
