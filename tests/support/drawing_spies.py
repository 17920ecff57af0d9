"""Stand-ins for the picture workers' functions (app/sharing/drawing.py) that tests put in
their place: module-level, so that a spawned worker imports them by name. Each writes the
process and thread that ran it to a file, one line per call, then draws as the real one."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any


def _record(path: str) -> None:
    with open(path, "a") as f:
        f.write(f"{os.getpid()} {threading.current_thread().name}\n")


def calls(path: Path) -> list[int]:
    """The process ids of the calls recorded in ``path``."""
    return [int(line.split()[0]) for line in path.read_text().splitlines()] if path.exists() else []


def recording(path: str, real: str, *args: Any) -> Any:
    from app.sharing import drawing

    _record(path)
    return getattr(drawing, real)(*args)


def gated(path: str, gate: str, real: str, *args: Any) -> Any:
    """Records, then waits (30 s at most) for the file ``gate`` before drawing."""
    _record(path)
    for _ in range(3000):
        if os.path.exists(gate):
            break
        time.sleep(0.01)
    from app.sharing import drawing

    return getattr(drawing, real)(*args)


def hanging(path: str, *_args: Any) -> Any:
    """Records, then never draws (a minute)."""
    _record(path)
    time.sleep(60)
    raise RuntimeError("not killed")
