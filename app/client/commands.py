"""Client commands (``prefscore table ...``, ``prefscore deal ...``): owned by the client work.

``register`` is called by app.cli with the ``prefscore`` click group."""

from __future__ import annotations

import click


def register(group: click.Group) -> None:
    """Add the client commands to ``group``. Nothing yet."""

