"""The Python client a developer would generate with openapi-python-client (pinned in
sdk/python/requirements.txt, settings in sdk/python/config.yml) from the live server's
/openapi.json, and sdk/python/scenario.py run with it against that server. Nothing generated
is edited or committed: it is made afresh in a temporary directory each run."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from .conftest import PY_DIR, Live, check_transcript, run, scenario_env, scenario_failed


def generate(python: Path, spec: Path, out: Path) -> str:
    """Generate the package ``prefscore_client`` under ``out``; the generator's output."""
    env = {**os.environ, "PATH": f"{python.parent}{os.pathsep}{os.environ.get('PATH', '')}"}  # its ruff
    done = run(
        [
            str(python.parent / "openapi-python-client"),
            "generate",
            "--path",
            str(spec),
            "--config",
            str(PY_DIR / "config.yml"),
            "--meta",
            "none",
            "--output-path",
            str(out / "prefscore_client"),
        ],
        cwd=out,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def test_the_contract_generates_a_complete_python_client(
    live: Live, generator_python: Path, tmp_path: Path
) -> None:
    """No route or response is left out of the client (the generator warns about each one it
    cannot express)."""
    output = generate(generator_python, live.spec_path, tmp_path)
    assert "Warning(s) encountered" not in output, output


def test_generated_python_client_plays_a_short_game(
    live: Live, generator_python: Path, tmp_path: Path
) -> None:
    generate(generator_python, live.spec_path, tmp_path)
    shutil.copy(PY_DIR / "scenario.py", tmp_path / "scenario.py")
    key = live.new_key("sdk-python")
    env = scenario_env(live, key, PYTHONPATH=str(tmp_path))
    done = run([str(generator_python), "scenario.py"], cwd=tmp_path, env=env, timeout=120)
    if done.returncode != 0:
        scenario_failed("the scenario failed", done.stdout + done.stderr)
    print(done.stdout)
    check_transcript(live, key, done.stdout)
