"""What a page's HTML hands its scripts, read as the browser reads it: the JSON block
``<script type="application/json" id="page-data">`` (app/kit/pages.py), and the scripts it
loads, which must be this server's static files only (the pages' policy: script-src 'self')."""

from __future__ import annotations

import json
import re
from typing import Any

DATA = re.compile(r'<script type="application/json" id="page-data">(.*?)</script>', re.S)


def page_data(html: str) -> Any:
    """The values the server wrote for the page's scripts."""
    return json.loads(DATA.search(html).group(1))


def only_own_scripts(page, client=None) -> list[str]:
    """The page runs no inline script, only files served from /static/ (each kept for good when
    ``client`` fetches them), and its policy allows no other; answers the scripts' URLs."""
    policy = page.headers["content-security-policy"]
    assert (
        "script-src 'self';" in policy
        and "nonce-" not in policy
        and "unsafe-inline';" not in policy.split("script-src")[1].split(";")[0]
    )
    tags = re.findall(r"<script[^>]*>", page.text)
    assert tags.count('<script type="application/json" id="page-data">') == 1
    sources = [re.fullmatch(r'<script src="(/static/[\w.-]+\.js)">', t).group(1) for t in tags[1:]]
    assert tags[0] == '<script type="application/json" id="page-data">' and len(sources) == len(tags) - 1 >= 2
    if client is not None:
        for url in sources:
            r = client.get(url)
            assert r.status_code == 200 and r.headers["content-type"].startswith("text/javascript")
            assert r.headers["cache-control"] == "public, max-age=31536000, immutable"
    return sources
