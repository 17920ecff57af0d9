"""The ``prefscore`` command: ``serve``, ``db upgrade|downgrade|current|cleanup``, ``keys create|list|revoke``,
``ratings rebuild``.

The client commands (``prefscore table ...``, ``prefscore deal ...``) are added at the bottom
by app.cli.client.register."""

from __future__ import annotations

import os
import sys
import tempfile

import click

from app.cli.client.connection import global_options
from app.kit.settings import Settings


@click.group()
@click.version_option(package_name="prefscore")
@global_options
def main() -> None:
    """prefscore: a scoring service for Russian preference.

    The client's --url, --key and --lang may be given here, before the command, as well as
    after it."""


@main.command()
@click.option(
    "--host", default="127.0.0.1", show_default=True, envvar="PREFSCORE_HOST", help="interface to listen on"
)
@click.option(
    "--port", default=8000, show_default=True, type=click.IntRange(1, 65535), envvar="PREFSCORE_PORT"
)
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 64), help="worker processes")
@click.option("--no-upgrade", is_flag=True, help="do not apply the database migrations first")
def serve(host: str, port: int, workers: int, no_upgrade: bool) -> None:
    """Apply the database migrations, then serve the API (DATABASE_URL, default sqlite prefscore.db)."""
    import uvicorn

    from app.kit.db import migrate

    settings = Settings.from_env()
    if not no_upgrade:
        migrate.upgrade(settings.database_url)
    if workers > 1 and not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        # Each worker keeps its own metrics; prometheus-client adds them up from files in a
        # directory the workers share (it must be empty when they start).
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="prefscore-metrics-")
    click.echo(
        f"prefscore: serving on http://{host}:{port} (database {_safe_url(settings.database_url)})", err=True
    )
    uvicorn.run(
        "app.main:create_app",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        # Header size, pipelined requests read ahead, receive timeouts and a gentle close
        # after an early answer (app/kit/http_limits.py).
        http="app.kit.http_limits:BoundedHttpTools",
        # X-Forwarded-For is believed only from the configured proxies (none by default).
        proxy_headers=bool(settings.trusted_proxies),
        forwarded_allow_ips=list(settings.trusted_proxies) or None,
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
    from app.kit.db import migrate

    url = Settings.from_env().database_url
    migrate.upgrade(url, revision)
    click.echo(f"database at {migrate.current(url) or 'base'}")


@db.command()
@click.argument("revision")
def downgrade(revision: str) -> None:
    """Downgrade the schema to REVISION (e.g. base: drops every table)."""
    from app.kit.db import migrate

    url = Settings.from_env().database_url
    migrate.downgrade(url, revision)
    click.echo(f"database at {migrate.current(url) or 'base'}")


@db.command()
def current() -> None:
    """Print the schema revision of the database (and the newest one)."""
    from app.kit.db import migrate

    url = Settings.from_env().database_url
    click.echo(f"current: {migrate.current(url) or 'base'}")
    click.echo(f"head:    {migrate.head()}")


@db.command()
def cleanup() -> None:
    """Delete the Idempotency-Key records older than PREFSCORE_IDEMPOTENCY_DAYS (default 7).

    Posts delete a few expired records each as they go; this deletes all of them at once."""
    from app.deals.service import expire_idempotency
    from app.kit.db import make_database
    from app.tables.model import Limits

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


def _keys_database(create: bool):  # noqa: ANN202
    """The database of DATABASE_URL for a keys command, upgraded to the current schema.
    A SQLite file that does not exist is created only when asked: a key written to a new
    file beside the wrong working directory would be unknown to the running server."""
    from sqlalchemy.engine import make_url

    from app.kit.db import make_database, migrate

    settings = Settings.from_env()
    url = make_url(settings.database_url)
    if url.get_backend_name() == "sqlite" and url.database and not os.path.exists(url.database):
        if not create:
            raise click.ClickException(
                f"no database at {_safe_url(settings.database_url)} (resolved to {os.path.abspath(url.database)}); "
                "set DATABASE_URL to the server's database, or pass --create-database to create this one"
            )
    migrate.upgrade(settings.database_url)
    return settings, make_database(settings)


@keys.command("create")
@click.argument("name")
@click.option("--admin", is_flag=True, help="the key may create, list and revoke keys")
@click.option("--create-database", is_flag=True, help="create the SQLite database file if it does not exist")
def keys_create(name: str, admin: bool, create_database: bool) -> None:
    """Create an API key for owner NAME and print it (once: only its hash is stored).

    The key alone goes to stdout, so that `KEY=$(prefscore keys create anna)` works; which
    database it was written to goes to stderr."""
    from app.keys.service import ADMIN_OWNER, create_key, valid_owner

    if not valid_owner(name):
        raise click.BadParameter(
            "1-64 characters: letters, digits and _ . @ - (starting with a letter or digit)",
            param_hint="NAME",
        )
    if name == ADMIN_OWNER:
        raise click.BadParameter(
            f"{ADMIN_OWNER!r} is reserved: PREFSCORE_ADMIN_KEY's tables belong to it", param_hint="NAME"
        )
    settings, database = _keys_database(create_database)
    try:
        key = create_key(database, name, admin=admin)
    finally:
        database.dispose()
    click.echo(key)
    kind = "admin key" if admin else "API key"
    click.echo(f"{kind} for {name!r} written to {_safe_url(settings.database_url)}", err=True)
    if sys.stderr.isatty():
        click.echo("(shown once; use it as 'Authorization: Bearer <key>')", err=True)


@keys.command("list")
def keys_list() -> None:
    """List the stored keys: id, owner, prefix, admin, created, revoked (never a secret)."""
    from app.keys.service import list_keys

    settings, database = _keys_database(False)
    try:
        listed = list_keys(database)
    finally:
        database.dispose()
    click.echo(f"{'id':>5}  {'owner':<24} {'prefix':<13} {'admin':<5}  {'created':<25} revoked")
    for k in listed:
        created = k.created_at.isoformat(timespec="seconds")
        revoked = k.revoked_at.isoformat(timespec="seconds") if k.revoked_at else "-"
        click.echo(
            f"{k.id:>5}  {k.owner:<24} {k.prefix:<13} {'yes' if k.admin else 'no':<5}  {created:<25} {revoked}"
        )
    click.echo(f"{len(listed)} keys in {_safe_url(settings.database_url)}", err=True)


@keys.command("revoke")
@click.argument("key_id", type=click.IntRange(1, 2**53 - 1))
def keys_revoke(key_id: int) -> None:
    """Revoke the key KEY_ID (see `prefscore keys list`). Running servers refuse it within
    the key cache's lifetime (PREFSCORE_KEY_CACHE_TTL, 60 s by default)."""
    from app.keys.service import revoke_key
    from app.kit.errors import NotFound

    settings, database = _keys_database(False)
    try:
        info = revoke_key(database, key_id)
    except NotFound as exc:
        raise click.ClickException(exc.detail) from exc
    finally:
        database.dispose()
    click.echo(
        f"key {info.id} ({info.owner}, {info.prefix}...) revoked in {_safe_url(settings.database_url)}",
        err=True,
    )


@main.group()
def ratings() -> None:
    """Player ratings (docs/ratings.md)."""


@ratings.command("rebuild")
@click.option(
    "--check",
    is_flag=True,
    help="report the differences only, correcting none (pending tables are rated first, as by any read; exit status 1 when there are differences)",
)
def ratings_rebuild(check: bool) -> None:
    """Recompute every rating from the finished rated tables in finishing order, report how
    the stored ratings differ, and store the recomputed ones (one owner per transaction)."""
    import time

    from app.kit.db import make_database
    from app.ratings.service import rebuild

    settings = Settings.from_env()
    database = make_database(settings)
    started = time.perf_counter()
    try:
        done = rebuild(database, write=not check)
    finally:
        database.dispose()
    for line in done.differences:
        click.echo(line)
    if done.count > len(done.differences):
        click.echo(f"... and {done.count - len(done.differences)} more")
    verb = "corrected" if done.count and not check else "found"
    click.echo(
        f"{done.tables} rated tables of {done.owners} owners recomputed in {time.perf_counter() - started:.1f} s; "
        f"{done.count} differences {verb}",
        err=True,
    )
    if check and done.count:
        sys.exit(1)


def _safe_url(url: str) -> str:
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001
        return "?"


# --- client commands ------------------------------------------------------------------------
# The API client's commands (prefscore table/deal/sheet ...) live in app/cli/client/, one module per group.
from app.cli.client import register  # noqa: E402

register(main)
