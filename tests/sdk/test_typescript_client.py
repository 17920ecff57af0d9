"""The TypeScript client a web or mobile developer would generate: openapi-typescript types
from the live server's /openapi.json, openapi-fetch for the calls (versions pinned in
sdk/typescript/package-lock.json), sdk/typescript/scenario.ts type-checked with
``tsc --strict`` and run with Node.js against that server. Nothing generated is edited or
committed: it is made afresh in a temporary directory each run."""

from __future__ import annotations

import shutil
from pathlib import Path

from .conftest import TS_DIR, Live, check_transcript, run, scenario_env, scenario_failed


def build(live: Live, node_modules: Path, out: Path) -> Path:
    """Generate schema.d.ts, type-check and compile the scenario; its compiled path."""
    for name in ("package.json", "tsconfig.json", "scenario.ts"):
        shutil.copy(TS_DIR / name, out / name)
    (out / "node_modules").symlink_to(node_modules, target_is_directory=True)
    bin_dir = node_modules / ".bin"
    generated = run(
        [str(bin_dir / "openapi-typescript"), str(live.spec_path), "--output", "schema.d.ts"],
        cwd=out,
        timeout=120,
    )
    assert generated.returncode == 0, generated.stdout + generated.stderr
    compiled = run([str(bin_dir / "tsc"), "--strict", "-p", "tsconfig.json"], cwd=out, timeout=120)
    if compiled.returncode != 0:
        scenario_failed("tsc --strict refused the scenario", compiled.stdout + compiled.stderr)
    return out / "build" / "scenario.js"


def test_the_pinned_toolchain_is_the_one_installed(node_modules: Path) -> None:
    import json

    lock = json.loads((TS_DIR / "package-lock.json").read_text())
    for name in ("openapi-typescript", "openapi-fetch", "typescript"):
        pinned = json.loads((TS_DIR / "package.json").read_text())["devDependencies"][name]
        installed = json.loads((node_modules / name / "package.json").read_text())["version"]
        assert installed == pinned == lock["packages"][f"node_modules/{name}"]["version"]


def test_generated_typescript_client_plays_a_short_game(
    live: Live, node_modules: Path, tmp_path: Path
) -> None:
    script = build(live, node_modules, tmp_path)
    key = live.new_key("sdk-typescript")
    done = run(
        [shutil.which("node") or "node", str(script)], cwd=tmp_path, env=scenario_env(live, key), timeout=120
    )
    if done.returncode != 0:
        scenario_failed("the scenario failed", done.stdout + done.stderr)
    print(done.stdout)
    check_transcript(live, key, done.stdout)
