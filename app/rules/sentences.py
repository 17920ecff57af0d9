"""A refusal's sentence that can still be translated: ``Sentence("seat {seat} deals now",
seat=2)`` *is* the English text ("seat 2 deals now": equal to it, in JSON and logs alike) and
keeps the template (``msgid``) and the ``params`` it was made from, so that the HTTP boundary
can word it in the language asked for (app/kit/problems.py). Pure: no catalogue here, the
engine only says what it refuses.

A parameter that is itself a ``Sentence`` is translated too; any other parameter (a seat
number, a field's name, a list of the game's codes) is written as it is.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class Sentence(str):
    """An English sentence that remembers its template and parameters."""

    msgid: str
    params: dict[str, Any]

    def __new__(cls, msgid: str, /, **params: Any) -> Sentence:
        text = msgid.format(**params) if params else msgid
        made = super().__new__(cls, text)
        made.msgid = msgid
        made.params = params
        return made

    def __reduce__(
        self,
    ) -> tuple[Any, tuple[str, dict[str, Any]]]:  # a copy (pickle, deepcopy) keeps the template
        return (_remade, (self.msgid, self.params))


def _remade(msgid: str, params: dict[str, Any]) -> Sentence:
    return Sentence(msgid, **params)


def sentence(text: str) -> Sentence:
    """``text`` as a Sentence (a plain string is its own msgid)."""
    return text if isinstance(text, Sentence) else Sentence(text)


def joined(separator: str, parts: Iterable[str]) -> Sentence:
    """Several sentences as one ("a; b"), each translated on its own."""
    params = {f"p{i}": sentence(part) for i, part in enumerate(parts)}
    template = separator.replace("{", "{{").replace("}", "}}").join("{" + name + "}" for name in params)
    return Sentence(template, **params)


def said(exc: BaseException) -> str:
    """The sentence ``exc`` was raised with, its template kept (``str(exc)`` loses it)."""
    first = exc.args[0] if len(exc.args) == 1 else None
    return first if isinstance(first, Sentence) else str(exc)
