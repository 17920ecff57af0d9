"""The HTML pages (``/shared/{token}``, ``/score/{token}``): one template environment and
one policy for both.

Templates are Jinja2 files in a domain package's ``templates/`` folder, named
``"<package>/<file>"`` (``"app.sharing/shared.html"``), autoescaped: every value put in the
HTML is escaped unless it is already markup. A value handed to a page's script goes through
``script_json`` into the page's JSON block (``<script type="application/json" id="page-data">``),
which the page's scripts read. The scripts and styles are static files (app/static/, served by
app/kit/assets.py under content-hashed names, named in a template by ``asset("score.js")``);
no inline script runs.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib import resources
from typing import Any

from fastapi.responses import HTMLResponse
from jinja2 import Environment, FunctionLoader, StrictUndefined, Template
from markupsafe import Markup

from app.kit.assets import asset_url
from app.kit.i18n import Lang
from app.kit.lang import language_headers


def _source(name: str) -> tuple[str, str, Any]:
    package, _, file = name.partition("/")
    path = resources.files(package).joinpath("templates", file)
    return path.read_text(encoding="utf-8"), str(path), lambda: True  # packaged: never changes


def script_json(value: object) -> Markup:
    """A value as JSON inside a page's script: "<" escaped, so that nothing in it (a player's
    name, a word) can end the script element; not escaped as HTML (a script is not)."""
    return Markup(json.dumps(value, ensure_ascii=False).replace("<", "\\u003c"))


PAGES = Environment(
    loader=FunctionLoader(_source),
    autoescape=True,
    undefined=StrictUndefined,  # a value the page names and the route forgot fails, not blank
    keep_trailing_newline=True,
    auto_reload=False,
)
PAGES.filters["script_json"] = script_json
PAGES.globals["asset"] = asset_url  # a static file by its name: its content-hashed URL


def template(name: str) -> Template:
    """A page's template (``"<package>/<file>"``), compiled once."""
    return PAGES.get_template(name)


def page_policy() -> str:
    """A page runs only the scripts this server serves (app/kit/assets.py: no inline script;
    its values come in a JSON block, which does not run), fetches only from this server (its
    requests and its event stream: connect-src 'self'); styles are this server's files, or
    inline (the drawn sheet's). The scoring page installs its own service worker and manifest,
    both served by this server (worker-src, manifest-src 'self')."""
    return (
        "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; "
        "img-src 'self' data:; worker-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'"
    )


def _headers(lang: Lang, cache_control: str, headers: Mapping[str, str] | None) -> dict[str, str]:
    return {
        "Cache-Control": cache_control,
        **(headers or {}),
        "Content-Security-Policy": page_policy(),
        **language_headers(lang),
    }


def page_response(
    page: Template,
    lang: Lang,
    /,
    *,
    cache_control: str,
    headers: Mapping[str, str] | None = None,
    **values: Any,
) -> HTMLResponse:
    """A page filled with ``values``, with its policy, its caching and its language's headers."""
    return HTMLResponse(page.render(**values), headers=_headers(lang, cache_control, headers))


def built_page(page: Template, **values: Any) -> bytes:
    """A page filled with ``values``, to be answered many times (``built_page_response``)."""
    return page.render(**values).encode()


def built_page_response(
    body: bytes, lang: Lang, /, *, cache_control: str, headers: Mapping[str, str] | None = None
) -> HTMLResponse:
    """A page written by ``built_page``, with the headers ``page_response`` gives."""
    return HTMLResponse(body, headers=_headers(lang, cache_control, headers))
