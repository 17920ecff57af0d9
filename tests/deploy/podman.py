"""Podman for the deployment tests: the repository's images built once per content (tags carry
a hash of the build context, an image already there is reused, so the two passes of .ci/run
build each image once), containers waited on through their own HEALTHCHECK, and a compose
project brought up and torn down.

This machine, like many CI machines, has no registry to pull from: every base is made from
Debian's packages by scripts/build-base-images. Everything listens on 127.0.0.1 or on the
containers' own networks.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from tests.toolchains import held

REPO = Path(__file__).resolve().parents[2]
CONTAINERS_CONF = REPO / "deploy" / "podman" / "containers.conf"
TOOLS = ("podman", "podman-compose", "mmdebstrap", "runc")


def missing_tools() -> list[str]:
    return [tool for tool in TOOLS if shutil.which(tool) is None]


def env() -> dict[str, str]:
    return {**os.environ, "CONTAINERS_CONF": os.environ.get("CONTAINERS_CONF", str(CONTAINERS_CONF))}


def podman(*args: str, check: bool = True, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(["podman", *args], capture_output=True, text=True, env=env(), timeout=timeout)
    if check and result.returncode != 0:
        raise RuntimeError(f"podman {' '.join(args)} failed ({result.returncode}):\n{result.stderr[-3000:]}")
    return result


def base_images() -> dict[str, str]:
    """scripts/build-base-images (cached per machine): its NAME=image lines."""
    result = subprocess.run(
        [str(REPO / "scripts" / "build-base-images")], capture_output=True, text=True, env=env(), timeout=1200
    )
    if result.returncode != 0:
        raise RuntimeError(f"scripts/build-base-images failed:\n{result.stderr[-4000:]}")
    return dict(line.split("=", 1) for line in result.stdout.split() if "=" in line)


def _ignored(relative: str, patterns: list[str]) -> bool:
    parts = relative.split("/")
    for pattern in patterns:
        bare = pattern.removeprefix("**/")
        if fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(parts[0], pattern):
            return True
        if pattern.startswith("**/") and any(fnmatch.fnmatch(p, bare) for p in parts):
            return True
    return False


def context_hash(context: Path, *extra: str) -> str:
    """A hash of what a build sees: the files of the context not in its .dockerignore, the
    Dockerfile, and the build arguments."""
    ignore = context / ".dockerignore"
    patterns = (
        [ln.strip() for ln in ignore.read_text().splitlines() if ln.strip() and not ln.startswith("#")]
        if ignore.exists()
        else []
    )
    files = []
    for top, dirs, names in os.walk(context):
        here = Path(top).relative_to(context).as_posix()
        prefix = "" if here == "." else here + "/"
        dirs[:] = [d for d in dirs if not _ignored(prefix + d, patterns)]
        files += [
            prefix + n
            for n in names
            if n == "Dockerfile" and not prefix or not _ignored(prefix + n, patterns)
        ]
    digest = hashlib.sha256()
    for relative in sorted(files):
        digest.update(relative.encode() + b"\0" + (context / relative).read_bytes() + b"\0")
    for item in extra:
        digest.update(item.encode() + b"\0")
    return digest.hexdigest()[:12]


def build(context: Path, name: str, base: str, *, host_certs: bool = False) -> str:
    """The image of ``context``'s Dockerfile on ``base``, tagged by content; built only when
    no image of that content exists. Older tags of the same name are removed. ``host_certs``:
    the host's CA bundle is mounted for the build (pip reaches its index as the host does;
    not for apt builds, whose packages may write there)."""
    repo = f"localhost/prefscore-test/{name}"
    tag = f"{repo}:{context_hash(context, base)}"
    # The SQLite and PostgreSQL suites run side by side (.ci/run): one builds, the other waits.
    with held(Path(tempfile.gettempdir()) / f"prefscore-test-image-{name}.lock"):
        _build_missing(context, tag, repo, base, host_certs)
    return tag


def _build_missing(context: Path, tag: str, repo: str, base: str, host_certs: bool) -> None:
    if podman("image", "exists", tag, check=False).returncode != 0:
        # The Docker format keeps HEALTHCHECK (OCI images have no such field). Host network:
        # pip and apt reach their indexes as the host does.
        certs = ["-v", "/etc/ssl/certs:/etc/ssl/certs:ro"] if host_certs else []
        # A pip without Debian's patch (the python:3.11-slim layout) trusts only its own CA
        # list unless told otherwise; the host's pip configuration says where the host's is.
        if host_certs and Path("/etc/pip.conf").is_file():
            certs += ["-v", "/etc/pip.conf:/etc/pip.conf:ro"]
        podman(
            "build",
            "--quiet",
            "--format",
            "docker",
            "--network",
            "host",
            *certs,
            "--build-arg",
            f"BASE={base}",
            "-t",
            tag,
            str(context),
            timeout=900,
        )
        listed = podman(
            "images", "--format", "{{.Repository}}:{{.Tag}}", "--filter", f"reference={repo}"
        ).stdout.split()
        stale = [t for t in listed if t != tag]
        if stale:
            podman("rmi", "--force", *stale, check=False)


def inspect(container: str) -> dict:
    return json.loads(podman("inspect", container).stdout)[0]


def health(container: str) -> str:
    state = inspect(container)["State"]
    return (state.get("Health") or state.get("Healthcheck") or {}).get("Status", "")


def wait_healthy(container: str, timeout: float = 90) -> None:
    """Runs the container's own HEALTHCHECK (podman schedules it with systemd timers, which a
    machine without systemd lacks, so it is run here at a short interval) until healthy."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = inspect(container)["State"]
        if not state.get("Running"):
            logs = podman("logs", container, check=False)
            raise RuntimeError(
                f"{container} is not running ({state.get('Status')}):\n{(logs.stdout + logs.stderr)[-4000:]}"
            )
        podman("healthcheck", "run", container, check=False, timeout=30)
        if health(container) == "healthy":
            return
        time.sleep(0.5)
    logs = podman("logs", container, check=False)
    raise RuntimeError(
        f"{container} not healthy after {timeout}s ({health(container)}):\n{(logs.stdout + logs.stderr)[-4000:]}"
    )


def process_uid(container: str) -> int:
    """The real uid of the container's main process (what it runs as, not what exec would)."""
    status = podman("exec", container, "cat", "/proc/1/status").stdout
    return int(next(line for line in status.splitlines() if line.startswith("Uid:")).split()[1])


class Compose:
    """A podman-compose project of the repository's docker-compose.yml."""

    def __init__(self, project: str, environment: dict[str, str]):
        self.project = project
        self.environment = {**env(), **environment}

    def run(self, *args: str, check: bool = True, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        command = ["podman-compose", "-p", self.project, "-f", str(REPO / "docker-compose.yml"), *args]
        result = subprocess.run(
            command, capture_output=True, text=True, cwd=REPO, env=self.environment, timeout=timeout
        )
        if check and result.returncode != 0:
            raise RuntimeError(
                f"{' '.join(command)} failed ({result.returncode}):\n{result.stdout[-2000:]}\n{result.stderr[-3000:]}"
            )
        return result

    def container(self, service: str) -> str:
        return f"{self.project}_{service}_1"

    @property
    def network(self) -> str:
        return f"{self.project}_default"

    def logs(self, service: str) -> str:
        result = podman("logs", self.container(service), check=False)
        return result.stdout + result.stderr
