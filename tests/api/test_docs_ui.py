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
