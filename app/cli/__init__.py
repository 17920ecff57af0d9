"""The command line: the server's commands (``main``) and the click client (``client``)."""

from app.cli.main import main

__all__ = ["main"]
