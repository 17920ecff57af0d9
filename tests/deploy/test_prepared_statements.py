"""PREFSCORE_DB_PREPARED_STATEMENTS=0 reaches psycopg: every connection the service opens to
PostgreSQL (the pooled engine's and the event loop's) is made with prepare_threshold=None,
so no statement is ever prepared on a server connection PgBouncer may lend to another client
next. tests/deploy/test_compose.py shows the difference through a real PgBouncer."""

from __future__ import annotations

import pytest
from sqlalchemy import event

from app.kit.db.engine import make_database, make_engine
from app.kit.settings import Settings

URL = "postgresql+psycopg://prefscore@127.0.0.1:9/prefscore"  # never connected to


class Captured(Exception):
    pass


def _connect_params(settings: Settings) -> dict:
    engine = make_engine(settings)
    seen: dict = {}

    @event.listens_for(engine, "do_connect")
    def _capture(dialect, record, cargs, cparams):  # noqa: ANN001
        seen.update(cparams)
        raise Captured

    with pytest.raises(Captured):
        engine.connect()
    engine.dispose()
    return seen


def test_off_means_psycopg_never_prepares(monkeypatch):
    monkeypatch.setenv("PREFSCORE_DB_PREPARED_STATEMENTS", "0")
    settings = Settings(database_url=URL)
    assert settings.db_prepared_statements is False
    params = _connect_params(settings)
    assert "prepare_threshold" in params and params["prepare_threshold"] is None
    assert make_database(settings)._pg_prepare == {"prepare_threshold": None}


def test_on_by_default_leaves_psycopg_its_own_threshold(monkeypatch):
    monkeypatch.delenv("PREFSCORE_DB_PREPARED_STATEMENTS", raising=False)
    settings = Settings(database_url=URL)
    assert settings.db_prepared_statements is True
    assert "prepare_threshold" not in _connect_params(settings)
    assert make_database(settings)._pg_prepare == {}
