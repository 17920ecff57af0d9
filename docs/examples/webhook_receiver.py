"""A minimal webhook receiver for prefscore: it verifies each delivery's signature with the
Standard Webhooks library, ignores a repeat (the same webhook-id), and for every posted deal
fetches the table's sheet as a PNG and saves it (where a bot would post it to its chat).

    pip install standardwebhooks httpx
    WEBHOOK_SECRET=whsec_… PREFSCORE_URL=https://score.example.org PREFSCORE_KEY=pk_… \
        PORT=8000 OUT_DIR=pictures python webhook_receiver.py

Register it with ``POST /v1/webhooks`` ({"url": "http://this-host:8000/", "types":
["deal.posted"]}); the answer's ``secret`` is WEBHOOK_SECRET (docs/webhooks.md)."""

import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urljoin

import httpx
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

WEBHOOK = Webhook(os.environ["WEBHOOK_SECRET"])
SERVER = os.environ["PREFSCORE_URL"].rstrip("/")
KEY = os.environ["PREFSCORE_KEY"]
OUT = Path(os.environ.get("OUT_DIR", "pictures"))
seen: set[str] = set()  # webhook-ids handled (a real receiver keeps them in its database)


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        try:
            event = WEBHOOK.verify(body, dict(self.headers))
        except WebhookVerificationError:
            return self.answer(400)  # not from our server, or too old: ignore it
        self.answer(204)  # answer at once; the work follows
        webhook_id = self.headers["webhook-id"]
        if webhook_id in seen:
            return  # a repeat: this one was handled already
        seen.add(webhook_id)
        if event["type"] == "deal.posted":
            data = event["data"]
            png = httpx.get(
                urljoin(SERVER + "/", data["links"]["png"]),
                headers={"Authorization": f"Bearer {KEY}"},
                timeout=30,
            )
            png.raise_for_status()
            OUT.mkdir(parents=True, exist_ok=True)
            (OUT / f"{data['table_id']}-{data['deal_number']}.png").write_bytes(png.content)

    def answer(self, status: int) -> None:
        self.send_response(status)
        self.send_header("content-length", "0")
        self.end_headers()


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(os.environ.get("PORT", "8000"))), Receiver).serve_forever()
