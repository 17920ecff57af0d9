"""Profile the posting path of the running service with py-spy (issue 5).

    python -m bench.profile                    # SQLite, 8 clients, 15 s
    python -m bench.profile --db postgres --clients 1 --seconds 20 --out /tmp/post.md

Starts the service as ``prefscore serve`` does (one worker), loads it with wrk posting
all-pass deals (each client on its own table, as ``bench.http`` does), and samples the
server process meanwhile with ``py-spy record --format raw`` (sampling from outside, so the
profiler's cost stays out of the process; idle threads are not sampled, so what is counted is
CPU time). The collapsed stacks are summarised as:

- self time by layer (the package of the innermost frame: app/kit, app/render, the domains,
  app/rules, sqlalchemy, the database driver, fastapi/starlette, pydantic, uvicorn, ...);
- the top functions by inclusive time (share of samples with that function on the stack).

py-spy comes from the ``bench`` extra of pyproject.toml. The raw stacks are kept under
``bench/results/`` (git-ignored), for a flame graph (e.g. speedscope) if wanted.
"""

from __future__ import annotations

import argparse
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from bench import http_mix
from bench.http import (
    ALLPASS_BODY,
    RESULTS,
    ROOT,
    Client,
    Load,
    Postgres,
    ensure_wrk,
    git_commit,
    migrate,
    new_table,
    run_wrk,
    server_env,
    service_server,
)

FRAME = re.compile(r"^(?P<func>.*) \((?P<file>[^()]*?)(?::(?P<line>\d+))?\)$")

LAYERS = (
    ("app/kit/", "app/kit"),
    ("app/rules/", "app/rules"),
    ("app/render/", "app/render"),
    ("app/", "app (other)"),
    ("sqlalchemy/", "sqlalchemy"),
    ("psycopg", "psycopg (driver, and waiting for PostgreSQL)"),
    ("sqlite3/", "sqlite3 (driver)"),
    ("fastapi/", "fastapi"),
    ("starlette/", "starlette"),
    ("pydantic_core/", "pydantic"),
    ("pydantic/", "pydantic"),
    ("uvicorn/", "uvicorn"),
    ("anyio/", "anyio (thread pool)"),
    ("json/", "json (stdlib)"),
    ("asyncio/", "asyncio"),
    ("threading.py", "threading"),
    ("concurrent/", "threading"),
    ("logging/", "logging"),
    ("uuid.py", "stdlib (other)"),
)


def layer_of(path: str) -> str:
    p = path.replace("\\", "/")
    for marker, name in LAYERS:
        if marker in p:
            # "app/" must be the project's, not a path like site-packages/.../app/...
            if marker.startswith("app/") and "site-packages" in p:
                continue
            return name
    if "site-packages" in p:
        pkg = p.split("site-packages/", 1)[1].split("/", 1)[0]
        return pkg
    if "/lib/python" in p:
        return "stdlib (other)"
    return p or "?"


def short(path: str) -> str:
    p = path.replace("\\", "/")
    if "site-packages/" in p:
        return p.split("site-packages/", 1)[1]
    if str(ROOT) in p:
        return p.split(str(ROOT) + "/", 1)[1]
    m = re.search(r"/lib/python3\.\d+/(.*)$", p)
    return m.group(1) if m else p


def parse_raw(text: str) -> list[tuple[list[tuple[str, str]], int]]:
    stacks = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        frames = []
        for part in stack.split(";"):
            m = FRAME.match(part.strip())
            if m:
                frames.append((m.group("func"), m.group("file")))
            # other parts: process / thread names
        stacks.append((frames, int(count)))
    return stacks


# Innermost frames of a thread that waits (py-spy's idle detection does not see through
# these here): an idle pool thread waiting for work, the event loop in select().
WAITING = {
    ("wait", "threading.py"),
    ("Condition.wait", "threading.py"),
    ("Event.wait", "threading.py"),
    ("Runner.run", "asyncio/runners.py"),
    ("run", "asyncio/runners.py"),
    ("BaseSelector.select", "selectors.py"),
    ("EpollSelector.select", "selectors.py"),
}

# Frames that are on every stack of a thread and say nothing about the request.
WRAPPERS = (
    "click/",
    "uvicorn/main.py",
    "uvicorn/server.py",
    "uvicorn/_compat.py",
    "asyncio/runners.py",
    "asyncio/base_events.py",
    "asyncio/events.py",
    "threading.py",
    "<string>",
    "app/cli/main.py",
    "anyio/_backends/_asyncio.py:WorkerThread.run",
)


def is_waiting(func: str, file: str) -> bool:
    f = short(file)
    return any(func == w_func and f.endswith(w_file) for w_func, w_file in WAITING)


def is_write_lock_wait(frames: list[tuple[str, str]]) -> bool:
    """A thread queueing for SQLite's one writer: in BEGIN IMMEDIATE (SQLite's busy handler
    sleeping, inside the "begin" event of app/kit/db/engine.py), or on the in-process writer lock
    taken before it (app/kit/db/engine.py Database.write)."""
    func, file = frames[-1]
    f = short(file)
    if f == "app/kit/db/engine.py" and func == "Database.write":
        return True
    return func.endswith("do_execute") and any(fn.endswith("_on_begin") for fn, _ in frames)


def summarise(stacks: list[tuple[list[tuple[str, str]], int]], top: int) -> dict:
    layers: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    self_time: Counter[str] = Counter()
    waiting = 0
    lock_wait = 0
    total = 0
    for frames, n in stacks:
        if not frames:
            continue
        func, file = frames[-1]
        if is_waiting(func, file):
            waiting += n
            continue
        if is_write_lock_wait(frames):
            lock_wait += n
            continue
        total += n
        layers[layer_of(file)] += n
        self_time[f"{short(file)}:{func}"] += n
        for name in {f"{short(fl)}:{fn}" for fn, fl in frames}:
            if not any(w in name for w in WRAPPERS):
                inclusive[name] += n
    return {
        "samples": total,
        "waiting": waiting,
        "lock_wait": lock_wait,
        "layers": layers.most_common(),
        "inclusive": inclusive.most_common(top),
        "self": self_time.most_common(top),
    }


def markdown(summary: dict, title: str, meta: str) -> str:
    total = summary["samples"] or 1
    out = [
        f"### {title}",
        "",
        meta,
        "",
        f"{summary['samples']} busy samples (shares below are of these); "
        f"{summary['waiting']} samples of idle pool threads and of the event loop in select() left out"
        + (
            f"; {summary['lock_wait']} samples of threads queueing for SQLite's one writer "
            f"(BEGIN IMMEDIATE or the in-process writer lock) left out too."
            if summary["lock_wait"]
            else "."
        ),
        "",
        "| layer (self time) | share |",
        "|---|---:|",
    ]
    for name, n in summary["layers"]:
        if n / total >= 0.005:
            out.append(f"| {name} | {100 * n / total:.1f}% |")
    out += ["", "| function (inclusive) | share |", "|---|---:|"]
    for name, n in summary["inclusive"]:
        out.append(f"| `{name}` | {100 * n / total:.1f}% |")
    out += ["", "| function (self) | share |", "|---|---:|"]
    for name, n in summary["self"]:
        out.append(f"| `{name}` | {100 * n / total:.1f}% |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.profile", description=__doc__.split("\n\n")[0])
    p.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite")
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--seconds", type=int, default=15)
    p.add_argument("--rate", type=int, default=250, help="py-spy samples per second")
    p.add_argument(
        "--gil",
        action="store_true",
        help="sample only the thread holding the GIL (the Python work, without the waits)",
    )
    p.add_argument("--top", type=int, default=25)
    p.add_argument(
        "--path",
        choices=("post", "mix", "sheet304", "sheet"),
        default="post",
        help="what the clients do: post deals (default), post bench/http.py's mix of tables (a rated "
        "one, one of an owner with a webhook endpoint, a tournament's), read the sheet with "
        "If-None-Match, or without",
    )
    p.add_argument("--title", default=None)
    p.add_argument("--out", help="write the Markdown summary here too")
    args = p.parse_args(argv)

    pyspy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(pyspy).exists():
        sys.exit("bench.profile: py-spy is missing: pip install -e '.[bench]'")
    wrk = ensure_wrk()
    commit = git_commit()
    with tempfile.TemporaryDirectory(prefix="prefscore-profile-") as tmpdir:
        tmp = Path(tmpdir)
        pg = Postgres() if args.db == "postgres" else None
        url = pg.url if pg else f"sqlite:///{tmp / 'profile.db'}"
        if pg:
            pg.__enter__()
        try:
            admin = "pk_bench_" + secrets.token_urlsafe(24)
            env = server_env(url, admin)
            migrate(env)
            server = service_server(f"{args.db}-profile", env, 1)
            receiver = http_mix.Receiver()  # the mix's webhook endpoint (started for it only)
            server.start(tmp)
            try:
                server.wait_ready()
                c = Client(server.port, admin)
                _, created = c.expect(201, "POST", "/v1/keys", {"owner": "bench"})
                hooked_key = c.expect(201, "POST", "/v1/keys", {"owner": "bench-hooked"})[1]["key"]
                c.key = created["key"]
                tables = [new_table(c) for _ in range(args.clients)]
                auth = [f"Authorization: Bearer {created['key']}"]
                if args.path == "post":
                    load = Load(
                        "POST", [f"/v1/tables/{t}/deals" for t in tables], ALLPASS_BODY, auth, expect=201
                    )
                elif args.path == "mix":
                    hooked = Client(server.port, hooked_key)
                    mixed = http_mix.mix(c, hooked, hooked_key, receiver.__enter__().url, args.clients)
                    hooked.close()
                    load = Load("POST", mixed.paths, ALLPASS_BODY, auth, expect=201)
                else:
                    tags = []
                    for t in tables:
                        c.expect(201, "POST", f"/v1/tables/{t}/deals", ALLPASS_BODY)
                        hdrs, _ = c.expect(200, "GET", f"/v1/tables/{t}/sheet")
                        tags.append(next(v for k, v in hdrs.items() if k.lower() == "etag"))
                    paths = [f"/v1/tables/{t}/sheet" for t in tables]
                    if args.path == "sheet304":
                        load = Load("GET", paths, None, auth, tags, expect=304)
                    else:
                        load = Load("GET", paths, None, auth)
                c.close()
                run_wrk(wrk, server, load, args.clients, 2, tmp, pg is not None)  # warm-up
                # The server process is `python -c ... serve` running uvicorn in-process (one
                # worker): sample that pid.
                raw = tmp / "stacks.txt"
                spy = subprocess.Popen(
                    [pyspy, "record", "--format", "raw", "--rate", str(args.rate),
                     "--duration", str(args.seconds + 1), "--pid", str(server.proc.pid), "--output", str(raw)]
                    + (["--gil"] if args.gil else []),
                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                )  # fmt: skip
                time.sleep(0.5)
                res = run_wrk(wrk, server, load, args.clients, args.seconds, tmp, pg is not None)
                _, err = spy.communicate(timeout=args.seconds + 30)
                if not raw.exists():
                    sys.exit(f"py-spy wrote nothing: {err.decode(errors='replace')}")
                text = raw.read_text()
            finally:
                server.stop()
                receiver.__exit__()
        finally:
            if pg:
                pg.__exit__(None, None, None)
    summary = summarise(parse_raw(text), args.top)
    meta = (
        f"commit {commit['short']}{' (with uncommitted changes)' if commit['dirty_paths'] else ''}, "
        f"{args.db}, {args.clients} client(s), {args.seconds}s, {res['rps']:.1f} deals/s, "
        f"p50 {res['p50_ms']:.2f} ms, p99 {res['p99_ms']:.2f} ms; server CPU {res['cpu_s']['server']:.1f}s, "
        f"other load on the machine {res['cpu_s']['other']:.1f} CPU-s"
    )
    title = (
        args.title
        or {
            "post": "posting a deal",
            "mix": "posting the mix",
            "sheet304": "sheet with If-None-Match (304)",
            "sheet": "sheet (200)",
        }[args.path]
    )
    md = markdown(summary, f"{title}: {args.db}, {args.clients} client(s)", meta)
    RESULTS.mkdir(exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    (RESULTS / f"profile-{stamp}-{commit['short']}-{args.db}-{args.path}.txt").write_text(text)
    (RESULTS / f"profile-{stamp}-{commit['short']}-{args.db}-{args.path}.md").write_text(md)
    if args.out:
        Path(args.out).write_text(md)
    print(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
