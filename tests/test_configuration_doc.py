"""docs/configuration.md lists every setting: its table is what scripts/update-configuration-doc
writes from app/kit/settings.py now (every field, its environment variable, its default and its
docstring), so a setting cannot be added, renamed or re-described without the document."""

from __future__ import annotations

import importlib.machinery
import importlib.util
from pathlib import Path

from app.kit.settings import Settings, _env_name

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "configuration.md"


def _script():
    loader = importlib.machinery.SourceFileLoader(
        "update_configuration_doc", str(ROOT / "scripts" / "update-configuration-doc")
    )
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_every_setting_has_a_row():
    text = DOC.read_text(encoding="utf-8")
    missing = [
        _env_name((name,)) for name in Settings.model_fields if f"| `{_env_name((name,))}` |" not in text
    ]
    assert missing == []


def test_the_table_is_what_the_settings_make_now():
    text = DOC.read_text(encoding="utf-8")
    assert _script().written(text) == text, "run scripts/update-configuration-doc"


def test_the_script_refuses_a_setting_without_a_description(tmp_path, monkeypatch):
    script = _script()
    source = tmp_path / "settings.py"
    source.write_text("class Settings:\n    # --- the service\n    threads: int = 40\n", encoding="utf-8")
    monkeypatch.setattr(script.settings_module, "__file__", str(source))
    try:
        script.documented()
    except SystemExit as exc:
        assert "threads has no docstring" in str(exc)
    else:
        raise AssertionError("a setting without a docstring was accepted")
