"""Tournaments: rounds of many tables, a fair seating draw, standings across rounds."""
