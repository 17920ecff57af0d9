"""The tool chains the tests install for themselves (the SDK's npm packages and generator
virtualenv, Lighthouse and axe-core): each installed into its folder only when its lock file's
content changed, and under a lock on the folder's parent, because .ci/run runs the SQLite and
the PostgreSQL suites side by side and both ask for the same folders (``npm ci`` and
``venv --clear`` begin by emptying theirs)."""

from __future__ import annotations

import fcntl
import hashlib
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

STAMP = ".prefscore-installed"


def digest(*paths: Path) -> str:
    h = hashlib.sha256()
    for path in paths:
        h.update(path.read_bytes())
    return h.hexdigest()


def installed(folder: Path, want: str) -> bool:
    stamp = folder / STAMP
    return stamp.is_file() and stamp.read_text().strip() == want


@contextmanager
def held(lock: Path) -> Iterator[None]:
    """An exclusive lock across processes: flock on ``lock``, a directory (no lock file to
    keep out of git) or a file made if missing."""
    fd = os.open(lock, os.O_RDONLY) if lock.is_dir() else os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def install_once(folder: Path, want: str, install: Callable[[], None]) -> None:
    """``install()`` fills ``folder`` unless its stamp already says ``want``; the stamp is
    written after. A second run asking meanwhile waits for the lock, then finds the stamp."""
    if installed(folder, want):
        return
    with held(folder.parent):
        if installed(folder, want):
            return
        install()
        (folder / STAMP).write_text(want + "\n")
