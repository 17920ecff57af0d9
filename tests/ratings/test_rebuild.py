"""``prefscore ratings rebuild``: the stored ratings recomputed from the finished rated
tables; a difference (a rating written by hand here) is reported, and corrected unless
``--check``."""

from __future__ import annotations

from click.testing import CliRunner
from sqlalchemy import update

from app.cli.main import main
from app.ratings import service as ratings
from app.ratings.orm import PlayerRatingRow, RatingChangeRow
from tests.api.samples import PULKA


def _finished_rated_table(api):
    ids = [api.post("/v1/players", json={"name": n}).json()["id"] for n in ("Anna", "Boris", "Vera")]
    t = api.table(
        players=[{"name": n, "player": i} for n, i in zip(("Anna", "Boris", "Vera"), ids)],
        pool_target=4,
        rated=True,
    )
    for body in PULKA:
        api.deal(t["id"], body)
    return ids


def test_rebuild_reports_and_corrects_a_difference(api, db, settings, monkeypatch):
    ids = _finished_rated_table(api)
    monkeypatch.setenv("DATABASE_URL", settings.database_url)
    runner = CliRunner()
    clean = runner.invoke(main, ["ratings", "rebuild", "--check"])
    assert clean.exit_code == 0, clean.output
    assert "0 differences" in clean.output
    shown = api.get(f"/v1/players/{ids[0]}/rating").json()["rating"]
    with db.write() as session:  # a rating that no table gave
        session.execute(update(PlayerRatingRow).where(PlayerRatingRow.player_id == ids[0]).values(mu=99.0))
        session.execute(update(RatingChangeRow).where(RatingChangeRow.player_id == ids[1]).values(sigma=1.0))
    assert len(ratings.differences_of(db, api.owner)) >= 3  # two ratings (both pools), one change
    checked = runner.invoke(main, ["ratings", "rebuild", "--check"])
    assert checked.exit_code == 1 and ids[0] in checked.output and ids[1] in checked.output
    assert api.get(f"/v1/players/{ids[0]}/rating").json()["rating"]["mu"] == 99.0  # --check writes nothing
    fixed = runner.invoke(main, ["ratings", "rebuild"])
    assert fixed.exit_code == 0, fixed.output
    assert ratings.differences_of(db, api.owner) == []
    assert api.get(f"/v1/players/{ids[0]}/rating").json()["rating"] == shown
