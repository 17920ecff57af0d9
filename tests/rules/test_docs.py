"""docs/rules.md matches the engine: every field is described, the presets table is the code's,
and every test it points at exists."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from app.rules import CONVENTION_NAMES, FIELD_NAMES, PRESETS
from app.rules.fields import to_json

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "rules.md").read_text()


def _cell(value) -> str:
    value = to_json(value)
    if isinstance(value, bool):
        return "on" if value else "off"
    return json.dumps(value).replace('"', "").replace(", ", ",")


def test_every_field_is_described_in_the_rule_table():
    for name in FIELD_NAMES:
        assert re.search(rf"^\| `{name}` \| [^|]+ \| [^|]+ \|$", DOC, re.M), name


def test_the_presets_table_is_the_code():
    rows = {}
    for line in DOC.splitlines():
        m = re.match(r"^\| `(\w+)` \| (.+) \|$", line)
        if m and m.group(1) in FIELD_NAMES and m.group(2).count("|") == len(CONVENTION_NAMES) - 1:
            rows[m.group(1)] = [c.strip() for c in m.group(2).split("|")]
    assert list(rows) == list(FIELD_NAMES)
    for name, cells in rows.items():
        for conv, cell in zip(CONVENTION_NAMES, cells):
            assert cell.split(" (")[0] == _cell(PRESETS[conv].values[name]), (name, conv)


def test_every_test_the_doc_points_at_exists():
    refs = set(re.findall(r"`((?:tests/[\w/]+/)?test_\w+\.py)::(test_\w+)`", DOC))
    assert len(refs) > 100
    for path, name in refs:
        file = ROOT / (path if path.startswith("tests/") else f"tests/rules/{path}")
        tree = ast.parse(file.read_text())
        names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        assert name in names, f"{path}::{name}"
