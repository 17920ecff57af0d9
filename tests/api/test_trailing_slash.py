"""A trailing slash is redirected to the route's path with a relative Location: nothing of
the request's Host header is echoed (an absolute redirect built from it sent clients to any
host the request named)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8443", "127.0.0.1"])
def test_the_redirect_never_names_the_host(api, client, host):
    r = client.get(
        "/v1/tables/?limit=1&status=active", headers={**api.headers, "Host": host}, follow_redirects=False
    )
    assert r.status_code == 307, r.text
    assert r.headers["location"] == "/v1/tables?limit=1&status=active"
    followed = client.get(r.headers["location"], headers=api.headers)
    assert followed.status_code == 200


def test_paths_with_and_without_the_slash(api, client):
    table = api.table()
    cases = {
        f"/v1/tables/{table['id']}/": f"/v1/tables/{table['id']}",
        "/health/": "/health",
        "/v1/tables///": "/v1/tables",
    }
    for path, location in cases.items():
        # the key too: a /v1 request without one is answered 401 before it is routed
        r = client.get(path, headers={**api.headers, "Host": "evil.example"}, follow_redirects=False)
        assert (r.status_code, r.headers.get("location")) == (307, location), path
    # the method and the body are kept (307): a post to "/v1/tables/" makes the table
    r = client.post(
        "/v1/tables/", json={"players": ["A", "B", "C"], "convention": "sochi"}, headers=api.headers
    )
    assert r.status_code == 201 and r.url.path == "/v1/tables", r.text


def test_no_redirect_where_no_route_matches(api, client):
    for path in ("/nothing/", "//evil.example/", "/v1/nothing/"):
        r = client.get(path, headers={**api.headers, "Host": "evil.example"}, follow_redirects=False)
        assert r.status_code == 404 and "location" not in r.headers, path
        assert r.headers["content-type"].startswith("application/problem+json")


def test_the_location_is_one_path_on_this_host():
    from app.kit.middleware.trailing_slash import relative_location

    assert relative_location("//evil.example/v1", b"") == "/evil.example/v1"
    assert relative_location("/v1/tables/a b%", b"x=%20") == "/v1/tables/a%20b%25?x=%20"
    assert relative_location("/v1/\\evil", b"") == "/v1/%5Cevil"
