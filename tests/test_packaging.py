"""Packaging: the console script, the set-up scripts, the Dockerfile (read, since no Docker
engine runs here) and docker-compose.yml (checked by `docker compose config`)."""

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
    from app.db import migrate

    location = Path(migrate.SCRIPT_LOCATION)
    assert (location / "env.py").is_file() and (location / "script.py.mako").is_file()
    assert list((location / "versions").glob("0*.py"))
    assert 'migrations = ["script.py.mako"]' in (ROOT / "pyproject.toml").read_text()


def test_scripts_are_executable_and_in_the_readme():
    readme = (ROOT / "README.md").read_text()
    for script in ("scripts/serve", "scripts/test", ".ci/run"):
        path = ROOT / script
        assert path.is_file() and path.stat().st_mode & stat.S_IXUSR, script
    assert "./scripts/serve" in readme and "./scripts/test" in readme
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
    assert words[0] == "FROM" and re.fullmatch(r"python:3\.1[1-9]-slim(-\w+)?", instructions[0][1])
    users = [rest for w, rest in instructions if w == "USER"]
    assert users and users[-1] not in ("root", "0")
    assert "HEALTHCHECK" in words and any("/health" in rest for w, rest in instructions if w == "HEALTHCHECK")
    cmd = [rest for w, rest in instructions if w == "CMD"][-1]
    assert "prefscore" in cmd and "serve" in cmd and "0.0.0.0" in cmd
    assert ("EXPOSE", "8000") in instructions
    # USER comes after the install step, and every COPY source exists and is not ignored
    assert words.index("USER") > max(i for i, w in enumerate(words) if w == "RUN")
    ignored = {l.strip() for l in (ROOT / ".dockerignore").read_text().splitlines() if l.strip() and not l.startswith("#")}
    for w, rest in instructions:
        if w == "COPY":
            *sources, _dest = rest.split()
            for source in sources:
                assert (ROOT / source).exists(), source
                assert source not in ignored, source
    for needed in ("app", "migrations", "pyproject.toml", "README.md"):
        assert any(w == "COPY" and needed in rest.split()[:-1] for w, rest in instructions), needed


def test_compose_file_structure():
    doc = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = doc["services"]
    assert set(services) == {"db", "migrate", "api"}
    assert services["db"]["image"].startswith("postgres:")
    assert services["migrate"]["command"] == ["prefscore", "db", "upgrade"]
    assert services["api"]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert services["migrate"]["depends_on"]["db"]["condition"] == "service_healthy"
    assert "postgresql+psycopg://" in str(services["api"]["environment"])


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
        message = "neither `docker compose` nor `docker-compose` is installed (scripts/install-system-packages)"
        if os.environ.get("CI"):
            pytest.fail(message)  # CI must really check the compose file
        pytest.skip(message)
    env = {**os.environ, "PREFSCORE_ADMIN_KEY": "test-admin", "POSTGRES_PASSWORD": "pw"}
    result = subprocess.run(
        [*command, "-f", str(ROOT / "docker-compose.yml"), "config"],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    config = yaml.safe_load(result.stdout)
    api = config["services"]["api"]
    assert api["environment"]["DATABASE_URL"] == "postgresql+psycopg://prefscore:pw@db:5432/prefscore"
    assert api["environment"]["PREFSCORE_ADMIN_KEY"] == "test-admin"
    assert config["services"]["migrate"]["environment"]["DATABASE_URL"] == api["environment"]["DATABASE_URL"]
