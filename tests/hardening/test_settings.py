"""Settings: pydantic-settings reads the environment under the names the service always
used, and docs/configuration.md lists every setting."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.kit.settings import Settings, _env_name

README = (
    Path(__file__).resolve().parents[2] / "docs" / "configuration.md"
)  # the settings table moved there from the README


def test_every_setting_is_in_the_readme_table():
    text = README.read_text(encoding="utf-8")
    missing = [
        _env_name((name,)) for name in Settings.model_fields if f"| `{_env_name((name,))}` |" not in text
    ]
    assert missing == []


def test_the_old_environment_names_still_work(monkeypatch):
    env = {
        "DATABASE_URL": "sqlite:///elsewhere.db",
        "PREFSCORE_ADMIN_KEY": "pk_admin",
        "PREFSCORE_THREADS": "7",
        "PREFSCORE_SQLITE_BUSY_TIMEOUT_MS": "123",
        "PREFSCORE_MAX_BODY_BYTES": "1000",
        "PREFSCORE_LOG_FORMAT": "TEXT",
        "PREFSCORE_LOG_LEVEL": "debug",
        "PREFSCORE_METRICS": "0",
        "PREFSCORE_RATE_LIMIT": "5",
        "PREFSCORE_RATE_LIMIT_WINDOW": "9",
        "PREFSCORE_MAX_JSON_DEPTH": "4",
        "PREFSCORE_CORS_ORIGINS": "https://a.example, https://b.example",
        "PREFSCORE_SECURITY_HEADERS": "off",
        "PREFSCORE_HSTS_SECONDS": "600",
        "PREFSCORE_CSP": "",
        "PREFSCORE_TRUSTED_PROXIES": "10.0.0.1",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    s = Settings.from_env()
    assert (s.database_url, s.admin_key, s.threads, s.sqlite_busy_timeout_ms, s.max_body_bytes) == (
        "sqlite:///elsewhere.db",
        "pk_admin",
        7,
        123,
        1000,
    )
    assert (
        s.log_format,
        s.log_level,
        s.metrics_enabled,
        s.rate_limit,
        s.rate_limit_window,
        s.max_json_depth,
    ) == ("text", "DEBUG", False, 5, 9, 4)
    assert s.cors_origins == ("https://a.example", "https://b.example") and s.trusted_proxies == ("10.0.0.1",)
    assert (s.security_headers, s.hsts_seconds, s.content_security_policy) == (False, 600, "")


def test_empty_means_the_default_and_bad_values_name_the_variable(monkeypatch):
    monkeypatch.setenv("PREFSCORE_THREADS", "")
    monkeypatch.setenv("PREFSCORE_ADMIN_KEY", "")
    s = Settings.from_env()
    assert s.threads == 40 and s.admin_key is None
    monkeypatch.setenv("PREFSCORE_KEY_CACHE_TTL", "soon")
    with pytest.raises(ValueError, match="PREFSCORE_KEY_CACHE_TTL"):
        Settings.from_env()
