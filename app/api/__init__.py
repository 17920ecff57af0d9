"""The HTTP layer: routers, pydantic schemas, problem+json, auth, ETags."""

from .app import create_app

__all__ = ["create_app"]
