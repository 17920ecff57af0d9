"""Keeping the catalogues in step with the code (``scripts/update-catalogues`` and the
catalogue tests): every word written as ``_("…")``, ``ngettext("…", "…", n)`` or
``N_("…")`` in ``app/`` is extracted with Babel, and every refusal's sentence (``REFUSALS``:
a ``Sentence``'s template, the literal sentence given to a service's error, to the engine's
``FieldError``, to a problem made directly) is found in the syntax tree; all are merged into
each language's ``.po``, sorted, without source locations or dates, so that two changes
adding words merge simply.
"""

from __future__ import annotations

import ast
import io
import sys
from collections.abc import Iterator
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import write_po

from app.kit.i18n import LANGUAGES, _po_path, load_catalog

APP = Path(__file__).resolve().parents[2]  # app/: every word the code asks for
KEYWORDS = {"_": None, "ngettext": (1, 2), "N_": None}
METHODS = [("**.py", "python")]
# The calls whose argument at this index is a refusal's sentence (app/kit/problems.py words
# it in the request's language). Found by walking each module's syntax tree, not with Babel:
# Babel's extractor loses a keyword call nested in another (``Conflict("…", [FieldError(f,
# "…")])``), the shape of most refusals.
REFUSALS = {
    "Sentence": 0,
    "ServiceError": 0,
    "NotFound": 0,
    "Conflict": 0,
    "Unprocessable": 0,
    "Unauthorized": 0,
    "Forbidden": 0,
    "PreconditionFailed": 0,
    "Busy": 0,
    "DrawingBusy": 0,
    "FieldError": 1,
    "problem": 1,
    "send_problem": 4,
    "_send_problem": 4,
    "_Reject": 1,
    "_Bad": 0,
    "_refuse": 0,
    "Refused": 0,
}


def extract() -> Catalog:
    """The words the code asks for, as a template catalogue."""
    template = Catalog(domain="messages")
    for _filename, _line, message, _comments, _context in extract_from_dir(
        str(APP), METHODS, keywords=KEYWORDS, comment_tags=("Translators:",), strip_comment_tags=True
    ):
        template.add(message)
    for _path, _line, message in refusals():
        if message is not None:
            template.add(message)
    return template


def refusals() -> Iterator[tuple[Path, int, str | None]]:
    """Every refusal's sentence in app/ (``REFUSALS``): (file, line, msgid), msgid None for
    an f-string, which cannot be translated (write ``Sentence(template, **params)``); it is
    reported on stderr by ``update``."""
    for path in sorted(APP.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = (
                func.id
                if isinstance(func, ast.Name)
                else func.attr
                if isinstance(func, ast.Attribute)
                else None
            )
            index = REFUSALS.get(name or "")
            if index is None or index >= len(node.args):
                continue
            arg = node.args[index]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value:
                yield path, arg.lineno, arg.value
            elif isinstance(arg, ast.JoinedStr):
                yield path, arg.lineno, None


def merged(code: str, template: Catalog) -> str:
    """The catalogue of ``code`` with the template's words: new ones empty, gone ones dropped,
    translations kept; its header as written."""
    catalog = load_catalog(code)
    catalog.update(template, no_fuzzy_matching=True, update_header_comment=False)
    catalog.obsolete.clear()
    out = io.BytesIO()
    write_po(
        out, catalog, width=0, no_location=True, omit_header=True, sort_output=True, ignore_obsolete=True
    )
    header = _header(code)
    return header + out.getvalue().decode("utf-8")


def _header(code: str) -> str:
    """The file's own header block (comments and the msgid "" entry), kept verbatim."""
    text = Path(str(_po_path(code))).read_text(encoding="utf-8")
    head, sep, _rest = text.partition("\n\n")
    return head + "\n\n" if sep else text


def update() -> list[Path]:
    for path, line, message in refusals():
        if message is None:
            print(
                f"{path}:{line}: warning: a refusal written as an f-string is not translated: write Sentence(template, **params)",
                file=sys.stderr,
            )
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
