"""Client commands of the ``prefscore`` tool, talking to a running service over HTTP (httpx):

    prefscore table create --convention piter --players Anna,Boris,Vera [--pool-target 20] [--option k=v ...]
    prefscore deal add TABLE_ID 7H 1 w2 p0 1:6 2:3 0:1        (notation: app/cli/client/notation.py)
    prefscore sheet TABLE_ID
    prefscore settle TABLE_ID [--stake 0.5]
    prefscore import TABLE_ID deals.json                      (deals posted into a table)
    prefscore import record.json                              (a game record: a new table)
    prefscore table list [--status S] [--convention C] [--player NAME]
    prefscore table show / rename / archive / unarchive / delete TABLE_ID ...
    prefscore table scorer-link TABLE_ID [--list | --revoke LINK_ID] [--public-url URL]   (a phone's page, a QR code)
    prefscore deal list / undo TABLE_ID;  prefscore deal correct TABLE_ID N NOTATION...
    prefscore export TABLE_ID [--format json|csv] [--output FILE]
    prefscore player add NAME [--external-id ID] | player list | player stats PLAYER_ID [--stake 0.5] [--convention piter]

The server is ``--url`` / ``PREFSCORE_URL`` (default http://127.0.0.1:8000), the API key
``--key`` / ``PREFSCORE_KEY``; both, and ``--lang``, before or after the command. A table id
may be given by its beginning; ``--json`` prints the service's answer, ``-q`` ids only. Tables and progress are drawn with rich, in Russian or English
(``--lang``, else the environment: app/cli/client/language.py); the words are in the catalogues
of app/kit/i18n, numbers and dates are written the language's way.

One module per command group: tables.py, deals.py, sheet.py (sheet, settle), records.py
(import, export), players.py; connection.py talks to the service (and prints tables whole),
printing.py draws the terminal tables, scorer_link.py finds the phone's address and draws the
QR code.
"""

from __future__ import annotations

import click

from app.cli.client.deals import deal_group
from app.cli.client.players import player_group
from app.cli.client.records import export_command, import_command
from app.cli.client.sheet import settle_command, sheet_command
from app.cli.client.tables import table_group


def register(group: click.Group) -> None:
    """Add the client commands to the ``prefscore`` group."""
    group.add_command(table_group)
    group.add_command(deal_group)
    group.add_command(sheet_command)
    group.add_command(settle_command)
    group.add_command(import_command)
    group.add_command(export_command)
    group.add_command(player_group)
