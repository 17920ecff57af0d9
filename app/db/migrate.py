"""Alembic, driven from code: ``prefscore db upgrade`` and ``prefscore serve`` use this, and
so do the tests (the schema is only ever made by the migrations)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine

import migrations

SCRIPT_LOCATION = str(Path(migrations.__file__).resolve().parent)


def alembic_config(database_url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", SCRIPT_LOCATION)
    # Kept out of the ini interpolation: a URL may contain "%".
    cfg.attributes["database_url"] = database_url
    return cfg


def upgrade(database_url: str, revision: str = "head") -> None:
    command.upgrade(alembic_config(database_url), revision)


def downgrade(database_url: str, revision: str) -> None:
    command.downgrade(alembic_config(database_url), revision)


def current(database_url: str) -> str | None:
    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    finally:
        engine.dispose()


def head() -> str | None:
    return ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()
