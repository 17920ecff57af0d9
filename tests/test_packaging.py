"""Packaging: the console script, the set-up scripts, the Dockerfiles and docker-compose.yml
as files (read, and checked by `docker compose config`). tests/deploy builds and runs them."""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent


def test_console_script_and_commands():
    text = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'^prefscore = "app\.cli:main"$', text, re.M)
    from app.cli import main

    out = CliRunner().invoke(main, ["--help"]).output
    for command in ("serve", "db", "keys"):
        assert command in out
    assert "upgrade" in CliRunner().invoke(main, ["db", "--help"]).output
    serve = CliRunner().invoke(main, ["serve", "--help"]).output
    assert "--host" in serve and "--port" in serve and "--workers" in serve


def test_migrations_ship_with_the_package():
    from app.kit.db import migrate

    location = Path(migrate.SCRIPT_LOCATION)
    assert (location / "env.py").is_file() and (location / "script.py.mako").is_file()
    assert list((location / "versions").glob("0*.py"))
    assert 'migrations = ["script.py.mako"]' in (ROOT / "pyproject.toml").read_text()


def test_scripts_are_executable_and_in_the_readme():
    readme = (ROOT / "README.md").read_text()
    for script in (
        "scripts/serve",
        "scripts/test",
        ".ci/run",
        "scripts/install-system-packages",
        "scripts/build-base-images",
    ):
        path = ROOT / script
        assert path.is_file() and path.stat().st_mode & stat.S_IXUSR, script
    assert (
        "./scripts/serve" in readme and "./scripts/test" in readme and "scripts/build-base-images" in readme
    )
    ci = (ROOT / ".ci/run").read_text()
    assert "set -euo pipefail" in ci and '"$rc" -eq 5' in ci and "PREFSCORE_TEST_DATABASE_URL" in ci


def _dockerfile() -> list[tuple[str, str]]:
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def test_dockerfile_reads_right():
    instructions = _dockerfile()
    words = [w for w, _ in instructions]
    # The base is an argument whose default is the official image a user pulls; the install
    # goes into a venv (tests/deploy builds it on a Debian-made base as well).
    assert instructions[0][0] == "ARG" and re.fullmatch(
        r"BASE=python:3\.1[1-9]-slim(-\w+)?", instructions[0][1]
    )
    assert instructions[1] == ("FROM", "${BASE}")
    run = " ".join(rest for w, rest in instructions if w == "RUN")
    assert "python3 -m venv /opt/prefscore" in run and "/opt/prefscore/bin/pip install" in run
    assert any(w == "ENV" and "PATH=/opt/prefscore/bin:$PATH" in rest for w, rest in instructions)
    users = [rest for w, rest in instructions if w == "USER"]
    assert users and users[-1] not in ("root", "0")
    assert "HEALTHCHECK" in words and any("/health" in rest for w, rest in instructions if w == "HEALTHCHECK")
    cmd = [rest for w, rest in instructions if w == "CMD"][-1]
    assert "prefscore" in cmd and "serve" in cmd and "0.0.0.0" in cmd
    assert ("EXPOSE", "8000") in instructions
    # USER comes after the install step, and every COPY source exists and is not ignored
    assert words.index("USER") > max(i for i, w in enumerate(words) if w == "RUN")
    ignored = {
        ln.strip()
        for ln in (ROOT / ".dockerignore").read_text().splitlines()
        if ln.strip() and not ln.startswith("#")
    }
    for w, rest in instructions:
        if w == "COPY":
            *sources, _dest = rest.split()
            for source in sources:
                assert (ROOT / source).exists(), source
                assert source not in ignored, source
    for needed in ("app", "migrations", "pyproject.toml", "README.md"):
        assert any(w == "COPY" and needed in rest.split()[:-1] for w, rest in instructions), needed


@pytest.mark.parametrize("name", ["pgbouncer", "haproxy"])
def test_deploy_images_build_on_a_base_argument_and_run_unprivileged(name):
    text = (ROOT / "deploy" / name / "Dockerfile").read_text()
    assert re.search(r"^ARG BASE=debian:bookworm-slim$", text, re.M) and re.search(
        r"^FROM \$\{BASE\}$", text, re.M
    )
    users = re.findall(r"^USER (\S+)$", text, re.M)
    assert users and users[-1] not in ("root", "0") and "HEALTHCHECK" in text


def test_load_balancer_and_pooler_configuration():
    haproxy = (ROOT / "deploy" / "haproxy" / "haproxy.cfg").read_text()
    for line in (
        "server api1 api1:8000 check",
        "server api2 api2:8000 check",
        "option httpchk GET /health",
        "retry-on conn-failure",
    ):
        assert line in haproxy, line
    # Event streams: their own backend with long timeouts, picked by the Accept header.
    streams = haproxy.split("backend api_streams", 1)[1]
    assert "timeout server 1h" in streams and "text/event-stream" in haproxy and "compression" not in haproxy
    pgbouncer = (ROOT / "deploy" / "pgbouncer" / "entrypoint.sh").read_text()
    assert "pool_mode = transaction" in pgbouncer


def test_compose_file_structure():
    doc = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = doc["services"]
    assert set(services) == {"db", "migrate", "pgbouncer", "api1", "api2", "lb"}
    # Every image can be replaced from the environment (tests/deploy uses locally built ones).
    for name, variable in (
        ("db", "POSTGRES_IMAGE"),
        ("migrate", "PREFSCORE_IMAGE"),
        ("pgbouncer", "PGBOUNCER_IMAGE"),
        ("api1", "PREFSCORE_IMAGE"),
        ("api2", "PREFSCORE_IMAGE"),
        ("lb", "HAPROXY_IMAGE"),
    ):
        assert services[name]["image"].startswith("${" + variable + ":-"), name
    assert services["db"]["image"].startswith("${POSTGRES_IMAGE:-postgres:")
    assert services["migrate"]["command"] == ["prefscore", "db", "upgrade"]
    assert services["migrate"]["depends_on"]["db"]["condition"] == "service_healthy"
    # The migration goes straight to PostgreSQL (its lock is a session advisory lock); the
    # replicas go through PgBouncer with prepared statements off.
    assert "@db:5432/" in services["migrate"]["environment"]["DATABASE_URL"]
    for name in ("api1", "api2"):
        api = services[name]
        assert api["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
        assert api["depends_on"]["pgbouncer"]["condition"] == "service_healthy"
        assert (
            "postgresql+psycopg://" in api["environment"]["DATABASE_URL"]
            and "@pgbouncer:6432/" in api["environment"]["DATABASE_URL"]
        )
        assert api["environment"]["PREFSCORE_DB_PREPARED_STATEMENTS"] == "0"
        assert "--no-upgrade" in api["command"]
    assert services["lb"]["build"]["context"] == "deploy/haproxy"
    assert services["pgbouncer"]["build"]["context"] == "deploy/pgbouncer"


def test_install_script_waits_for_the_apt_lock():
    text = (ROOT / "scripts" / "install-system-packages").read_text()
    assert "apt-get -o DPkg::Lock::Timeout=" in text
    calls = [
        line
        for line in text.splitlines()
        if re.search(r"\bapt-get\b", line) and not line.lstrip().startswith(("#", "echo"))
    ]
    assert all(
        "apt_get" in line or "DPkg::Lock::Timeout" in line or "command -v" in line for line in calls
    ), calls
    for package in ("podman", "runc", "netavark", "podman-compose", "mmdebstrap"):
        assert package in text, package


def _compose_command() -> list[str] | None:
    if shutil.which("docker"):
        probe = subprocess.run(["docker", "compose", "version"], capture_output=True, text=True)
        if probe.returncode == 0:
            return ["docker", "compose"]
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    return None


def test_docker_compose_config():
    command = _compose_command()
    if command is None:
        message = (
            "neither `docker compose` nor `docker-compose` is installed (scripts/install-system-packages)"
        )
        if os.environ.get("CI"):
            pytest.fail(message)  # CI must really check the compose file
        pytest.skip(message)
    env = {**os.environ, "PREFSCORE_ADMIN_KEY": "test-admin", "POSTGRES_PASSWORD": "pw"}
    result = subprocess.run(
        [*command, "-f", str(ROOT / "docker-compose.yml"), "config"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    config = yaml.safe_load(result.stdout)
    services = config["services"]
    for name in ("api1", "api2"):
        api = services[name]
        assert (
            api["environment"]["DATABASE_URL"] == "postgresql+psycopg://prefscore:pw@pgbouncer:6432/prefscore"
        )
        assert api["environment"]["PREFSCORE_ADMIN_KEY"] == "test-admin"
        assert api["image"] == "prefscore:latest" and api["build"]["args"]["BASE"] == "python:3.11-slim"
    assert (
        services["migrate"]["environment"]["DATABASE_URL"]
        == "postgresql+psycopg://prefscore:pw@db:5432/prefscore"
    )
    assert (
        services["pgbouncer"]["environment"]["DB_PASSWORD"] == "pw"
        and services["db"]["environment"]["POSTGRES_PASSWORD"] == "pw"
    )
    assert services["db"]["image"] == "postgres:16-alpine"
