"""``prefscore player add / list / stats`` against the app served by uvicorn (real httpx)."""

from __future__ import annotations

from click.testing import CliRunner

from app.cli.main import main


def _run(live_url, key, *args, expect=0):
    result = CliRunner().invoke(
        main, list(args), env={"PREFSCORE_URL": live_url, "PREFSCORE_KEY": key, "COLUMNS": "160"}
    )
    assert result.exit_code == expect, (result.output, result.exception)
    return result


def test_add_list_and_stats(live_url, owner_key, client):
    pid = _run(live_url, owner_key, "player", "add", "Darya", "--external-id", "cli-darya").stdout.strip()
    assert len(pid) == 32
    assert "Darya" in _run(live_url, owner_key, "player", "list").output
    h = {"Authorization": f"Bearer {owner_key}"}
    table = client.post(
        "/v1/tables",
        json={
            "players": [{"name": "Darya", "player": pid}, "B", "V"],
            "convention": "sochi",
            "pool_target": 1,
        },
        headers=h,
    ).json()
    # Darya makes 6S unwhisted (the game goes on: the others' pools are open)
    r = client.post(
        f"/v1/tables/{table['id']}/deals",
        headers=h,
        json={"type": "contract", "declarer": 0, "contract": "6S", "defenders": {"1": "pass", "2": "pass"}},
    )
    assert r.status_code == 201, r.text
    out = _run(live_url, owner_key, "player", "stats", pid, "--stake", "0.5").output
    assert "Darya: 1 table, 0 finished, 1 deal" in out and "money at stake 0.5 " in out
    assert "Games declared" in out
    # the same in Russian: one table (the "one" form), none finished, one deal; the stake 0,5
    out = " ".join(
        _run(live_url, owner_key, "player", "stats", pid, "--stake", "0.5", "--lang", "ru").output.split()
    )
    assert (
        "Darya: 1 стол, окончено: 0, 1 сдача" in out
        and "деньги при ставке 0,5 " in out
        and "Заказанные игры" in out
    )
    bad = _run(live_url, owner_key, "player", "stats", "0" * 32, expect=1)
    assert "404" in bad.output
