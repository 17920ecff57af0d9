"""The JSON guard's scan (a body it passes without parsing) never passes a body that the
full check would refuse."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from app.kit.middleware.body_guard import BodyGuard, _surely_fine

GUARD = BodyGuard(None, max_json_depth=4)

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**60), 2**60)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=4), children, max_size=3)
    ),
    max_leaves=12,
)


def _parse_and_check(body: bytes) -> object:
    from app.kit.middleware.body_guard import _parse_constant, _parse_float, _parse_int, _Reject, check_json

    try:
        value = json.loads(
            body, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant
        )
    except RecursionError:
        return "deep"
    except ValueError:
        return None
    try:
        check_json(value, GUARD.max_depth)
    except _Reject as exc:
        return exc.field, exc.reason
    return None


@settings(max_examples=400, deadline=None)
@given(json_values)
def test_the_scan_passes_only_what_the_full_check_passes(value):
    body = json.dumps(value, ensure_ascii=False, allow_nan=True).encode("utf-8", "surrogatepass")
    if _surely_fine(body, GUARD.max_depth):
        assert _parse_and_check(body) is None, body


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40))
def test_the_scan_on_any_bytes(body):
    if _surely_fine(body, GUARD.max_depth):
        assert _parse_and_check(body) is None, body


def test_a_deal_body_is_passed_by_the_scan_and_hostile_ones_are_not():
    assert _surely_fine(b'{"type":"allpass","tricks":{"0":4,"1":3,"2":3}}', 32)
    for hostile in (
        b'{"a":NaN}',
        b'{"a":1e400}',
        b'{"a":12345678901234567}',
        b'{"a":"\\u0000"}',
        '{"a":"\ud800"}'.encode("utf-8", "surrogatepass"),
        b"[" * 33 + b"]" * 33,
        b'{"a":"\x01"}',
    ):
        assert not _surely_fine(hostile, 32), hostile
