"""Webhooks: what announcing a change costs a post, how fast one process delivers, that the
outbox stays bounded, and that one owner's silent receiver holds back no other owner.

    python -m bench.webhooks                  # SQLite and PostgreSQL (a fresh database on 127.0.0.1:5432)
    python -m bench.webhooks --db postgres --delivering-only
    python -m bench.webhooks --quick          # ~1 minute a database
    python -m bench.webhooks --delivering-only --before main~3    # before -> after, side by side

1. **Announcing**: the CPU seconds of this process per ``POST deal`` through the app's whole
   ASGI stack (bench/asgi.py's way), for an owner with no webhook endpoint and for one with
   one active endpoint that wants ``deal.posted`` (its post writes one outbox row more, on
   PostgreSQL inside the post's one statement); blocks of ``-n`` posts alternate between the
   two, ``--rounds`` blocks each, and the best and the median block are kept. No deliverer
   runs meanwhile. Target: at most 10 % more.
2. **Delivering**: ``--deliveries`` outbox rows written as posts write them, shared by
   ``--owners`` owners of one endpoint each, then one process's deliverer
   (app/webhooks/delivery.py, the settings' defaults but those named, on the server's event
   loop: uvloop, ``--loop``) sends them to a receiver in another process on 127.0.0.1 that
   answers 204 at once; deliveries per second from the first claim to the last outcome
   written, and the CPU seconds of the process per delivery. Targets (issue 36, for
   PostgreSQL): at least 1,000 a second, at most 1 ms of CPU each.
3. **Bounded**: with ``PREFSCORE_WEBHOOKS_RETENTION`` at 1 s, the rows left in the outbox a
   few seconds after the last delivery (the deliverer's own cleanup deletes them).
4. **Fan-out** (``--fanout N``): the CPU seconds of this process per ``POST deal`` with its
   deliveries, for an owner with N endpoints that want ``deal.posted`` (each deal sent N
   times, to the receiver, by the app's own deliverer) against one with none: from the first
   post to the last outcome written, ``--fanout-deals`` deals each.
5. **Fair**: part 2 again, in a fresh database, behind as many older deliveries of one more
   owner whose receiver reads every request and never answers (a 5 s timeout): the other
   owners' deliveries a second as a share of part 2's. Target: at least 0.8.

``--before REF`` runs parts 2, 3 and 5 in a checkout of REF (with this bench copied into it)
and in this tree, alternating, ``--compare-rounds`` runs each, each in its own process, and
keeps each side's median: the before -> after of one run on one machine.

The targets go through bench/targets.py (bench/results/targets-webhooks-<time>-<commit>.json,
with every part's figures).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.asgi import ADMIN, Call
from bench.http import ALLPASS_BODY, Postgres

# --------------------------------------------------------------------------- the receiver


async def _serve(port: int, silent: int = 0) -> None:
    """HTTP/1.1 keep-alive, 204 to every request, nothing else: as cheap as a receiver gets;
    on ``silent`` (when given) every request is read and never answered."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":", 1)[1])
                if length:
                    await reader.readexactly(length)
                writer.write(b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    async def hold(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while await reader.read(65536):
                pass
        except ConnectionError:
            pass
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", port, backlog=512)
    if silent:
        await asyncio.start_server(hold, "127.0.0.1", silent, backlog=512)
    async with server:
        await server.serve_forever()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --------------------------------------------------------------------------- 1. announcing


async def announcing(url: str, n: int, rounds: int) -> dict[str, float]:
    from app.kit.settings import Settings
    from app.main import create_app

    settings = Settings(
        database_url=url, admin_key=ADMIN, max_deals_per_table=10**6, webhooks_deliver=False,
        webhooks_allowed_networks=("127.0.0.0/8",),
    )  # fmt: skip
    app = create_app(settings)
    admin = {"Authorization": f"Bearer {ADMIN}"}
    posts: dict[str, Call] = {}
    async with app.router.lifespan_context(app):
        for owner in ("quiet", "hooked"):
            status, _, body = await Call(
                app, "POST", "/v1/keys", json.dumps({"owner": owner}).encode(), admin
            )()
            assert status == 201, body
            auth = {"Authorization": f"Bearer {json.loads(body)['key']}"}
            if owner == "hooked":
                hook = json.dumps({"url": "http://127.0.0.1:9/hook", "types": ["deal.posted"]}).encode()
                status, _, body = await Call(app, "POST", "/v1/webhooks", hook, auth)()
                assert status == 201, body
                hooked = (json.loads(body)["id"], auth)
            table = b'{"players":["Anna","Boris","Vera"],"convention":"sochi","first_dealer":0}'
            status, _, body = await Call(app, "POST", "/v1/tables", table, auth)()
            assert status == 201, body
            posts[owner] = Call(
                app, "POST", f"/v1/tables/{json.loads(body)['id']}/deals", ALLPASS_BODY.encode(), auth
            )
            for _ in range(20):  # warm
                assert (await posts[owner]())[0] == 201
        # Blocks of ``n`` posts, the owners alternating block by block, ``rounds`` blocks each:
        # on a shared machine the best block and the median one are both kept.
        per_block: dict[str, list[float]] = {owner: [] for owner in posts}
        for _ in range(rounds):
            for owner, call in posts.items():
                started = time.process_time()
                for _ in range(n):
                    assert (await call())[0] == 201
                per_block[owner].append((time.process_time() - started) / n)
        # Its deliveries (to nowhere) go with it: the delivering run sends only its own.
        status, _, _ = await Call(app, "DELETE", f"/v1/webhooks/{hooked[0]}", b"", hooked[1])()
        assert status == 204
    return {
        **{f"best, {owner}": min(v) * 1e6 for owner, v in per_block.items()},
        **{f"median, {owner}": statistics.median(v) * 1e6 for owner, v in per_block.items()},
    }


# --------------------------------------------------------------------------- 4. fan-out


async def fanning_out(url: str, endpoints: int, deals: int, receiver: str) -> dict[str, Any]:
    from app.kit.settings import Settings
    from app.main import create_app

    settings = Settings(
        database_url=url, admin_key=ADMIN, max_deals_per_table=10**6, webhooks_allowed_networks=("127.0.0.0/8",),
        webhooks_poll_interval=0.2,
    )  # fmt: skip
    app = create_app(settings)
    admin = {"Authorization": f"Bearer {ADMIN}"}
    cpu: dict[str, float] = {}
    async with app.router.lifespan_context(app):
        deliverer = app.state.webhooks
        for owner, count in (("alone", 0), ("fanned", endpoints)):
            status, _, body = await Call(
                app, "POST", "/v1/keys", json.dumps({"owner": owner}).encode(), admin
            )()
            assert status == 201, body
            auth = {"Authorization": f"Bearer {json.loads(body)['key']}"}
            for i in range(count):
                hook = json.dumps({"url": f"{receiver}{i}", "types": ["deal.posted"]}).encode()
                status, _, body = await Call(app, "POST", "/v1/webhooks", hook, auth)()
                assert status == 201, body
            table = b'{"players":["Anna","Boris","Vera"],"convention":"sochi","first_dealer":0}'
            status, _, body = await Call(app, "POST", "/v1/tables", table, auth)()
            assert status == 201, body
            post = Call(
                app, "POST", f"/v1/tables/{json.loads(body)['id']}/deals", ALLPASS_BODY.encode(), auth
            )
            for _ in range(5):  # warm, and its deliveries out of the way
                assert (await post())[0] == 201
            while deliverer.delivered < 5 * count:
                await asyncio.sleep(0.01)
            await deliverer.drain(30)
            before, started = deliverer.delivered, time.process_time()
            for _ in range(deals):
                assert (await post())[0] == 201
            deadline = time.monotonic() + 300
            while deliverer.delivered - before < deals * count and time.monotonic() < deadline:
                await asyncio.sleep(0.005)
            await deliverer.drain(30)
            assert deliverer.delivered - before >= deals * count, "not every delivery went out"
            cpu[owner] = (time.process_time() - started) / deals
    return {
        "endpoints": endpoints,
        "deals": deals,
        "deal_cpu_ms_no_endpoint": round(cpu["alone"] * 1000, 3),
        "deal_cpu_ms_with_deliveries": round(cpu["fanned"] * 1000, 3),
        "times": round(cpu["fanned"] / cpu["alone"], 1),
    }


# --------------------------------------------------------------------------- 2. and 3. delivering


def _fill(url: str, owners: dict[str, tuple[str, int]]) -> None:
    """Per owner one endpoint (its URL) and so many pending deliveries, written by the posts'
    statement; the owners' in the order given, each one's rows older than the next one's."""
    from datetime import timedelta

    from app.events.outbox import event_params
    from app.events.repository import ENQUEUE_POSTED
    from app.kit.db import make_database
    from app.kit.db.models import utcnow
    from app.kit.settings import Settings
    from app.webhooks import service
    from app.webhooks.addresses import networks

    db = make_database(Settings(database_url=url))
    try:
        first = utcnow() - timedelta(seconds=len(owners))
        for place, (owner, (receiver, count)) in enumerate(owners.items()):
            service.create(
                db, owner, receiver, ["deal.posted"], None, service.Policy(networks(["127.0.0.0/8"]))
            )
            with db.write_core() as conn:
                at = first + timedelta(seconds=place)
                params = [
                    event_params(owner, "t" * 32, i, "deal.posted", at, deal=i, deal_count=i)
                    for i in range(1, count + 1)
                ]
                conn.execute(ENQUEUE_POSTED, params)
    finally:
        db.dispose()


async def delivering(url: str, count: int, *, silent: str = "", timeout: float = 15) -> dict[str, Any]:
    """Run one deliverer until ``count`` deliveries went through (the silent owner's, which
    never do, not counted): its deliveries a second and its CPU per delivery."""
    from sqlalchemy import func, select

    from app.events.orm import WebhookDeliveryRow
    from app.kit.db import make_database
    from app.kit.settings import Settings
    from app.webhooks.delivery import Deliverer

    settings = Settings(
        database_url=url, webhooks_allowed_networks=("127.0.0.0/8",), webhooks_retention=1.0, webhooks_poll_interval=0.2,
        webhooks_timeout=timeout,
    )  # fmt: skip
    db = make_database(settings)
    table = WebhookDeliveryRow.__table__

    def counts() -> dict[str, int]:
        with db.lookup() as conn:
            where = table.c.owner != silent
            query = select(table.c.state, func.count()).where(where).group_by(table.c.state)
            return dict(conn.execute(query).all())

    deliverer = Deliverer(db, settings)
    cpu0, t0 = time.process_time(), time.monotonic()
    deliverer.start()
    try:
        deadline = time.monotonic() + 300
        while deliverer.delivered < count and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        elapsed, cpu = time.monotonic() - t0, time.process_time() - cpu0
        delivered, attempts = deliverer.delivered, deliverer.sent
        if silent:  # its deliveries are in flight until the timeout: not waited for
            return {"deliveries": count, "delivered": delivered, "seconds": round(elapsed, 3),
                    "deliveries_per_second": round(delivered / elapsed, 1)}  # fmt: skip
        await deliverer.drain(30)
        left_at_end = sum(counts().values())
        await asyncio.sleep(3)  # the deliverer's cleanup, with a retention of 1 s
        left_after = sum(counts().values())
    finally:
        await deliverer.stop()
        db.dispose()
    return {
        "deliveries": count,
        "delivered": delivered,
        "attempts": attempts,
        "seconds": round(elapsed, 3),
        "deliveries_per_second": round(count / elapsed, 1),
        "cpu_ms_per_delivery": round(cpu / count * 1000, 3),
        "outbox_rows_at_the_end": left_at_end,
        "outbox_rows_3s_later": left_after,
        "in_flight_per_endpoint": settings.webhooks_in_flight_per_endpoint,
        "batch": settings.webhooks_batch,
        "concurrency": settings.webhooks_concurrency,
    }


def _loop_run(coro: Any, loop: str) -> Any:
    if loop == "uvloop":
        import uvloop

        return uvloop.run(coro)
    return asyncio.run(coro)


def delivering_runs(args: argparse.Namespace, port: int, silent_port: int) -> dict[str, Any]:
    """2. (and 3.) the owners' deliveries, each in a fresh database; then the fairness run:
    the same deliveries behind as many of one owner whose receiver never answers."""
    from app.kit.db import migrate

    out: dict[str, Any] = {}
    owners = [f"owner{i}" for i in range(args.owners)]
    each = args.deliveries // args.owners
    receiver = f"http://127.0.0.1:{port}/hook"
    with _database(args.db) as url:
        migrate.upgrade(url)
        _fill(url, {o: (receiver, each) for o in owners})
        out["delivering"] = _loop_run(delivering(url, each * len(owners)), args.loop)
    with _database(args.db) as url:
        migrate.upgrade(url)
        silent = {"silent": (f"http://127.0.0.1:{silent_port}/hook", each * len(owners))}
        _fill(url, silent | {o: (receiver, each) for o in owners})
        f = _loop_run(delivering(url, each * len(owners), silent="silent", timeout=5), args.loop)
    f["share_kept"] = round(f["deliveries_per_second"] / out["delivering"]["deliveries_per_second"], 3)
    out["fairness"] = f
    return out


class _database:
    """A fresh database of the kind: a file in a temporary folder, or a PostgreSQL database."""

    def __init__(self, db: str) -> None:
        self.db = db

    def __enter__(self) -> str:
        if self.db == "sqlite":
            self.tmp = tempfile.TemporaryDirectory(prefix="prefscore-webhooks-")
            return f"sqlite:///{Path(self.tmp.name) / 'bench.db'}"
        self.pg = Postgres().__enter__()
        return self.pg.url

    def __exit__(self, *exc: object) -> None:
        if self.db == "sqlite":
            self.tmp.cleanup()
        else:
            self.pg.__exit__(*exc)


def _announcing_figures(cpu: dict[str, float], args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"posts_per_block": args.n, "blocks_each": args.rounds}
    for which in ("best", "median"):
        quiet, hooked = cpu[f"{which}, quiet"], cpu[f"{which}, hooked"]
        out[which] = {
            "post_cpu_us_no_endpoint": round(quiet),
            "post_cpu_us_one_endpoint": round(hooked),
            "added": f"{(hooked / quiet - 1) * 100:+.1f} %",
        }
        print(
            f"announcing ({which} block): POST deal {quiet:.0f} µs CPU without an endpoint, {hooked:.0f} µs with one ({out[which]['added']})"
        )
    return out


def side(args: argparse.Namespace) -> dict[str, Any]:
    """Every part asked for, on ``args.db``, by the ``app`` this process imports."""
    from app.kit.db import migrate

    out: dict[str, Any] = {}
    if not args.delivering_only:
        with _database(args.db) as url:
            migrate.upgrade(url)
            out["announcing"] = _announcing_figures(asyncio.run(announcing(url, args.n, args.rounds)), args)
    port, silent_port = free_port(), free_port()
    receiver = subprocess.Popen(
        [sys.executable, "-m", "bench.webhooks", "--receiver", str(port), "--silent", str(silent_port)],
        cwd=Path(__file__).resolve().parents[1],
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the receiver did not start"
                time.sleep(0.05)
        if args.fanout:
            with _database(args.db) as url:
                migrate.upgrade(url)
                out["fanout"] = f = asyncio.run(
                    fanning_out(url, args.fanout, args.fanout_deals, f"http://127.0.0.1:{port}/hook")
                )
            print(
                f"fan-out: a deal {f['deal_cpu_ms_no_endpoint']} ms CPU without an endpoint, {f['deal_cpu_ms_with_deliveries']} ms "
                f"with its {f['endpoints']} deliveries ({f['times']}x)"
            )
        out |= delivering_runs(args, port, silent_port)
    finally:
        receiver.terminate()
        receiver.wait(10)
    d, f = out["delivering"], out["fairness"]
    print(
        f"[{args.db}] delivering: {d['delivered']} of {d['deliveries']} ({args.owners} owners) in {d['seconds']} s: "
        f"{d['deliveries_per_second']}/s, {d['cpu_ms_per_delivery']} ms CPU each; outbox rows "
        f"{d['outbox_rows_at_the_end']} at the end, {d['outbox_rows_3s_later']} 3 s later (retention 1 s); "
        f"with one more owner's receiver silent: {f['deliveries_per_second']}/s ({f['share_kept']:.0%} kept)"
    )
    return out


def _before_tree(ref: str, into: Path) -> Path:
    """A checkout of ``ref`` with this bench in it: its ``app`` measured by these very runs."""
    repo = Path(__file__).resolve().parents[1]
    tree = into / "before"
    subprocess.run(
        ["git", "worktree", "add", "--detach", str(tree), ref], cwd=repo, check=True, capture_output=True
    )
    for name in ("webhooks.py", "targets.py", "http.py", "asgi.py"):
        (tree / "bench" / name).write_text((repo / "bench" / name).read_text())
    return tree


def compared(args: argparse.Namespace, db: str, tree: Path, into: Path) -> dict[str, Any]:
    """The delivering runs of ``--before``'s tree and of this one, alternating, each in its own
    process; the median of each side's runs."""
    repo = Path(__file__).resolve().parents[1]
    runs: dict[str, list[dict[str, Any]]] = {"before": [], "after": []}
    for i in range(args.compare_rounds):
        for which, cwd in (("before", tree), ("after", repo)):
            path = into / f"{which}-{db}-{i}.json"
            argv = ["--db", db, "--delivering-only", "--deliveries", str(args.deliveries)]
            argv += ["--owners", str(args.owners), "--loop", args.loop, "--child", str(path)]
            print(
                f"[{db}] {which} ({'the --before tree' if which == 'before' else 'this tree'}), run {i + 1}:"
            )
            subprocess.run([sys.executable, "-m", "bench.webhooks", *argv], cwd=cwd, check=True)
            runs[which].append(json.loads(path.read_text()))

    def median(which: str, part: str, key: str) -> float:
        return statistics.median(r[part][key] for r in runs[which])

    return {
        which: {
            "deliveries_per_second": median(which, "delivering", "deliveries_per_second"),
            "cpu_ms_per_delivery": median(which, "delivering", "cpu_ms_per_delivery"),
            "share_kept": median(which, "fairness", "share_kept"),
            "runs": runs[which],
        }
        for which in runs
    }


def figures(db: str, rate: float, cpu: float, share: float) -> list[Any]:
    from bench.targets import Figure

    return [
        Figure("webhook deliveries a second, one process", rate, 1000, db=db),
        Figure("CPU per delivery", cpu, 1.0, at_least=False, unit=" ms", db=db),
        Figure("deliveries a second kept with one owner's receiver silent", share, 0.8, db=db),
    ]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.webhooks", description=__doc__.split("\n\n")[0])
    p.add_argument("--db", choices=("sqlite", "postgres", "both"), default="both")
    p.add_argument("--quick", action="store_true", help="fewer deliveries, posts and rounds (~1 minute)")
    p.add_argument("-n", type=int, default=50, help="posts per block")
    p.add_argument("--rounds", type=int, default=30, help="blocks per owner")
    p.add_argument("--deliveries", type=int, default=6000)
    p.add_argument("--owners", type=int, default=4, help="owners the deliveries are shared by")
    p.add_argument("--loop", choices=("uvloop", "asyncio"), default="uvloop", help="the server's is uvloop")
    p.add_argument("--delivering-only", action="store_true", help="parts 2 and 3 alone")
    p.add_argument(
        "--before", metavar="REF", help="the delivering runs of REF's tree too, alternating with this one's"
    )
    p.add_argument("--compare-rounds", type=int, default=3, help="runs of each side with --before")
    p.add_argument(
        "--fanout",
        type=int,
        default=0,
        metavar="N",
        help="part 4 too: a deal's CPU with N endpoints' deliveries",
    )
    p.add_argument("--fanout-deals", type=int, default=50)
    p.add_argument("--receiver", type=int, help=argparse.SUPPRESS)
    p.add_argument("--silent", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.receiver:
        asyncio.run(_serve(args.receiver, args.silent))
        return 0
    if args.quick:
        args.deliveries, args.n, args.rounds, args.compare_rounds = 2000, 20, 5, 1
    sink = open(os.devnull, "w")
    os.environ.setdefault("PREFSCORE_LOG_FORMAT", "json")
    logging.basicConfig(stream=sink)
    if args.child:
        Path(args.child).write_text(json.dumps(side(args)))
        return 0
    from bench.targets import report

    dbs = ["sqlite", "postgres"] if args.db == "both" else [args.db]
    res: dict[str, Any] = {}
    found: list[Any] = []
    with tempfile.TemporaryDirectory(prefix="prefscore-webhooks-") as tmp:
        tree = _before_tree(args.before, Path(tmp)) if args.before else None
        try:
            for db in dbs:
                args.db = db
                if tree is not None:
                    res[db] = c = compared(args, db, tree, Path(tmp))
                    after = c["after"]
                    rate, cpu, share = (
                        after["deliveries_per_second"],
                        after["cpu_ms_per_delivery"],
                        after["share_kept"],
                    )
                else:
                    res[db] = out = side(args)
                    rate = out["delivering"]["deliveries_per_second"]
                    cpu = out["delivering"]["cpu_ms_per_delivery"]
                    share = out["fairness"]["share_kept"]
                found += figures(db, rate, cpu, share)
        finally:
            if tree is not None:
                subprocess.run(["git", "worktree", "remove", "--force", str(tree)], check=False)
    if tree is not None:
        print(f"before ({args.before}) -> after, medians of {args.compare_rounds} runs each:")
        for db in dbs:
            b, a = res[db]["before"], res[db]["after"]
            print(
                f"  [{db}] {b['deliveries_per_second']}/s -> {a['deliveries_per_second']}/s; "
                f"{b['cpu_ms_per_delivery']} -> {a['cpu_ms_per_delivery']} ms CPU a delivery; "
                f"share kept with a silent owner {b['share_kept']} -> {a['share_kept']}"
            )
    res.update(before=args.before, load=os.getloadavg(), python=sys.version.split()[0], loop=args.loop)
    report("webhooks", found, res)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
