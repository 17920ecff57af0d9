"""An undo or a correction folds the log again before it takes the write lock: other
tables' writes go on meanwhile (on SQLite the write lock is the whole database's), and a
write to the same table during the fold makes it fold again from the new log."""

from __future__ import annotations

import threading

import app.deals.refold as refold  # where an undo and a correction fold the log

from .samples import ALLPASS, pass_6s


def _during_the_first_fold(monkeypatch, action):
    """Run ``action`` in another thread while the first fold runs, waiting up to 5 s for it;
    True if it finished during the fold."""
    real = refold.replay
    finished: list[bool] = []
    started: list[bool] = []

    def replay(*args, **kwargs):
        if not started:  # the first fold only (the action may fold too)
            started.append(True)
            worker = threading.Thread(target=action, daemon=True)
            worker.start()
            worker.join(timeout=5)
            finished.append(not worker.is_alive())
        return real(*args, **kwargs)

    monkeypatch.setattr(refold, "replay", replay)
    return finished


def test_other_tables_write_during_a_correction(api, other_api, monkeypatch):
    tid = api.table()["id"]
    for n in range(3):
        api.deal(tid, pass_6s(n))
    other = other_api.table()["id"]
    codes = []
    finished = _during_the_first_fold(
        monkeypatch,
        lambda: codes.append(other_api.post(f"/v1/tables/{other}/deals", json=ALLPASS).status_code),
    )
    r = api.put(f"/v1/tables/{tid}/deals/1", json=pass_6s(0))
    assert r.status_code == 200, r.text
    # before: the other owner's POST waited for the whole correction (SQLite)
    assert finished == [True] and codes == [201]


def test_other_tables_write_during_an_undo(api, other_api, monkeypatch):
    tid = api.table()["id"]
    for n in range(3):
        api.deal(tid, pass_6s(n))
    other = other_api.table()["id"]
    codes = []
    finished = _during_the_first_fold(
        monkeypatch,
        lambda: codes.append(other_api.post(f"/v1/tables/{other}/deals", json=ALLPASS).status_code),
    )
    assert api.delete(f"/v1/tables/{tid}/deals/3").status_code == 200
    assert finished == [True] and codes == [201]


def test_a_post_during_the_fold_makes_the_correction_fold_again(api, monkeypatch):
    tid = api.table()["id"]
    for n in range(2):
        api.deal(tid, pass_6s(n))
    posted = []
    finished = _during_the_first_fold(
        monkeypatch, lambda: posted.append(api.post(f"/v1/tables/{tid}/deals", json=ALLPASS).json())
    )
    corrected = {**pass_6s(0), "contract": "7S"}
    r = api.put(f"/v1/tables/{tid}/deals/1", json=corrected)
    assert r.status_code == 200, r.text
    assert finished == [True] and posted[0]["deal"]["number"] == 3
    # the correction was written over the log with deal 3, and the sheet is its fold
    log = api.get(f"/v1/tables/{tid}/deals").json()["items"]
    assert [d["contract"] if d["type"] == "contract" else d["type"] for d in log] == ["7S", "6S", "allpass"]
    assert r.json()["sheet"]["deal_count"] == 3
    assert r.json()["sheet"] == api.get(f"/v1/tables/{tid}/sheet").json()


def test_an_undo_during_the_fold_leaves_the_correction_nothing_to_correct(api, monkeypatch):
    tid = api.table()["id"]
    for n in range(2):
        api.deal(tid, pass_6s(n))
    finished = _during_the_first_fold(monkeypatch, lambda: api.delete(f"/v1/tables/{tid}/deals/2"))
    r = api.put(f"/v1/tables/{tid}/deals/2", json=pass_6s(2))
    assert finished == [True]
    assert r.status_code == 404 and api.get(f"/v1/tables/{tid}").json()["deal_count"] == 1
