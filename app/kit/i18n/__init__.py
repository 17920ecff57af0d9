"""The languages of what people read: the picture, the pages and the client's output.

Words come from gettext catalogues (``locales/<code>/LC_MESSAGES/messages.po``), read with
Babel when a language is first used; the msgid is the English text, so the English
catalogue may leave a ``msgstr`` empty. Numbers, dates and times are formatted by Babel in
the language's own way (``−6,66`` and 24-hour times in Russian, ``−6.66`` in English).

Pure: no web framework and no database here; the HTTP layer chooses the language
(``app/kit/lang.py``), the renderer and the client are handed a ``Lang``.

Adding words: write them as ``lang._("…")``, ``lang.ngettext(…)`` or ``N_("…")`` (a msgid
that is translated later, e.g. a page's word list), run ``scripts/update-catalogues`` and
fill in the Russian ``msgstr``; ``tests/i18n`` fails on a word missing from a catalogue.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, time
from datetime import datetime as _datetime
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from fractions import Fraction
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable

from babel import Locale
from babel.dates import format_date, format_datetime, format_time
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal
from babel.support import Translations

from app.kit.limits import ACCEPT_LANGUAGE_ITEMS
from app.rules.sentences import Sentence

LANGUAGES: tuple[str, ...] = ("ru", "en")
DEFAULT_LANGUAGE = "ru"
DOMAIN = "messages"
MINUS = "\u2212"  # the typographic minus: a balance of −6 is not a hyphenated word


def N_(msgid: str) -> str:
    """Marks a msgid for the catalogues without translating it here."""
    return msgid


def _po_path(code: str) -> Traversable:
    return resources.files(__package__).joinpath("locales", code, "LC_MESSAGES", f"{DOMAIN}.po")


def load_catalog(code: str) -> Catalog:
    """The catalogue of a language as Babel reads it (the .po file, msgids and msgstrs)."""
    with _po_path(code).open("rb") as po:
        return read_po(po, locale=code, domain=DOMAIN)


def _translations(code: str) -> Translations:
    compiled = io.BytesIO()
    write_mo(compiled, load_catalog(code))
    compiled.seek(0)
    return Translations(compiled, domain=DOMAIN)


@dataclass(frozen=True, eq=False)
class Lang:
    """One language: its words, and numbers and dates written its way."""

    code: str
    locale: Locale
    translations: Translations

    def _(self, msgid: str, **params: object) -> str:
        text = self.translations.gettext(msgid)
        return text.format(**params) if params else text

    def ngettext(self, singular: str, plural: str, count: int, **params: object) -> str:
        """The form for ``count`` (Russian has three); ``{n}`` in it is the count."""
        params.setdefault("n", count)
        return self.translations.ngettext(singular, plural, count).format(**params)

    def sentence(self, text: str) -> str:
        """A refusal's sentence in this language: a ``Sentence`` by its template, with its
        parameters (those that are sentences translated too, the rest written as they are);
        a plain string by itself as msgid; anything the catalogue lacks left as it is."""
        if not text:
            return text  # the empty msgid is the catalogue's header
        if not isinstance(text, Sentence):
            return self.translations.gettext(text)
        template = self.translations.gettext(text.msgid) if text.msgid else text.msgid
        if not text.params:
            return template
        params = {k: self.sentence(v) if isinstance(v, Sentence) else v for k, v in text.params.items()}
        try:
            return template.format(**params)
        except (KeyError, IndexError, ValueError):
            return str(text)  # a translation that does not fit its template: the English

    def words(self, msgids: Iterable[str]) -> dict[str, str]:
        """Translations of several msgids, for a page's script (JSON)."""
        return {msgid: self._(msgid) for msgid in msgids}

    def number(self, value: int | Fraction | Decimal | str, digits: int | None = None) -> str:
        """A number written the language's way, exactly: ``digits`` decimals (rounded half to
        even from the exact value), or none for a whole number and 2 otherwise when not
        given. Never a float."""
        exact = _decimal(value)
        if digits is None:
            digits = 0 if exact == exact.to_integral_value() else 2
        quantum = Decimal(1).scaleb(-digits)
        exact = exact.quantize(quantum, rounding=ROUND_HALF_EVEN)
        pattern = "#,##0" + ("." + "0" * digits if digits else "")
        text = format_decimal(abs(exact), format=pattern, locale=self.locale)
        return (MINUS + text) if exact < 0 else text

    # (the module's datetime: this class's own names shadow it below)
    def datetime(self, moment: _datetime) -> str:
        return format_datetime(moment, "medium", locale=self.locale)

    def date(self, day: date | _datetime) -> str:
        return format_date(day, "medium", locale=self.locale)

    def time(self, moment: time | _datetime) -> str:
        return format_time(moment, "short", locale=self.locale)


def _decimal(value: int | Fraction | Decimal | str) -> Decimal:
    if isinstance(value, float):
        raise TypeError("a float is never a score: pass an int, Fraction, Decimal or exact string")
    if isinstance(value, Decimal):
        return value
    if isinstance(value, int):
        return Decimal(value)
    fraction = Fraction(value)
    with localcontext() as ctx:
        ctx.prec = 50
        return Decimal(fraction.numerator) / Decimal(fraction.denominator)


@cache
def language(code: str) -> Lang:
    """The language of this code (``ru``, ``en``, ``en-GB``…); the default when unknown."""
    base = code.replace("_", "-").split("-", 1)[0].strip().lower() if code else ""
    if base not in LANGUAGES:
        base = DEFAULT_LANGUAGE
    return Lang(code=base, locale=Locale.parse(base), translations=_translations(base))


def _preferences(header: str) -> list[str]:
    """The languages of an Accept-Language header, most wanted first (q=0 dropped)."""
    ranked: list[tuple[float, int, str]] = []
    for i, item in enumerate(header.split(",")[:ACCEPT_LANGUAGE_ITEMS]):
        tag, _, params = item.strip().partition(";")
        q = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)  # a preference weight, not a score
                except ValueError:
                    q = 0.0
        if tag and q > 0:
            ranked.append((-q, i, tag.strip()))
    return [tag for _, _, tag in sorted(ranked)]


def negotiate(
    query: str | None = None, accept_language: str | None = None, default: str = DEFAULT_LANGUAGE
) -> Lang:
    """The language asked for: ``?lang=`` first, then the best of Accept-Language that we
    have, then ``default`` (Russian, the game's own language, unless told)."""
    if query:
        return language(query)
    for tag in _preferences(accept_language or ""):
        base = tag.replace("_", "-").split("-", 1)[0].lower()
        if base in LANGUAGES:
            return language(base)
        if tag == "*":
            break
    return language(default)


__all__ = ["DEFAULT_LANGUAGE", "LANGUAGES", "Lang", "N_", "language", "load_catalog", "negotiate"]
