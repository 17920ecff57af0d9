"""Pictures are drawn outside the serving interpreter (app/sharing/drawing.py): in worker
processes, one picture per worker at once, a bounded wait for a worker (then 503 with
Retry-After), a bounded work per picture (deals, pixels, time: a worker that overruns is
replaced), and a cache bounded in bytes by a setting. The pictures are the same as drawn
in the serving process."""

from __future__ import annotations

import asyncio
import os
import struct
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.sharing import drawing
from tests.api.samples import ALLPASS, PASS_6S
from tests.conftest import new_owner_key
from tests.support import drawing_spies as spies

PROBLEM = "application/problem+json"


@contextmanager
def app_with(settings: Any, db: Any, **changes: Any) -> Iterator[tuple[Any, TestClient]]:
    from app.main import create_app

    app = create_app(settings.model_copy(update=changes), db=db)
    with TestClient(app) as client:
        yield app, client
    assert not app.state.pictures.started  # the workers stopped with the app


def new_table(
    client: TestClient, admin_headers: dict[str, str], deals: int = 1
) -> tuple[dict[str, str], dict[str, Any]]:
    _, key = new_owner_key(client, admin_headers)
    headers = {"Authorization": f"Bearer {key}"}
    table = client.post(
        "/v1/tables", json={"players": ["Anna", "Boris", "Vera"], "convention": "sochi"}, headers=headers
    ).json()
    for i in range(deals):
        r = client.post(
            f"/v1/tables/{table['id']}/deals", json=PASS_6S if i % 2 == 0 else ALLPASS, headers=headers
        )
        assert r.status_code == 201, r.text
    return headers, table


def spy(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    function: Any = spies.recording,
    *extra: str,
    name: str = "calls",
) -> Path:
    """Every worker function replaced by ``function`` recording its calls in the file returned."""
    record = tmp_path / name
    for name in ("draw_svg", "draw_png", "draw_both"):
        args = (str(record), *extra, name) if function is not spies.hanging else (str(record),)
        monkeypatch.setattr(drawing, name, partial(function, *args))
    return record


def png_size(body: bytes) -> tuple[int, int]:
    assert body.startswith(b"\x89PNG\r\n\x1a\n")
    return struct.unpack(">II", body[16:24])  # IHDR: width, height


def wait_for(condition: Any, what: str) -> None:
    for _ in range(6000):  # 60 s at most: a spawned worker starts in about a second
        if condition():
            return
        time.sleep(0.01)
    raise AssertionError(f"never: {what}")


def test_pictures_are_drawn_in_another_process_off_the_loop(
    settings, db, admin_headers, client, tmp_path, monkeypatch
):
    record = spy(monkeypatch, tmp_path)
    waits: list[bool] = []
    real_run = drawing.Pictures.run

    def run(self, function, *args):  # the serving side of a drawing: where the request waits
        try:
            asyncio.get_running_loop()
            waits.append(True)
        except RuntimeError:
            waits.append(False)
        return real_run(self, function, *args)

    monkeypatch.setattr(drawing.Pictures, "run", run)
    with app_with(settings, db, picture_inline_deals=0) as (app, c):
        headers, table = new_table(c, admin_headers)
        svg = c.get(f"/v1/tables/{table['id']}/sheet.svg", headers=headers)
        png = c.get(f"/v1/shared/{table['share_token']}/sheet.png?layout=wide")
        assert svg.status_code == 200 and png.status_code == 200
        pids = spies.calls(record)
        # before: drawn in the serving interpreter (no worker, nothing recorded)
        assert len(pids) == 2 and os.getpid() not in pids
        assert waits == [False, False]  # waited for in a request thread, not on the event loop
        assert app.state.pictures.started
    # the same pictures as those drawn in the serving process (a short table's SVG, by default)
    inline = client.get(f"/v1/tables/{table['id']}/sheet.svg", headers=headers)
    assert inline.text == svg.text and inline.headers["etag"] == svg.headers["etag"]
    assert len(spies.calls(record)) == 2
    again = client.get(f"/v1/shared/{table['share_token']}/sheet.png?layout=wide")
    assert again.content == png.content
    # the default app draws every PNG in a worker too
    assert len(spies.calls(record)) == 3 and os.getpid() not in spies.calls(record)


def test_one_picture_per_worker_at_once_then_503(settings, db, admin_headers, tmp_path, monkeypatch):
    gate = tmp_path / "gate"
    record = spy(monkeypatch, tmp_path, spies.gated, str(gate))
    with app_with(settings, db, picture_workers=1, picture_wait=0.2) as (_app, c):
        _, table = new_table(c, admin_headers)
        url = f"/v1/shared/{table['share_token']}/sheet.png"
        first: list[Any] = []
        slow = threading.Thread(target=lambda: first.append(c.get(url + "?lang=ru")))
        slow.start()
        try:
            wait_for(lambda: len(spies.calls(record)) == 1, "the first picture is being drawn")
            busy = c.get(url + "?lang=en")
            # before: the second picture was drawn beside the first (no bound)
            assert busy.status_code == 503, busy.text
            assert busy.headers["content-type"] == PROBLEM and int(busy.headers["retry-after"]) >= 1
            assert busy.json()["status"] == 503
            assert len(spies.calls(record)) == 1  # refused, not drawn in parallel
        finally:
            gate.touch()
            slow.join(60)
        assert first[0].status_code == 200
        assert c.get(url + "?lang=en").status_code == 200  # the worker free again: drawn
        assert len(spies.calls(record)) == 2


def test_too_few_waiting_places_is_503_at_once(settings, db, admin_headers, tmp_path, monkeypatch):
    gate = tmp_path / "gate"
    record = spy(monkeypatch, tmp_path, spies.gated, str(gate))
    with app_with(settings, db, picture_workers=1, picture_wait=30, picture_queue=0) as (_app, c):
        _, table = new_table(c, admin_headers)
        url = f"/v1/shared/{table['share_token']}/sheet.png"
        slow = threading.Thread(target=lambda: c.get(url + "?lang=ru"))
        slow.start()
        try:
            wait_for(lambda: len(spies.calls(record)) == 1, "the first picture is being drawn")
            busy = c.get(url + "?lang=en")  # no place to wait: not the 30 s of picture_wait
            assert busy.status_code == 503 and "retry-after" in busy.headers
        finally:
            gate.touch()
            slow.join(60)


def test_a_picture_that_overruns_its_time_has_its_worker_replaced(
    settings, db, admin_headers, tmp_path, monkeypatch
):
    record = spy(monkeypatch, tmp_path, spies.hanging)
    with app_with(settings, db, picture_workers=1, picture_timeout=1) as (app, c):
        _, table = new_table(c, admin_headers)
        url = f"/v1/shared/{table['share_token']}/sheet.png"
        hung = c.get(url)
        assert (
            hung.status_code == 503
            and hung.headers["content-type"] == PROBLEM
            and "retry-after" in hung.headers
        )
        [stuck] = spies.calls(record)
        record = spy(monkeypatch, tmp_path, name="after")  # the real drawing again
        app.state.pictures.timeout = 60  # time for a new worker to start, on a busy machine
        ok = c.get(url)
        assert ok.status_code == 200 and ok.content.startswith(b"\x89PNG")
        [fresh] = spies.calls(record)
        assert fresh != stuck  # the stuck worker was killed and another drew
        wait_for(
            lambda: (
                not Path(f"/proc/{stuck}").exists()
                or "Z" in Path(f"/proc/{stuck}/stat").read_text().split()[2]
            ),
            "the stuck worker is gone",
        )


def test_the_cache_is_bounded_by_its_setting_in_bytes(
    settings, db, admin_headers, client, tmp_path, monkeypatch
):
    _, table = new_table(client, admin_headers)
    url = f"/v1/shared/{table['share_token']}/sheet.png"
    one = len(client.get(url + "?lang=ru").content) + len(
        client.get(url.replace(".png", ".svg") + "?lang=ru").content
    )
    bound = one + one // 2  # one picture with its SVG, not two
    record = spy(monkeypatch, tmp_path)
    with app_with(settings, db, picture_cache_bytes=bound) as (app, c):
        first = c.get(url + "?lang=ru")
        assert c.get(url + "?lang=ru").content == first.content
        assert len(spies.calls(record)) == 1  # kept
        assert app.state.pictures.cache.size == (2, one)  # the PNG and its SVG, weighed in bytes
        c.get(url + "?lang=en")  # another picture: more than the bound together
        assert app.state.pictures.cache.size[1] <= bound
        assert len(spies.calls(record)) == 2
        # before: 64 MB whatever the setting, the first picture still kept
        assert c.get(url + "?lang=ru").content == first.content
        assert len(spies.calls(record)) == 3  # dropped, drawn again


def test_the_work_of_one_picture_is_bounded(settings, db, admin_headers, client, tmp_path, monkeypatch):
    record = spy(monkeypatch, tmp_path)
    with app_with(settings, db, picture_max_deals=2, picture_max_pixels=200_000) as (_app, c):
        headers, long_table = new_table(c, admin_headers, deals=3)
        for fmt in ("svg", "png"):
            r = c.get(f"/v1/tables/{long_table['id']}/sheet.{fmt}", headers=headers)
            # before: drawn whatever the table's length
            assert r.status_code == 409 and r.headers["content-type"] == PROBLEM, r.text
            assert r.json()["max_deals"] == 2
        assert spies.calls(record) == []  # nothing drawn
        _, short = new_table(c, admin_headers, deals=2)
        small = c.get(f"/v1/shared/{short['share_token']}/sheet.png")
        width, height = png_size(small.content)
        assert width * height <= 200_000
    # the default bound: twice the picture's size
    width, height = png_size(client.get(f"/v1/shared/{short['share_token']}/sheet.png").content)
    assert width * height > 200_000
