"""The ``prefscore`` command (pyproject.toml's console script ``app.cli:main``): the server's
commands (app/cli/main.py) and the API client's (app/cli/client/)."""

from app.cli.main import main

__all__ = ["main"]
