"""The pages' scripts, styles and icons (``app/static/``), served under content-hashed names
(``/static/score.3f9a1c0d2b7e.js``): a name changes with its content, so an answer may be
kept for good (``immutable``) and a page written after a release asks for the new files.

The files are read once, at import; the pages name them through the templates' ``asset``
(app/kit/pages.py). An old or unknown name is a 404: a page is never given another file's
content under a name cached for good."""

from __future__ import annotations

import hashlib
import mimetypes
from dataclasses import dataclass
from importlib import resources

from fastapi import APIRouter, Response

from app.kit.errors import NotFound

PREFIX = "/static/"
CACHED_FOR_GOOD = "public, max-age=31536000, immutable"
TYPES = {".js": "text/javascript", ".css": "text/css", ".png": "image/png", ".svg": "image/svg+xml"}


@dataclass(frozen=True)
class Asset:
    name: str  # as the templates name it: "score.js"
    url: str  # as the page asks for it: "/static/score.3f9a1c0d2b7e.js"
    body: bytes
    media_type: str


def _read() -> dict[str, Asset]:
    out = {}
    for file in sorted(resources.files("app").joinpath("static").iterdir(), key=lambda f: f.name):
        if not file.is_file() or file.name.startswith("."):
            continue
        body = file.read_bytes()
        stem, dot, ext = file.name.rpartition(".")
        digest = hashlib.sha256(body).hexdigest()[:12]
        media = TYPES.get(dot + ext) or mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        out[file.name] = Asset(file.name, f"{PREFIX}{stem}.{digest}.{ext}", body, media)
    return out


ASSETS = _read()
_BY_URL = {a.url: a for a in ASSETS.values()}
# Every file's version at once: what the scoring page's service worker keeps changes with it.
VERSION = hashlib.sha256("".join(a.url for a in ASSETS.values()).encode()).hexdigest()[:12]


def asset_url(name: str) -> str:
    """The URL a page names a file by (``"score.js"`` → ``"/static/score.<hash>.js"``)."""
    return ASSETS[name].url


router = APIRouter()


@router.get(PREFIX + "{name}", include_in_schema=False)
def static_file(name: str) -> Response:
    found = _BY_URL.get(PREFIX + name)
    if found is None:
        raise NotFound("no such file")
    return Response(found.body, media_type=found.media_type, headers={"Cache-Control": CACHED_FOR_GOOD})
