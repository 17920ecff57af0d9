"""Alembic environment and versions: the only way prefscore's schema is made."""
