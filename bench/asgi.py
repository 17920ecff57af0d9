"""CPU per request through the app's whole ASGI stack, in one process, without a network.

    python -m bench.asgi                    # SQLite, 400 requests a round, best of 5
    python -m bench.asgi --db postgres      # a fresh database on 127.0.0.1:5432

What one request costs the service's own code (middleware, framework, validation, use case,
database driver, logging), as the CPU seconds of this process (all threads: the thread pool
included) per request, the best of ``--rounds`` rounds. It leaves out uvicorn and the
network, and it is far less noisy than throughput on a shared machine, so each removed cost
can be measured by itself; ``bench/run`` (bench/http.py) gives the throughput ratios.

Measured: ``POST deal`` (an all-pass, no Idempotency-Key), ``GET sheet`` with a matching
``If-None-Match`` (304), the full ``GET sheet`` (200) and ``GET settlement``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import secrets
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.http import ALLPASS_BODY, Postgres

ADMIN = "pk_bench_" + secrets.token_urlsafe(24)


class Call:
    """One raw ASGI request: a scope, a body, the answer's status, headers and body."""

    def __init__(
        self, app: Any, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
    ):
        self.app = app
        hdrs = [(b"host", b"bench"), (b"content-length", str(len(body)).encode())]
        if body:
            hdrs.append((b"content-type", b"application/json"))
        hdrs += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
        self.scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
            "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
            "root_path": "", "headers": hdrs, "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000),
        }  # fmt: skip
        self.body = body

    async def __call__(self) -> tuple[int, dict[bytes, bytes], bytes]:
        sent = False

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": self.body, "more_body": False}
            await asyncio.sleep(3600)
            return {"type": "http.disconnect"}

        status, headers, chunks = 0, {}, []

        async def send(message: dict[str, Any]) -> None:
            nonlocal status, headers
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = dict(message.get("headers", ()))
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app(dict(self.scope), receive, send)
        return status, headers, b"".join(chunks)


async def measure(url: str, n: int, rounds: int, only: str = "") -> dict[str, float]:
    from app.kit.db import migrate
    from app.kit.settings import Settings
    from app.main import create_app

    migrate.upgrade(url)
    settings = Settings(database_url=url, admin_key=ADMIN, max_deals_per_table=10**6)
    app = create_app(settings)
    out: dict[str, float] = {}
    async with app.router.lifespan_context(app):
        status, _, body = await Call(
            app, "POST", "/v1/keys", b'{"owner":"bench"}', {"Authorization": f"Bearer {ADMIN}"}
        )()
        assert status == 201, body
        auth = {"Authorization": f"Bearer {json.loads(body)['key']}"}
        table = b'{"players":["Anna","Boris","Vera"],"convention":"sochi","first_dealer":0}'
        status, _, body = await Call(app, "POST", "/v1/tables", table, auth)()
        assert status == 201, body
        tid = json.loads(body)["id"]
        post = Call(app, "POST", f"/v1/tables/{tid}/deals", ALLPASS_BODY.encode(), auth)
        for _ in range(3):
            assert (await post())[0] == 201
        status, headers, _ = await Call(app, "GET", f"/v1/tables/{tid}/sheet", b"", auth)()
        etag = headers[b"etag"].decode()
        cases = {
            "POST deal": (post, 201),
            "GET sheet 304": (
                Call(app, "GET", f"/v1/tables/{tid}/sheet", b"", {**auth, "If-None-Match": etag}),
                304,
            ),
            "GET sheet": (Call(app, "GET", f"/v1/tables/{tid}/sheet", b"", auth), 200),
            "GET settlement": (Call(app, "GET", f"/v1/tables/{tid}/settlement", b"", auth), 200),
        }
        for name, (call, expect) in cases.items():
            if only and only not in name:
                continue
            best = float("inf")
            for _ in range(rounds):
                started = time.process_time()
                for _ in range(n):
                    got = (await call())[0]
                    if got != expect:
                        raise RuntimeError(f"{name}: {got}")
                best = min(best, (time.process_time() - started) / n)
            out[name] = best * 1e6
            if name == "POST deal":  # the 304 needs the ETag after these posts
                status, headers, _ = await Call(app, "GET", f"/v1/tables/{tid}/sheet", b"", auth)()
                cases["GET sheet 304"] = (
                    Call(
                        app,
                        "GET",
                        f"/v1/tables/{tid}/sheet",
                        b"",
                        {**auth, "If-None-Match": headers[b"etag"].decode()},
                    ),
                    304,
                )
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.asgi", description=__doc__.split("\n\n")[0])
    p.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite")
    p.add_argument("-n", type=int, default=400, help="requests per round")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--only", default="", help='only the requests whose name has this, e.g. "304"')
    args = p.parse_args(argv)
    # The access line is written as in production, to a file (not a terminal).
    sink = open(os.devnull, "w")
    os.environ.setdefault("PREFSCORE_LOG_FORMAT", "json")
    logging.basicConfig(stream=sink)
    with tempfile.TemporaryDirectory(prefix="prefscore-asgi-") as tmp:
        if args.db == "sqlite":
            res = asyncio.run(measure(f"sqlite:///{Path(tmp) / 'bench.db'}", args.n, args.rounds, args.only))
        else:
            with Postgres() as pg:
                res = asyncio.run(measure(pg.url, args.n, args.rounds, args.only))
    for name, us in res.items():
        print(f"{args.db:8} {name:16} {us:8.0f} µs CPU per request (best of {args.rounds} x {args.n})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
