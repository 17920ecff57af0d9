"""What the renderer needs of a language: its words and its way of writing numbers. The
app's ``Lang`` (app/kit/i18n) is one; the renderer is handed it and imports nothing of the
app's languages, so that it stays a pure function of the engine's objects and a language."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Protocol


class Language(Protocol):
    @property
    def code(self) -> str: ...
    @property
    def locale(self) -> Any: ...  # a babel Locale: the language's number symbols

    def _(self, msgid: str, **params: object) -> str: ...

    def ngettext(self, singular: str, plural: str, count: int, **params: object) -> str: ...

    def number(self, value: int | Fraction, digits: int | None = None) -> str: ...
