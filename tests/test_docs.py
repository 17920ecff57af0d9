"""The repository carries its own documentation: nothing in it points outside the clone (to
the ``shared`` folder the project's inputs came from), and every relative link in README.md and
docs/ leads to a file of the repository (and, for ``#anchors``, to a heading of that file)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SUFFIXES = {".md", ".py", ".html", ".toml", ".sh", ".ts", ".json", ".yml", ".yaml", ".cfg", ".ini", ".txt"}
SKIP_DIRS = {".git", ".venv", "node_modules", "build", "dist", "__pycache__", ".pytest_cache", ".hypothesis"}
# Written in two halves so that this file does not match itself.
OUTSIDE = re.compile("(?:\\.\\./)+" + "shared/|/work/" + "shared\\b|shared/" + "spec/")
LINK = re.compile(r"(?<!!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)>?")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)  # http:, https:, mailto:


def repository_files() -> list[Path]:
    """Tracked and new (not ignored) files; a walk of the tree where git is not available."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=REPO,
            capture_output=True,
            check=True,
            timeout=60,
        ).stdout.decode()
        files = [REPO / name for name in out.split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        files = [p for p in REPO.rglob("*") if not SKIP_DIRS.intersection(p.relative_to(REPO).parts)]
    return [p for p in files if p.is_file()]


def is_text_source(path: Path) -> bool:
    if path.suffix in SUFFIXES:
        return True
    if path.suffix == "":
        try:
            with path.open("rb") as script:
                first = script.readline(200)
        except OSError:
            return False
        return first.startswith(b"#!") and (b"sh" in first or b"python" in first)
    return False


def markdown_files() -> list[Path]:
    docs = REPO / "docs"
    return [REPO / "README.md", *sorted(docs.rglob("*.md"))] if docs.is_dir() else [REPO / "README.md"]


def prose(text: str) -> str:
    """The Markdown without its fenced code blocks and inline code spans."""
    text = re.sub(r"^(```|~~~).*?^\1[^\n]*$", "", text, flags=re.MULTILINE | re.DOTALL)
    return re.sub(r"`[^`\n]*`", "", text)


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]|<[^>]+>", "", heading.strip()).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    text = re.sub(r"^(```|~~~).*?^\1[^\n]*$", "", path.read_text(), flags=re.MULTILINE | re.DOTALL)
    for m in re.finditer(r"^#{1,6}\s+(.+?)\s*#*\s*$", text, flags=re.MULTILINE):
        base = slug(m.group(1))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def broken_links(path: Path, root: Path = REPO) -> list[str]:
    broken = []
    text = prose(path.read_text())
    for m in [*LINK.finditer(text), *IMAGE.finditer(text)]:
        target = m.group(1)
        if EXTERNAL.match(target):
            continue
        file_part, _, fragment = target.partition("#")
        resolved = (path.parent / file_part).resolve() if file_part else path
        where = f"{path.relative_to(root)}: {target}"
        if root not in resolved.parents and resolved != root:
            broken.append(f"{where} (outside the repository)")
        elif not resolved.exists():
            broken.append(f"{where} (no such file)")
        elif fragment and resolved.suffix == ".md" and fragment not in anchors(resolved):
            broken.append(f"{where} (no such heading)")
    return broken


def test_no_file_points_outside_the_repository():
    offenders = []
    for path in repository_files():
        if not is_text_source(path):
            continue
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if OUTSIDE.search(line):
                offenders.append(f"{path.relative_to(REPO)}:{number}: {line.strip()[:120]}")
    assert offenders == [], "\n".join(offenders)


def test_the_api_document_and_the_readme_are_in_the_repository():
    assert (REPO / "docs" / "api.md").is_file()
    readme = (REPO / "README.md").read_text()
    assert "](docs/api.md)" in readme and "](docs/rules.md)" in readme


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves(path):
    broken = broken_links(path)
    assert broken == [], "\n".join(broken)


def test_the_link_checker_sees_broken_links(tmp_path):
    """The checker itself: a missing file, a missing heading and a link out of the tree are
    found; code blocks and external links are not links to check."""
    (tmp_path / "docs").mkdir()
    doc = tmp_path / "docs" / "probe.md"
    doc.write_text(
        "# Title\n\n[ok](#title) [gone](nothing.md) [anchor](#nowhere) [out](../../outside.md)\n"
        "[web](https://example.org/x) `[code](no.md)`\n\n```\n[fenced](no.md)\n```\n"
    )
    found = broken_links(doc, root=tmp_path)
    assert [b.split(": ", 1)[1] for b in found] == [
        "nothing.md (no such file)",
        "#nowhere (no such heading)",
        "../../outside.md (outside the repository)",
    ]
