"""/docs (Swagger UI) and /redoc (ReDoc) work without internet access: the pages point at no
other host, and every script, style sheet and icon they load is served by the app itself."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

# Any absolute or protocol-relative URL: "https://cdn...", "http://...", "//host/...".
EXTERNAL = re.compile(r"""(?:\b[a-z][a-z0-9+.-]*:)?//[^\s"'<>)]+""", re.IGNORECASE)


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("src", "href", "spec-url") and value:
                self.urls.append(value)


def page_links(html: str) -> list[str]:
    parser = Links()
    parser.feed(html)
    return parser.urls


@pytest.mark.parametrize("path", ["/docs", "/redoc"])
def test_docs_page_references_no_other_host(client, path):
    r = client.get(path)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/html")
    assert EXTERNAL.findall(r.text) == [], r.text
    assert "cdn." not in r.text and "fonts.googleapis" not in r.text


@pytest.mark.parametrize(
    "path, kinds",
    [
        ("/docs", {"javascript", "css", "png"}),
        ("/redoc", {"javascript", "png"}),
    ],
)
def test_every_asset_the_docs_page_loads_is_served(client, path, kinds):
    html = client.get(path).text
    urls = page_links(html)
    assert urls, html
    seen = set()
    for url in urls:
        assert url.startswith("/"), url
        r = client.get(url)
        assert r.status_code == 200, f"{url}: {r.status_code}"
        assert len(r.content) > 0, url
        seen.update(kind for kind in kinds if kind in r.headers["content-type"] or url.endswith("." + kind))
    assert seen == kinds, (urls, seen)


def test_swagger_ui_loads_this_apps_openapi_document_and_no_validator(client):
    html = client.get("/docs").text
    assert "url: '/openapi.json'" in html
    # Swagger UI would otherwise fetch a badge from validator.swagger.io.
    assert '"validatorUrl": null' in html
    assert client.get("/openapi.json").status_code == 200


def test_the_docs_pages_are_not_in_the_openapi_document(client):
    paths = client.get("/openapi.json").json()["paths"]
    assert not [p for p in paths if p.startswith(("/docs", "/redoc"))]


def test_redoc_script_asks_no_other_host_for_anything(client):
    """ReDoc's menu footer would fetch the Redocly logo from cdn.redoc.ly: the script /redoc
    loads has that address replaced by an image written in the page (a data: URL)."""
    html = client.get("/redoc").text
    (script,) = [u for u in page_links(html) if u.endswith(".js")]
    body = client.get(script).text
    assert "cdn.redoc.ly" not in body and "fonts.googleapis" not in body
    assert "data:image/gif;base64," in body


def test_every_error_response_has_its_own_example(client):
    """Each 4xx/5xx answer of each operation shows an example of its own status (a 404 as a
    404, not the 422 example everywhere), of the Problem shape the service sends."""
    from app.kit.db.outage import PROBLEM_SLUG
    from app.kit.problems import problem_type

    doc = client.get("/openapi.json").json()
    seen = set()
    for path, item in doc["paths"].items():
        for method, operation in item.items():
            for code, response in operation["responses"].items():
                if code[0] not in "45":
                    continue
                example = response["content"]["application/problem+json"]["example"]
                assert example["status"] == int(code), (method, path, code, example)
                # a 503's example is the one a client meets most: the database away, retryable
                expected = (
                    problem_type(int(code))
                    if code != "503"
                    else problem_type(503).replace("unavailable", PROBLEM_SLUG)
                )
                assert example["type"] == expected or code == "429", (code, example)
                assert {"type", "title", "status", "detail"} <= set(example), example
                seen.add(code)
    # the statuses the issue named, each seen somewhere in the document
    assert {"401", "403", "404", "409", "412", "413", "422", "429", "503"} <= seen, seen


def test_event_streams_say_how_to_read_them_and_offer_no_try_it_out(client):
    doc = client.get("/openapi.json").json()
    streams = [
        (path, operation)
        for path, item in doc["paths"].items()
        for operation in item.values()
        if "text/event-stream" in operation["responses"].get("200", {}).get("content", {})
    ]
    assert len(streams) >= 3, [p for p, _ in streams]  # a table's, a share link's, the owner's
    for path, operation in streams:
        assert operation["x-event-stream"] is True, path
        assert "curl -N" in operation["description"] and "Last-Event-ID" in operation["description"], path
        # a key only where the operation needs one (not through a share or scorer link)
        assert ("Authorization" in operation["description"]) == (operation.get("security") != []), path
    # Swagger UI reads the mark: a plugin of the page takes "Try it out" away from those
    html = client.get("/docs").text
    assert "plugins: [EventStreamsWithoutTryItOut]" in html and '"x-event-stream"' in html
    ordinary = [op for item in doc["paths"].values() for op in item.values() if "x-event-stream" in op]
    assert len(ordinary) == len(streams)
