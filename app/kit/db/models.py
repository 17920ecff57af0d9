"""The schema's one declarative base (its metadata and naming convention) and what every
domain's tables share (``utcnow``). Each domain declares its own tables on this base in its
``orm.py``; app/orm.py gathers them all, for Alembic (migrations/, the only thing that creates
the schema) and its autogenerate checks.

Kept here: the rate limit's counters (app/kit/limiter.py, the kit's own).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Integer,
    MetaData,
    String,
    Table,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

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


class RateLimitRow(Base):
    """Per-key request counts of app.kit.limiter: one row per (bucket, window); the bucket is a
    SHA-256 of the presented key, never the key."""

    __tablename__ = "rate_limits"

    bucket: Mapped[str] = mapped_column(String(64), primary_key=True)
    window: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    count: Mapped[int] = mapped_column(Integer)
