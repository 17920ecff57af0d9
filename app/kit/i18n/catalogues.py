"""Keeping the catalogues in step with the code (``scripts/update-catalogues`` and the
catalogue tests): every word written as ``_("…")``, ``ngettext("…", "…", n)`` or
``N_("…")`` in ``app/`` is extracted with Babel and merged into each language's ``.po``,
sorted, without source locations or dates, so that two changes adding words merge simply.
"""

from __future__ import annotations

import io
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import write_po

from app.kit.i18n import LANGUAGES, _po_path, load_catalog

APP = Path(__file__).resolve().parents[2]  # app/: every module that asks for words
KEYWORDS = {"_": None, "ngettext": (1, 2), "N_": None}
METHODS = [("**.py", "python")]


def extract() -> Catalog:
    """The words the code asks for, as a template catalogue."""
    template = Catalog(domain="messages")
    for _filename, _line, message, _comments, _context in extract_from_dir(
        str(APP), METHODS, keywords=KEYWORDS, comment_tags=("Translators:",), strip_comment_tags=True
    ):
        template.add(message)
    return template


def merged(code: str, template: Catalog) -> str:
    """The catalogue of ``code`` with the template's words: new ones empty, gone ones dropped,
    translations kept; its header as written."""
    catalog = load_catalog(code)
    catalog.update(template, no_fuzzy_matching=True, update_header_comment=False)
    catalog.obsolete.clear()
    out = io.BytesIO()
    write_po(out, catalog, width=0, no_location=True, omit_header=True, sort_output=True, ignore_obsolete=True)
    header = _header(code)
    return header + out.getvalue().decode("utf-8")


def _header(code: str) -> str:
    """The file's own header block (comments and the msgid "" entry), kept verbatim."""
    text = Path(str(_po_path(code))).read_text(encoding="utf-8")
    head, sep, _rest = text.partition("\n\n")
    return head + "\n\n" if sep else text


def update() -> list[Path]:
    template = extract()
    written = []
    for code in LANGUAGES:
        path = Path(str(_po_path(code)))
        path.write_text(merged(code, template), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for path in update():
        print(path)
