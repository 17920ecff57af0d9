"""The ``prefscore`` command: ``serve``, ``db upgrade|downgrade|current|cleanup``, ``keys create``.

The client commands (``prefscore table ...``, ``prefscore deal ...``) are added at the bottom
by app.client.commands.register."""

from __future__ import annotations

import os
import sys
import tempfile

import click

from app.settings import Settings


@click.group()
@click.version_option(package_name="prefscore")
def main() -> None:
    """prefscore: a scoring service for Russian preference."""


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="interface to listen on")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535))
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 64), help="worker processes")
@click.option("--no-upgrade", is_flag=True, help="do not apply the database migrations first")
def serve(host: str, port: int, workers: int, no_upgrade: bool) -> None:
    """Apply the database migrations, then serve the API (DATABASE_URL, default sqlite prefscore.db)."""
    import uvicorn

    from app.db import migrate

    settings = Settings.from_env()
    if not no_upgrade:
        migrate.upgrade(settings.database_url)
    if workers > 1 and not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        # Each worker keeps its own metrics; prometheus-client adds them up from files in a
        # directory the workers share (it must be empty when they start).
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="prefscore-metrics-")
    click.echo(f"prefscore: serving on http://{host}:{port} (database {_safe_url(settings.database_url)})", err=True)
    uvicorn.run(
        "app.api.app:create_app",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        proxy_headers=True,
        log_level="info",
        # The middleware writes one JSON access line per request, with its request id;
        # uvicorn's own access line would only repeat it.
        access_log=False,
    )


@main.group()
def db() -> None:
    """Database schema (Alembic migrations) of DATABASE_URL."""


@db.command()
@click.argument("revision", default="head")
def upgrade(revision: str) -> None:
    """Upgrade the schema to REVISION (default: head)."""
    from app.db import migrate

    url = Settings.from_env().database_url
    migrate.upgrade(url, revision)
    click.echo(f"database at {migrate.current(url) or 'base'}")


@db.command()
@click.argument("revision")
def downgrade(revision: str) -> None:
    """Downgrade the schema to REVISION (e.g. base: drops every table)."""
    from app.db import migrate

    url = Settings.from_env().database_url
    migrate.downgrade(url, revision)
    click.echo(f"database at {migrate.current(url) or 'base'}")


@db.command()
def current() -> None:
    """Print the schema revision of the database (and the newest one)."""
    from app.db import migrate

    url = Settings.from_env().database_url
    click.echo(f"current: {migrate.current(url) or 'base'}")
    click.echo(f"head:    {migrate.head()}")


@db.command()
def cleanup() -> None:
    """Delete the Idempotency-Key records older than PREFSCORE_IDEMPOTENCY_DAYS (default 7).

    Posts delete a few expired records each as they go; this deletes all of them at once."""
    from app.db import make_database
    from app.services.deals import expire_idempotency
    from app.services.tables import Limits

    settings = Settings.from_env()
    database = make_database(settings)
    try:
        deleted = expire_idempotency(database, Limits.of(settings))
    finally:
        database.dispose()
    click.echo(f"deleted {deleted} expired idempotency records")


@main.group()
def keys() -> None:
    """API keys."""


@keys.command("create")
@click.argument("name")
def keys_create(name: str) -> None:
    """Create an API key for owner NAME and print it (once: only its hash is stored).

    The key alone goes to stdout, so that `KEY=$(prefscore keys create anna)` works."""
    from app.db import make_database, migrate
    from app.services.keys import create_key, valid_owner

    if not valid_owner(name):
        raise click.BadParameter("1-64 characters: letters, digits and _ . @ - (starting with a letter or digit)", param_hint="NAME")
    settings = Settings.from_env()
    migrate.upgrade(settings.database_url)
    database = make_database(settings)
    try:
        key = create_key(database, name)
    finally:
        database.dispose()
    click.echo(key)
    if sys.stderr.isatty():
        click.echo(f"API key for {name!r} (shown once; use it as 'Authorization: Bearer <key>')", err=True)


def _safe_url(url: str) -> str:
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001
        return "?"


# --- client commands ------------------------------------------------------------------------
# The API client's commands (prefscore table/deal/sheet ...) live in app/client/commands.py.
from app.client.commands import register  # noqa: E402

register(main)
