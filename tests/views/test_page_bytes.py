"""The scoring page's bytes on the wire (Debian's headless Chromium): what the server sends
for the page itself (its HTML, scripts, styles, manifest, icons and service worker; not the
table's data under /v1/) on a first load in a fresh browser, and on a repeat load with the
cache warm. Counted at the server (an ASGI wrapper round the app), so that what the service
worker fetches counts too. The figures are printed; a repeat load must not send the scripts
and styles again (they are cached for good under content-hashed names)."""

from __future__ import annotations

import time

from tests.support.served import served
from tests.views.test_browser import browser  # noqa: F401  (the browser fixture)
from tests.views.test_score_page_browser import link


class Counting:
    """The app, counting the bytes of each answer (its head as HTTP/1.1 writes it, its body)."""

    def __init__(self, app):
        self.app = app
        self.sent: list[tuple[str, int]] = []

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path = scope["path"]

        async def counted(message):
            if message["type"] == "http.response.start":
                size = 17 + sum(len(k) + len(v) + 4 for k, v in message.get("headers", []))
            elif message["type"] == "http.response.body":
                size = len(message.get("body", b""))
            else:
                size = 0
            self.sent.append((path, size))
            await send(message)

        return await self.app(scope, receive, counted)

    def take(self) -> tuple[int, int, dict[str, int]]:
        """The page's bytes, the data's (/v1/), and the page's by path; then counting anew."""
        page, data, paths = 0, 0, {}
        for path, size in self.sent:
            if path.startswith("/v1/"):
                data += size
            else:
                page += size
                key = path.split("/")[-1] if not path.startswith("/score/") or path.count("/") > 2 else "page"
                paths[key] = paths.get(key, 0) + size
        self.sent = []
        return page, data, paths


def test_scoring_page_bytes_first_and_repeat_load(browser, app, api):  # noqa: F811
    counting = Counting(app)
    table = api.table(players=["Anna", "Boris", "Vera"], convention="piter")
    with served(counting) as url:
        page = url + link(api, table["id"]) + "?lang=ru"

        def load():
            browser.get(page)
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                ready = browser.execute_script("return document.body.dataset.ready")
                controlled = browser.execute_script(
                    "return !!navigator.serviceWorker.controller && caches.keys().then(k => k.length > 0)"
                )
                if ready == "true" and controlled:
                    break
                time.sleep(0.1)
            time.sleep(1.0)  # the service worker's own fetches settle
            return counting.take()

        first = load()
        repeat = load()
    print(f"\nfirst load: page {first[0]} B, data {first[1]} B; {first[2]}")
    print(f"repeat load: page {repeat[0]} B, data {repeat[1]} B; {repeat[2]}")
    assert first[0] > 0 and repeat[0] > 0
