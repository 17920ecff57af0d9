"""The language of an answer people read (a picture, a page): ``?lang=`` when given, else
the best of ``Accept-Language``, else Russian. Such answers say which language they are in
(``Content-Language``) and that they depend on the header (``Vary``), so a cache keeps one
copy per language."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Annotated

from fastapi import Depends, Header, Query

from app.kit.i18n import LANGUAGES, Lang, language, negotiate
from app.kit.limits import ACCEPT_LANGUAGE_MAX

Language = StrEnum("Language", {code: code for code in LANGUAGES})  # type: ignore[misc]


def page_lang(
    lang: Annotated[
        Language | None,
        Query(description="the language of the words: ru (the default) or en; else Accept-Language"),
    ] = None,
    accept_language: Annotated[str | None, Header(alias="Accept-Language", include_in_schema=False)] = None,
) -> Lang:
    if lang is not None:
        return language(lang.value)
    return negotiate(None, (accept_language or "")[:ACCEPT_LANGUAGE_MAX])


PageLang = Annotated[Lang, Depends(page_lang)]


def language_headers(lang: Lang, headers: Mapping[str, str] | None = None) -> dict[str, str]:
    """``headers`` (none: a new set) with those of an answer in ``lang`` (declared as
    ``headers.LANGUAGE``): its Content-Language, and Accept-Language added to its Vary."""
    out = dict(headers or {})
    vary_key = next((k for k in out if k.lower() == "vary"), "Vary")
    vary = [v.strip() for v in out.get(vary_key, "").split(",") if v.strip()]
    if not any(v.lower() in ("accept-language", "*") for v in vary):
        vary.append("Accept-Language")
    out[vary_key] = ", ".join(vary)
    out["Content-Language"] = lang.code
    return out
