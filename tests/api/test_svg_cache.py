"""sheet.svg is drawn once per revision of its table (by key and by share link alike), from
a cache bounded in size; a new deal is a new picture."""

from __future__ import annotations

import threading

import app.sharing.pictures as views
from app.sharing.drawing import DrawnCache

from .samples import ALLPASS, PASS_6S


def test_a_picture_is_drawn_once_per_revision(api, monkeypatch):
    drawn = []
    real = views.picture_svg

    def counting(picture, lang, layout):
        drawn.append(picture.table.revision)
        return real(picture, lang, layout)

    monkeypatch.setattr(views, "picture_svg", counting)
    t = api.table()
    tid, token = t["id"], t["share_token"]
    api.deal(tid, PASS_6S)
    first = api.get(f"/v1/tables/{tid}/sheet.svg")
    for _ in range(3):
        again = api.get(f"/v1/tables/{tid}/sheet.svg")
        assert again.text == first.text and again.headers["etag"] == first.headers["etag"]
    shared = api.client.get(f"/v1/shared/{token}/sheet.svg")
    assert shared.text == first.text
    # before: drawn on each of the five requests
    assert drawn == [1]
    api.deal(tid, ALLPASS)
    new = api.get(f"/v1/tables/{tid}/sheet.svg")
    assert new.headers["etag"] != first.headers["etag"] and new.text != first.text
    assert drawn == [1, 2]
    # a conditional request for the current picture is still a 304
    assert (
        api.get(f"/v1/tables/{tid}/sheet.svg", headers={"If-None-Match": new.headers["etag"]}).status_code
        == 304
    )


def test_the_cache_is_bounded():
    cache = DrawnCache(max_bytes=100, max_items=3)
    for key in "abcd":
        cache.put(key, key * 10)
    assert cache.size == (3, 30) and cache.get("a") is None
    cache.get("b")  # used: kept over "c"
    cache.put("e", "e" * 60)
    assert cache.get("c") is None and cache.get("b") is not None and cache.size[1] <= 100
    cache.put("huge", "x" * 101)  # larger than the whole cache: not kept
    assert cache.get("huge") is None


def test_concurrent_misses_draw_once():
    cache = DrawnCache()
    calls = []
    gate = threading.Event()

    def draw():
        calls.append(1)
        gate.wait(2)
        return "<svg/>"

    threads = [threading.Thread(target=cache.get_or_draw, args=("k", draw)) for _ in range(4)]
    for t in threads:
        t.start()
    gate.set()
    for t in threads:
        t.join()
    assert calls == [1] and cache.get("k") == "<svg/>"
