"""The conventions catalogue: each convention a named preset of every field of the rule table
(app/rules), with each field's type, allowed values and the preset's value."""

from __future__ import annotations

from typing import Any

from app.rules import conventions_catalog


def catalog() -> list[dict[str, Any]]:
    return conventions_catalog()
