"""A PostgreSQL leader and its streaming replica, made for a test: a fresh cluster (initdb)
started on a free port in a temporary directory, a replica of it made by pg_basebackup -R
and started on another port, both with the machine's PostgreSQL 15 programs. The server
refuses to run as root: as root the programs run as the ``postgres`` user.

``pause_replay()`` holds the replica back (``pg_wal_replay_pause()``: it still receives the
leader's WAL but applies none), ``resume_replay()`` lets it catch up."""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import psycopg

BIN = Path("/usr/lib/postgresql/15/bin")


def available() -> str | None:
    """None when a pair can be made here, else why not."""
    if not (BIN / "pg_ctl").exists():
        return f"no PostgreSQL 15 programs in {BIN}"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no postgres user to run the server as"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ReplicaPair:
    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="prefscore-replica-"))
        self.as_root = os.geteuid() == 0
        if self.as_root:
            user = pwd.getpwnam("postgres")
            os.chown(self.root, user.pw_uid, user.pw_gid)
        self.leader_port = _free_port()
        self.replica_port = _free_port()
        self.started: list[Path] = []

    def _run(self, *args: str) -> None:
        command = [str(BIN / args[0]), *args[1:]]
        if self.as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=self.root)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(args)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")

    def url(self, port: int, driver: str = "postgresql+psycopg") -> str:
        return f"{driver}://postgres@127.0.0.1:{port}/postgres"

    @property
    def leader_url(self) -> str:
        return self.url(self.leader_port)

    @property
    def replica_url(self) -> str:
        return self.url(self.replica_port)

    def _start(self, data: Path, port: int) -> None:
        options = f"-p {port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off -c shared_buffers=16MB -c max_connections=60"
        self._run(
            "pg_ctl",
            "-D",
            str(data),
            "-l",
            str(self.root / f"{data.name}.log"),
            "-o",
            options,
            "-w",
            "-t",
            "60",
            "start",
        )
        self.started.append(data)

    def start(self) -> ReplicaPair:
        leader, replica = self.root / "leader", self.root / "replica"
        # Trust on the loopback for every database and for replication (initdb's own lines).
        self._run(
            "initdb",
            "-D",
            str(leader),
            "-U",
            "postgres",
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C.UTF-8",
            "--no-sync",
        )
        self._start(leader, self.leader_port)
        self._run(
            "pg_basebackup",
            "-h",
            "127.0.0.1",
            "-p",
            str(self.leader_port),
            "-U",
            "postgres",
            "-D",
            str(replica),
            "-R",
            "-X",
            "stream",
            "--no-sync",
        )
        self._start(replica, self.replica_port)
        self.wait_streaming()
        return self

    def _replica(self) -> psycopg.Connection:
        return psycopg.connect(self.url(self.replica_port, "postgresql"), autocommit=True)

    def wait_streaming(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with psycopg.connect(self.url(self.leader_port, "postgresql"), autocommit=True) as conn:
                    if conn.execute(
                        "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'"
                    ).fetchone()[0]:
                        return
            except psycopg.Error:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the replica did not start streaming")
            time.sleep(0.1)

    def replayed(self) -> str:
        with self._replica() as conn:
            return conn.execute("SELECT pg_last_wal_replay_lsn()::text").fetchone()[0]

    def pause_replay(self) -> None:
        with self._replica() as conn:
            conn.execute("SELECT pg_wal_replay_pause()")
            # Paused once the startup process has seen the request.
            for _ in range(200):
                if conn.execute("SELECT pg_get_wal_replay_pause_state()").fetchone()[0] == "paused":
                    return
                time.sleep(0.02)

    def resume_replay(self) -> None:
        with self._replica() as conn:
            conn.execute("SELECT pg_wal_replay_resume()")

    def wait_replayed(self, position: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        with self._replica() as conn:
            while not conn.execute("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", (position,)).fetchone()[
                0
            ]:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the replica did not replay {position}")
                time.sleep(0.02)

    def stop(self) -> None:
        for data in reversed(self.started):
            try:
                self._run("pg_ctl", "-D", str(data), "-m", "immediate", "-w", "stop")
            except (RuntimeError, subprocess.TimeoutExpired):
                pass
        self.started.clear()
        shutil.rmtree(self.root, ignore_errors=True)
