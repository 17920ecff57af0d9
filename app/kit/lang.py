"""The language of an answer people read (a picture, a page): ``?lang=`` when given, else
the best of ``Accept-Language``, else Russian. Such answers say which language they are in
(``Content-Language``) and that they depend on the header (``Vary``), so a cache keeps one
copy per language."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from fastapi import Depends, Header, Query

from app.kit.limits import ACCEPT_LANGUAGE_MAX
from app.kit.i18n import LANGUAGES, Lang, language, negotiate

Language = StrEnum("Language", {code: code for code in LANGUAGES})  # type: ignore[misc]


def page_lang(
    lang: Annotated[Language | None, Query(description="the language of the words: ru (the default) or en; else Accept-Language")] = None,
    accept_language: Annotated[str | None, Header(alias="Accept-Language", include_in_schema=False)] = None,
) -> Lang:
    if lang is not None:
        return language(lang.value)
    return negotiate(None, (accept_language or "")[:ACCEPT_LANGUAGE_MAX])


PageLang = Annotated[Lang, Depends(page_lang)]


def language_headers(lang: Lang) -> dict[str, str]:
    """The headers of an answer in ``lang`` (declared as ``headers.LANGUAGE``)."""
    return {"Content-Language": lang.code, "Vary": "Accept-Language"}
