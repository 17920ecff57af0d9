"""The migration chain, on the configured database (SQLite by default, PostgreSQL when
PREFSCORE_TEST_DATABASE_URL says so): upgrade to head, downgrade to base, upgrade again;
the result matches the models and every constraint is named by the convention."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, inspect
from sqlalchemy.pool import NullPool

from app.kit.db import migrate
from app.orm import metadata

TABLES = {
    "tables",
    "deals",
    "idempotency_keys",
    "api_keys",
    "rate_limits",
    "players",
    "player_tables",
    "scorer_links",
    "webhook_endpoints",
    "webhook_endpoint_tables",
    "webhook_deliveries",
    "webhook_attempts",
    "rated_tables",
    "rating_changes",
    "player_ratings",
    "tournaments",
    "tournament_entrants",
    "tournament_rounds",
    "tournament_tables",
    "tournament_adjustments",
    "tournament_audit",
}


def _tables(url: str) -> set[str]:
    engine = create_engine(url, poolclass=NullPool)
    try:
        return set(inspect(engine).get_table_names()) - {"alembic_version"}
    finally:
        engine.dispose()


def _diff(url: str) -> list:
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as conn:
            return compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), metadata)
    finally:
        engine.dispose()


def test_round_trip(new_database):
    with new_database("migrations") as url:
        assert migrate.current(url) is None
        migrate.upgrade(url)
        assert migrate.current(url) == migrate.head()
        assert _tables(url) == TABLES
        assert _diff(url) == []
        migrate.downgrade(url, "base")
        assert migrate.current(url) is None
        assert _tables(url) == set()
        migrate.upgrade(url)
        assert _tables(url) == TABLES and _diff(url) == []


def test_step_by_step(new_database):
    """Each revision upgrades and downgrades on its own."""
    script = ScriptDirectory.from_config(migrate.alembic_config("sqlite://"))
    revisions = [r.revision for r in reversed(list(script.walk_revisions()))]
    with new_database("steps") as url:
        for rev in revisions:
            migrate.upgrade(url, rev)
            assert migrate.current(url) == rev
        for _ in revisions:
            migrate.downgrade(url, "-1")
        assert migrate.current(url) is None


def test_constraints_are_named(new_database):
    with new_database("names") as url:
        migrate.upgrade(url)
        engine = create_engine(url, poolclass=NullPool)
        try:
            insp = inspect(engine)
            assert insp.get_unique_constraints("deals")[0]["name"] == "uq_deals_table_id_number"
            assert {u["name"] for u in insp.get_unique_constraints("idempotency_keys")} == {
                "uq_idempotency_keys_table_id_key"
            }
            assert insp.get_foreign_keys("deals")[0]["name"] == "fk_deals_table_id_tables"
            assert "ix_api_keys_prefix" in {i["name"] for i in insp.get_indexes("api_keys")}
            if engine.dialect.name == "postgresql":
                assert insp.get_pk_constraint("tables")["name"] == "pk_tables"
        finally:
            engine.dispose()


def test_no_create_all_in_the_code():
    """The schema is made only by the migrations (tests included)."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    offenders = [
        str(p.relative_to(root))
        for p in list((root / "app").rglob("*.py")) + list((root / "tests").rglob("*.py"))
        if "create_all(" in p.read_text(encoding="utf-8") and p.name != "test_migrations.py"
    ]
    assert offenders == []


def test_cli_db_commands(new_database, monkeypatch):
    from click.testing import CliRunner

    from app.cli.main import main

    with new_database("cli") as url:
        monkeypatch.setenv("DATABASE_URL", url)
        runner = CliRunner()
        result = runner.invoke(main, ["db", "current"])
        assert result.exit_code == 0 and "current: base" in result.output, result.output
        result = runner.invoke(main, ["db", "upgrade"])
        assert result.exit_code == 0, result.output
        assert f"database at {migrate.head()}" in result.output
        assert _tables(url) == TABLES
        result = runner.invoke(main, ["db", "downgrade", "base"])
        assert result.exit_code == 0 and "database at base" in result.output, result.output
        assert _tables(url) == set()


def _upgrade_when_released(url: str, barrier) -> None:  # noqa: ANN001
    import os

    barrier.wait(30)
    try:
        migrate.upgrade(url)
    except BaseException:  # noqa: BLE001
        import traceback

        traceback.print_exc()
        os._exit(1)
    os._exit(0)


def test_four_processes_upgrade_one_fresh_database_at_once_ten_times(new_database):
    """Four processes start the upgrade of one empty database at the same moment (a barrier
    releases them together), ten times, each on a new database: every one succeeds and the
    schema is whole. Without the lock around the upgrade one of two `prefscore serve`
    died in 1 of 3 tries on SQLite ('table api_keys already exists') and 2 of 3 on
    PostgreSQL (UniqueViolation on pg_type)."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    for attempt in range(10):
        with new_database(f"race{attempt}") as url:
            barrier = ctx.Barrier(4)
            procs = [ctx.Process(target=_upgrade_when_released, args=(url, barrier)) for _ in range(4)]
            for p in procs:
                p.start()
            for p in procs:
                p.join(120)
            assert [p.exitcode for p in procs] == [0, 0, 0, 0], f"attempt {attempt}"
            assert migrate.current(url) == migrate.head()
            assert _tables(url) == TABLES and _diff(url) == []


def _one_table(engine) -> None:
    """A table row as the migrations before 0006 left it (table "t1")."""
    from sqlalchemy import text

    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO tables (id, owner, convention, players, pool_target, options, first_dealer, share_token, "
                "state, rules_version, deal_count, revision, created_at, updated_at) VALUES ('t1', 'o', 'sochi', "
                "'[\"A\",\"B\",\"C\"]', 20, '{}', 0, 'tok', '{}', 2, 0, 0, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
            )
        )


def test_the_player_registry_both_ways(new_database):
    """0006 adds players and player_tables with their named constraints and cascades; its
    downgrade removes them alone, the tables and deals staying as they were."""
    from sqlalchemy import text

    with new_database("players") as url:
        migrate.upgrade(url, "0004")
        engine = create_engine(url, poolclass=NullPool)
        try:
            _one_table(engine)
            migrate.upgrade(url, "0006")
            insp = inspect(engine)
            assert {"players", "player_tables"} <= set(insp.get_table_names())
            assert {u["name"] for u in insp.get_unique_constraints("players")} == {
                "uq_players_owner_external_id"
            }
            assert {u["name"] for u in insp.get_unique_constraints("player_tables")} == {
                "uq_player_tables_table_id_seat",
                "uq_player_tables_player_id_table_id",
            }
            fks = {f["name"]: f for f in insp.get_foreign_keys("player_tables")}
            assert set(fks) == {"fk_player_tables_player_id_players", "fk_player_tables_table_id_tables"}
            assert all(f["options"].get("ondelete") == "CASCADE" for f in fks.values())
            assert "ix_player_tables_player_id_table_created_at" in {
                i["name"] for i in insp.get_indexes("player_tables")
            }
            migrate.downgrade(url, "0004")
            insp = inspect(engine)
            assert not {"players", "player_tables"} & set(insp.get_table_names())
            with engine.connect() as conn:
                assert conn.execute(text("SELECT id FROM tables")).scalars().all() == ["t1"]
        finally:
            engine.dispose()


def test_the_scorer_links_both_ways(new_database):
    """0007 adds scorer_links with its named foreign key (cascading with the table) and its
    indexes; its downgrade removes it alone, the tables staying as they were."""
    from sqlalchemy import text

    with new_database("scorer_links") as url:
        migrate.upgrade(url, "0006")
        engine = create_engine(url, poolclass=NullPool)
        try:
            _one_table(engine)
            migrate.upgrade(url, "0007")
            insp = inspect(engine)
            fks = {f["name"]: f for f in insp.get_foreign_keys("scorer_links")}
            assert set(fks) == {"fk_scorer_links_table_id_tables"}
            assert fks["fk_scorer_links_table_id_tables"]["options"].get("ondelete") == "CASCADE"
            assert {i["name"] for i in insp.get_indexes("scorer_links")} == {
                "ix_scorer_links_prefix",
                "ix_scorer_links_table_id",
            }
            migrate.downgrade(url, "0006")
            assert "scorer_links" not in inspect(engine).get_table_names()
            with engine.connect() as conn:
                assert conn.execute(text("SELECT id FROM tables")).scalars().all() == ["t1"]
        finally:
            engine.dispose()


def test_the_deal_games_are_filled_in_both_ways(new_database):
    """0009 adds deals.game and fills it for the deals already stored: a piter_races table's
    log folded once (the game each deal was played in), any other table's deals in game 1;
    its downgrade removes the column alone."""
    import json

    from sqlalchemy import text

    # piter_races, target 2, two games, first dealer 0 (tests/api/test_deal_games.py):
    # deal 1 the compulsory all-pass and deal 2 a made 7♥ with pool 4 >= 2 end game 1;
    # deal 3 is game 2's compulsory all-pass: games 1, 1, 2.
    races = [
        {"type": "allpass", "tricks": {"1": 3, "2": 3, "3": 4}},
        {
            "type": "contract",
            "declarer": 2,
            "contract": "7H",
            "defenders": {"3": "whist", "0": "pass"},
            "tricks": {"2": 7, "3": 3, "0": 0},
        },
        {"type": "allpass", "tricks": {"0": 3, "1": 3, "3": 4}},
    ]
    with new_database("deal_games") as url:
        migrate.upgrade(url, "0008")
        engine = create_engine(url, poolclass=NullPool)
        try:
            _one_table(engine)  # sochi, no deals written by the test: its one deal is in game 1
            with engine.begin() as conn:
                conn.execute(
                    text(
                        "INSERT INTO tables (id, owner, convention, players, pool_target, options, first_dealer, share_token, "
                        "state, rules_version, deal_count, revision, created_at, updated_at) VALUES ('t2', 'o', "
                        "'piter_races', '[\"A\",\"B\",\"C\",\"D\"]', 2, '{\"games\": 2}', 0, 'tok2', '{}', 2, 3, 3, "
                        "CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
                    )
                )
                deals = [("t2", n, json.dumps(body)) for n, body in enumerate(races, start=1)]
                deals.append(("t1", 1, json.dumps({"type": "allpass", "tricks": {"0": 3, "1": 3, "2": 4}})))
                for table_id, number, body in deals:
                    conn.execute(
                        text(
                            "INSERT INTO deals (table_id, number, body, entries, created_at, dealer) "
                            "VALUES (:t, :n, :b, '[]', CURRENT_TIMESTAMP, 0)"
                        ),
                        {"t": table_id, "n": number, "b": body},
                    )
            migrate.upgrade(url, "0009")
            with engine.connect() as conn:
                games = conn.execute(
                    text("SELECT table_id, number, game FROM deals ORDER BY table_id, number")
                ).all()
            assert [tuple(r) for r in games] == [("t1", 1, 1), ("t2", 1, 1), ("t2", 2, 1), ("t2", 3, 2)]
            migrate.downgrade(url, "0008")
            assert "game" not in {c["name"] for c in inspect(engine).get_columns("deals")}
        finally:
            engine.dispose()


def test_ids_handed_out_only_grow_after_0015(new_database):
    """0015 rebuilds the tables whose ids are handed out with AUTOINCREMENT on SQLite: their
    rows stay (a parent's copy deletes no child), and a deleted newest id is not given again.
    PostgreSQL's sequences already never go back."""
    from sqlalchemy import text

    with new_database("ids") as url:
        migrate.upgrade(url, "0014")
        engine = create_engine(url, poolclass=NullPool)
        try:
            with engine.begin() as conn:
                conn.execute(
                    text(
                        "INSERT INTO webhook_endpoints (owner, url, types, all_tables, secret, active, created_at, updated_at) "
                        "VALUES ('o', 'http://example.org/', 1, true, 's', true, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
                    )
                )
                endpoint = conn.execute(text("SELECT max(id) FROM webhook_endpoints")).scalar()
                for _ in range(3):
                    conn.execute(
                        text(
                            "INSERT INTO webhook_deliveries (endpoint_id, owner, type, occurred_at, state, attempts) "
                            f"VALUES ({endpoint}, 'o', 'webhook.test', CURRENT_TIMESTAMP, 'pending', 0)"
                        )
                    )
                newest = conn.execute(text("SELECT max(id) FROM webhook_deliveries")).scalar()
            migrate.upgrade(url)
            with engine.begin() as conn:
                assert conn.execute(text("SELECT count(*) FROM webhook_deliveries")).scalar() == 3
                conn.execute(text(f"DELETE FROM webhook_deliveries WHERE id = {newest}"))
                conn.execute(
                    text(
                        "INSERT INTO webhook_deliveries (endpoint_id, owner, type, occurred_at, state, attempts) "
                        f"VALUES ({endpoint}, 'o', 'webhook.test', CURRENT_TIMESTAMP, 'pending', 0)"
                    )
                )
                assert conn.execute(text("SELECT max(id) FROM webhook_deliveries")).scalar() == newest + 1
            migrate.downgrade(url, "0014")
            with engine.connect() as conn:
                assert conn.execute(text("SELECT count(*) FROM webhook_deliveries")).scalar() == 3
                assert conn.execute(text("SELECT count(*) FROM webhook_endpoints")).scalar() == 1
        finally:
            engine.dispose()


def test_every_domains_tables_are_gathered_for_alembic():
    # A domain's tables are declared in its orm.py; app/orm.py must import each of them, or
    # Alembic's environment (migrations/env.py) would not see that domain's tables.
    import importlib
    from pathlib import Path

    import app.orm as gathered

    root = Path(gathered.__file__).parent
    domains = sorted(p.parent.name for p in root.glob("*/orm.py"))
    assert domains, "no domain declares its tables"
    for domain in domains:
        module = importlib.import_module(f"app.{domain}.orm")
        assert getattr(gathered, domain, None) is module, f"app/orm.py does not gather app/{domain}/orm.py"
    assert set(metadata.tables) == TABLES
