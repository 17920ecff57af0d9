"""Alembic environment. The URL comes from ``config.attributes["database_url"]`` (set by
app.kit.db.migrate), else from ``DATABASE_URL`` / the default SQLite file, the way the service
finds it. SQLite runs in batch mode so that ALTERs become table copies."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine, pool

from app.kit.settings import Settings
from app.orm import metadata

config = context.config
target_metadata = metadata  # every domain's tables (app/orm.py gathers their orm modules)


def _url() -> str:
    url = config.attributes.get("database_url")
    if url:
        return url
    ini_url = config.get_main_option("sqlalchemy.url")
    return ini_url or Settings.from_env().database_url


def run_migrations_offline() -> None:
    url = _url()
    context.configure(
        url=url,
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=url.startswith("sqlite"),
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connectable = config.attributes.get("connection")
    if connectable is not None:
        _run(connectable)
        return
    engine = create_engine(_url(), poolclass=pool.NullPool)
    try:
        with engine.connect() as connection:
            _run(connection)
    finally:
        engine.dispose()


def _run(connection) -> None:  # noqa: ANN001
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
