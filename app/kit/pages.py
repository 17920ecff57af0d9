"""The HTML pages (``/shared/{token}``, ``/score/{token}``): one template environment and
one policy for both.

Templates are Jinja2 files in a domain package's ``templates/`` folder, named
``"<package>/<file>"`` (``"app.sharing/shared.html"``), autoescaped: every value put in the
HTML is escaped unless it is already markup. A value handed to a page's script goes through
``script_json``. Each page answer runs only its own inline script, by a nonce made per
answer (``page_response``).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from importlib import resources
from typing import Any

from fastapi.responses import HTMLResponse
from jinja2 import Environment, FunctionLoader, StrictUndefined, Template
from markupsafe import Markup

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


def template(name: str) -> Template:
    """A page's template (``"<package>/<file>"``), compiled once."""
    return PAGES.get_template(name)


def page_policy(nonce: str) -> str:
    """A page runs only its own script (by nonce), fetches only from this server (its
    requests and its event stream: connect-src 'self'); styles may be inline (the page's and
    the drawn sheet's). The scoring page installs its own service worker and manifest, both
    served by this server (worker-src, manifest-src 'self')."""
    return (
        f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'unsafe-inline'; connect-src 'self'; "
        "img-src 'self' data:; worker-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'"
    )


def page_response(
    page: Template,
    lang: Lang,
    /,
    *,
    cache_control: str,
    headers: Mapping[str, str] | None = None,
    **values: Any,
) -> HTMLResponse:
    """A page filled with ``values`` (and ``nonce``, its script's), with its policy, its
    caching and its language's headers."""
    nonce = secrets.token_urlsafe(16)
    return HTMLResponse(
        page.render(nonce=nonce, **values),
        headers={
            "Cache-Control": cache_control,
            **(headers or {}),
            "Content-Security-Policy": page_policy(nonce),
            **language_headers(lang),
        },
    )


# Where a page written once for many answers (``built_page``) takes each answer's nonce: a
# value of the nonce's shape made per process, which nothing a page shows can guess.
NONCE_SLOT = secrets.token_urlsafe(16)


def built_page(page: Template, **values: Any) -> bytes:
    """A page filled with ``values``, to be answered many times (``built_page_response``)."""
    return page.render(nonce=NONCE_SLOT, **values).encode()


def built_page_response(
    body: bytes, lang: Lang, /, *, cache_control: str, headers: Mapping[str, str] | None = None
) -> HTMLResponse:
    """A page written by ``built_page``, with a nonce of its own, as ``page_response`` answers."""
    nonce = secrets.token_urlsafe(16)
    return HTMLResponse(
        body.replace(NONCE_SLOT.encode(), nonce.encode()),
        headers={
            "Cache-Control": cache_control,
            **(headers or {}),
            "Content-Security-Policy": page_policy(nonce),
            **language_headers(lang),
        },
    )
