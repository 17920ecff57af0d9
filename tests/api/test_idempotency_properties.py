"""Property (hypothesis): over random posts with Idempotency-Keys, retries, reused keys with
another body, undos and corrections, every 201 the client holds describes a deal stored as
that answer says (number and body), every replayed answer is the deal exactly as stored now
(entries included), and the log holds exactly the deals the client meant to post.

The client model: a key it used is live until the client undoes or corrects the deal it
posted (then the key is retired and a post with it is a new deal; a correction with the body
already stored changes nothing); a retry with a live key and its body is a replay, with
another body a 422."""

from __future__ import annotations

from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from .samples import ALLPASS, pass_6s

BODIES = [pass_6s(0), pass_6s(1), pass_6s(2), ALLPASS, {**pass_6s(0), "contract": "7S"}]
KEYS = [f"key-{i}" for i in range(6)]
STORED_ONLY = ("number", "entries", "created_at")

operation = st.one_of(
    st.tuples(st.just("post"), st.sampled_from(KEYS), st.integers(0, len(BODIES) - 1)),
    st.tuples(st.just("retry"), st.integers(0, 50)),
    st.tuples(st.just("undo")),
    st.tuples(st.just("correct"), st.integers(0, 50), st.integers(0, len(BODIES) - 1)),
)


def _body(deal):
    return {k: v for k, v in deal.items() if k not in STORED_ONLY}


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(operation, min_size=1, max_size=30))
def test_every_answer_the_client_holds_describes_a_stored_deal(api, ops):
    tid = api.table(pool_target=1000)["id"]
    deals_url = f"/v1/tables/{tid}/deals"
    live: dict[str, tuple[int, int]] = {}  # key -> (body index, deal number) while not retired
    used: dict[str, int] = {}  # every key posted, with the body it was posted with (for retries)
    held: dict[str, dict] = {}  # key -> the last 201 answer the client holds
    bodies: list[int] = []  # the body index of each stored deal
    for op in ops:
        count = len(bodies)
        note(repr(op))
        if op[0] in ("post", "retry"):
            if op[0] == "retry":
                if not used:
                    continue
                key = sorted(used)[op[1] % len(used)]
                index = used[key]
            else:
                key, index = op[1], op[2]
            r = api.post(deals_url, json=BODIES[index], headers={"Idempotency-Key": key})
            if key in live and live[key][0] != index:
                assert r.status_code == 422, r.text
                continue
            assert r.status_code == 201, r.text
            answer = r.json()
            if key in live:
                assert r.headers.get("idempotent-replayed") == "true"
                assert answer["deal"]["number"] == live[key][1]
                stored = api.get(f"{deals_url}/{live[key][1]}").json()
                assert answer["deal"] == stored  # entries as stored now, after any re-scoring
            else:
                assert r.headers.get("idempotent-replayed") is None
                bodies.append(index)
                assert answer["deal"]["number"] == len(bodies)
                live[key] = (index, len(bodies))
            used[key] = index
            held[key] = answer
        elif op[0] == "undo":
            if count == 0:
                continue
            r = api.delete(f"{deals_url}/{count}")
            assert r.status_code == 200, r.text
            for key in [k for k, (_i, n) in live.items() if n == count]:
                del live[key]
                held.pop(key, None)
            bodies.pop()
        else:
            if count == 0:
                continue
            number = op[1] % count + 1
            r = api.put(f"{deals_url}/{number}", json=BODIES[op[2]])
            if r.status_code != 200:  # refused: nothing changed
                assert r.status_code in (409, 422), r.text
                continue
            if bodies[number - 1] != op[2]:  # the same body again changes nothing: its keys still replay
                bodies[number - 1] = op[2]
                for key in [k for k, (_i, n) in live.items() if n == number]:
                    del live[key]
                    held.pop(key, None)
        log = api.log(tid)
        assert len(log) == len(bodies)
        count = len(bodies)
        for key, answer in held.items():
            deal = answer["deal"]
            assert 1 <= deal["number"] <= count, (key, deal)
            assert _body(log[deal["number"] - 1]) == _body(deal), (key, deal)
