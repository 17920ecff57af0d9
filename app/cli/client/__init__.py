"""The command-line client of the API (owned by the client work)."""
