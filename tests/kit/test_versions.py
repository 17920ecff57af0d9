"""The one ETag recipe and the parsed preconditions (app/kit/versions.py)."""

import hashlib

import pytest

from app.kit.errors import PreconditionFailed
from app.kit.etags import player_etag, sheet_etag
from app.kit.versions import Expected, Seen, check_expected, derived_etag, still_held, strong_etag
from app.rules import RULES_VERSION


def test_strong_etag_is_the_sheets_recipe():
    # the sheet's ETag as it was written before the recipe had one home: clients' copies stay valid
    raw = f"t1:3:2:{RULES_VERSION}".encode()
    assert sheet_etag("t1", 3, 2) == '"' + hashlib.sha256(raw).hexdigest()[:32] + '"'
    assert player_etag("p", "2026") == '"' + hashlib.sha256(b"player:p:2026").hexdigest()[:32] + '"'
    assert strong_etag("a", "b", sep="|") == '"' + hashlib.sha256(b"a|b").hexdigest()[:32] + '"'


def test_derived_etag_keeps_the_base_token():
    assert derived_etag('"abc"', "svg2", "en") == '"abc-svg2-en"'


def test_expected_admits_listed_versions_and_star():
    assert Expected.parse(None) is None
    e = Expected.parse(' "a" , "b" ')
    assert e is not None and e.admits('"a"') and e.admits('"b"') and not e.admits('"c"')
    assert Expected.parse("*").admits('"anything"')
    # If-Match compares strongly: a weak tag does not admit the strong one
    assert not Expected.parse('W/"a"').admits('"a"')


def test_a_stale_expectation_is_refused_with_the_current_version():
    with pytest.raises(PreconditionFailed) as refused:
        check_expected(Expected.parse('"old"'), '"new"')
    assert refused.value.extra == {"current_etag": '"new"'}
    check_expected(None, '"new"')  # nothing asked, nothing checked


def test_seen_compares_weakly():
    assert not still_held(None, '"a"')
    assert still_held(Seen.parse('W/"a"'), '"a"')
    assert still_held(Seen.parse("*"), '"z"')
    assert not still_held(Seen.parse('"b"'), '"a"')
