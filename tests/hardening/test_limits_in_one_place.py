"""Limits: the fixed ones are the constants of app/kit/limits.py and of each domain's limits.py
that the contract declares;
the database's loop and probe timings are settings that reach the database."""

from __future__ import annotations

from app.kit.db import make_database
from app.kit.settings import Settings, default_of
from app.rules.vocabulary import DEAL_NOTE_MAX
from app.tables import limits


def test_the_contract_declares_the_constants(tmp_path):
    from app.main import create_app

    settings = Settings(database_url=f"sqlite:///{tmp_path / 'limits.db'}")
    schemas = create_app(settings).openapi()["components"]["schemas"]

    def note_max(name: str) -> int:
        return schemas[name]["properties"]["note"]["anyOf"][0]["maxLength"]

    # A table's note and a deal's note are two limits, each with its own name.
    assert note_max("TablePatch") == note_max("RecordTable") == limits.TABLE_NOTE_MAX == 2000
    assert note_max("ContractDeal") == note_max("AllpassDeal") == DEAL_NOTE_MAX == 500
    assert schemas["TablePatch"]["properties"]["title"]["anyOf"][0]["maxLength"] == limits.TITLE_MAX


def test_the_database_timings_are_settings(monkeypatch, tmp_path):
    monkeypatch.setenv("PREFSCORE_WRITE_PROBE_INTERVAL", "0.5")
    monkeypatch.setenv("PREFSCORE_WRITE_PROBE_BUSY_MS", "7")
    monkeypatch.setenv("PREFSCORE_LOOP_CONNECTION_WAIT", "0.25")
    monkeypatch.setenv("PREFSCORE_LOOP_RECONNECT_TIMEOUT", "2")
    db = make_database(Settings(database_url=f"sqlite:///{tmp_path / 'timings.db'}"))
    try:
        assert db.write_probe_interval == 0.5
        assert (db._write_probe_busy_ms, db._loop_connection_wait, db._loop_reconnect_timeout) == (
            7,
            0.25,
            2.0,
        )
    finally:
        db.dispose()
    assert default_of("write_probe_interval") == 5.0 and default_of("loop_connection_wait") == 0.1
