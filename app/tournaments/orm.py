"""The tables of the tournaments (app/tournaments; migration 0010): their ORM classes on the one
declarative base (app/kit/db/models.py). Alembic (migrations/) creates them; app/orm.py gathers
every domain's for it."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from app.kit.db.models import Base, utcnow


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
