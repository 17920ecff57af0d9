"""The language of the client's output: ``--lang ru|en`` on any command, else the environment:
``PREFSCORE_LANG``, then the locale (``LC_ALL``, ``LC_MESSAGES``, ``LANG``, as gettext reads
them: ``en_GB.UTF-8`` is English). A locale that names no language (``C``, ``POSIX``) is
passed over; a language the client does not have, and no choice at all, is Russian (the
game's own language, as on the pages)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

import click

from app.kit.i18n import DEFAULT_LANGUAGE, LANGUAGES, Lang, language

ENVIRONMENT = ("PREFSCORE_LANG", "LC_ALL", "LC_MESSAGES", "LANG")
_META = "prefscore.lang"  # the --lang of the running command, in click's context


def from_environment(environ: Mapping[str, str] | None = None) -> Lang:
    environ = os.environ if environ is None else environ
    for name in ENVIRONMENT:
        value = (environ.get(name) or "").strip()
        base = value.split(".", 1)[0].split("@", 1)[0]  # ru_RU.UTF-8, sr_RS@latin
        if base and base not in ("C", "POSIX"):
            return language(base)
    return language(DEFAULT_LANGUAGE)


def current_lang() -> Lang:
    """The language of the running command (``--lang``, else the environment)."""
    ctx = click.get_current_context(silent=True)
    code = ctx.meta.get(_META) if ctx is not None else None
    return language(code) if code else from_environment()


class Failure(click.ClickException):
    """A command that failed: printed on one line in the command's language ("Ошибка: …"
    under --lang ru; click's own prefix is English), exit code 1. The language is taken when
    it is raised: click prints it after the command's context has ended."""

    def __init__(self, message: str):
        super().__init__(message)
        self.lang = current_lang()

    def show(self, file: Any = None) -> None:
        click.echo(self.lang._("Error: {message}", message=self.format_message()), file=file, err=True)


def _remember(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    if value:
        ctx.meta[_META] = value


def lang_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--lang",
        type=click.Choice(LANGUAGES),
        expose_value=False,
        is_eager=True,
        callback=_remember,
        help="the language of the output; default: PREFSCORE_LANG, else LC_ALL / LC_MESSAGES / LANG, else ru",
    )(f)
