"""The layers of app/: the import contracts in pyproject.toml ([tool.importlinter]) hold.
scripts/test runs `lint-imports` before pytest; this test runs it again so that every run of
the suite (.ci/run included) checks them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_import_contracts_are_kept():
    lint_imports = Path(sys.executable).parent / "lint-imports"
    assert lint_imports.exists(), "import-linter is a test dependency: pip install -e '.[test]'"
    # This checkout's app, whatever else is installed.
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    run = subprocess.run(
        [str(lint_imports), "--no-cache"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]


def test_a_broken_contract_fails_the_check(tmp_path):
    # The same check on a copy of app/ whose engine imports the kit: the run fails and names it.
    import shutil

    shutil.copytree(ROOT / "app", tmp_path / "app", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    scoring = tmp_path / "app" / "rules" / "scoring.py"
    scoring.write_text(scoring.read_text() + "\nimport app.kit.settings  # noqa: E402,F401\n")
    lint_imports = Path(sys.executable).parent / "lint-imports"
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    run = subprocess.run(
        [str(lint_imports), "--no-cache"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert run.returncode != 0
    assert "app.rules.scoring -> app.kit.settings" in run.stdout
