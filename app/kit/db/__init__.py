"""Persistence: the engine and sessions per dialect (a domain's tables are in its ``orm.py``,
on the declarative base of ``app.kit.db.models``)."""

from app.kit.db.engine import Database, make_database
from app.kit.db.models import Base

__all__ = ["Base", "Database", "make_database"]
