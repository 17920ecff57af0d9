"""The catalogues hold every word the code asks for: each msgid written in app/ as
``_("…")``, ``ngettext`` or ``N_`` is in both catalogues, translated in Russian, with the same
``{placeholders}``; and the files are as ``scripts/update-catalogues`` writes them (sorted,
no locations), so that two changes adding words merge simply."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.kit.i18n import LANGUAGES, load_catalog
from app.kit.i18n.catalogues import extract, merged

PLACEHOLDER = re.compile(r"\{(\w*)\}")


def _ids(catalog) -> set:
    return {m.id for m in catalog if m.id}


def test_every_word_of_the_code_is_in_every_catalogue():
    wanted = _ids(extract())
    for code in LANGUAGES:
        missing = wanted - _ids(load_catalog(code))
        assert not missing, f"{code}: run scripts/update-catalogues; missing {sorted(map(str, missing))[:10]}"


def test_no_catalogue_keeps_words_the_code_no_longer_uses():
    wanted = _ids(extract())
    for code in LANGUAGES:
        stale = _ids(load_catalog(code)) - wanted
        assert not stale, f"{code}: run scripts/update-catalogues; unused {sorted(map(str, stale))[:10]}"


def test_every_word_is_translated_into_russian():
    catalog = load_catalog("ru")
    untranslated = [
        m.id for m in catalog if m.id and not (all(m.string) if isinstance(m.string, tuple) else m.string)
    ]
    assert not untranslated, f"no Russian for {untranslated[:10]}"


@pytest.mark.parametrize("code", LANGUAGES)
def test_translations_keep_the_placeholders(code):
    for message in load_catalog(code):
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        wanted = set(PLACEHOLDER.findall(ids[-1]))
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for string in strings:
            if string:
                # A Russian plural form may leave out {n} ("одна сдача"), never add a name.
                assert set(PLACEHOLDER.findall(string)) <= wanted | set(PLACEHOLDER.findall(ids[0])), (
                    code,
                    message.id,
                    string,
                )


@pytest.mark.parametrize("code", LANGUAGES)
def test_catalogue_files_are_as_the_update_script_writes_them(code):
    path = (
        Path(__file__).resolve().parents[2]
        / "app"
        / "kit"
        / "i18n"
        / "locales"
        / code
        / "LC_MESSAGES"
        / "messages.po"
    )
    assert path.read_text(encoding="utf-8") == merged(code, extract()), "run scripts/update-catalogues"


def test_no_refusal_is_an_f_string():
    """A refusal's sentence is a literal or a Sentence(template, **params): an f-string's
    text cannot be looked up in a catalogue, so it would stay English."""
    from app.kit.i18n.catalogues import refusals

    untranslatable = [f"{path.name}:{line}" for path, line, message in refusals() if message is None]
    assert not untranslatable, untranslatable
